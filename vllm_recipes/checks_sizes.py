"""Checks of a recipe's parallel sizes and memory.

A size (`parallel_size` of an override, a variant's `tp`, a literal `--tensor-parallel-size`
or `--data-parallel-size` in `extra_args`) divides the GPU count of every node it applies to
(where a variant it applies to runs), and where the weights sit on one node, that node's GPUs
hold them: `vram_minimum_gb` without its `HEADROOM`, less `host_memory_gb` (the largest an
override beside it gives that hardware, when the setting has none of its own).
"""

from __future__ import annotations

import math
from typing import Any

from builder.commands.compose import HEADROOM, size_applies, sizing_args
from builder.commands.deploy_types import DEPLOY_TYPES, context
from builder.commands.fit import fit_refusal
from builder.commands.offering import variant_runs_on
from builder.hardware_keys import ALL, matching, ranked, split_count

from .check_problems import Problems
from .schema import Recipe, Strategy

__all__ = ["HEADROOM", "SIZE_FLAGS", "check_sizes"]

SIZE_FLAGS = ("--tensor-parallel-size", "-tp", "--data-parallel-size", "-dp")

Setting = tuple[tuple[Any, ...], str, int, int]
"""(loc, hardware key, size, host GB) of one parallel size the recipe sets."""


def _count(key: str) -> int | None:
    """The GPU count of a count-qualified key (`rtx_5090@2`: 2); None for the others."""
    _, count = split_count(key)
    return int(count) if count and count.isdigit() else None


def _winner(keys: list[str], hw_id: str, hw: dict[str, Any], gpus: int | None = None
            ) -> str | None:
    """The most specific of `keys` naming the hardware (at `gpus` GPUs)."""
    entries = ranked(dict.fromkeys(keys, True), hw_id, hw, gpus)
    return entries[-1][1] if entries else None


def _variants_of(recipe: Recipe, path: str) -> list[str]:
    """The variants an override at `path` applies to (its own variant's, or every one)."""
    parts = path.split(".")
    return [parts[1]] if parts[0] == "variants" else list(recipe.variants)


def _strategies_of(path: str) -> list[str] | None:
    """The strategy an override at `path` applies to, or None for every strategy."""
    parts = path.split(".")
    if "strategy_overrides" in parts:
        return [parts[parts.index("strategy_overrides") + 1]]
    return None


def check_sizes(recipe: Recipe, strategies: dict[str, Strategy], catalog: dict[str, Any],
                data: dict[str, Any], problems: Problems) -> None:
    """Every parallel size divides its nodes' GPUs, which hold the weights (see above);
    `catalog` and `data`: the hardware catalog and recipe as published."""
    settings = _settings(recipe, catalog, data, problems)
    for setting in settings:
        _check_setting(setting, settings, recipe, strategies, catalog, data, problems)


def _settings(recipe: Recipe, catalog: dict[str, Any], data: dict[str, Any],
              problems: Problems) -> list[Setting]:
    """The `parallel_size` and `tp` settings of the recipe; a literal size flag of an
    `extra_args` is checked here, as it is met."""
    hardware = catalog["hardware"]
    settings: list[Setting] = []
    for path, override in recipe.overrides():
        key = path.split(".")[-1]
        if override.parallel_size is not None:
            settings.append(((*path.split("."), "parallel_size"), key,
                             override.parallel_size, override.host_memory_gb or 0))
        tokens = override.extra_args
        for index, token in enumerate(tokens):
            if token in SIZE_FLAGS and index + 1 < len(tokens):
                _divides((*path.split("."), "extra_args", index + 1), key,
                         str(tokens[index + 1]), hardware, catalog, data,
                         _variants_of(recipe, path), problems, _strategies_of(path))
    for vid, variant in recipe.variants.items():
        for key, size in variant.tp.items():
            settings.append((("variants", vid, "tp", key), key, size, 0))
        for index, token in enumerate(variant.extra_args):
            if token in SIZE_FLAGS and index + 1 < len(variant.extra_args):
                _divides(("variants", vid, "extra_args", index + 1), ALL,
                         str(variant.extra_args[index + 1]), hardware, catalog, data, [vid],
                         problems)
    return settings


