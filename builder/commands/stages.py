"""The stages of a resolution, in order: each reads the explicit choices and what the stages
before it decided (`sel`), and either fills its keys into `sel` or raises the SelectionError
that the page shows beside the pill and the CLI prints. `STAGES` lists them; the first ones
(`PREFIX` keys: hardware and variant, strategy, a vLLM-Omni task) decide what every later
stage depends on, which is what lets the resolver keep a prefix per explicit value.

    hardware    the hardware and variant: both explicit, or the first variant that runs on the
                hardware (preferring one some strategy serves, then one no count-qualified key
                pins to a GPU count), or the variant's default hardware; a variant a hardware
                list offers at other counts than the GPUs asked for is refused
    strategy    the explicit one if it serves them, else the recipe's first that does
    task        a vLLM-Omni recipe's task: the explicit one, else the first that fits
    gpus        (a count a hardware list pins, `offering.gpu_counts`, counts as explicit)
                single-node strategies: the explicit count (at most the node's, a multiple of
                the command's parallel size), else the size the command uses (`compose.py`);
                multi-node strategies: whole nodes of GPUs, as many as the strategy runs on;
                vLLM-Omni: the cards of a single-GPU id asked for, else none
    nodes       the explicit count, else the nodes the GPUs asked for span, else the fewest
                the strategy runs on
    profile     the explicit workload profile where estimates cover the selection, else
                balanced (`builder.estimates.profiles`)
    pd_connector  prefill/decode strategies: the explicit connector, else the recipe's first
    kv_offload  recipes with `kv_offload_support`: the explicit tier, else off
    features    each feature: explicit, or its default (a variant's mode, opt-in, on), then
                `exclusive_features` groups keep one
    frontend    the explicit one, else the recipe's, the deploy type's or Rust
    install     the explicit method, else pip where it is offered, else Docker
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..errors import SelectionError
from ..estimates.profiles import BALANCED
from ..types import Data
from ..vocabulary import OFF, ON, feature_label
from .compose import Context, unchecked_tp_reason
from .deploy_types import deploy_type
from .fit import most_gpus
from .kv_offload import KV_OFFLOAD
from .legacy_gpus import hardware_reason
from .offering import label, recipe_support
from .omni_tasks import TASK
from .pd import PD_CONNECTOR, connector_choices
from .query import GPUS, PROFILE, node_range
from .reasons import (
    asked_nodes,
    connector_reason,
    default_frontend,
    frontend_reason,
    gpus_nodes_reason,
    nodes_reason,
    opt_in,
    selection_profile_reason,
)

__all__ = ["CHOSEN", "LATER", "PREFIX", "STAGES", "Resolver", "Stage", "exclusive_conflict",
           "stage_index"]


class Resolver(Protocol):
    """What a stage asks of the resolution that runs it: the recipe and its catalog, and the
    kept answers. `resolver.Resolver` is the one implementation; it imports the stages and
    passes itself to each, so nothing here imports the resolver (no import circle)."""

    @property
    def catalog(self) -> Data: ...
    @property
    def recipe(self) -> Data: ...
    @property
    def features(self) -> dict[str, Any]: ...
    @property
    def strategies(self) -> list[str]: ...
    @property
    def tasks(self) -> list[str]: ...
    @property
    def has_facts(self) -> bool: ...
    def context(self, hw_id: str, variant_id: str, sid: str, gpus: str | None) -> Context: ...
    def variant_reason(self, variant_id: str, hw_id: str) -> str | None: ...
    def count_reason(self, variant_id: str, hw_id: str, gpus: str) -> str | None: ...
    def pinned_gpus(self, variant_id: str, hw_id: str) -> str | None: ...
    def runs_on(self, variant_id: str) -> list[str]: ...
    def default_hardware(self, variant_id: str) -> str | None: ...
    def strategy_reason(self, hw_id: str, variant_id: str, sid: str,
                        gpus: str | None = None) -> str | None: ...
    def fit_reason(self, hw_id: str, variant_id: str, sid: str,
                   gpus: str | None = None) -> str | None: ...
    def first_strategy(self, hw_id: str, variant_id: str,
                       gpus: str | None = None) -> str | None: ...
    def feature_reason(self, sel: Mapping[str, str], fid: str) -> str | None: ...
    def mode_reason(self, sel: Mapping[str, str], fid: str, mode_id: str) -> str | None: ...
    def install_refusals(self, sel: Mapping[str, str]) -> dict[str, str]: ...
    def task_reason(self, sel: Mapping[str, str], task_id: str) -> str | None: ...
    def offload_reason(self, sel: Mapping[str, str], tier: str) -> str | None: ...


Stage = Callable[["Resolver", Mapping[str, str], dict[str, str], "str | None"], None]
"""A stage: (resolver, explicit choices, the selection so far, the key being tried)."""


def pick_hardware(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str],
                  focus: str | None) -> None:
    catalog, recipe = r.catalog, r.recipe
    hardware, variants = catalog["hardware"], recipe["variants"]
    hw_id, variant_id = explicit.get("hardware"), explicit.get("variant")
    gpus = explicit.get(GPUS)
    if hw_id is not None and variant_id is not None:
        problem = r.variant_reason(variant_id, hw_id)
        if problem:
            runs = [hardware[h]["display_name"] for h in r.runs_on(variant_id)]
            raise SelectionError("hardware", f"{problem}; it runs on {', '.join(runs)}")
        problem = r.count_reason(variant_id, hw_id, gpus) if gpus is not None else None
        if problem:
            raise SelectionError(focus if focus in ("hardware", "variant") else GPUS, problem)
    elif hw_id is not None:
        # The first variant that runs here (at the GPUs asked for), preferring one some
        # strategy can serve (a checkpoint too big for a workstation gives way to a smaller
        # one), and one no hardware list pins to another count (`offering.gpu_counts`).
        # (Lazily: the variants after the one picked are not looked at.)
        first = None
        pinned = []
        for candidate in variants:
            if r.variant_reason(candidate, hw_id) is not None or (
                    gpus is not None and r.count_reason(candidate, hw_id, gpus) is not None):
                continue
            count = gpus
            if count is None:
                count = r.pinned_gpus(candidate, hw_id)
                if count is not None:
                    pinned.append((candidate, count))
                    continue
            first = first or candidate
            if r.first_strategy(hw_id, candidate, count) is not None:
                variant_id = candidate
                break
        else:
            variant_id = next((candidate for candidate, count in pinned
                               if r.first_strategy(hw_id, candidate, count) is not None),
                              first or (pinned[0][0] if pinned else None))
        if variant_id is None:
            support = recipe_support(recipe, hw_id, hardware[hw_id])
            name = hardware[hw_id]["display_name"]
            why = r.variant_reason(next(iter(variants)), hw_id)
            if why is None and gpus is not None:  # offered here, at other counts
                raise SelectionError(GPUS, r.count_reason(next(iter(variants)), hw_id, gpus)
                                     or f"no checkpoint of this recipe runs on {gpus} GPUs")
            raise SelectionError("hardware", hardware_reason(hardware[hw_id]) or (
                f"this recipe is not offered on {name}" if support is None
                else f"no checkpoint of this recipe runs on {name}: {why}"))
    else:
        variant_id = variant_id or "default"
        hw_id = r.default_hardware(variant_id)
        if hw_id is None:
            raise SelectionError(
                "variant", f"{label(variant_id, variants[variant_id])} runs on no hardware")
    sel["hardware"], sel["variant"] = hw_id, variant_id


def pick_task(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str],
              focus: str | None) -> None:
    """A vLLM-Omni recipe's task: the one asked for, else the first that fits here."""
    tasks = r.tasks
    if not tasks:
        return
    wanted = explicit.get(TASK)
    reasons = {}
    # The task is checked on the cards asked for (`omni.task_reason`).
    asked = {**sel, GPUS: explicit[GPUS]} if GPUS in explicit else sel
    for task_id in [wanted] if wanted is not None else tasks:
        reasons[task_id] = r.task_reason(asked, task_id)
        if reasons[task_id] is None:
            sel[TASK] = task_id
            return
    if wanted is not None:
        reason = reasons[wanted]
        assert reason is not None, "a task that fits returned above"
        raise SelectionError(TASK, reason)
    hw_name = r.catalog["hardware"][sel["hardware"]]["display_name"]
    raise SelectionError("hardware", f"no task of this recipe fits on {hw_name}: "
                                     f"{reasons[tasks[0]]}")


