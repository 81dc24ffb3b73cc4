"""Checks of a recipe's `vllm serve` arguments, wherever it writes them (`base_args`, a
feature's or mode's `args`, every `extra_args`):

- every option is one the checked vLLM release accepts, with a value where it needs one,
  among its choices, and known JSON keys (`vllm_flags.check_tokens`);
- every path-valued option (`--chat-template`, the parser plugins, `--deploy-config`, ...)
  names a file that an install step of each install method the recipe offers provides: a file
  of vLLM's source tree, one of the recipe's `files`, or a `dependencies` step's `provides`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from builder.commands.needed_files import path_values, source_tree_file
from builder.hardware_keys import ALL

from .check_problems import Problems
from .schema import Recipe
from .vllm_flags import check_tokens

__all__ = ["args_fields", "check_flags", "check_paths"]


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
