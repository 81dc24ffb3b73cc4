"""Which hardware a recipe and each of its variants are offered on.

A recipe offers every hardware of the catalog that is not `restricted` (workstations, TPUs,
CPUs, NPUs), adjusted by its `hardware` map (most specific key wins; `all: unsupported` starts
from nothing); restricted hardware is offered only where the map or `verified` names its own
id; every id in `verified` is offered. A variant
runs on what its recipe offers, narrowed by its own `hardware` list when it has one, and by its
precision: NVFP4 and FP4 weights run on Blackwell only unless the variant's
`precision_hardware` names other hardware keys (see `vocabulary.PRECISION_HARDWARE`), and by what
vLLM runs on GPUs older than Ampere (`legacy_gpus.variant_reason`: no V100, no MXFP4 on a T4).

A count-qualified key in a list (`verified: [rtx_5090@2]`, a variant's `hardware:
[rtx_5090@2]`) offers that GPU at that count (`gpu_counts`): the count is its default there
and other counts are refused with a reason (`count_reason`), unless the list also names the
GPU without a count (its plain id, or a wider key for a variant's list; for the recipe, any
way it is offered without a count). A count-qualified key in the recipe's `hardware` map
offers restricted hardware at that count the same way.

The default hardware is the recipe's `default_hardware`, else B200 (then GB200) for weights
that run on Blackwell only, else H200, else the first offered id in alphabetical order, NVIDIA
first, then AMD (the public catalogue's rule).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..hardware_keys import COUNT_MARK, most_specific, names, split_count
from ..types import Data
from ..vocabulary import PRECISION_HARDWARE
from . import legacy_gpus

__all__ = ["count_reason", "counted_ids", "default_hardware", "gpu_counts", "label",
           "listed_counts", "named_counts", "narrowing", "precision_keys", "recipe_support",
           "variant_hardware", "variant_reason", "variant_runs_on"]


def label(variant_id: str, variant: Data) -> str:
    return variant.get("label") or variant_id


def recipe_support(recipe: Data, hw_id: str, hw: Data,
                   counted: frozenset[str] | None = None) -> str | None:
    """How the recipe offers this hardware (verified, supported, experimental); None if not.
    Restricted hardware counts as named only by its own id (with or without a count).
    `counted`: the recipe's `counted_ids`, when the caller has them."""
    verified = recipe.get("verified", ())
    if hw_id in verified:
        return "verified"
    named_at_counts = hw_id in (counted_ids(recipe) if counted is None else counted)
    if named_at_counts and listed_counts(verified, hw_id):
        return "verified"
    mapping = recipe.get("hardware") or {}
    declared = _plain_support(mapping, hw_id, hw)
    if named_at_counts and (declared is None or declared == "unsupported"):
        at_counts = [mapping[key] for key in mapping if split_count(key)[0] == hw_id
                     and key != hw_id and mapping[key] != "unsupported"]
        declared = at_counts[0] if at_counts else declared
    return None if declared is None or declared == "unsupported" else declared


def _plain_support(mapping: Data, hw_id: str, hw: Data) -> str | None:
    """The support the recipe's `hardware` map gives the hardware without a count (None:
    restricted hardware it does not name)."""
    if hw.get("restricted"):
        return mapping.get(hw_id)
    return (most_specific(mapping, hw_id, hw) if mapping else None) or "supported"


def listed_counts(keys: Any, hw_id: str) -> list[int]:
    """The GPU counts `keys` (a list, or a mapping's keys) name `hw_id` at (`hw_id@N`),
    smallest first."""
    prefix = hw_id + COUNT_MARK
    return sorted(int(key[len(prefix):]) for key in keys
                  if key.startswith(prefix) and key[len(prefix):].isdigit())