def pick_strategy(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str],
                  focus: str | None) -> None:
    hw_id, variant_id = sel["hardware"], sel["variant"]
    sid, gpus = explicit.get("strategy"), explicit.get(GPUS)
    if sid is not None:
        problem = r.strategy_reason(hw_id, variant_id, sid, gpus)
        if problem:
            fit = gpus is not None and problem == r.fit_reason(hw_id, variant_id, sid, gpus)
            raise SelectionError(GPUS if fit else "strategy", problem)
        sel["strategy"] = sid
        return
    first = r.first_strategy(hw_id, variant_id, gpus)
    if first is not None:
        sel["strategy"] = first
        return
    hw_name = r.catalog["hardware"][hw_id]["display_name"]
    variant = r.recipe["variants"][variant_id]
    refusal = next((reason for reason in (r.fit_reason(hw_id, variant_id, s, gpus)
                                          for s in r.strategies) if reason),
                   None) if r.has_facts else None  # without facts the fit rule refuses none
    if refusal is not None:
        raise SelectionError(GPUS if gpus is not None else "hardware", refusal)
    raise SelectionError("hardware", f"no serving strategy of this recipe serves "
                         f"{label(variant_id, variant)} on {hw_name}")


def pick_gpus(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str],
              focus: str | None) -> None:
    """Single-node strategies: the GPUs asked for, if the node holds that many and they
    split into the command's parallel groups; else what the command uses by default (the
    fit rule's size, the recipe's, or the node). Multi-node strategies: GPUs asked for are
    whole nodes (`strategy_reason` checks), as many as the strategy can run on; the nodes
    stage counts them (`asked_nodes`), and the selection keeps the nodes, not the GPUs."""
    strategy = r.catalog["strategies"][sel["strategy"]]
    deploy = deploy_type(strategy)
    wanted = explicit.get(GPUS)
    if deploy.omni:
        hw = r.catalog["hardware"][sel["hardware"]]
        if wanted is not None and not hw.get("max_gpus"):
            raise SelectionError(GPUS, f"{strategy['display_name']} sizes itself by nodes; "
                                       "gpus= is for single-node strategies")
        if wanted is not None:
            # The cards of a single-GPU id (one with a `max_gpus`): the server's own
            # arguments set its layout; its task is checked against them (`omni.task_reason`).
            if int(wanted) > most_gpus(hw):
                raise SelectionError(GPUS, f"one {hw['display_name']} node holds at most "
                                           f"{most_gpus(hw)} GPUs")
            sel[GPUS] = wanted
        return
    if not deploy.one_node:
        nodes = asked_nodes(r.catalog, sel, explicit)
        problem = nodes_reason(r.catalog, r.recipe, sel, nodes) if nodes is not None else None
        if problem:
            raise SelectionError(GPUS, f"gpus={wanted} spans {nodes} node"
                                       f"{'s' if nodes != 1 else ''}: {problem}")
        return
    hw_id, variant_id, sid = sel["hardware"], sel["variant"], sel["strategy"]
    hw = r.catalog["hardware"][hw_id]
    if wanted is None:
        size, _ = r.context(hw_id, variant_id, sid, None).parallel_size()
        sel[GPUS] = str(size)
        return
    most = most_gpus(hw)
    if int(wanted) > most:
        raise SelectionError(GPUS, f"one {hw['display_name']} node holds at most {most} GPUs")
    ctx = r.context(hw_id, variant_id, sid, wanted)
    problem = unchecked_tp_reason(ctx)
    if problem:
        raise SelectionError(GPUS, problem)
    size, _ = ctx.parallel_size()
    if int(wanted) % size:
        raise SelectionError(GPUS, (
            f"{wanted} GPUs do not split into tensor-parallel groups of {size}; pick a "
            f"multiple of {size}"))
    sel[GPUS] = wanted


