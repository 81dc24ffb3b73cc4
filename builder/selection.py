"""From a query (the page's URL keys) to a complete selection, and why choices are unavailable.

Explicit choices are kept or refused; everything not given is defaulted to the first choice
that works with them, in this order: hardware and variant, strategy, nodes, the
prefill/decode KV connector (`pd_connector`), the KV offload tier (`kv_offload`, only for
recipes that declare `kv_offload_support`), features, frontend, install. A choice is
*unavailable* when adding it to the explicit choices cannot be resolved; the reason is the
sentence the resolution failed with.

Node counts (`node_range`): 1 for single-node strategies; for multi-node strategies from the
nodes the variant needs (`vram_minimum_gb` over one node's `gpu_count × memory_gb`, at least 2)
to 16; for prefill/decode exactly the nodes its two pools use; for KV-store strategies (one
instance per node) 2 to 16.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .compose import FRONTEND_ENV, Context
from .errors import SelectionError
from .hardware_keys import matches, most_specific
from .install import install_refusals
from .kv_offload import KV_OFFLOAD, TIERS, offload_reason
from .layouts import LAYOUTS, layout_key
from .pd import CONNECTORS, PD_CONNECTOR, connector_choices, pd_node_count, pd_pools, pd_reason
from .types import Data

__all__ = ["FIXED_KEYS", "MAX_NODES", "choices", "node_range", "parse_query", "resolve",
           "strategy_reason", "unavailable"]

FIXED_KEYS = ("hardware", "variant", "strategy", "nodes", "frontend", "install")
MAX_NODES = 16
OFF, ON = "off", "on"
AVAILABLE = ("verified", "supported", "experimental")


def choices(catalog: Data, recipe: Data) -> dict[str, list[str]]:
    """Every value each selection key can take, in display order."""
    result = {
        "hardware": list(catalog["hardware"]),
        "variant": list(recipe["variants"]),
        "strategy": list(catalog["strategies"]),
        "nodes": [str(n) for n in range(1, MAX_NODES + 1)],
        PD_CONNECTOR: list(CONNECTORS),
        **({KV_OFFLOAD: [OFF, *TIERS]} if recipe.get("kv_offload_support") else {}),
        "frontend": list(FRONTEND_ENV),
        "install": ["pip", "docker"],
    }
    for fid, feature in recipe.get("features", {}).items():
        result[fid] = [OFF, ON, *(feature.get("modes") or {})]
    return result


def parse_query(catalog: Data, recipe: Data, query: Mapping[str, str]) -> dict[str, str]:
    """Check keys and values exist; raises SelectionError naming the key and the valid values."""
    valid = choices(catalog, recipe)
    explicit = {}
    for key, value in query.items():
        if key not in valid:
            raise SelectionError(key, f"unknown key; valid keys: {', '.join(valid)}")
        if value not in valid[key]:
            raise SelectionError(
                key, f"unknown value {value!r}; valid values: {', '.join(valid[key])}"
            )
        explicit[key] = value
    return explicit


# ----------------------------------------------------------------------------- helpers


def _label(variant_id: str, variant: Data) -> str:
    return variant.get("label") or variant_id


def variant_hardware_keys(recipe: Data, variant: Data) -> list[str]:
    """A variant's hardware keys; without its own list, the default variant's, then the
    recipe's `meta.hardware`."""
    for source in (variant, recipe["variants"]["default"]):
        keys = source.get("supported_hardware")
        if keys is not None:
            return keys
    return list(recipe["meta"]["hardware"])


def variant_runs_on(recipe: Data, variant: Data, hw_id: str, hw: Data) -> bool:
    return any(matches(key, hw_id, hw) for key in variant_hardware_keys(recipe, variant))


def node_memory_gb(hw: Data) -> int:
    return hw["gpu_count"] * hw["memory_gb"]


def fits_one_node(variant: Data, hw: Data) -> bool:
    return variant["vram_minimum_gb"] <= node_memory_gb(hw)


