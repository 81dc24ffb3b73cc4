"""Ordered command-line options where a flag set again replaces its earlier value, and where
each option remembers who set it.

The later setting wins and takes the later position, so a command reads in the order its
layers were applied (base, strategy, overrides, features) and every flag appears once.
Identity: `--no-foo` ~ `--foo`; `_` ~ `-` before the first dot (`--a_b.c` ~ `--a-b.c`); vLLM's
short aliases are their long flags (`-tp` ~ `--tensor-parallel-size`, `-cc.x` ~
`--compilation-config.x`). A token is a flag when it starts with `--`, or with `-` and a letter.

A JSON value that arrives as a mapping (a recipe wrote it as YAML) is merged key by key into
the value the flag already has (a mapping, or a JSON object string): nested mappings merge, a
`None` removes its key, anything else replaces; a merged object lists its keys in sorted order
(so the result does not depend on which layer named a key first). A value that arrives as a
string replaces.

Every option carries its *origin* (which file, YAML path and layer set it) and the origins and
values it replaced: `sources()` lists them in command order.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .types import OptionSource, Origin

__all__ = [
    "MAX_JSON_DEPTH", "SHORT_FLAGS", "ArgList", "Option", "is_flag", "json_text", "loads_json",
    "merge_json", "option_key", "split_options", "tokens_text",
]

MAX_JSON_DEPTH = 32
"""The deepest JSON value read from a command line (vLLM's configs nest 3 levels); deeper
text is not JSON here (`json.loads` would recurse past Python's limit)."""


def loads_json(text: str) -> Any:
    """`json.loads(text)`; ValueError also when it nests deeper than MAX_JSON_DEPTH."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                raise ValueError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        elif char in "]}":
            depth -= 1
    return json.loads(text)

SHORT_FLAGS = {
    "-ac": "--attention-config",
    "-asc": "--api-server-count",
    "-cc": "--compilation-config",
    "-dc": "--diffusion-config",
    "-dcp": "--decode-context-parallel-size",
    "-dp": "--data-parallel-size",
    "-dpa": "--data-parallel-address",
    "-dpb": "--data-parallel-backend",
    "-dpe": "--data-parallel-external-lb",
    "-dph": "--data-parallel-hybrid-lb",
    "-dpl": "--data-parallel-size-local",
    "-dpm": "--data-parallel-multi-port-external-lb",
    "-dpn": "--data-parallel-rank",
    "-dpp": "--data-parallel-rpc-port",
    "-dpr": "--data-parallel-start-rank",
    "-ep": "--enable-expert-parallel",
    "-n": "--nnodes",
    "-pcp": "--prefill-context-parallel-size",
    "-pp": "--pipeline-parallel-size",
    "-q": "--quantization",
    "-r": "--node-rank",
    "-sc": "--speculative-config",
    "-tp": "--tensor-parallel-size",
}
"""vLLM 0.33.0's short options and the long option each one is (tests check the table)."""

Token = Any
"""A command-line token as recipes give it: a string, or a JSON value (dict/list)."""


def is_flag(token: object) -> bool:
    return isinstance(token, str) and token[:1] == "-" and (
        token[1:2] == "-" or token[1:2].isalpha())


def option_key(flag: str) -> str:
    """The identity of an option (see the module docstring)."""
    name = flag.split("=", 1)[0]
    head, dot, tail = name.partition(".")
    if not head.startswith("--"):
        head = SHORT_FLAGS.get(head, head)
    head = head.replace("_", "-")
    if head.startswith("--no-"):
        head = "--" + head[5:]
    elif head == "--disable-expert-parallel":
        head = "--enable-expert-parallel"
    return head + dot + tail


def json_text(value: Token) -> str:
    """A token as it goes on the command line: JSON values compact, strings as they are."""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):  # (a tuple: faster than the union form)
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return str(value)


def tokens_text(tokens: Iterable[Token]) -> list[str]:
    return [json_text(token) for token in tokens]


def split_options(tokens: Iterable[Token]) -> list[tuple[Token, ...]]:
    """Group tokens as options: a flag with the value tokens that follow it."""
    groups: list[list[Token]] = []
    for token in tokens:
        if not groups or is_flag(token):
            groups.append([token])
        else:
            groups[-1].append(token)
    return [tuple(group) for group in groups]


def merge_json(base: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """`update` merged into `base` (see the module docstring); neither is modified."""
    merged = dict(base)
    for key, value in update.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_json(merged[key], value)
        else:
            merged[key] = value
    return dict(sorted(merged.items()))


def _as_object(value: Token) -> dict[str, Any] | None:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.startswith("{"):
        try:
            parsed = loads_json(value)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None
    return None


@dataclass
class Option:
    tokens: tuple[Token, ...]
    origin: Origin
    replaced: list[tuple[tuple[Token, ...], Origin, bool]] = field(default_factory=list)
    """Earlier settings of the option: (tokens, origin, merged into this one)."""


class ArgList:
    def __init__(self) -> None:
        self._options: dict[str, Option] = {}

    def extend(self, tokens: Iterable[Token], origin: Origin) -> None:
        for option in split_options(tokens):
            key = option_key(option[0])
            old = self._options.pop(key, None)
            new = Option(option, origin)
            if old is not None:
                merged = False
                if len(option) == 2 and isinstance(option[1], dict) and len(old.tokens) == 2:
                    base = _as_object(old.tokens[1])
                    if base is not None:
                        new.tokens = (option[0], merge_json(base, option[1]))
                        merged = True
                new.replaced = [*old.replaced, (old.tokens, old.origin, merged)]
            self._options[key] = new

    def set(self, origin: Origin, flag: str, *values: Token) -> None:
        self.extend([flag, *values], origin)

    def remove(self, flag: str) -> None:
        self._options.pop(option_key(flag), None)

    def get(self, flag: str) -> tuple[str, ...] | None:
        option = self._options.get(option_key(flag))
        return tuple(tokens_text(option.tokens[1:])) if option is not None else None

    def __contains__(self, flag: str) -> bool:
        return option_key(flag) in self._options

    def __iter__(self) -> Iterator[Option]:
        return iter(self._options.values())

    def copy(self) -> ArgList:
        other = ArgList()
        other._options = {key: Option(o.tokens, o.origin, list(o.replaced))
                          for key, o in self._options.items()}
        return other

    def tokens(self) -> list[str]:
        return [json_text(token) for option in self._options.values() for token in option.tokens]

    def sources(self) -> list[OptionSource]:
        """Who set each option, in command order (see `types.OptionSource`)."""
        return [
            {
                "option": tokens_text(option.tokens),
                **option.origin,
                "replaced": [
                    {"option": tokens_text(tokens), **origin, "merged": merged}
                    for tokens, origin, merged in option.replaced
                ],
            }
            for option in self._options.values()
        ]
