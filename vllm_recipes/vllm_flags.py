"""The options vLLM 0.33.0's `vllm serve` accepts, and a check of command lines against them.

`data/vllm-0.33.0-serve-flags.json` is a copy of `../shared/vllm/serve_flags.json`, read from
vLLM's own argument parser: every option string, whether it takes a value (`nargs`), its
`choices` and, for JSON-valued options, the allowed top-level keys (`json_keys`). vLLM reads
`_` and `-` in an option name alike; dotted forms (`--attention_config.indexer_kv_dtype`,
`-cc.pass_config.fuse_rope_kvcache=True`) set one key of a JSON-valued option.

`check_tokens` checks a recipe's token list (JSON values may be mappings); `check_serve_argv`
checks a whole `vllm serve MODEL ...` argv, and also refuses an option given twice.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from builder.arglist import is_flag

__all__ = ["VLLM_VERSION", "check_serve_argv", "check_tokens", "lookup", "omni_flags",
           "serve_flags"]

VLLM_VERSION = "0.33.0"
FLAGS_FILE = Path(__file__).resolve().parent / "data" / f"vllm-{VLLM_VERSION}-serve-flags.json"


OMNI_FLAGS_FILE = Path(__file__).resolve().parent / "data" / "vllm-omni-serve-flags.json"
"""The vLLM-Omni serve options recipes use, each with where vLLM-Omni documents it (vLLM-Omni's
parser is not vLLM's, so these are listed by hand, with their source)."""


@cache
def serve_flags() -> dict[str, dict[str, Any]]:
    flags: dict[str, dict[str, Any]] = json.loads(FLAGS_FILE.read_text(encoding="utf-8"))
    return flags


@cache
def omni_flags() -> dict[str, dict[str, Any]]:
    """vLLM's options and vLLM-Omni's: what `vllm serve --omni` accepts."""
    listed = json.loads(OMNI_FLAGS_FILE.read_text(encoding="utf-8"))["options"]
    return {**serve_flags(), **listed}


def lookup(option: str, omni: bool = False) -> tuple[dict[str, Any] | None, str | None]:
    """The spec of `option` (`_` and `-` alike) and, for a dotted form, the JSON key it names."""
    flags = omni_flags() if omni else serve_flags()
    name = option.split("=", 1)[0]
    head, dot, key = name.partition(".")
    spelled = head if not head.startswith("--") else "--" + head[2:].replace("_", "-")
    spec = flags.get(spelled)
    if spec is None:
        return None, None
    return spec, (key.split(".")[0] if dot else None)


def _json_problem(option: str, spec: dict[str, Any], value: Any) -> str | None:
    keys = spec.get("json_keys")
    if not keys:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return f"{option}: value is not JSON: {value!r}"
    if not isinstance(value, dict):
        return f"{option}: JSON value must be an object"
    unknown = sorted(set(value) - set(keys))
    return f"{option}: unknown JSON keys {unknown}" if unknown else None


def check_tokens(tokens: list[Any], omni: bool = False) -> list[tuple[int, str]]:
    """(index of the token to blame, problem) for a list of options and their values
    (`omni`: a vLLM-Omni command, which also takes vLLM-Omni's options)."""
    problems: list[tuple[int, str]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        start = i
        i += 1
        if not is_flag(token):
            problems.append((start, f"stray value {token!r} (no option before it)"))
            continue
        option, eq, inline = token.partition("=")
        spec, json_key = lookup(option, omni)
        if spec is None:
            where = (f"vLLM {VLLM_VERSION} or the vLLM-Omni options listed in "
                     f"{OMNI_FLAGS_FILE.name}" if omni else f"vLLM {VLLM_VERSION}")
            problems.append((start, f"{option}: not a vllm serve option in {where}"))
            while i < len(tokens) and not is_flag(tokens[i]):
                i += 1
            continue
        if json_key is not None:
            keys = spec.get("json_keys")
            if not spec.get("takes_value"):
                problems.append((start, f"{option}: dotted form of an option that takes no value"))
            elif keys and json_key not in keys:
                problems.append((start, f"{option}: {json_key!r} is not a key of "
                                        f"{option.split('.')[0]}"))
        if not spec.get("takes_value"):
            if eq:
                problems.append((start, f"{option}: takes no value but got {inline!r}"))
            continue
        values: list[Any] = [inline] if eq else []
        while i < len(tokens) and not is_flag(tokens[i]) and (
            not values or spec.get("nargs") in ("+", "*")
        ):
            values.append(tokens[i])
            i += 1
        if not values:
            problems.append((start, f"{option}: needs a value"))
            continue
        choices = spec.get("choices")
        if choices and any(str(v) not in choices for v in values):
            problems.append((start, f"{option}: {values} not among {choices}"))
        if json_key is None:
            problem = _json_problem(option, spec, values[0])
            if problem:
                problems.append((start, problem))
    return problems


def check_serve_argv(argv: list[str]) -> list[str]:
    """Problems with a `vllm serve MODEL ...` argv; an empty list means vLLM accepts it."""
    if argv[:2] != ["vllm", "serve"] or len(argv) < 3 or argv[2].startswith("-"):
        return [f"not a `vllm serve MODEL` command: {argv[:3]}"]
    tokens = argv[3:]
    problems = [problem for _, problem in check_tokens(tokens)]
    seen: dict[str, str] = {}
    for token in tokens:
        if not is_flag(token):
            continue
        spec, json_key = lookup(token)
        if spec is None:
            continue
        identity = spec["dest"] + ("." + json_key if json_key else "")
        option = token.split("=", 1)[0]
        if identity in seen:
            problems.append(f"{option}: given twice (also as {seen[identity]})")
        seen[identity] = option
    return problems