def strategy_reason(
    catalog: Data, recipe: Data, hw_id: str, variant_id: str, strategy_id: str
) -> str | None:
    """Why `strategy_id` cannot serve `variant_id` on `hw_id`; None when it can."""
    hw = catalog["hardware"][hw_id]
    variant = recipe["variants"][variant_id]
    strategy = catalog["strategies"][strategy_id]
    name, hw_name = strategy["display_name"], hw["display_name"]
    declared = most_specific(recipe.get("strategy_hardware", {}).get(strategy_id, {}), hw_id, hw)
    if declared == "unsupported":
        return f"this recipe does not offer {name} on {hw_name}"
    if layout_key(strategy) not in LAYOUTS:
        return f"{name} commands are not generated yet"
    if declared in AVAILABLE:
        return None
    match = strategy["hardware_match"]
    arch = match.get("architecture")
    if arch and arch != recipe["model"]["architecture"]:
        return f"{name} is for {'MoE' if arch == 'moe' else 'dense'} models only"
    gpus = hw["gpu_count"]
    fits = fits_one_node(variant, hw)
    if not match.get("multi_node", False):
        if gpus < match.get("min_gpus", 1):
            return f"{name} needs at least {match['min_gpus']} GPUs; {hw_name} has {gpus}"
        if match.get("max_gpus") and gpus > match["max_gpus"]:
            return f"{name} is for at most {match['max_gpus']} GPUs; {hw_name} has {gpus}"
        if not fits:
            return (
                f"{_label(variant_id, variant)} needs {variant['vram_minimum_gb']} GB and one "
                f"{hw_name} node has {node_memory_gb(hw)} GB; pick a multi-node strategy"
            )
    elif match.get("only_when_oversize") and fits:
        return f"the model fits on one {hw_name} node, so {name} is not needed"
    if strategy["deploy_type"] == "pd_cluster":
        return pd_reason(catalog, recipe, hw_id, variant_id)
    return None


def node_range(catalog: Data, recipe: Data, selection: Mapping[str, str]) -> tuple[int, int]:
    """The node counts the strategy in `selection` can run on (see the module docstring)."""
    strategy = catalog["strategies"][selection["strategy"]]
    deploy = strategy["deploy_type"]
    if deploy == "pd_cluster":
        total = pd_node_count(
            pd_pools(catalog, recipe, selection["hardware"], selection["variant"]))
        return total, total
    if deploy == "kv_store":
        return 2, MAX_NODES
    if deploy != "multi_node":
        return 1, 1
    hw = catalog["hardware"][selection["hardware"]]
    variant = recipe["variants"][selection["variant"]]
    needed = math.ceil(variant["vram_minimum_gb"] / node_memory_gb(hw))
    return max(2, needed), MAX_NODES


def nodes_reason(catalog: Data, recipe: Data, sel: Mapping[str, str], nodes: int) -> str | None:
    low, high = node_range(catalog, recipe, sel)
    if low <= nodes <= high:
        return None
    name = catalog["strategies"][sel["strategy"]]["display_name"]
    if low == high:
        return f"{name} here runs on {low} node{'s' if low > 1 else ''}"
    if nodes < low and low > 2:
        hw = catalog["hardware"][sel["hardware"]]
        variant = recipe["variants"][sel["variant"]]
        return (f"{_label(sel['variant'], variant)} needs {variant['vram_minimum_gb']} GB: at "
                f"least {low} {hw['display_name']} nodes ({node_memory_gb(hw)} GB each)")
    return f"{name} here runs on {low} to {high} nodes"


def connector_reason(catalog: Data, recipe: Data, sel: Mapping[str, str],
                     connector: str) -> str | None:
    """Why the prefill/decode KV connector `connector` cannot be picked."""
    strategy = catalog["strategies"][sel["strategy"]]
    label = CONNECTORS[connector].label
    if strategy["deploy_type"] != "pd_cluster":
        return None  # kept, unused, until a prefill/decode strategy is picked again
    hw_id = sel["hardware"]
    offered = connector_choices(recipe, hw_id, catalog["hardware"][hw_id])
    if connector not in offered:
        hw_name = catalog["hardware"][hw_id]["display_name"]
        names = ", ".join(CONNECTORS[c].label for c in offered)
        return f"this recipe offers {names} for prefill/decode on {hw_name}, not {label}"
    return None


def feature_reason(catalog: Data, recipe: Data, sel: Mapping[str, str], fid: str) -> str | None:
    """Why feature `fid` cannot be on for the hardware/variant/strategy in `sel`."""
    feature = recipe["features"][fid]
    hw_id = sel["hardware"]
    hw = catalog["hardware"][hw_id]
    label = feature.get("label") or fid
    if most_specific(feature.get("hardware", {}), hw_id, hw) == "unsupported":
        return f"{label} is not supported on {hw['display_name']}"
    strategies = feature.get("strategies")
    if strategies is not None and sel["strategy"] not in strategies:
        strategy_name = catalog["strategies"][sel["strategy"]]["display_name"]
        return f"{label} is not offered with {strategy_name}"
    modes = feature.get("modes")
    if modes and all(mode_reason(catalog, recipe, sel, fid, mid) for mid in modes):
        return mode_reason(catalog, recipe, sel, fid, next(iter(modes)))
    return None


