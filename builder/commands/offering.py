"""Which hardware a recipe and each of its variants are offered on.

A recipe offers every hardware of the catalog that is not `restricted` (workstations, TPUs,
CPUs, NPUs), adjusted by its `hardware` map (most specific key wins; `all: unsupported` starts
from nothing); restricted hardware is offered only where the map or `verified` names its own
id; every id in `verified` is offered. A variant
runs on what its recipe offers, narrowed by its own `hardware` list when it has one, and by its
precision: NVFP4 and FP4 weights run on Blackwell only unless the variant's
`precision_hardware` names other hardware keys (see `vocabulary.PRECISION_HARDWARE`), and by what
vLLM runs on GPUs older than Ampere (`legacy_gpus.variant_reason`: no V100, no MXFP4 on a T4).

The default hardware is the recipe's `default_hardware`, else B200 (then GB200) for weights
that run on Blackwell only, else H200, else the first offered id in alphabetical order, NVIDIA
first, then AMD (the public catalogue's rule).
"""

from __future__ import annotations

from collections.abc import Callable

from ..hardware_keys import most_specific, names
from ..types import Data
from ..vocabulary import PRECISION_HARDWARE
from . import legacy_gpus

__all__ = ["default_hardware", "label", "precision_keys", "recipe_support", "variant_hardware",
           "variant_reason", "variant_runs_on"]


def label(variant_id: str, variant: Data) -> str:
    return variant.get("label") or variant_id


def recipe_support(recipe: Data, hw_id: str, hw: Data) -> str | None:
    """How the recipe offers this hardware (verified, supported, experimental); None if not.
    Restricted hardware counts as named only by its own id."""
    if hw_id in recipe.get("verified", ()):
        return "verified"
    mapping = recipe.get("hardware") or {}
    if hw.get("restricted"):
        declared = mapping.get(hw_id)
        if declared is None:
            return None
    else:
        declared = most_specific(mapping, hw_id, hw) if mapping else None
    declared = declared or "supported"
    return None if declared == "unsupported" else declared


def precision_keys(variant: Data) -> list[str] | None:
    """The hardware keys the variant's precision confines it to; None when it runs anywhere."""
    if variant.get("precision_hardware") is not None:
        return list(variant["precision_hardware"])
    required = PRECISION_HARDWARE.get(variant["precision"])
    return [required] if required else None


def variant_reason(catalog: Data, recipe: Data, variant_id: str, hw_id: str,
                   offered: bool | None = None, named: frozenset[str] | None = None
                   ) -> str | None:
    """Why variant `variant_id` is not offered on `hw_id`; None when it is. `offered`:
    whether the recipe offers `hw_id` (`recipe_support`), and `named`: the hardware's
    `names`, when the caller knows them."""
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
    own, keys = _narrowing(variant)
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
    own, keys = _narrowing(recipe["variants"][variant_id])
    if own is None and keys is None:
        return offered
    if named is None:
        return [h for h in offered if _refused_by(own, keys, names(h, hardware[h])) is None]
    return [h for h in offered if _refused_by(own, keys, named(h)) is None]


def _narrowing(variant: Data) -> tuple[list[str] | None, list[str] | None]:
    """The variant's own hardware keys and its precision's (None: not narrowed by it)."""
    return variant.get("hardware"), precision_keys(variant)


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