def pick_nodes(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str],
               focus: str | None) -> None:
    low, _ = node_range(r.catalog, r.recipe, sel)
    wanted = explicit.get("nodes")
    nodes = int(wanted) if wanted is not None else asked_nodes(r.catalog, sel, explicit) or low
    problem = (gpus_nodes_reason(r.catalog, sel, explicit, nodes)
               or nodes_reason(r.catalog, r.recipe, sel, nodes))
    if problem:
        raise SelectionError("nodes", problem)
    sel["nodes"] = str(nodes)


def pick_profile(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str],
                 focus: str | None) -> None:
    profile = explicit.get(PROFILE, BALANCED)
    problem = selection_profile_reason(r.catalog, r.recipe, sel, profile)
    if problem:
        raise SelectionError(PROFILE, problem)
    sel[PROFILE] = profile


def pick_pd_connector(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str],
                      focus: str | None) -> None:
    wanted = explicit.get(PD_CONNECTOR)
    if wanted is not None:
        problem = connector_reason(r.catalog, r.recipe, sel, wanted)
        if problem:
            raise SelectionError(PD_CONNECTOR, problem)
        sel[PD_CONNECTOR] = wanted
    elif deploy_type(r.catalog["strategies"][sel["strategy"]]).picks_connector:
        hw_id = sel["hardware"]
        sel[PD_CONNECTOR] = connector_choices(
            r.recipe, hw_id, r.catalog["hardware"][hw_id])[0]


def pick_kv_offload(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str],
                    focus: str | None) -> None:
    if not r.recipe.get("kv_offload_support"):
        return
    tier = explicit.get(KV_OFFLOAD, OFF)
    problem = r.offload_reason(sel, tier)
    if problem:
        raise SelectionError(KV_OFFLOAD, problem)
    sel[KV_OFFLOAD] = tier


