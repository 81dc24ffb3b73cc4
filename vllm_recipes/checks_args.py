"""Checks of a recipe's `vllm serve` arguments, wherever it writes them (`base_args`, a
feature's or mode's `args`, every `extra_args`):

- every option is one the checked vLLM release accepts, with a value where it needs one,
  among its choices, and known JSON keys (`vllm_flags.check_tokens`);
- every path-valued option (`--chat-template`, the parser plugins, `--deploy-config`, ...)
  names a file that an install step of each install method the recipe offers provides: a file
  of vLLM's source tree, one of the recipe's `files`, or a `dependencies` step's `provides`;
- no option is given twice in one list (a flag set again replaces its earlier value, in the
  builder's argument lists as in vLLM's parser: one of the two would be dropped unseen);
- `--tool-call-parser` and `--reasoning-parser` name a parser vLLM registers
  (`registered_names` of the flag list, read from the release's source) or one a recipe file
  registers when its plugin option loads it (`files: {...: {registers: ...}}`);
- the parallel sizes (`--tensor-parallel-size`, `--data-parallel-size`,
  `--pipeline-parallel-size`) are not in `model.base_args` or a feature's arguments: the
  strategy sets its own size there and replaces the value, or the value multiplies the GPUs
  the command asks for (a vLLM-Omni recipe, whose strategy sets none, may);
- `--max-model-len` is not above the model's `context_length`, unless the same list scales
  RoPE (`--hf-overrides`), the same layer sets `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` (vLLM's own
  opt-in to a window past the config's, for models trained longer than their config says), or
  the list is a variant's with its own checkpoint.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from builder.arglist import is_flag
from builder.commands.needed_files import path_values, source_tree_file
from builder.hardware_keys import ALL
from builder.vllm_release import VLLM_VERSION

from .check_problems import Problems
from .schema import Recipe
from .vllm_flags import check_tokens, lookup

__all__ = ["PARALLEL_SIZES", "args_fields", "check_context", "check_flags", "check_parsers",
           "check_paths", "check_strategy_sizes", "check_twice", "options"]

PARALLEL_SIZES = ("tensor_parallel_size", "data_parallel_size", "pipeline_parallel_size")
"""The destinations of the sizes a strategy sets (`-tp`, `--data-parallel-size`, ...)."""
PARSER_OPTIONS = {"tool_call_parser": "tool-call", "reasoning_parser": "reasoning"}
"""Destination → what kind of parser it names (the keys of a file's `registers`)."""
_HUMAN = re.compile(r"(\d+(?:\.\d+)?)([kmgt])|(\d+)([KMGT])")


def args_fields(recipe: Recipe) -> Iterator[tuple[tuple[Any, ...], list[Any]]]:
    """(YAML path, tokens) of every `vllm serve` argument list in the recipe."""
    yield ("model", "base_args"), recipe.model.base_args
    for fid, feature in recipe.features.items():
        yield ("features", fid, "args"), feature.args
        for key, ov in feature.hardware_overrides.items():
            yield ("features", fid, "hardware_overrides", key, "args"), ov.args
        for mid, mode in (feature.modes or {}).items():
            yield ("features", fid, "modes", mid, "args"), mode.args
            for key, ov in mode.hardware_overrides.items():
                yield ("features", fid, "modes", mid, "hardware_overrides", key, "args"), ov.args
    for vid, variant in recipe.variants.items():
        yield ("variants", vid, "extra_args"), variant.extra_args
    for path, override in recipe.overrides():
        yield (*path.split("."), "extra_args"), override.extra_args
    for key, settings in recipe.pd.items():
        yield ("pd", key, "extra_args"), settings.extra_args
        for pool in ("prefill", "decode"):
            if getattr(settings, pool) is not None:
                yield ("pd", key, pool, "extra_args"), getattr(settings, pool).extra_args
    for tid, task in (recipe.omni.tasks if recipe.omni else {}).items():
        yield ("omni", "tasks", tid, "extra_args"), task.extra_args
        for key, task_override in task.hardware_overrides.items():
            yield (("omni", "tasks", tid, "hardware_overrides", key, "extra_args"),
                   task_override.extra_args)


def check_flags(recipe: Recipe, problems: Problems) -> None:
    """Every option and value is one the checked vLLM release accepts."""
    for path, tokens in args_fields(recipe):
        for index, problem in check_tokens(list(tokens), omni=recipe.omni is not None):
            problems.add((*path, index), problem)


def check_paths(recipe: Recipe, problems: Problems) -> None:
    """Every path-valued option names a file each offered install method provides (one
    problem per option, for the first method that lacks it)."""
    everywhere = recipe.hardware_overrides.get(ALL)
    toggles = (everywhere.install if everywhere and everywhere.install else None)
    methods = [m for m in ("pip", "docker")
               if toggles is None or getattr(toggles, m, None) is not False]
    for path, tokens in args_fields(recipe):
        words = [t if isinstance(t, str) else str(t) for t in tokens]
        for index, option, value in path_values(words):
            at = index if words[index].startswith(option) else index - 1
            for method in methods:
                if _provided(recipe, value, method):
                    continue
                problems.add((*path, at), f"{option} {value}: no install step of the {method} "
                             "install provides this file (name it in files: with its URL, or in "
                             "the provides: of the dependencies step that makes it)")
                break


def _provided(recipe: Recipe, value: str, method: str) -> bool:
    """A file of vLLM's source tree, of the recipe's `files`, or a step's `provides`."""
    if source_tree_file(value) or value in recipe.files:
        return True
    return any(value in dep.provides and method in dep.install
               for dep in recipe.dependencies)


def options(tokens: list[Any], omni: bool = False
            ) -> Iterator[tuple[int, str, dict[str, Any], str | None, Any]]:
    """(index, option as written, its spec, the JSON key of a dotted form, its first value or
    None) of each option vLLM knows in a token list."""
    for index, token in enumerate(tokens):
        if not isinstance(token, str) or not is_flag(token):
            continue
        spec, key = lookup(token, omni)
        if spec is None:
            continue
        option, eq, inline = token.partition("=")
        value: Any = inline if eq else None
        if not eq and spec.get("takes_value") and index + 1 < len(tokens) and not (
                isinstance(tokens[index + 1], str) and is_flag(tokens[index + 1])):
            value = tokens[index + 1]
        yield index, option, spec, key, value


def check_twice(recipe: Recipe, problems: Problems) -> None:
    """No option is given twice in one list: the later value would replace the earlier one
    without a word."""
    omni = recipe.omni is not None
    for path, tokens in args_fields(recipe):
        seen: dict[str, tuple[int, str]] = {}
        for index, option, spec, key, _ in options(list(tokens), omni):
            identity = spec["dest"] + (f".{key}" if key else "")
            if identity in seen:
                first, written = seen[identity]
                problems.add((*path, index), f"{option}: given twice in this list (also as "
                                             f"{written}, item {first}); a flag set again "
                                             "replaces its earlier value, so one is dropped "
                                             "without a word")
            seen.setdefault(identity, (index, option))


def check_parsers(recipe: Recipe, problems: Problems) -> None:
    """`--tool-call-parser` and `--reasoning-parser` name a parser of the checked vLLM release
    or one a recipe file registers."""
    own: dict[str, set[str]] = {dest: set() for dest in PARSER_OPTIONS}
    for entry in recipe.files.values():
        for kind, names in entry.registers.items():
            own[kind] |= set(names)
    omni = recipe.omni is not None
    for path, tokens in args_fields(recipe):
        for index, option, spec, _, value in options(list(tokens), omni):
            known: list[str] = spec.get("registered_names") or []
            if spec["dest"] not in PARSER_OPTIONS or not known or not isinstance(value, str):
                continue
            if value in known or value in own[spec["dest"]]:
                continue
            problems.add((*path, index), (
                f"{option} {value!r}: not a {PARSER_OPTIONS[spec['dest']]} parser of vLLM "
                f"{VLLM_VERSION} ({', '.join(known)}) nor one a file of the recipe registers "
                "(files: NAME: registers:)"))


def check_strategy_sizes(recipe: Recipe, problems: Problems) -> None:
    """No parallel size in `model.base_args` or a feature's arguments (see the module
    docstring); a vLLM-Omni recipe's strategy sets none, so its sizes are its own."""
    if recipe.omni is not None:
        return
    for path, tokens in args_fields(recipe):
        if path[0] not in ("model", "features"):
            continue
        for index, option, spec, _, _ in options(list(tokens)):
            if spec["dest"] in PARALLEL_SIZES:
                problems.add((*path, index), (
                    f"{option}: the strategy sets the parallel size (here it would replace "
                    "this value, or this value would multiply the GPUs the command asks for); "
                    "set `parallel_size` in a hardware_overrides or strategy_overrides entry, "
                    "or the variant's `tp`"))


def _tokens_count(text: str) -> int | None:
    """A `--max-model-len` value as vLLM reads it (`1k` = 1000, `1K` = 1024); None for `auto`,
    -1 or text that is not a count (the flag checks report that)."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    match = _HUMAN.fullmatch(text)
    if match is None:
        return None
    if match.group(1):
        return int(float(match.group(1)) * 1000 ** ("kmgt".index(match.group(2)) + 1))
    return int(match.group(3)) * 1024 ** ("KMGT".index(match.group(4)) + 1)


LONG_CONTEXT_ENV = "VLLM_ALLOW_LONG_MAX_MODEL_LEN"


def check_context(recipe: Recipe, problems: Problems) -> None:
    """`--max-model-len` is not above `model.context_length` (see the module docstring)."""
    context = recipe.model.context_length
    if context is None:
        return
    data = recipe.model_dump(by_alias=True)
    for path, tokens in args_fields(recipe):
        layer: Any = data
        for step in path[:-1]:
            layer = layer.get(step) if isinstance(layer, dict) else None
        env = {} if not isinstance(layer, dict) else {
            **(layer.get("base_env") or {}), **(layer.get("extra_env") or {}),
            **(layer.get("env") or {})}
        if str(env.get(LONG_CONTEXT_ENV)) == "1":
            continue  # vLLM's opt-in to a longer window than the config's
        if path[0] == "variants" and recipe.variants[path[1]].model_id not in (
                None, recipe.model.model_id):
            continue  # another checkpoint: its own context
        if any(spec["dest"] == "hf_overrides" for _, _, spec, _, _ in options(list(tokens))):
            continue  # RoPE scaling extends the window
        for index, option, spec, _, value in options(list(tokens)):
            count = _tokens_count(str(value)) if spec["dest"] == "max_model_len" else None
            if count is not None and count > context:
                problems.add((*path, index), (
                    f"{option} {value}: more than the model's context_length ({context}); a "
                    "longer window needs RoPE scaling (--hf-overrides) in the same list"))
