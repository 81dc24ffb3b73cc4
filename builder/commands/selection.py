"""From a query (the page's URL keys) to a complete selection, and why choices are unavailable.

Explicit choices are kept or refused; everything not given is defaulted to the first choice
that works with them, stage by stage: hardware and variant, strategy, a vLLM-Omni recipe's
task (the first that fits, see `omni.py`), nodes, the prefill/decode KV connector
(`pd_connector`, only for prefill/decode strategies), the KV offload tier (`kv_offload`, only
for recipes that declare `kv_offload_support`), features, frontend, install. Hardware and variants
follow `offering.py`; strategies are the recipe's `strategies` list in order of preference
(see `recipe_strategies`), each refused where `strategy_reason` says why; node counts follow
the deploy type (`deploy.py`).

A choice is *unavailable* when adding it to the explicit choices cannot be resolved; the reason
is the sentence the resolution fails with. `unavailable` finds them in one pass over the
options, each answered from the stage its key enters, never by resolving from scratch:
nodes, KV connector, KV offload, frontend and install by their own rule alone (no later stage
depends on them); a feature by its own rule and its exclusive groups; hardware, variant,
strategy and task by the *prefix* they lead to (hardware and variant, strategy, task), which
the resolver keeps per explicit value of those keys, and then only the explicit later keys
checked on it. `tests/test_unavailable_agrees.py` checks the pass against resolving each
option on its own.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ..errors import SelectionError, quoted
from ..hardware_keys import most_specific, names
from ..types import Data
from ..vocabulary import (
    CONNECTORS,
    FRONTENDS,
    INSTALL_METHODS,
    OFF,
    OFFLOAD_TIERS,
    ON,
    feature_label,
)
from .deploy_types import MAX_NODES, context, deploy_type, strategies_where
from .install import install_refusals
from .kv_offload import KV_OFFLOAD, offload_reason
from .offering import (
    default_hardware,
    label,
    recipe_support,
    variant_hardware,
    variant_reason,
)
from .omni import task_reason
from .omni_tasks import TASK, task_ids
from .pd import PD_CONNECTOR, connector_choices

__all__ = ["MAX_NODES", "canonical_query", "choices", "node_memory_gb",
           "node_range", "offered_hardware", "parse_query", "recipe_strategies",
           "renamed_variants", "resolve", "strategy_reason", "unavailable"]

AVAILABLE = ("verified", "supported", "experimental")
_UNKNOWN = object()
"""A memo's miss (None is a kept answer: no reason)."""
SINGLE_NODE_ONLY = ("embedding",)
"""Tasks whose models are offered single-node strategies only by default."""


def node_memory_gb(hw: Data) -> int:
    return hw["gpu_count"] * hw["memory_gb"]


def fits_one_node(variant: Data, hw: Data) -> bool:
    return variant["vram_minimum_gb"] <= node_memory_gb(hw)


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
    return [h for h, hw in catalog["hardware"].items() if recipe_support(recipe, h, hw)]


