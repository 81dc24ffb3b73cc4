"""The vLLM 0.33.0 `vllm serve` flag check used by every test that renders commands.

`../shared/vllm/serve_flags.json` was read from vLLM's own parser (see its README): every option
string it accepts, whether it takes a value, its choices and, for JSON-valued options, the
allowed top-level keys. Dotted forms (`--attention_config.indexer_kv_dtype`) name a key of a
JSON-valued option.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["check_serve_argv", "serve_flags"]

# A copy of ../shared/vllm/serve_flags.json, kept here so a clean clone tests on its own.
FLAGS_FILE = Path(__file__).resolve().parent / "data" / "vllm-0.33.0-serve-flags.json"


@cache
def serve_flags() -> dict[str, dict[str, Any]]:
    return json.loads(FLAGS_FILE.read_text(encoding="utf-8"))


def _lookup(option: str) -> tuple[dict[str, Any] | None, str | None]:
    """The spec of `option` and, for a dotted form, the JSON key it names."""
    flags = serve_flags()
    if option in flags:
        return flags[option], None
    head, dot, key = option.partition(".")
    if dot:
        base = head.replace("_", "-")
        if base in flags:
            return flags[base], key.split(".")[0]
    return None, None


def _check_json(option: str, spec: dict[str, Any], value: str) -> list[str]:
    keys = spec.get("json_keys")
    if not keys:
        return []
    try:
        data = json.loads(value)
    except ValueError:
        return [f"{option}: value is not JSON: {value!r}"]
    if not isinstance(data, dict):
        return [f"{option}: JSON value must be an object"]
    unknown = sorted(set(data) - set(keys))
    return [f"{option}: unknown JSON keys {unknown}"] if unknown else []


def check_serve_argv(argv: list[str]) -> list[str]:
    """Problems with a `vllm serve MODEL ...` argv; an empty list means vLLM 0.33.0 accepts it."""
    if argv[:2] != ["vllm", "serve"] or len(argv) < 3 or argv[2].startswith("-"):
        return [f"not a `vllm serve MODEL` command: {argv[:3]}"]
    problems: list[str] = []
    seen: dict[str, str] = {}
    i = 3
    while i < len(argv):
        token = argv[i]
        i += 1
        if not token.startswith("-"):
            problems.append(f"stray value {token!r} (no option before it)")
            continue
        option, eq, inline = token.partition("=")
        spec, json_key = _lookup(option)
        if spec is None:
            problems.append(f"{option}: not a vllm serve option in vLLM 0.33.0")
            continue
        identity = spec["dest"] + ("." + json_key if json_key else "")
        if identity in seen:
            problems.append(f"{option}: given twice (also as {seen[identity]})")
        seen[identity] = option
        if json_key is not None:
            keys = spec.get("json_keys")
            if not spec.get("takes_value"):
                problems.append(f"{option}: dotted form of an option that takes no value")
            elif keys and json_key not in keys:
                problems.append(f"{option}: {json_key!r} is not a key of {option.split('.')[0]}")
        if not spec.get("takes_value"):
            if eq:
                problems.append(f"{option}: takes no value but got {inline!r}")
            continue
        values: list[str] = []
        if eq:
            values.append(inline)
        while i < len(argv) and not argv[i].startswith("--") and (
            not values or spec.get("nargs") in ("+", "*")
        ):
            values.append(argv[i])
            i += 1
        if not values:
            problems.append(f"{option}: needs a value")
            continue
        choices = spec.get("choices")
        if choices and any(v not in choices for v in values):
            problems.append(f"{option}: {values} not among {choices}")
        if json_key is None:
            problems += _check_json(option, spec, values[0])
    return problems