def mode_reason(
    catalog: Data, recipe: Data, sel: Mapping[str, str], fid: str, mode_id: str
) -> str | None:
    mode = recipe["features"][fid]["modes"][mode_id]
    hw_id = sel["hardware"]
    hw = catalog["hardware"][hw_id]
    allowed = mode.get("variants")
    if allowed is not None and sel["variant"] not in allowed:
        names = " or ".join(_label(v, recipe["variants"][v]) for v in allowed)
        return f"{mode['label']} needs the {names} checkpoint (Variant row)"
    if most_specific(mode.get("hardware", {}), hw_id, hw) == "unsupported":
        return f"{mode['label']} is not supported on {hw['display_name']}"
    return None


def _pick_mode(catalog: Data, recipe: Data, sel: Mapping[str, str], fid: str) -> str:
    feature = recipe["features"][fid]
    variant = recipe["variants"][sel["variant"]]
    candidates = [variant.get("default_modes", {}).get(fid), feature.get("default_mode")]
    candidates += list(feature["modes"])
    for mode_id in candidates:
        if mode_id and mode_reason(catalog, recipe, sel, fid, mode_id) is None:
            return mode_id
    raise AssertionError("feature_reason() guarantees an available mode")


# ----------------------------------------------------------------------------- resolve


def _resolve_hardware_variant(
    catalog: Data, recipe: Data, explicit: Mapping[str, str]
) -> tuple[str, str]:
    hardware, variants = catalog["hardware"], recipe["variants"]
    hw_id, variant_id = explicit.get("hardware"), explicit.get("variant")
    if hw_id is not None and variant_id is not None:
        variant = variants[variant_id]
        if not variant_runs_on(recipe, variant, hw_id, hardware[hw_id]):
            runs_on = [
                hardware[h]["display_name"]
                for h in hardware
                if variant_runs_on(recipe, variant, h, hardware[h])
            ]
            raise SelectionError(
                "hardware",
                f"{_label(variant_id, variant)} does not run on "
                f"{hardware[hw_id]['display_name']}; it runs on {', '.join(runs_on)}",
            )
        return hw_id, variant_id
    if hw_id is not None:
        for vid, variant in variants.items():
            if variant_runs_on(recipe, variant, hw_id, hardware[hw_id]):
                return hw_id, vid
        raise SelectionError(
            "hardware",
            f"no checkpoint of this recipe is listed for {hardware[hw_id]['display_name']}",
        )
    if variant_id is not None:
        variant = variants[variant_id]
        preferred = [recipe["recommended"]["hardware"], *hardware]
        for hid in preferred:
            if variant_runs_on(recipe, variant, hid, hardware[hid]):
                return hid, variant_id
        raise SelectionError("variant", f"{_label(variant_id, variant)} lists no hardware")
    return recipe["recommended"]["hardware"], "default"


def _resolve_strategy(catalog: Data, recipe: Data, explicit: Mapping[str, str],
                      hw_id: str, variant_id: str) -> str:
    sid = explicit.get("strategy")
    if sid is not None:
        reason = strategy_reason(catalog, recipe, hw_id, variant_id, sid)
        if reason:
            raise SelectionError("strategy", reason)
        return sid
    preferred = [*recipe["recommended"].get("strategies", []), *catalog["strategies"]]
    for candidate in preferred:
        if strategy_reason(catalog, recipe, hw_id, variant_id, candidate) is None:
            return candidate
    hw_name = catalog["hardware"][hw_id]["display_name"]
    raise SelectionError("hardware", f"no serving strategy of this recipe works on {hw_name}")


