"""An ordered list of command-line options where a flag set again replaces its earlier value.

The later setting wins and takes the later position, so a command reads in the order its
layers were applied (base, strategy, overrides, features) and every flag appears once.
`--no-foo` and `--foo` are the same option; `--a_b.c` and `--a-b.c` too.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ArgList", "option_key", "split_options"]


def option_key(flag: str) -> str:
    """The identity of an option: `--no-x` ~ `--x`, `_` ~ `-` before the first dot."""
    name = flag.split("=", 1)[0]
    head, dot, tail = name.partition(".")
    head = head.replace("_", "-")
    if head.startswith("--no-"):
        head = "--" + head[5:]
    return head + dot + tail


def _is_flag(token: str) -> bool:
    return token.startswith("--") or (len(token) == 2 and token[0] == "-" and token[1].isalpha())


def split_options(tokens: Iterable[str]) -> list[tuple[str, ...]]:
    """Group tokens as options: a flag with the value tokens that follow it."""
    groups: list[list[str]] = []
    for token in tokens:
        if _is_flag(token) or not groups:
            groups.append([token])
        else:
            groups[-1].append(token)
    return [tuple(group) for group in groups]


class ArgList:
    def __init__(self) -> None:
        self._options: dict[str, tuple[str, ...]] = {}

    def extend(self, tokens: Iterable[str]) -> None:
        for option in split_options(tokens):
            key = option_key(option[0])
            self._options.pop(key, None)
            self._options[key] = option

    def set(self, flag: str, *values: str) -> None:
        self.extend([flag, *values])

    def remove(self, flag: str) -> None:
        self._options.pop(option_key(flag), None)

    def get(self, flag: str) -> tuple[str, ...] | None:
        option = self._options.get(option_key(flag))
        return option[1:] if option is not None else None

    def __contains__(self, flag: str) -> bool:
        return option_key(flag) in self._options

    def tokens(self) -> list[str]:
        return [token for option in self._options.values() for token in option]