def _check_setting(setting: Setting, settings: list[Setting], recipe: Recipe,
                   strategies: dict[str, Strategy], catalog: dict[str, Any],
                   data: dict[str, Any], problems: Problems) -> None:
    """One setting, on each hardware its key wins for (a more specific sibling key of the
    same mapping sets the others): it divides the node and, on one node, holds the weights."""
    hardware = catalog["hardware"]
    loc, key, size, host = setting
    siblings = [k for (other, k, _, _) in settings if other[:-2] == loc[:-2]]
    path = ".".join(str(p) for p in loc[:-1])
    vids = _variants_of(recipe, path) if loc[0] != "variants" or loc[2] != "tp" else [loc[1]]
    sids = _strategies_of(path) if loc[2:3] != ("tp",) else ["single_node_tp"]
    for hw_id in matching([key], hardware):
        hw = hardware[hw_id]
        if _winner(siblings, hw_id, hw, _count(key)) != key:
            continue  # a more specific key of the same mapping sets this hardware's size
        runs = [v for v in vids if variant_runs_on(catalog, data, v, hw_id)
                and size_applies(size, key, hw_id, hw, recipe.variants[v].vram_minimum_gb,
                                 host or _host_memory(recipe, path, hw_id, hw))]
        if not runs:
            continue  # under a wider key, a size that cannot hold the model does not apply
        if _count(key) is not None and _count(key) % size:  # type: ignore[operator]
            problems.add(loc, f"{size} does not divide the {key} count of {_count(key)} "
                              f"{hw['display_name']} GPUs")
            continue
        if hw["gpu_count"] % size and (hw.get("max_gpus") or hw["gpu_count"]) % size:
            problems.add(loc, f"{size} does not divide the {hw['gpu_count']} GPUs of a "
                              f"{hw['display_name']} node")
            continue
        single = sids is None or any(
            DEPLOY_TYPES[strategies[s].deploy_type].weights_on_one_node
            for s in sids
            if s in strategies)
        if not single:
            continue
        host = host or _host_memory(recipe, path, hw_id, hw)
        if data.get("facts") and loc[2:3] == ("tp",) and not host:
            refused = _fit_refusal(catalog, data, runs, hw_id, size)
            if refused:
                problems.add(loc, f"{size}× {hw['display_name']}: by the fit rule, {refused}")
                continue
        for vid in runs:
            weights = math.ceil(recipe.variants[vid].vram_minimum_gb / HEADROOM) - host
            if size * hw["memory_gb"] < weights:
                problems.add(loc, f"{size}× {hw['display_name']} hold "
                                  f"{size * hw['memory_gb']} GB but the {vid} weights need "
                                  f"{weights} GB (vram_minimum_gb / {HEADROOM}"
                                  f"{f' - {host} in host memory' if host else ''})")
                break


def _fit_refusal(catalog: dict[str, Any], data: dict[str, Any], vids: list[str], hw_id: str,
                 size: int) -> str | None:
    """Why `size` GPUs of `hw_id` cannot hold one of `vids` with at least the fit rule's
    shortest context (builder.commands.fit), with the arithmetic; None when they can."""
    for vid in vids:
        ctx = context(catalog, data, {"hardware": hw_id, "variant": vid,
                                      "strategy": "single_node_tp"})
        refused = fit_refusal(catalog, data, vid, hw_id, sizing_args(ctx), size, size)
        if refused:
            return refused
    return None


def _host_memory(recipe: Recipe, path: str, hw_id: str, hw: dict[str, Any]) -> int:
    """The `host_memory_gb` that overrides beside the one at `path` give this hardware."""
    parent = path.split(".")[:-1]
    found = 0
    for other_path, override in recipe.overrides():
        other = other_path.split(".")
        if (override.host_memory_gb and other[:-1] == parent
                and matching([other[-1]], {hw_id: hw})):
            found = max(found, override.host_memory_gb)
    return found


def _divides(loc: tuple[Any, ...], key: str, text: str, hardware: dict[str, Any],
             catalog: dict[str, Any], data: dict[str, Any], vids: list[str],
             problems: Problems, sids: list[str] | None = None) -> None:
    """A literal size flag's value is a number of at least 1, and divides the GPUs of each
    node it applies to that has at least that many; where it applies to a one-node strategy
    (`sids`: the strategies it is set for, None for every one), it is not more than the node's
    GPUs (one problem, for the first that fails)."""
    if not text.isdigit():
        problems.add(loc, f"{text!r} is not a number")
        return
    size = int(text)
    if size < 1:
        problems.add(loc, f"{size}: a parallel size is at least 1")
        return
    one_node = sids is None or any(
        DEPLOY_TYPES[catalog["strategies"][s]["deploy_type"]].one_node
        for s in sids if s in catalog["strategies"])
    for hw_id in matching([key], hardware):
        hw = hardware[hw_id]
        runs = any(variant_runs_on(catalog, data, v, hw_id) for v in vids)
        gpus = _count(key) or hw["gpu_count"]  # `rtx_5090@2`: the two GPUs it names
        where = (f"the {gpus} {hw['display_name']} GPUs {key} names" if _count(key)
                 else f"the {gpus} GPUs of one {hw['display_name']} node")
        if runs and one_node and size > gpus:
            problems.add(loc, f"{size} is more than {where}, and a one-node strategy runs it")
            return
        if runs and gpus % size and size <= gpus:
            problems.add(loc, f"{size} does not divide {where}")
            return