def counted_ids(recipe: Data) -> frozenset[str]:
    """The hardware ids the recipe's lists and `hardware` map name at a count (`rtx_5090` for
    `rtx_5090@2`): only these have `gpu_counts` to work out."""
    keys = [*recipe.get("verified", ()), *(recipe.get("hardware") or {})]
    for variant in recipe["variants"].values():
        keys += variant.get("hardware") or ()
    return frozenset(split_count(key)[0] for key in keys if COUNT_MARK in key)


def gpu_counts(recipe: Data, variant_id: str, hw_id: str, hw: Data
               ) -> tuple[frozenset[int] | None, int | None]:
    """(the GPU counts the variant is offered at on `hw_id`, None: any; the count it
    defaults to there, None: the usual sizing), from the count-qualified keys of the
    recipe's `verified` and `hardware` and the variant's `hardware` (module docstring)."""
    verified = recipe.get("verified", ())
    mapping = recipe.get("hardware") or {}
    counts = listed_counts([*verified, *(k for k, v in mapping.items() if v != "unsupported")],
                           hw_id)
    allowed: frozenset[int] | None = None
    default = None
    if counts:
        plain = _plain_support(mapping, hw_id, hw)
        if hw_id not in verified and plain in (None, "unsupported"):
            allowed = frozenset(counts)
        if hw_id not in verified and mapping.get(hw_id) in (None, "unsupported"):
            default = counts[0]
    own = recipe["variants"][variant_id].get("hardware")
    own_counts = listed_counts(own, hw_id) if own is not None else []
    if own_counts:
        if names(hw_id, hw).isdisjoint(own):
            allowed = frozenset(own_counts) if allowed is None else allowed & set(own_counts)
        if hw_id not in own:
            default = own_counts[0]
    if default is not None and allowed is not None and default not in allowed:
        default = min(allowed) if allowed else None
    return allowed, default


def named_counts(recipe: Data, variant_id: str, hw_id: str) -> list[int]:
    """The counts of `hw_id` the recipe names for the variant (`hw_id@N` in `verified`, the
    recipe's `hardware`, the variant's `hardware`, `tp` or `hardware_overrides`): the
    author's word that N of that GPU hold it (`reasons.strategy_variant_reason`)."""
    variant = recipe["variants"][variant_id]
    keys = [*recipe.get("verified", ()), *(recipe.get("hardware") or {}),
            *(variant.get("hardware") or ()), *(variant.get("tp") or {}),
            *(variant.get("hardware_overrides") or {})]
    return listed_counts(keys, hw_id)


def count_reason(catalog: Data, recipe: Data, variant_id: str, hw_id: str, gpus: int,
                 allowed: frozenset[int] | None = None) -> str | None:
    """Why the variant is not offered at `gpus` GPUs of `hw_id` (`gpu_counts`, or its
    `allowed` counts when the caller has them); None when it is."""
    hw = catalog["hardware"][hw_id]
    if allowed is None:
        allowed, _ = gpu_counts(recipe, variant_id, hw_id, hw)
    if allowed is None or gpus in allowed:
        return None
    counts = " or ".join(f"{n}×" for n in sorted(allowed))
    return (f"{label(variant_id, recipe['variants'][variant_id])} is offered on {counts} "
            f"{hw['display_name']} only, not {gpus}")


def precision_keys(variant: Data) -> list[str] | None:
    """The hardware keys the variant's precision confines it to; None when it runs anywhere."""
    if variant.get("precision_hardware") is not None:
        return list(variant["precision_hardware"])
    required = PRECISION_HARDWARE.get(variant["precision"])
    return [required] if required else None