def choices(catalog: Data, recipe: Data, offered: list[str] | None = None
            ) -> dict[str, list[str]]:
    """Every value each selection key can take, in display order (hardware: what the recipe
    offers; `offered` when the caller has it)."""
    result = {
        "hardware": offered_hardware(catalog, recipe) if offered is None else list(offered),
        "variant": list(recipe["variants"]),
        **({TASK: task_ids(recipe)} if recipe.get("omni") else {}),
        "strategy": list(catalog["strategies"]),
        "nodes": [str(n) for n in range(1, MAX_NODES + 1)],
        PD_CONNECTOR: list(CONNECTORS),
        **({KV_OFFLOAD: [OFF, *OFFLOAD_TIERS]} if recipe.get("kv_offload_support") else {}),
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


def canonical_query(recipe: Data, query: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """`query` with an earlier variant id (`variant=dspark`) replaced by the variant's id now,
    and one notice per replacement that names the new id: the rule the CLI, the page and the
    JSON links share."""
    renamed = renamed_variants(recipe)
    value = query.get("variant")
    if value is None or value not in renamed:
        return dict(query), []
    new = renamed[value]
    return ({**query, "variant": new},
            [f"variant={value} is now variant={new}; showing variant={new}"])


def parse_query(catalog: Data, recipe: Data, query: Mapping[str, str],
                valid: Mapping[str, list[str]] | None = None) -> dict[str, str]:
    """Check keys and values exist; raises SelectionError naming the key and the valid values.
    `valid`: `choices(catalog, recipe)` when the caller has it."""
    valid = choices(catalog, recipe) if valid is None else valid
    explicit = {}
    for key, value in query.items():
        if key not in valid:
            raise SelectionError(key, f"unknown key; valid keys: {', '.join(valid)}")
        if key == "hardware" and value in catalog["hardware"] and value not in valid[key]:
            names = ", ".join(catalog["hardware"][h]["display_name"] for h in valid[key])
            raise SelectionError(key, f"this recipe is not offered on "
                                      f"{catalog['hardware'][value]['display_name']}; it is "
                                      f"offered on {names}")
        if value not in valid[key]:
            raise SelectionError(
                key, f"unknown value {quoted(value)}; valid values: {', '.join(valid[key])}"
            )
        explicit[key] = value
    return explicit


# ----------------------------------------------------------------------------- reasons


def strategy_reason(
    catalog: Data, recipe: Data, hw_id: str, variant_id: str, strategy_id: str,
    offered: Collection[str] | None = None,
) -> str | None:
    """Why `strategy_id` cannot serve `variant_id` on `hw_id`; None when it can.
    `offered`: `recipe_strategies(catalog, recipe)`, when the caller has it."""
    hw = catalog["hardware"][hw_id]
    variant = recipe["variants"][variant_id]
    strategy = catalog["strategies"][strategy_id]
    name, hw_name = strategy["display_name"], hw["display_name"]
    omni = deploy_type(strategy).omni
    if bool(recipe.get("omni")) != omni:
        return (f"{name} is for generation models served by vLLM-Omni" if omni else
                f"a vLLM-Omni generation model runs as one server on one node, not {name}")
    if strategy_id not in (recipe_strategies(catalog, recipe) if offered is None else offered):
        return f"this recipe does not offer {name}"
    declared = most_specific(recipe.get("strategy_hardware", {}).get(strategy_id, {}), hw_id, hw)
    if declared == "unsupported":
        return f"this recipe does not offer {name} on {hw_name}"
    deploy = deploy_type(strategy)
    if declared not in AVAILABLE:
        problem = _match_reason(recipe, variant_id, variant, strategy, hw)
        if problem:
            return problem
    problem = deploy.reason(catalog, recipe, hw_id, variant_id)
    if problem:
        return problem
    if deploy.one_node:
        return None
    low, _ = deploy.node_range(catalog, recipe, {"hardware": hw_id, "variant": variant_id,
                                                 "strategy": strategy_id})
    if low > MAX_NODES:
        return (f"{label(variant_id, variant)} needs {low} {hw_name} nodes with {name}; the "
                f"builder lays out at most {MAX_NODES}")
    return None


def _match_reason(recipe: Data, variant_id: str, variant: Data, strategy: Data,
                  hw: Data) -> str | None:
    """The strategy's own hardware rules (`hardware_match`)."""
    match = strategy["hardware_match"]
    name, hw_name = strategy["display_name"], hw["display_name"]
    arch = match.get("architecture")
    if arch and arch != recipe["model"]["architecture"]:
        return f"{name} is for {'MoE' if arch == 'moe' else 'dense'} models only"
    gpus = hw["gpu_count"]
    # A vLLM-Omni server's memory is judged per task, on the GPUs it runs on (`omni.py`).
    fits = deploy_type(strategy).omni or fits_one_node(variant, hw)
    if not match.get("multi_node", False):
        if gpus < match.get("min_gpus", 1):
            return f"{name} needs at least {match['min_gpus']} GPUs; {hw_name} has {gpus}"
        if match.get("max_gpus") and gpus > match["max_gpus"]:
            return f"{name} is for at most {match['max_gpus']} GPUs; {hw_name} has {gpus}"
        if not fits:
            scale = ("pick a multi-node strategy" if hw.get("scalable", True)
                     else f"a {hw_name} cannot join a multi-node deployment")
            return (f"{label(variant_id, variant)} needs {variant['vram_minimum_gb']} GB and one "
                    f"{hw_name} node has {node_memory_gb(hw)} GB; {scale}")
        return None
    if not hw.get("scalable", True):
        return f"a {hw_name} cannot join a multi-node deployment"
    if match.get("only_when_oversize") and fits:
        return f"the model fits on one {hw_name} node, so {name} is not needed"
    return None


def node_range(catalog: Data, recipe: Data, selection: Mapping[str, str]) -> tuple[int, int]:
    """The node counts the strategy in `selection` can run on (see `deploy.py`)."""
    strategy = catalog["strategies"][selection["strategy"]]
    return deploy_type(strategy).node_range(catalog, recipe, selection)


def nodes_reason(catalog: Data, recipe: Data, sel: Mapping[str, str], nodes: int,
                 span: tuple[int, int] | None = None) -> str | None:
    """Why `nodes` nodes cannot be picked for `sel`; `span`: its `node_range`, when the
    caller has it (the Nodes row asks for every count)."""
    low, high = node_range(catalog, recipe, sel) if span is None else span
    strategy = catalog["strategies"][sel["strategy"]]
    name = strategy["display_name"]
    if (low <= nodes <= high and deploy_type(strategy).power_of_two(strategy)
            and nodes & (nodes - 1)):
        return (f"{name} spans every GPU with one tensor-parallel group, whose size must divide "
                "the attention heads: pick a power-of-two node count")
    if low <= nodes <= high:
        return None
    if low == high:
        return f"{name} here runs on {low} node{'s' if low > 1 else ''}"
    if nodes < low and low > 2:
        hw = catalog["hardware"][sel["hardware"]]
        variant = recipe["variants"][sel["variant"]]
        return (f"{label(sel['variant'], variant)} needs {variant['vram_minimum_gb']} GB: at "
                f"least {low} {hw['display_name']} nodes ({node_memory_gb(hw)} GB each)")
    return f"{name} here runs on {low} to {high} nodes"


def connector_reason(catalog: Data, recipe: Data, sel: Mapping[str, str],
                     connector: str) -> str | None:
    """Why the prefill/decode KV connector `connector` cannot be picked."""
    strategy = catalog["strategies"][sel["strategy"]]
    name = CONNECTORS[connector].label
    if not deploy_type(strategy).picks_connector:
        return (f"{name} is a prefill/decode KV connector; {strategy['display_name']} does "
                "not split prefill and decode")
    hw_id = sel["hardware"]
    offered = connector_choices(recipe, hw_id, catalog["hardware"][hw_id])
    if connector not in offered:
        hw_name = catalog["hardware"][hw_id]["display_name"]
        names = ", ".join(CONNECTORS[c].label for c in offered)
        return f"this recipe offers {names} for prefill/decode on {hw_name}, not {name}"
    return None


def feature_reason(catalog: Data, recipe: Data, sel: Mapping[str, str], fid: str) -> str | None:
    """Why feature `fid` cannot be on for the hardware/variant/strategy in `sel`."""
    feature = recipe["features"][fid]
    hw_id = sel["hardware"]
    hw = catalog["hardware"][hw_id]
    name = feature_label(fid, feature)
    if most_specific(feature.get("hardware", {}), hw_id, hw) == "unsupported":
        return f"{name} is not supported on {hw['display_name']}"
    strategies = feature.get("strategies")
    if strategies is not None and sel["strategy"] not in strategies:
        strategy_name = catalog["strategies"][sel["strategy"]]["display_name"]
        return f"{name} is not offered with {strategy_name}"
    modes = feature.get("modes")
    if modes:
        reasons = [mode_reason(catalog, recipe, sel, fid, mid) for mid in modes]
        if all(reasons):
            return reasons[0]
    return None


def mode_reason(
    catalog: Data, recipe: Data, sel: Mapping[str, str], fid: str, mode_id: str
) -> str | None:
    mode = recipe["features"][fid]["modes"][mode_id]
    hw_id = sel["hardware"]
    hw = catalog["hardware"][hw_id]
    allowed = mode.get("variants")
    if allowed is not None and sel["variant"] not in allowed:
        names = " or ".join(label(v, recipe["variants"][v]) for v in allowed)
        return f"{mode['label']} needs the {names} checkpoint (Variant row)"
    if most_specific(mode.get("hardware", {}), hw_id, hw) == "unsupported":
        return f"{mode['label']} is not supported on {hw['display_name']}"
    return None


def frontend_reason(catalog: Data, sel: Mapping[str, str], frontend: str) -> str | None:
    """Why `frontend` cannot serve the strategy in `sel` (its deploy type runs one frontend
    only: vLLM-Omni's own API server); None when it can."""
    fixed = deploy_type(catalog["strategies"][sel["strategy"]]).frontend
    if fixed is not None and frontend != fixed:
        return (f"vLLM-Omni serves its routes from its own {FRONTENDS[fixed].label} "
                f"API server, not the {FRONTENDS[frontend].label} frontend")
    return None


def default_frontend(catalog: Data, recipe: Data, sel: Mapping[str, str]) -> str:
    """The recipe's `default_frontend`, else the deploy type's one frontend (Python for
    vLLM-Omni), else Rust."""
    if recipe["model"].get("default_frontend"):
        return str(recipe["model"]["default_frontend"])
    return deploy_type(catalog["strategies"][sel["strategy"]]).frontend or "rust"


def opt_in(recipe: Data, catalog: Data, fid: str, hw_id: str) -> bool:
    """True when feature `fid` starts off on this hardware (`opt_in: true` or keys naming it)."""
    value = recipe["features"][fid].get("opt_in", False)
    if isinstance(value, bool):
        return value
    hw = catalog["hardware"][hw_id]
    return most_specific(dict.fromkeys(value, True), hw_id, hw) is not None


# ----------------------------------------------------------------------------- resolve


class _Resolver:
    """One recipe's resolution, stage by stage (see the module docstring).

    What does not depend on the query is worked out once per instance and kept: each
    variant's and strategy's reason per hardware, the hardware each variant runs on, and the
    *prefix* of a resolution (hardware and variant, strategy, task) per explicit value of
    those four keys, which is all most options change."""

    STAGES = ("hardware", "strategy", TASK, "nodes", PD_CONNECTOR, KV_OFFLOAD, "features",
              "frontend", "install")
    PREFIX = ("hardware", "variant", "strategy", TASK)
    """The keys whose stages come first; the later stages depend on them, not the reverse."""
    LATER = STAGES.index(TASK) + 1
    """Index of the first stage after the prefix."""

    def __init__(self, catalog: Data, recipe: Data) -> None:
        self.catalog = catalog
        self.recipe = recipe
        self.features: dict[str, Any] = recipe.get("features", {})
        self._strategy_reasons: dict[tuple[str, str, str], str | None] = {}
        self._variant_reasons: dict[tuple[str, str], str | None] = {}
        self._runs_on: dict[str, list[str]] = {}
        self._first_strategy: dict[tuple[str, str], str | None] = {}
        self._feature_reasons: dict[tuple[str, ...], str | None] = {}
        self._mode_reasons: dict[tuple[str, ...], str | None] = {}
        self._install_refusals: dict[tuple[str, ...], dict[str, str]] = {}
        self._later_reasons: dict[tuple[Any, ...], str | None] = {}
        self._names: dict[str, frozenset[str]] = {}
        self._default_hardware: dict[str, str | None] = {}
        self._task_reasons: dict[tuple[str, str, str], str | None] = {}
        self._prefixes: dict[tuple[str | None, ...], tuple[dict[str, str], SelectionError | None]
                             ] = {}
        self.offered = offered_hardware(catalog, recipe)
        self._offered = set(self.offered)
        self.strategies = recipe_strategies(catalog, recipe)
        self.tasks = task_ids(recipe)
        """A vLLM-Omni recipe's tasks, in order (none for the others)."""
        self._strategy_set = frozenset(self.strategies)
        self.choices = choices(catalog, recipe, self.offered)
        self._stage = {key: self.STAGES.index(key) for key in self.STAGES}
        self._stage["variant"] = 0
        self._stage.update(dict.fromkeys(self.features, self.STAGES.index("features")))

    def names(self, hw_id: str) -> frozenset[str]:
        """`hardware_keys.names` of the hardware, kept per id."""
        found = self._names.get(hw_id)
        if found is None:
            found = self._names[hw_id] = names(hw_id, self.catalog["hardware"][hw_id])
        return found

    def variant_reason(self, variant_id: str, hw_id: str) -> str | None:
        key = (variant_id, hw_id)
        found = self._variant_reasons.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            found = self._variant_reasons[key] = variant_reason(
                self.catalog, self.recipe, variant_id, hw_id, hw_id in self._offered,
                self.names(hw_id))
        return found  # type: ignore[return-value]

    def runs_on(self, variant_id: str) -> list[str]:
        """The offered hardware the variant runs on, in catalog order."""
        if variant_id not in self._runs_on:
            self._runs_on[variant_id] = variant_hardware(self.catalog, self.recipe, variant_id,
                                                         self.offered, self.names)
        return self._runs_on[variant_id]

    def default_hardware(self, variant_id: str) -> str | None:
        if variant_id not in self._default_hardware:
            self._default_hardware[variant_id] = default_hardware(
                self.catalog, self.recipe, variant_id, self.runs_on(variant_id))
        return self._default_hardware[variant_id]

    def strategy_reason(self, hw_id: str, variant_id: str, sid: str) -> str | None:
        key = (hw_id, variant_id, sid)
        found = self._strategy_reasons.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            found = self._strategy_reasons[key] = strategy_reason(
                self.catalog, self.recipe, hw_id, variant_id, sid, self._strategy_set)
        return found  # type: ignore[return-value]

    def first_strategy(self, hw_id: str, variant_id: str) -> str | None:
        """The recipe's most preferred strategy that serves the variant on the hardware."""
        key = (hw_id, variant_id)
        found = self._first_strategy.get(key, _UNKNOWN)
        if found is _UNKNOWN:
            found = None
            for sid in self.strategies:
                if self.strategy_reason(hw_id, variant_id, sid) is None:
                    found = sid
                    break
            self._first_strategy[key] = found
        return found  # type: ignore[return-value]

    def feature_reason(self, sel: Mapping[str, str], fid: str) -> str | None:
        """`feature_reason`, kept per hardware, variant, strategy and feature."""
        key = (sel["hardware"], sel["variant"], sel["strategy"], fid)
        if key not in self._feature_reasons:
            self._feature_reasons[key] = feature_reason(self.catalog, self.recipe, sel, fid)
        return self._feature_reasons[key]

    def mode_reason(self, sel: Mapping[str, str], fid: str, mode_id: str) -> str | None:
        """`mode_reason`, kept per hardware, variant, feature and mode."""
        key = (sel["hardware"], sel["variant"], fid, mode_id)
        if key not in self._mode_reasons:
            self._mode_reasons[key] = mode_reason(self.catalog, self.recipe, sel, fid, mode_id)
        return self._mode_reasons[key]

    def install_refusals(self, sel: Mapping[str, str]) -> dict[str, str]:
        """`install_refusals` for `sel`, kept per what the overrides it reads depend on: the
        hardware, variant, strategy and features."""
        key = (sel["hardware"], sel["variant"], sel["strategy"],
               *(sel.get(fid, OFF) for fid in self.features))
        if key not in self._install_refusals:
            self._install_refusals[key] = install_refusals(
                context(self.catalog, self.recipe, sel))
        return self._install_refusals[key]

    def prefix(self, explicit: Mapping[str, str]) -> dict[str, str]:
        """The hardware, variant, strategy and task `explicit` resolves to (a new dict), or
        SelectionError. The hardware stage is kept per explicit hardware and variant, the
        rest per explicit value of all four keys."""
        get = explicit.get
        key = (get("hardware"), get("variant"), get("strategy"), get(TASK))
        found = self._prefixes.get(key)
        if found is None:
            found = self._prefixes.get(key[:2])
            if found is None:
                sel: dict[str, str] = {}
                try:
                    self._hardware(explicit, sel, None)
                    found = (sel, None)
                except SelectionError as error:
                    found = (sel, error)
                self._prefixes[key[:2]] = found
            if found[1] is None:
                sel = dict(found[0])
                try:
                    self._strategy(explicit, sel, None)
                    if self.tasks:
                        self._task(explicit, sel, None)
                    found = (sel, None)
                except SelectionError as error:
                    found = (sel, error)
            self._prefixes[key] = found
        sel, error = found
        if error is not None:
            raise SelectionError(error.key, error.reason)
        return dict(sel)

    def run(self, explicit: Mapping[str, str], focus: str | None = None) -> dict[str, str]:
        """The complete selection for `explicit` (already parsed), or SelectionError."""
        sel = self.prefix(explicit)
        for stage in self.STAGES[self.LATER:]:
            getattr(self, "_" + stage)(explicit, sel, focus)
        return self._ordered(sel)

    def _later_fails(self, explicit: Mapping[str, str], focus: str, sel: dict[str, str]
                     ) -> str | None:
        """Why the stages after the prefix cannot resolve `explicit` on top of `sel` (None
        when they can), kept per prefix, explicit later keys and focus. Only stages up to the
        last one an explicit key enters can fail, so the rest are not run."""
        later = tuple((k, v) for k, v in explicit.items() if self._stage[k] >= self.LATER)
        key = (tuple(sel.items()), later, focus)
        if key not in self._later_reasons:
            last = max(self._stage[k] for k in explicit)
            reason = None
            try:
                sel = dict(sel)
                for stage in self.STAGES[self.LATER:last + 1]:
                    getattr(self, "_" + stage)(explicit, sel, focus)
            except SelectionError as error:
                reason = error.reason
            self._later_reasons[key] = reason
        return self._later_reasons[key]

    def _ordered(self, sel: dict[str, str]) -> dict[str, str]:
        keys = ["hardware", "variant", *([TASK] if TASK in sel else []), "strategy", "nodes",
                *([PD_CONNECTOR] if PD_CONNECTOR in sel else []),
                *([KV_OFFLOAD] if KV_OFFLOAD in sel else []), "frontend", "install",
                *self.features]
        return {key: sel[key] for key in keys}

    # ---------------------------------------------------------------- stages

    def _hardware(self, explicit: Mapping[str, str], sel: dict[str, str],
                  focus: str | None) -> None:
        catalog, recipe = self.catalog, self.recipe
        hardware, variants = catalog["hardware"], recipe["variants"]
        hw_id, variant_id = explicit.get("hardware"), explicit.get("variant")
        if hw_id is not None and variant_id is not None:
            problem = self.variant_reason(variant_id, hw_id)
            if problem:
                runs = [hardware[h]["display_name"] for h in self.runs_on(variant_id)]
                raise SelectionError("hardware", f"{problem}; it runs on {', '.join(runs)}")
        elif hw_id is not None:
            # The first variant that runs here, preferring one some strategy can serve (a
            # checkpoint too big for a workstation gives way to a smaller one).
            # (Lazily: the variants after the one picked are not looked at.)
            first = None
            for candidate in variants:
                if self.variant_reason(candidate, hw_id) is not None:
                    continue
                first = first or candidate
                if self.first_strategy(hw_id, candidate) is not None:
                    variant_id = candidate
                    break
            else:
                variant_id = first
            if variant_id is None:
                support = recipe_support(recipe, hw_id, hardware[hw_id])
                raise SelectionError("hardware", (
                    f"this recipe is not offered on {hardware[hw_id]['display_name']}"
                    if support is None else f"no checkpoint of this recipe runs on "
                    f"{hardware[hw_id]['display_name']}"))
        else:
            variant_id = variant_id or "default"
            hw_id = self.default_hardware(variant_id)
            if hw_id is None:
                raise SelectionError(
                    "variant", f"{label(variant_id, variants[variant_id])} runs on no hardware")
        sel["hardware"], sel["variant"] = hw_id, variant_id

    def _task(self, explicit: Mapping[str, str], sel: dict[str, str],
              focus: str | None) -> None:
        """A vLLM-Omni recipe's task: the one asked for, else the first that fits here."""
        tasks = self.tasks
        if not tasks:
            return
        wanted = explicit.get(TASK)
        reasons = {}
        for task_id in [wanted] if wanted is not None else tasks:
            reasons[task_id] = self.task_reason(sel, task_id)
            if reasons[task_id] is None:
                sel[TASK] = task_id
                return
        if wanted is not None:
            raise SelectionError(TASK, reasons[wanted])  # type: ignore[arg-type]
        hw_name = self.catalog["hardware"][sel["hardware"]]["display_name"]
        raise SelectionError("hardware", f"no task of this recipe fits on {hw_name}: "
                                         f"{reasons[tasks[0]]}")

    def task_reason(self, sel: Mapping[str, str], task_id: str) -> str | None:
        key = (sel["hardware"], sel["variant"], task_id)
        if key not in self._task_reasons:
            ctx = context(self.catalog, self.recipe, {**sel, TASK: task_id})
            self._task_reasons[key] = task_reason(ctx)
        return self._task_reasons[key]

    def _strategy(self, explicit: Mapping[str, str], sel: dict[str, str],
                  focus: str | None) -> None:
        hw_id, variant_id = sel["hardware"], sel["variant"]
        sid = explicit.get("strategy")
        if sid is not None:
            problem = self.strategy_reason(hw_id, variant_id, sid)
            if problem:
                raise SelectionError("strategy", problem)
            sel["strategy"] = sid
            return
        first = self.first_strategy(hw_id, variant_id)
        if first is not None:
            sel["strategy"] = first
            return
        hw_name = self.catalog["hardware"][hw_id]["display_name"]
        variant = self.recipe["variants"][variant_id]
        raise SelectionError("hardware", f"no serving strategy of this recipe serves "
                             f"{label(variant_id, variant)} on {hw_name}")

    def _nodes(self, explicit: Mapping[str, str], sel: dict[str, str],
               focus: str | None) -> None:
        low, _ = node_range(self.catalog, self.recipe, sel)
        nodes = int(explicit.get("nodes", low))
        problem = nodes_reason(self.catalog, self.recipe, sel, nodes)
        if problem:
            raise SelectionError("nodes", problem)
        sel["nodes"] = str(nodes)

    def _pd_connector(self, explicit: Mapping[str, str], sel: dict[str, str],
                      focus: str | None) -> None:
        wanted = explicit.get(PD_CONNECTOR)
        if wanted is not None:
            problem = connector_reason(self.catalog, self.recipe, sel, wanted)
            if problem:
                raise SelectionError(PD_CONNECTOR, problem)
            sel[PD_CONNECTOR] = wanted
        elif deploy_type(self.catalog["strategies"][sel["strategy"]]).picks_connector:
            hw_id = sel["hardware"]
            sel[PD_CONNECTOR] = connector_choices(
                self.recipe, hw_id, self.catalog["hardware"][hw_id])[0]

    def _kv_offload(self, explicit: Mapping[str, str], sel: dict[str, str],
                    focus: str | None) -> None:
        if not self.recipe.get("kv_offload_support"):
            return
        tier = explicit.get(KV_OFFLOAD, OFF)
        problem = self.offload_reason(sel, tier)
        if problem:
            raise SelectionError(KV_OFFLOAD, problem)
        sel[KV_OFFLOAD] = tier

    def offload_reason(self, sel: Mapping[str, str], tier: str) -> str | None:
        strategy = self.catalog["strategies"][sel["strategy"]]
        return offload_reason(self.recipe, strategy, deploy_type(strategy).owns_kv_connector,
                              tier)

    def _features(self, explicit: Mapping[str, str], sel: dict[str, str],
                  focus: str | None) -> None:
        catalog, recipe, features = self.catalog, self.recipe, self.features
        variant = recipe["variants"][sel["variant"]]
        for fid in features:
            value = explicit.get(fid)
            if value == OFF:
                sel[fid] = OFF
                continue
            reason = self.feature_reason(sel, fid)
            if value is None:
                wanted = variant.get("default_modes", {}).get(fid)
                if reason is None and wanted and not self.mode_reason(sel, fid, wanted):
                    sel[fid] = wanted
                elif reason is None and not opt_in(recipe, catalog, fid, sel["hardware"]):
                    has_modes = bool(features[fid].get("modes"))
                    sel[fid] = self._pick_mode(sel, fid) if has_modes else ON
                else:
                    sel[fid] = OFF
                continue
            if reason is not None:
                raise SelectionError(fid, reason)
            if value == ON:
                sel[fid] = self._pick_mode(sel, fid) if features[fid].get("modes") else ON
            else:
                mode_problem = self.mode_reason(sel, fid, value)
                if mode_problem:
                    raise SelectionError(fid, mode_problem)
                sel[fid] = value
        conflict = self._exclusive_conflict(explicit, focus)
        if conflict is not None:
            raise conflict
        for group in recipe.get("exclusive_features", []):
            chosen = [f for f in group if explicit.get(f, OFF) != OFF]
            keep = chosen[0] if chosen else next((f for f in group if sel[f] != OFF), None)
            for fid in group:
                if fid != keep:
                    sel[fid] = OFF

    def _pick_mode(self, sel: Mapping[str, str], fid: str) -> str:
        feature = self.features[fid]
        variant = self.recipe["variants"][sel["variant"]]
        candidates = [variant.get("default_modes", {}).get(fid), feature.get("default_mode")]
        candidates += list(feature["modes"])
        for mode_id in candidates:
            if mode_id and self.mode_reason(sel, fid, mode_id) is None:
                return mode_id
        raise AssertionError("feature_reason() guarantees an available mode")

    def _frontend(self, explicit: Mapping[str, str], sel: dict[str, str],
                  focus: str | None) -> None:
        frontend = explicit.get("frontend") or default_frontend(self.catalog, self.recipe, sel)
        problem = frontend_reason(self.catalog, sel, frontend)
        if problem:
            raise SelectionError("frontend", problem)
        sel["frontend"] = frontend

    def _install(self, explicit: Mapping[str, str], sel: dict[str, str],
                 focus: str | None) -> None:
        sel["install"] = "pip"
        refused = self.install_refusals(sel)
        wanted = explicit.get("install")
        if wanted is not None:
            if wanted in refused:
                raise SelectionError("install", refused[wanted])
            sel["install"] = wanted
        elif "pip" in refused:
            sel["install"] = "docker"

    # ---------------------------------------------------------------- unavailable

    def unavailable(self, explicit: Mapping[str, str],
                    selection: Mapping[str, str]) -> dict[str, dict[str, str]]:
        """For every key, the values that cannot be picked next to `explicit` (resolved to
        `selection`), each with the reason resolving it would fail with; in one pass over
        the options, each answered from the stage its key enters (see the module docstring).
        """
        result: dict[str, dict[str, str]] = {}
        sel = dict(selection)
        later = any(self._stage[key] >= self.LATER for key in explicit)
        refused = self.install_refusals(sel)
        span = node_range(self.catalog, self.recipe, sel)
        rules = {
            "nodes": lambda value: nodes_reason(self.catalog, self.recipe, sel, int(value), span),
            PD_CONNECTOR: lambda value: connector_reason(self.catalog, self.recipe, sel, value),
            KV_OFFLOAD: lambda value: self.offload_reason(sel, value),
            "frontend": lambda value: frontend_reason(self.catalog, sel, value),
            "install": refused.get,
        }
        for key, values in self.choices.items():
            current = selection.get(key)
            rule = rules.get(key)
            for value in values:
                if value == current:
                    continue
                if rule is not None:
                    reason = rule(value)
                elif key in self.features:
                    reason = self._feature_option(explicit, sel, key, value)
                else:
                    reason = self._prefix_option(explicit, selection, later, key, value)
                if reason is not None:
                    result.setdefault(key, {})[value] = reason
        return result

    def _prefix_option(self, explicit: Mapping[str, str], selection: Mapping[str, str],
                       later: bool, key: str, value: str) -> str | None:
        """Hardware, variant, strategy or task: the prefix it leads to, then the explicit
        later keys on it. A strategy or a task leaves the hardware stage as it is (and a
        task the strategy), so it is answered by its own rule."""
        wanted = {**explicit, key: value}
        if key == "strategy" or key == TASK:
            sel = {k: selection[k] for k in self.PREFIX if k in selection}
            sel[key] = value
            reason = (self.strategy_reason(sel["hardware"], sel["variant"], value)
                      if key == "strategy" else self.task_reason(sel, value))
            if reason is not None:
                return reason
        else:
            try:
                sel = self.prefix(wanted)
            except SelectionError as error:
                return error.reason
        return self._later_fails(wanted, key, sel) if later else None

    def _feature_option(self, explicit: Mapping[str, str], sel: dict[str, str], fid: str,
                        value: str) -> str | None:
        """A feature's value: its own rule, its exclusive groups, and (when they are
        explicit) the frontend and install stages after it, which may depend on features."""
        wanted = {**explicit, fid: value}
        if self._stage["frontend"] <= max(self._stage[key] for key in wanted):
            return self._later_fails(wanted, fid, sel)
        if value == OFF:
            return None
        reason = self.feature_reason(sel, fid)
        if reason is None and value != ON:
            reason = self.mode_reason(sel, fid, value)
        if reason is None:
            conflict = self._exclusive_conflict(wanted, fid)
            reason = conflict.reason if conflict else None
        return reason

    def _exclusive_conflict(self, explicit: Mapping[str, str], focus: str | None
                            ) -> SelectionError | None:
        """Two explicit features of one `exclusive_features` group both on: the error,
        blamed on `focus` when it is one of them (that is the pill that gets disabled)."""
        for group in self.recipe.get("exclusive_features", []):
            chosen = [f for f in group if explicit.get(f, OFF) != OFF]
            if len(chosen) > 1:
                blamed = focus if focus in chosen else chosen[-1]
                other = next(f for f in chosen if f != blamed)
                other_label = feature_label(other, self.features[other])
                return SelectionError(
                    blamed,
                    f"mutually exclusive with {other} ({other_label}); turn {other} off first",
                )
        return None


def resolve(
    catalog: Data, recipe: Data, explicit: Mapping[str, str], focus: str | None = None
) -> dict[str, str]:
    """The complete selection for `explicit` (already parsed), or SelectionError.

    `focus` names the key being tried, so a conflict between two explicit choices is
    blamed on it (that is the pill that gets disabled).
    """
    return _Resolver(catalog, recipe).run(explicit, focus)


def unavailable(
    catalog: Data, recipe: Data, explicit: Mapping[str, str], selection: Mapping[str, str]
) -> dict[str, dict[str, str]]:
    """For every key, the values that cannot be picked now, each with its reason."""
    return _Resolver(catalog, recipe).unavailable(explicit, selection)

