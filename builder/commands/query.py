"""What a selection can hold: the values of each key for a recipe (`choices`), the strategies
it offers in order of preference, the hardware it is offered on, and a query read into
explicit choices (`parse_query`, with earlier variant ids read as today's: `canonical_query`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import SelectionError, quoted
from ..types import Data
from ..vocabulary import (
    CONNECTORS,
    FRONTENDS,
    INSTALL_METHODS,
    OFF,
    OFFLOAD_TIERS,
    ON,
    PROFILES,
)
from .deploy_types import MAX_NODES, deploy_type, strategies_where
from .kv_offload import KV_OFFLOAD
from .legacy_gpus import hardware_reason
from .offering import counted_ids, recipe_support
from .omni_tasks import TASK, task_ids
from .pd import PD_CONNECTOR

__all__ = ["GPUS", "MAX_NODES", "PROFILE", "canonical_query", "choices", "fits_one_node",
           "node_memory_gb", "node_range", "offered_hardware", "parse_query", "recipe_strategies",
           "renamed_variants"]

GPUS = "gpus"
"""The selection key of the GPU count (single-node strategies)."""
PROFILE = "profile"
"""The selection key of the workload profile (`builder.estimates.profiles`)."""
SINGLE_NODE_ONLY = ("embedding",)
"""Tasks whose models are offered single-node strategies only by default."""


def node_memory_gb(hw: Data) -> int:
    return hw["gpu_count"] * hw["memory_gb"]


def fits_one_node(variant: Data, hw: Data, gpus: int | None = None) -> bool:
    """The variant's `vram_minimum_gb` fits one node (`gpus` of its GPUs, when given)."""
    memory = node_memory_gb(hw) if gpus is None else gpus * hw["memory_gb"]
    return bool(variant["vram_minimum_gb"] <= memory)


def recipe_strategies(catalog: Data, recipe: Data) -> list[str]:
    """The strategies a recipe offers, in order of preference: its `strategies` list, or by
    default single-node Tensor Parallel for embedding models and every single- and multi-node
    strategy for the others (each still refused where it does not suit the model)."""
    strategies = catalog["strategies"]
    if recipe.get("strategies") is not None:
        return list(recipe["strategies"])
    if recipe.get("omni"):
        return strategies_where(strategies, lambda deploy, _: deploy.omni)
    if any(task in SINGLE_NODE_ONLY for task in recipe["meta"]["tasks"]):
        return strategies_where(strategies, lambda deploy, strategy: deploy.is_plain(strategy))
    return strategies_where(strategies, lambda deploy, _: deploy.offered_by_default)


def offered_hardware(catalog: Data, recipe: Data) -> list[str]:
    """Hardware ids the recipe offers (for some variant), in catalog order."""
    counted = counted_ids(recipe)
    return [h for h, hw in catalog["hardware"].items() if recipe_support(recipe, h, hw, counted)]


def choices(catalog: Data, recipe: Data, offered: list[str] | None = None
            ) -> dict[str, list[str]]:
    """Every value each selection key can take, in display order (hardware: what the recipe
    offers; `offered` when the caller has it)."""
    result = {
        "hardware": offered_hardware(catalog, recipe) if offered is None else list(offered),
        "variant": list(recipe["variants"]),
        **({TASK: task_ids(recipe)} if recipe.get("omni") else {}),
        "strategy": list(catalog["strategies"]),
        GPUS: [str(n) for n in range(1, max(
            [int(catalog["hardware"][h].get("max_gpus") or catalog["hardware"][h]["gpu_count"])
             for h in (offered_hardware(catalog, recipe) if offered is None else offered)]
            or [1]) + 1)],
        "nodes": [str(n) for n in range(1, MAX_NODES + 1)],
        PD_CONNECTOR: list(CONNECTORS),
        **({KV_OFFLOAD: [OFF, *OFFLOAD_TIERS]} if recipe.get("kv_offload_support") else {}),
        PROFILE: list(PROFILES),
        "frontend": list(FRONTENDS),
        "install": list(INSTALL_METHODS),
    }
    for fid, feature in recipe.get("features", {}).items():
        result[fid] = [OFF, ON, *(feature.get("modes") or {})]
    return result


