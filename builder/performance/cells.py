"""Which cells have a performance estimate: one function (`estimate_cells`) that `make
estimates` runs AIConfigurator over and that the staleness test (tests/test_performance_data.py)
holds the committed data (recipes/performance/) to.

A cell is a recipe's variant × a hardware id whose `aiconfigurator_system` names
AIConfigurator's system × every GPU count of one node the builder renders a command for with
the strategy of that selection's default (`gpus_selections`: the `gpus` row's choices, 1 up
to the node's most, so that a workload profile can pick at any of them) × every layout of
that count the builder can produce (`layouts.candidate_layouts`) × each workload whose prompt
and output fit the context the command serves at that layout. A variant is modelled when its
checkpoint (the variant's own model id, else the recipe's), or one with the same config.json
(`SAME_CHECKPOINT`), is among the models AIConfigurator models offline (its default models,
whose config.json it ships; coverage.json keeps the list).

Everything a cell's estimate depends on besides the tool's release is in the cell
(`INPUT_KEYS`): when any of it changes, the committed estimate is stale.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..commands.compose import sizing_args
from ..commands.deploy_types import context
from ..commands.fit import fit_plan, most_gpus
from ..commands.offering import variant_hardware
from ..commands.query import offered_hardware
from ..commands.selection import resolve
from ..errors import SelectionError
from ..types import Data
from .layouts import Layout, candidate_layouts

__all__ = ["CONCURRENCY", "DEFAULT_WORKLOAD", "INPUT_KEYS", "SAME_CHECKPOINT", "WORKLOADS",
           "Coverage", "aic_checkpoint", "cell_key", "estimate_cells", "gpus_selections"]

WORKLOADS: dict[str, dict[str, int]] = {
    "chat": {"isl": 1024, "osl": 1024},
    "long_prompt": {"isl": 8192, "osl": 1024},
    "reasoning": {"isl": 1024, "osl": 8192},
}
"""Tokens in (`isl`) and out (`osl`) per request, by workload id."""
DEFAULT_WORKLOAD = "chat"
CONCURRENCY = (1, 2, 4, 8, 16, 32, 64, 128, 256)
"""Requests in flight on the whole layout (all its data-parallel replicas); a layout of `dp`
replicas is estimated at the values that are a multiple of `dp`, up to the last one
AIConfigurator says fits in memory."""
SAME_CHECKPOINT = {
    # our model id: AIConfigurator's id of a checkpoint with the same config.json
    # (the base model's; Meta's model card: the instruct models are fine-tunes of it)
    "meta-llama/Llama-3.1-8B-Instruct": "meta-llama/Meta-Llama-3.1-8B",
    "meta-llama/Llama-3.1-8B": "meta-llama/Meta-Llama-3.1-8B",
    "meta-llama/Llama-3.1-70B-Instruct": "meta-llama/Meta-Llama-3.1-70B",
    "meta-llama/Llama-3.1-405B-Instruct": "meta-llama/Meta-Llama-3.1-405B",
}
INPUT_KEYS = ("variant", "hardware", "system", "checkpoint", "strategy", "gpus", "tp", "pp",
              "dp", "ep", "kv_cache_dtype", "workload")
"""What a cell is and what its estimate is made from (with the workload's tokens and the
concurrency ladder, which are the file's)."""
KEY = ("variant", "hardware", "gpus", "tp", "pp", "dp", "ep", "workload")


@dataclass(frozen=True)
class Coverage:
    cells: tuple[dict[str, Any], ...]
    """Each with the `INPUT_KEYS`."""
    why_not: dict[str, dict[str, str]]
    """variant → hardware id → why it has no cell (for the hardware the variant is offered
    on)."""


def cell_key(cell: Mapping[str, Any]) -> tuple[Any, ...]:
    """What tells one cell of a recipe from another."""
    return tuple(cell[k] for k in KEY)


def aic_checkpoint(recipe: Data, variant_id: str, known: Mapping[str, str]) -> str | None:
    """AIConfigurator's id of the checkpoint the variant serves, None when it does not model
    it; `known`: the ids of the models it does (its default models, each with a config.json
    it ships), by their lower-case form."""
    model_id = recipe["variants"][variant_id].get("model_id") or recipe["model"]["model_id"]
    found = known.get(model_id.lower())
    if found is None and SAME_CHECKPOINT.get(model_id, "").lower() in known:
        found = known[SAME_CHECKPOINT[model_id].lower()]
    return found


def estimate_cells(catalog: Data, recipe: Data, known: Mapping[str, str], tool: str
                   ) -> Coverage:
    """The cells of `recipe` (see the module docstring) and why the rest have none; `tool`
    names the release in the reasons ("AIConfigurator 0.12.0")."""
    cells: list[dict[str, Any]] = []
    why_not: dict[str, dict[str, str]] = {}
    offered = offered_hardware(catalog, recipe)
    for vid in recipe["variants"]:
        reasons = why_not.setdefault(vid, {})
        checkpoint = aic_checkpoint(recipe, vid, known)
        for hw_id in variant_hardware(catalog, recipe, vid, offered):
            hw = catalog["hardware"][hw_id]
            system = hw.get("aiconfigurator_system")
            if system is None:
                reasons[hw_id] = f"{tool} has no vLLM performance data for the {hw['display_name']}"
                continue
            if checkpoint is None:
                reasons[hw_id] = (f"{tool} does not model this checkpoint (it is not among "
                                  "the models it ships a config of)")
                continue
            selection = _default_selection(catalog, recipe, vid, hw_id)
            if isinstance(selection, str):
                reasons[hw_id] = selection
                continue
            if not candidate_layouts(catalog, recipe, selection):
                strategy = catalog["strategies"][selection["strategy"]]["display_name"]
                reasons[hw_id] = f"its command ({strategy}) is not a single-node layout"
                continue
            found = [cell for each in gpus_selections(catalog, recipe, selection)
                     for layout in candidate_layouts(catalog, recipe, each)
                     for cell in _cells(catalog, recipe, each, layout, system, checkpoint)]
            if not found:
                reasons[hw_id] = "the context its command serves is shorter than every workload"
            cells += found
    return Coverage(tuple(cells), {v: r for v, r in why_not.items() if r})


def _default_selection(catalog: Data, recipe: Data, vid: str, hw_id: str
                       ) -> dict[str, str] | str:
    """The resolved selection of `vid` on `hw_id` with the builder's defaults; when the
    hardware's default GPU count does not hold it, the fewest GPUs that do. A string: why
    the builder renders no command for it."""
    try:
        return resolve(catalog, recipe, {"variant": vid, "hardware": hw_id})
    except SelectionError as error:
        first = str(error)
    hw = catalog["hardware"][hw_id]
    for gpus in range(int(hw["gpu_count"]) + 1, int(hw.get("max_gpus") or hw["gpu_count"]) + 1):
        try:
            return resolve(catalog, recipe, {"variant": vid, "hardware": hw_id,
                                             "gpus": str(gpus)})
        except SelectionError:
            continue
    return f"the builder renders no command for it: {first}"


def gpus_selections(catalog: Data, recipe: Data, selection: Mapping[str, str]
                    ) -> list[dict[str, str]]:
    """The resolved selections of `selection`'s variant, hardware and strategy at every GPU
    count of one node the builder renders a command for (1 up to the node's most; the counts
    it refuses, e.g. too few GPUs for the weights, are left out), fewest GPUs first."""
    found = []
    for gpus in range(1, most_gpus(catalog["hardware"][selection["hardware"]]) + 1):
        try:
            each = resolve(catalog, recipe, {
                "variant": selection["variant"], "hardware": selection["hardware"],
                "strategy": selection["strategy"], "gpus": str(gpus)})
        except SelectionError:
            continue
        if each["strategy"] == selection["strategy"] and each.get("gpus") == str(gpus):
            found.append(each)
    return found


def _cells(catalog: Data, recipe: Data, selection: Mapping[str, str], layout: Layout,
           system: str, checkpoint: str) -> list[dict[str, Any]]:
    ctx = context(catalog, recipe, selection)
    args = sizing_args(ctx)
    limit = None
    found = fit_plan(recipe, selection["variant"], ctx.hw, args, layout.tp, layout.tp)
    length = args.get("--max-model-len")
    if found is not None:
        limit = found.max_model_len
    elif length and str(length[0]).isdigit():
        limit = int(length[0])
    dtype = args.get("--kv-cache-dtype")
    base = {
        "variant": selection["variant"], "hardware": selection["hardware"], "system": system,
        "checkpoint": checkpoint, "strategy": selection["strategy"], "gpus": layout.gpus,
        "tp": layout.tp, "pp": layout.pp, "dp": layout.dp, "ep": layout.ep,
        "kv_cache_dtype": str(dtype[0]) if dtype else "auto",
    }
    return [{**base, "workload": name} for name, tokens in WORKLOADS.items()
            if limit is None or tokens["isl"] + tokens["osl"] <= limit]
