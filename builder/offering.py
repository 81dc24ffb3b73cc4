"""Which hardware a recipe and each of its variants are offered on.

A recipe offers every hardware of the catalog that is not `restricted` (workstations, TPUs,
CPUs, NPUs), adjusted by its `hardware` map (most specific key wins; `all: unsupported` starts
from nothing); restricted hardware is offered only where the map or `verified` names its own
id; every id in `verified` is offered. A variant
runs on what its recipe offers, narrowed by its own `hardware` list when it has one, and by its
precision: NVFP4 and FP4 weights run on Blackwell only unless the variant's
`precision_hardware` names other hardware keys (see `vocabulary.PRECISION_HARDWARE`).

The default hardware is the recipe's `default_hardware`, else B200 (then GB200) for weights
that run on Blackwell only, else H200, else the first offered id in alphabetical order, NVIDIA
first, then AMD (the public catalogue's rule).
"""

from __future__ import annotations

from .hardware_keys import EXACT, matches, ranked
from .types import Data
from .vocabulary import PRECISION_HARDWARE

__all__ = ["default_hardware", "label", "precision_keys", "recipe_support", "variant_reason",
           "variant_runs_on"]


def label(variant_id: str, variant: Data) -> str:
    return variant.get("label") or variant_id


def recipe_support(recipe: Data, hw_id: str, hw: Data) -> str | None:
    """How the recipe offers this hardware (verified, supported, experimental); None if not.
    Restricted hardware counts as named only by its own id."""
    if hw_id in recipe.get("verified", ()):
        return "verified"
    entries = ranked(recipe.get("hardware") or {}, hw_id, hw)
    if hw.get("restricted"):
        entries = [entry for entry in entries if entry[0] == EXACT]
        if not entries:
            return None
    declared = entries[-1][2] if entries else "supported"
    return None if declared == "unsupported" else declared


def precision_keys(variant: Data) -> list[str] | None:
    """The hardware keys the variant's precision confines it to; None when it runs anywhere."""
    if variant.get("precision_hardware") is not None:
        return list(variant["precision_hardware"])
    required = PRECISION_HARDWARE.get(variant["precision"])
    return [required] if required else None


def variant_reason(catalog: Data, recipe: Data, variant_id: str, hw_id: str) -> str | None:
    """Why variant `variant_id` is not offered on `hw_id`; None when it is."""
    hw = catalog["hardware"][hw_id]
    variant = recipe["variants"][variant_id]
    name = hw["display_name"]
    if recipe_support(recipe, hw_id, hw) is None:
        return f"this recipe is not offered on {name}"
    own = variant.get("hardware")
    if own is not None and not any(matches(key, hw_id, hw) for key in own):
        return f"{label(variant_id, variant)} is not offered on {name}"
    keys = precision_keys(variant)
    if keys is not None and not any(matches(key, hw_id, hw) for key in keys):
        where = ", ".join(_key_name(catalog, key) for key in keys)
        return f"{label(variant_id, variant)} ({variant['precision']}) runs on {where} only"
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