def pick_features(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str],
                  focus: str | None) -> None:
    catalog, recipe, features = r.catalog, r.recipe, r.features
    variant = recipe["variants"][sel["variant"]]
    for fid in features:
        value = explicit.get(fid)
        if value == OFF:
            sel[fid] = OFF
            continue
        reason = r.feature_reason(sel, fid)
        if value is None:
            wanted = variant.get("default_modes", {}).get(fid)
            if reason is None and wanted and not r.mode_reason(sel, fid, wanted):
                sel[fid] = wanted
            elif reason is None and not opt_in(recipe, catalog, fid, sel["hardware"],
                                               sel.get(GPUS)):
                has_modes = bool(features[fid].get("modes"))
                sel[fid] = pick_mode(r, sel, fid) if has_modes else ON
            else:
                sel[fid] = OFF
            continue
        if reason is not None:
            raise SelectionError(fid, reason)
        if value == ON:
            sel[fid] = pick_mode(r, sel, fid) if features[fid].get("modes") else ON
        else:
            mode_problem = r.mode_reason(sel, fid, value)
            if mode_problem:
                raise SelectionError(fid, mode_problem)
            sel[fid] = value
    conflict = exclusive_conflict(r, explicit, focus)
    if conflict is not None:
        raise conflict
    for group in recipe.get("exclusive_features", []):
        chosen = [f for f in group if explicit.get(f, OFF) != OFF]
        keep = chosen[0] if chosen else next((f for f in group if sel[f] != OFF), None)
        for fid in group:
            if fid != keep:
                sel[fid] = OFF


def pick_mode(r: Resolver, sel: Mapping[str, str], fid: str) -> str:
    feature = r.features[fid]
    variant = r.recipe["variants"][sel["variant"]]
    candidates = [variant.get("default_modes", {}).get(fid), feature.get("default_mode")]
    candidates += list(feature["modes"])
    for mode_id in candidates:
        if mode_id and r.mode_reason(sel, fid, mode_id) is None:
            return mode_id
    raise AssertionError("feature_reason() guarantees an available mode")


def pick_frontend(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str],
                  focus: str | None) -> None:
    frontend = explicit.get("frontend") or default_frontend(r.catalog, r.recipe, sel)
    problem = frontend_reason(r.catalog, sel, frontend)
    if problem:
        raise SelectionError("frontend", problem)
    sel["frontend"] = frontend


def pick_install(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str],
                 focus: str | None) -> None:
    sel["install"] = "pip"
    refused = r.install_refusals(sel)
    wanted = explicit.get("install")
    if wanted is not None:
        if wanted in refused:
            raise SelectionError("install", refused[wanted])
        sel["install"] = wanted
    elif "pip" in refused:
        sel["install"] = "docker"


def exclusive_conflict(r: Resolver, explicit: Mapping[str, str], focus: str | None
                       ) -> SelectionError | None:
    """Two explicit features of one `exclusive_features` group both on: the error,
    blamed on `focus` when it is one of them (that is the pill that gets disabled)."""
    for group in r.recipe.get("exclusive_features", []):
        chosen = [f for f in group if explicit.get(f, OFF) != OFF]
        if len(chosen) > 1:
            blamed = focus if focus is not None and focus in chosen else chosen[-1]
            other = next(f for f in chosen if f != blamed)
            other_label = feature_label(other, r.features[other])
            return SelectionError(
                blamed,
                f"mutually exclusive with {other} ({other_label}); turn {other} off first",
            )
    return None


STAGES: tuple[tuple[str, Stage], ...] = (
    ("hardware", pick_hardware),
    ("strategy", pick_strategy),
    (TASK, pick_task),
    (GPUS, pick_gpus),
    ("nodes", pick_nodes),
    (PROFILE, pick_profile),
    (PD_CONNECTOR, pick_pd_connector),
    (KV_OFFLOAD, pick_kv_offload),
    ("features", pick_features),
    ("frontend", pick_frontend),
    ("install", pick_install),
)
"""(the key a stage fills, the stage), in the order they run."""
PREFIX = ("hardware", "variant", "strategy", TASK, GPUS)
"""The keys of the first stages; the later stages depend on them, not the reverse."""
CHOSEN = [key for key, _ in STAGES].index(GPUS)
"""Index in `STAGES` of the GPUs stage, the last of the prefix (it fails only on GPUs asked
for)."""
LATER = CHOSEN + 1
"""Index in `STAGES` of the first stage after the prefix."""


def stage_index(features: Mapping[str, object]) -> dict[str, int]:
    """Selection key → the index in `STAGES` of the stage it enters (a variant the hardware
    stage's, a feature the features stage's)."""
    index = {key: number for number, (key, _) in enumerate(STAGES)}
    index["variant"] = index["hardware"]
    index.update(dict.fromkeys(features, index["features"]))
    return index