def variant_reason(catalog: Data, recipe: Data, variant_id: str, hw_id: str,
                   offered: bool | None = None, named: frozenset[str] | None = None,
                   narrowed: tuple[list[str] | None, list[str] | None] | None = None
                   ) -> str | None:
    """Why variant `variant_id` is not offered on `hw_id`; None when it is. `offered`:
    whether the recipe offers `hw_id` (`recipe_support`), `named`: the hardware's `names`,
    and `narrowed`: the variant's `narrowing`, when the caller knows them."""
    hw = catalog["hardware"][hw_id]
    variant = recipe["variants"][variant_id]
    name = hw["display_name"]
    if offered is None:
        offered = recipe_support(recipe, hw_id, hw) is not None
    if not offered:
        return f"this recipe is not offered on {name}"
    legacy = legacy_gpus.variant_reason(recipe, variant_id, hw)
    if legacy:
        return legacy
    own, keys = narrowing(variant) if narrowed is None else narrowed
    refused = _refused_by(own, keys, names(hw_id, hw) if named is None else named)
    if refused == "hardware":
        return f"{label(variant_id, variant)} is not offered on {name}"
    if refused == "precision":
        where = ", ".join(_key_name(catalog, key) for key in keys or ())
        return f"{label(variant_id, variant)} ({variant['precision']}) runs on {where} only"
    return None


def variant_hardware(catalog: Data, recipe: Data, variant_id: str, offered: list[str],
                     named: Callable[[str], frozenset[str]] | None = None) -> list[str]:
    """The hardware of `offered` (ids the recipe offers) the variant runs on, in order:
    those `variant_reason` has no reason for, in one pass. `named`: a hardware id's `names`,
    when the caller keeps them."""
    hardware = catalog["hardware"]
    offered = [h for h in offered
               if legacy_gpus.variant_reason(recipe, variant_id, hardware[h]) is None]
    own, keys = narrowing(recipe["variants"][variant_id])
    if own is None and keys is None:
        return offered
    if named is None:
        return [h for h in offered if _refused_by(own, keys, names(h, hardware[h])) is None]
    return [h for h in offered if _refused_by(own, keys, named(h)) is None]


def narrowing(variant: Data) -> tuple[list[str] | None, list[str] | None]:
    """The variant's own hardware keys (a count-qualified key names its GPU; its count is
    `gpu_counts`') and its precision's (None: not narrowed by it)."""
    own = variant.get("hardware")
    if own is not None and any(COUNT_MARK in key for key in own):
        own = [split_count(key)[0] for key in own]
    return own, precision_keys(variant)


def _refused_by(own: list[str] | None, keys: list[str] | None, named: frozenset[str]
                ) -> str | None:
    """Which narrowing leaves out hardware with these `names`: "hardware" (the variant's own
    list), "precision", or None."""
    if own is not None and named.isdisjoint(own):
        return "hardware"
    if keys is not None and named.isdisjoint(keys):
        return "precision"
    return None


def variant_runs_on(catalog: Data, recipe: Data, variant_id: str, hw_id: str) -> bool:
    return variant_reason(catalog, recipe, variant_id, hw_id) is None


def _key_name(catalog: Data, key: str) -> str:
    for kind in ("hardware", "generations", "brands"):
        if key in catalog[kind]:
            return catalog[kind][key]["display_name"]
    return key


def default_hardware(catalog: Data, recipe: Data, variant_id: str,
                     offered: list[str] | None = None) -> str | None:
    """The hardware the variant's command is shown for first (see the module docstring);
    `offered`: the hardware ids the variant runs on, when the caller knows them."""
    if offered is None:
        offered = [h for h in catalog["hardware"]
                   if variant_runs_on(catalog, recipe, variant_id, h)]
    offered = list(offered)
    wanted = recipe.get("default_hardware")
    preferred = [wanted] if wanted else []
    if precision_keys(recipe["variants"][variant_id]) == ["blackwell"]:
        preferred += ["b200", "gb200"]
    preferred.append("h200")
    for hw_id in preferred:
        if hw_id in offered:
            return hw_id
    brands = {"nvidia": 0, "amd": 1}
    offered.sort(key=lambda h: (brands.get(catalog["hardware"][h]["brand"], 9), h))
    return offered[0] if offered else None