def renamed_variants(recipe: Data) -> dict[str, str]:
    """Earlier variant id → the variant's id now (each variant's `aliases`)."""
    return {alias: vid for vid, variant in recipe["variants"].items()
            for alias in variant.get("aliases", ())}


def canonical_query(recipe: Data, query: Mapping[str, str],
                    catalog: Data | None = None) -> tuple[dict[str, str], list[str]]:
    """`query` with an earlier variant id (`variant=dspark`) replaced by the variant's id now
    and an earlier node-shaped hardware id (`hardware=rtx_4090_2x`, the catalog's
    `hardware_aliases`) by its GPU and count (`hardware=rtx_4090 gpus=2`; a `gpus` the query
    gives wins), and one notice per replacement that names the new ids: the rule the CLI, the
    page and the JSON links share."""
    result = dict(query)
    notices: list[str] = []
    renamed = renamed_variants(recipe)
    value = query.get("variant")
    if value is not None and value in renamed:
        new = renamed[value]
        result["variant"] = new
        notices.append(f"variant={value} is now variant={new}; showing variant={new}")
    aliases = (catalog or {}).get("hardware_aliases") or {}
    value = query.get("hardware")
    if value is not None and value in aliases:
        hw, gpus = aliases[value]["hardware"], str(aliases[value]["gpus"])
        result["hardware"] = hw
        result.setdefault(GPUS, gpus)
        now = f"hardware={hw} {GPUS}={gpus}"
        notices.append(f"hardware={value} is now {now}; showing hardware={hw} "
                       f"{GPUS}={result[GPUS]}")
    return result, notices


def parse_query(catalog: Data, recipe: Data, query: Mapping[str, str],
                valid: Mapping[str, list[str]] | None = None) -> dict[str, str]:
    """Check keys and values exist; raises SelectionError naming the key and the valid values
    (hardware vLLM does not run on at all, a V100: `legacy_gpus.hardware_reason`).
    `valid`: `choices(catalog, recipe)` when the caller has it."""
    valid = choices(catalog, recipe) if valid is None else valid
    explicit = {}
    for key, value in query.items():
        if key not in valid:
            raise SelectionError(key, f"unknown key; valid keys: {', '.join(valid)}")
        if key == "hardware" and value in catalog["hardware"]:
            unrunnable = hardware_reason(catalog["hardware"][value])
            if unrunnable:
                raise SelectionError(key, unrunnable)
        if key == "hardware" and value in catalog["hardware"] and value not in valid[key]:
            names = ", ".join(catalog["hardware"][h]["display_name"] for h in valid[key])
            raise SelectionError(key, f"this recipe is not offered on "
                                      f"{catalog['hardware'][value]['display_name']}; it is "
                                      f"offered on {names}")
        if key == GPUS and value not in valid[key] and _whole_nodes(catalog, valid, value):
            explicit[key] = value
            continue
        if value not in valid[key]:
            raise SelectionError(
                key, f"unknown value {quoted(value)}; valid values: {', '.join(valid[key])}"
                + (f", or whole nodes of a multi-node strategy (up to {MAX_NODES} nodes)"
                   if key == GPUS else "")
            )
        explicit[key] = value
    return explicit



def _whole_nodes(catalog: Data, valid: Mapping[str, list[str]], value: str) -> bool:
    """`value` is a GPU count past one node's that multi-node strategies may ask for: whole
    nodes of some offered hardware, at most `MAX_NODES` of them (the stages check the rest)."""
    if not value.isdigit() or value.startswith("0"):
        return False
    count = int(value)
    return any(count % hw["gpu_count"] == 0 and count // hw["gpu_count"] <= MAX_NODES
               for hw in (catalog["hardware"][h] for h in valid["hardware"]))


def node_range(catalog: Data, recipe: Data, selection: Mapping[str, str]) -> tuple[int, int]:
    """The node counts the strategy in `selection` can run on (see `deploy.py`)."""
    strategy = catalog["strategies"][selection["strategy"]]
    return deploy_type(strategy).node_range(catalog, recipe, selection)