def _resolve_features(catalog: Data, recipe: Data, explicit: Mapping[str, str],
                      sel: dict[str, str], focus: str | None) -> None:
    features = recipe.get("features", {})
    variant = recipe["variants"][sel["variant"]]
    opt_in = set(recipe.get("opt_in_features", []))
    for fid in features:
        value = explicit.get(fid)
        if value == OFF:
            sel[fid] = OFF
            continue
        reason = feature_reason(catalog, recipe, sel, fid)
        if value is None:
            wanted = variant.get("default_modes", {}).get(fid)
            if reason is None and wanted and not mode_reason(catalog, recipe, sel, fid, wanted):
                sel[fid] = wanted
            elif reason is None and fid not in opt_in:
                has_modes = bool(features[fid].get("modes"))
                sel[fid] = _pick_mode(catalog, recipe, sel, fid) if has_modes else ON
            else:
                sel[fid] = OFF
            continue
        if reason is not None:
            raise SelectionError(fid, reason)
        if value == ON:
            sel[fid] = _pick_mode(catalog, recipe, sel, fid) if features[fid].get("modes") else ON
        else:
            mode_problem = mode_reason(catalog, recipe, sel, fid, value)
            if mode_problem:
                raise SelectionError(fid, mode_problem)
            sel[fid] = value
    for group in recipe.get("exclusive_features", []):
        chosen = [f for f in group if explicit.get(f, OFF) != OFF]
        if len(chosen) > 1:
            blamed = focus if focus in chosen else chosen[-1]
            other = next(f for f in chosen if f != blamed)
            other_label = features[other].get("label") or other
            raise SelectionError(
                blamed,
                f"mutually exclusive with {other} ({other_label}); turn {other} off first",
            )
        keep = chosen[0] if chosen else next((f for f in group if sel[f] != OFF), None)
        for fid in group:
            if fid != keep:
                sel[fid] = OFF


def _resolve_connector(catalog: Data, recipe: Data, explicit: Mapping[str, str],
                       sel: dict[str, str]) -> None:
    wanted = explicit.get(PD_CONNECTOR)
    if wanted is not None:
        problem = connector_reason(catalog, recipe, sel, wanted)
        if problem:
            raise SelectionError(PD_CONNECTOR, problem)
        sel[PD_CONNECTOR] = wanted
    elif catalog["strategies"][sel["strategy"]]["deploy_type"] == "pd_cluster":
        hw_id = sel["hardware"]
        sel[PD_CONNECTOR] = connector_choices(recipe, hw_id, catalog["hardware"][hw_id])[0]
    else:
        sel[PD_CONNECTOR] = next(iter(CONNECTORS))


def resolve(
    catalog: Data, recipe: Data, explicit: Mapping[str, str], focus: str | None = None
) -> dict[str, str]:
    """The complete selection for `explicit` (already parsed), or SelectionError.

    `focus` names the key being tried, so a conflict between two explicit choices is
    blamed on it (that is the pill that gets disabled).
    """
    hw_id, variant_id = _resolve_hardware_variant(catalog, recipe, explicit)
    sid = _resolve_strategy(catalog, recipe, explicit, hw_id, variant_id)
    sel = {"hardware": hw_id, "variant": variant_id, "strategy": sid}
    low, _ = node_range(catalog, recipe, sel)
    nodes = int(explicit.get("nodes", low))
    problem = nodes_reason(catalog, recipe, sel, nodes)
    if problem:
        raise SelectionError("nodes", problem)
    sel["nodes"] = str(nodes)
    _resolve_connector(catalog, recipe, explicit, sel)
    if recipe.get("kv_offload_support"):
        tier = explicit.get(KV_OFFLOAD, OFF)
        problem = offload_reason(catalog, recipe, sel, tier)
        if problem:
            raise SelectionError(KV_OFFLOAD, problem)
        sel[KV_OFFLOAD] = tier
    _resolve_features(catalog, recipe, explicit, sel, focus)
    sel["frontend"] = explicit.get("frontend", recipe["model"].get("default_frontend", "rust"))
    sel["install"] = "pip"
    refused = install_refusals(Context(catalog, recipe, sel))
    wanted = explicit.get("install")
    if wanted is not None:
        if wanted in refused:
            raise SelectionError("install", refused[wanted])
        sel["install"] = wanted
    elif "pip" in refused:
        sel["install"] = "docker"
    keys = ["hardware", "variant", "strategy", "nodes", PD_CONNECTOR,
            *([KV_OFFLOAD] if KV_OFFLOAD in sel else []), "frontend", "install",
            *recipe.get("features", {})]
    return {key: sel[key] for key in keys}


def unavailable(
    catalog: Data, recipe: Data, explicit: Mapping[str, str], selection: Mapping[str, str]
) -> dict[str, dict[str, str]]:
    """For every key, the values that cannot be picked now, each with its reason."""
    result: dict[str, dict[str, str]] = {}
    for key, values in choices(catalog, recipe).items():
        for value in values:
            if value == selection[key]:
                continue
            try:
                resolve(catalog, recipe, {**explicit, key: value}, focus=key)
            except SelectionError as error:
                result.setdefault(key, {})[value] = error.reason
    return result
