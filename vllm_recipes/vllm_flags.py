"""The options the checked vLLM release's `vllm serve` accepts, and a check of command lines.

`data/vllm-<VLLM_VERSION>-serve-flags.json` is written by `make flags` from vLLM's own argument
parser (tests/vllm_parser/check_argv.py, in the parser environment; a test fails when it is
stale): every option string, whether it takes a value (`nargs`), its
`choices` and, for JSON-valued options, the allowed top-level keys (`json_keys`). vLLM reads
`_` and `-` in an option name alike; dotted forms (`--attention_config.indexer_kv_dtype`,
`-cc.pass_config.fuse_rope_kvcache=True`) set one key of a JSON-valued option.

The file also says what each value must be (`flag_types.py` reads it from vLLM's source, the
parser environment's vLLM package, right after the parser's list in `make flags`, and
documents the keys): its type (`value_type`: int, float, str, json, bool), the range vLLM's
config enforces (`minimum`, `exclusive_minimum`, ...), the values a config validator accepts
(`known_values`), and for JSON options the same per key (`json_key_types`). So `check` refuses
`--max-model-len: abc`, `--max-num-seqs: -5`, `--gpu-memory-utilization: 7.5`,
`--kv-cache-dtype: 'a&&b'` and `{num_speculative_tokens: -1}` without vLLM installed.

`check_tokens` checks a recipe's token list (JSON values may be mappings); `check_serve_argv`
checks a whole `vllm serve MODEL ...` argv, and also refuses an option given twice.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from builder.arglist import is_flag, json_text, loads_json
from builder.errors import cut, quoted
from builder.vllm_release import VLLM_VERSION

__all__ = ["VLLM_VERSION", "check_serve_argv", "check_tokens", "lookup", "omni_flags",
           "serve_flags", "value_problem"]

FLAGS_FILE = Path(__file__).resolve().parent / "data" / f"vllm-{VLLM_VERSION}-serve-flags.json"


OMNI_FLAGS_FILE = Path(__file__).resolve().parent / "data" / "vllm-omni-serve-flags.json"
"""The options vLLM-Omni's `vllm serve --omni` parser adds to vLLM's, each with the file that
defines it; written by `make flags` from that parser."""


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
            value = loads_json(value)
        except ValueError:
            return f"{option}: value is not JSON: {value!r}"
    if not isinstance(value, dict):
        return f"{option}: JSON value must be an object"
    unknown = sorted(set(value) - set(keys))
    return f"{option}: unknown JSON keys {unknown}" if unknown else None


LAX_BOOLEANS = frozenset({"true", "false", "t", "f", "yes", "no", "y", "n", "on", "off", "1",
                          "0"})
"""Text pydantic reads as a boolean (lax mode)."""
_INT = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")
_HUMAN_INT = re.compile(r"\d+(\.\d+)?[kmgt]|\d+[KMGT]")
_BOUNDS: tuple[tuple[str, Any, str], ...] = (
    ("minimum", lambda v, b: v < b, "is less than {b}, the least vLLM accepts"),
    ("exclusive_minimum", lambda v, b: v <= b, "is not more than {b}; vLLM needs more"),
    ("maximum", lambda v, b: v > b, "is more than {b}, the most vLLM accepts"),
    ("exclusive_maximum", lambda v, b: v >= b, "is not less than {b}; vLLM needs less"),
)
"""Range keys of an option's spec: (key, fails(value, bound), what the message says)."""


def _number(text: str, spec: dict[str, Any]) -> tuple[float | None, str | None]:
    """(the number `text` reads as, or None; the problem, or None) for an int or float option,
    as vLLM's parser converts it (`human_readable_int`, `auto`)."""
    kind = spec["value_type"]
    if kind == "int":
        if spec.get("auto") and text.strip().lower() == "auto":
            return -1, None
        if _INT.fullmatch(text.strip()):
            return int(text), None
        if spec.get("human_readable") and _HUMAN_INT.fullmatch(text.strip()):
            return None, None  # 1k, 2M: a positive count
        return None, "is not a whole number"
    try:
        value = float(text)
    except ValueError:
        return None, "is not a number"
    return (None, "is not a number") if value != value else (value, None)


def value_problem(spec: dict[str, Any], value: Any, *, lax: bool = False) -> str | None:
    """Why vLLM refuses `value` for an option of this spec, or None: its type (`value_type`),
    range and `known_values` (`flag_types.py` reads them from vLLM's source). `value` is the
    text given, or a JSON value. `lax`: a key of a JSON option, which pydantic reads (a number
    or a boolean may be written as text, `1k` is 1000)."""
    kind = spec.get("value_type")
    if kind is None or (spec.get("nullable") and value in (None, "None", "")):
        return None
    if kind == "json":
        if isinstance(value, str) and not spec.get("text_allowed"):
            try:
                loads_json(value)
            except ValueError:
                return f"{_shown(value)} is not JSON"
        return None
    if kind == "str":
        known = spec.get("known_values")
        text = value if isinstance(value, str) else json_text(value)
        if known and text not in known:
            return f"{_shown(value)} is not one of vLLM's values ({', '.join(known)})"
        return None
    if kind == "bool":
        if isinstance(value, bool) or (lax and (value in (0, 1) or (
                isinstance(value, str) and value.lower() in LAX_BOOLEANS))):
            return None
        return f"{_shown(value)} is not true or false"
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return f"{_shown(value)} is not a number"
    if isinstance(value, float) and kind == "int" and not value.is_integer():
        return f"{_shown(value)} is not a whole number"
    if isinstance(value, str):
        number, problem = _number(value, {**spec, "human_readable": lax or spec.get(
            "human_readable")})
        if problem:
            return f"{_shown(value)} {problem}"
    else:
        number = value
    for key, fails, words in _BOUNDS:
        bound = spec.get(key)
        if number is not None and bound is not None and fails(number, bound):
            return f"{_shown(value)} {words.format(b=bound)}"
    return None


def _shown(value: Any) -> str:
    """A value in a message: a number as written, other text quoted, JSON as JSON."""
    if isinstance(value, str):
        return value if _NUMBER.fullmatch(value) else quoted(value)
    return cut(json.dumps(value))


def _json_values_problem(option: str, spec: dict[str, Any], value: Any) -> str | None:
    """The first JSON key of a JSON option's object whose value vLLM's config refuses."""
    types = spec.get("json_key_types")
    if not types:
        return None
    if isinstance(value, str):
        try:
            value = loads_json(value)
        except ValueError:
            return None  # reported as not JSON
    if not isinstance(value, dict):
        return None
    for key, item in value.items():
        problem = value_problem(types[key], item, lax=True) if key in types else None
        if problem:
            return f"{option}: {key}: {problem}"
    return None


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
            key_spec = spec.get("json_key_types", {}).get(json_key)
            if key_spec is not None and "." not in option.split(".", 1)[1]:
                given = inline if eq else (tokens[i] if i < len(tokens) else None)
                if isinstance(given, str):
                    try:
                        parsed: Any = loads_json(given)
                    except ValueError:
                        parsed = given
                    problem = value_problem(key_spec, parsed, lax=True)
                    if problem:
                        problems.append((start, f"{option}: {problem}"))
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
            problem = _json_problem(option, spec, values[0]) or _json_values_problem(
                option, spec, values[0])
            typed = next((p for v in values if (p := value_problem(spec, v))), None)
            if problem:
                problems.append((start, problem))
            elif typed and not choices:
                problems.append((start, f"{option}: {typed}"))
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
