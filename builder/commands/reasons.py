"""Why a choice cannot be picked: one function per kind of choice (strategy, nodes, KV
connector, feature, mode, profile, frontend), each returning the sentence the page shows beside the
disabled pill and the CLI prints, or None when the choice can be picked. The resolver asks
them (`resolver.py`) and keeps their answers.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from ..estimates.profiles import profile_reason
from ..hardware_keys import most_specific
from ..types import Data
from ..vocabulary import (
    CONNECTORS,
    FRONTENDS,
    feature_label,
)
from .compose import Context, cards_name, size_override, sizing_args
from .deploy_types import MAX_NODES, context, deploy_type, helpful_nodes
from .fit import fit_refusal, unfit_reason, variant_facts
from .offering import label, named_counts
from .pd import connector_choices
from .query import GPUS, fits_one_node, node_memory_gb, node_range, recipe_strategies

__all__ = ["asked_nodes", "connector_reason", "default_frontend", "feature_reason", "fit_reason",
           "frontend_reason", "gpus_nodes_reason", "mode_reason", "nodes_reason", "opt_in",
           "selection_profile_reason", "strategy_hardware_reason", "strategy_reason",
           "strategy_variant_reason"]

AVAILABLE = ("verified", "supported", "experimental")
"""Support levels under which a recipe's `strategy_hardware` offers a strategy as it is."""


def fit_reason(catalog: Data, recipe: Data, hw_id: str, variant_id: str, strategy_id: str,
               gpus: int | None = None, ctx: Context | None = None, *, explain: bool = True
               ) -> str | None:
    """Why the variant does not fit the GPUs a single-node strategy gives it (`gpus` asked
    for, else what the layout uses), by the fit rule (`fit.py`); None when it fits, when
    the recipe has no memory facts, when the recipe sets single-node Tensor Parallel's size
    itself, and for other deploy types. `ctx`: the context of that selection, when the
    caller keeps one (its plan is then worked out once for this and the command's size).
    `explain=False`: `fit.UNFIT` instead of the sentence (whether it fits, cheaply)."""
    strategy = catalog["strategies"][strategy_id]
    deploy = deploy_type(strategy)
    if (variant_facts(recipe, variant_id) is None or not deploy.one_node
            or not deploy.weights_on_one_node):
        return None
    if ctx is None:
        ctx = context(catalog, recipe, {"hardware": hw_id, "variant": variant_id,
                                        "strategy": strategy_id,
                                        **({GPUS: str(gpus)} if gpus else {})})
    if ctx.auto_fit:
        if size_override(ctx) is not None or ctx.plan is not None:
            return None
        # (`ctx.plan` is the fit rule on these GPUs: no need to work it out again.)
        return unfit_reason(catalog, recipe, variant_id, hw_id, sizing_args(ctx),
                            gpus or ctx.hw["gpu_count"], explain=explain)
    size, _ = ctx.parallel_size()
    return fit_refusal(catalog, recipe, variant_id, hw_id, sizing_args(ctx), size, size,
                       explain=explain)


def strategy_reason(
    catalog: Data, recipe: Data, hw_id: str, variant_id: str, strategy_id: str,
    offered: Collection[str] | None = None, gpus: int | None = None,
) -> str | None:
    """Why `strategy_id` cannot serve `variant_id` on `hw_id`; None when it can.
    `offered`: `recipe_strategies(catalog, recipe)`, when the caller has it; `gpus`: the
    GPUs asked for (the node's when None). Its two halves, in the order they are asked:
    what the recipe, strategy and hardware alone decide (`strategy_hardware_reason`, the
    same for every variant, which the resolver keeps per hardware), then the variant's
    (`strategy_variant_reason`)."""
    return (strategy_hardware_reason(catalog, recipe, hw_id, strategy_id, offered)
            or strategy_variant_reason(catalog, recipe, hw_id, variant_id, strategy_id, gpus))


def strategy_hardware_reason(catalog: Data, recipe: Data, hw_id: str, strategy_id: str,
                             offered: Collection[str] | None = None) -> str | None:
    """`strategy_reason`'s checks that no variant changes: vLLM-Omni or not, the recipe's
    offer (on this hardware), the strategy's model architecture and GPU counts, a multi-node
    strategy on hardware that cannot join one."""
    hw = catalog["hardware"][hw_id]
    strategy = catalog["strategies"][strategy_id]
    name, hw_name = strategy["display_name"], hw["display_name"]
    omni = deploy_type(strategy).omni
    if bool(recipe.get("omni")) != omni:
        return (f"{name} is for generation models served by vLLM-Omni" if omni else
                f"a vLLM-Omni generation model runs as one server on one node, not {name}")
    if strategy_id not in (recipe_strategies(catalog, recipe) if offered is None else offered):
        if (strategy["hardware_match"].get("architecture") == "moe"
                and recipe["model"]["architecture"] == "dense"):
            return f"a dense model has no experts to shard: {name} is for MoE models"
        return f"this recipe does not offer {name}"
    declared = _declared(recipe, strategy_id, hw_id, hw)
    if declared == "unsupported":
        return f"this recipe does not offer {name} on {hw_name}"
    if declared in AVAILABLE:
        return None
    match = strategy["hardware_match"]
    arch = match.get("architecture")
    if arch and arch != recipe["model"]["architecture"]:
        return f"{name} is for {'MoE' if arch == 'moe' else 'dense'} models only"
    if match.get("multi_node", False):
        if not hw.get("scalable", True):
            return f"a {hw_name} cannot join a multi-node deployment"
        return None
    gpus = hw["gpu_count"]
    if gpus < match.get("min_gpus", 1):
        return f"{name} needs at least {match['min_gpus']} GPUs; {hw_name} has {gpus}"
    if match.get("max_gpus") and gpus > match["max_gpus"]:
        return f"{name} is for at most {match['max_gpus']} GPUs; {hw_name} has {gpus}"
    return None


def strategy_variant_reason(catalog: Data, recipe: Data, hw_id: str, variant_id: str,
                            strategy_id: str, gpus: int | None = None,
                            fit: Callable[[], str | None] | None = None) -> str | None:
    """`strategy_reason`'s checks of the variant, once `strategy_hardware_reason` has none:
    its memory (one node, or the fit rule on the GPUs asked for), the deploy type's own
    rule, `gpus` on a strategy that sizes itself by nodes, the nodes it needs. `fit`: the
    fit rule's answer (`fit_reason`), when the caller keeps it."""
    hw = catalog["hardware"][hw_id]
    variant = recipe["variants"][variant_id]
    strategy = catalog["strategies"][strategy_id]
    name, hw_name = strategy["display_name"], hw["display_name"]
    deploy = deploy_type(strategy)
    if _declared(recipe, strategy_id, hw_id, hw) not in AVAILABLE:
        # The GPUs its memory is checked on: the recipe's own size on a single GPU, or the
        # GPUs asked for where the recipe names that count of this GPU (`rtx_5090@2`).
        # (Worked out only when one node's memory does not hold it.)
        def sized() -> int | None:
            named = (gpus if gpus is not None and hw.get("max_gpus")
                     and gpus in named_counts(recipe, variant_id, hw_id) else None)
            return _own_size(catalog, recipe, hw_id, variant_id, strategy_id) or named
        problem = _match_reason(recipe, variant_id, variant, strategy, hw, sized)
        if problem:
            return problem
    problem = (fit_reason(catalog, recipe, hw_id, variant_id, strategy_id, gpus)
               if fit is None else fit())
    if problem:
        return problem
    problem = deploy.reason(catalog, recipe, hw_id, variant_id)
    if problem:
        return problem
    if gpus is not None and deploy.omni and not hw.get("max_gpus"):
        return f"{name} sizes itself by nodes; gpus= asks for the GPUs of one node"
    if gpus is not None and not deploy.one_node and gpus % hw["gpu_count"]:
        return (f"{name} runs on whole {hw_name} nodes of {hw['gpu_count']} GPUs; gpus= "
                f"asks for a multiple of {hw['gpu_count']}")
    if deploy.one_node:
        return None
    low, _ = deploy.node_range(catalog, recipe, {"hardware": hw_id, "variant": variant_id,
                                                 "strategy": strategy_id})
    if low > MAX_NODES:
        return (f"{label(variant_id, variant)} needs {low} {hw_name} nodes with {name}; the "
                f"builder lays out at most {MAX_NODES}")
    return None


def _declared(recipe: Data, strategy_id: str, hw_id: str, hw: Data) -> str | None:
    """The support level the recipe's `strategy_hardware` gives the strategy on `hw_id`."""
    return most_specific(recipe.get("strategy_hardware", {}).get(strategy_id, {}), hw_id, hw)


def _own_size(catalog: Data, recipe: Data, hw_id: str, variant_id: str,
              strategy_id: str) -> int | None:
    """The GPUs a recipe's own size keyed by a single GPU's id (`tp: {rtx_5090: 2}`, a
    `parallel_size` under `rtx_pro_6000`) gives that GPU (one with a `max_gpus`): the count
    its memory is checked against and its command uses; None elsewhere (a node's GPUs are the
    node's, and a size keyed more widely, `all: 4`, does not add GPUs to one card)."""
    hw = catalog["hardware"][hw_id]
    if not hw.get("max_gpus") or deploy_type(catalog["strategies"][strategy_id]).omni:
        return None
    ctx = context(catalog, recipe, {"hardware": hw_id, "variant": variant_id,
                                    "strategy": strategy_id})
    sizes = [int(ov.data["parallel_size"]) for ov in ctx.overrides()
             if ov.key == hw_id and ov.data.get("parallel_size") is not None]
    return sizes[-1] if sizes and sizes[-1] <= hw["max_gpus"] else None


def _match_reason(recipe: Data, variant_id: str, variant: Data, strategy: Data,
                  hw: Data, sized: Callable[[], int | None] = lambda: None) -> str | None:
    """The strategy's own hardware rules (`hardware_match`) that depend on the variant (its
    memory on one node, or on the GPUs `sized` gives: asked only when one node does not hold
    it); the rest are `strategy_hardware_reason`'s."""
    match = strategy["hardware_match"]
    name, hw_name = strategy["display_name"], hw["display_name"]
    # A vLLM-Omni server's memory is judged per task, on the GPUs it runs on (`omni.py`);
    # a model with memory facts by the fit rule (`fit_reason`), on the GPUs asked for.
    fits = (deploy_type(strategy).omni or fits_one_node(variant, hw)
            or (variant_facts(recipe, variant_id) is not None
                and not match.get("multi_node", False)))
    if not match.get("multi_node", False):
        # One node's memory, or the count the recipe itself sets on a single GPU (`_own_size`).
        if not fits and not ((gpus := sized()) is not None and fits_one_node(variant, hw, gpus)):
            scale = ("pick a multi-node strategy" if hw.get("scalable", True)
                     else f"a {hw_name} cannot join a multi-node deployment")
            return (f"{label(variant_id, variant)} needs {variant['vram_minimum_gb']} GB and one "
                    f"{hw_name} node has {node_memory_gb(hw)} GB; {scale}")
        return None
    if match.get("only_when_oversize") and fits:
        return f"the model fits on one {hw_name} node, so {name} is not needed"
    return None


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
    helpful = helpful_nodes(catalog, recipe, sel)
    if helpful is not None and nodes > helpful >= low:
        return (f"{helpful // 2} node{'s' if helpful > 2 else ''} already hold "
                f"{label(sel['variant'], recipe['variants'][sel['variant']])} with its full "
                f"context; past {helpful}, more do not help {name} (a data-parallel strategy "
                "adds replicas)")
    if low == high:
        return f"{name} here runs on {low} node{'s' if low > 1 else ''}"
    if nodes < low and low > 2:
        hw = catalog["hardware"][sel["hardware"]]
        variant = recipe["variants"][sel["variant"]]
        return (f"{label(sel['variant'], variant)} needs {variant['vram_minimum_gb']} GB: at "
                f"least {low} {hw['display_name']} nodes ({node_memory_gb(hw)} GB each)")
    return f"{name} here runs on {low} to {high} nodes"


def asked_nodes(catalog: Data, sel: Mapping[str, str], explicit: Mapping[str, str]
                ) -> int | None:
    """The nodes the GPUs asked for (`gpus=`) span under a multi-node strategy (whole nodes
    of the hardware's `gpu_count`, which `strategy_reason` checks); None when no GPUs are
    asked for or the strategy runs on one node."""
    wanted = explicit.get(GPUS)
    if wanted is None or deploy_type(catalog["strategies"][sel["strategy"]]).one_node:
        return None
    return int(wanted) // catalog["hardware"][sel["hardware"]]["gpu_count"]


def gpus_nodes_reason(catalog: Data, sel: Mapping[str, str], explicit: Mapping[str, str],
                      nodes: int) -> str | None:
    """Why `nodes` nodes cannot be picked beside the GPUs asked for (`asked_nodes`)."""
    asked = asked_nodes(catalog, sel, explicit)
    if asked is None or asked == nodes:
        return None
    return (f"gpus={explicit[GPUS]} spans {asked} node{'s' if asked > 1 else ''} of "
            f"{catalog['hardware'][sel['hardware']]['gpu_count']} GPUs; pick nodes={asked} or "
            "leave gpus= out")


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
    if most_specific(feature.get("hardware", {}), hw_id, hw, _count(sel, hw)) == "unsupported":
        return f"{name} is not supported on {cards_name(hw, sel.get(GPUS))}"
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
    if most_specific(mode.get("hardware", {}), hw_id, hw, _count(sel, hw)) == "unsupported":
        return f"{mode['label']} is not supported on {cards_name(hw, sel.get(GPUS))}"
    return None


def frontend_reason(catalog: Data, sel: Mapping[str, str], frontend: str) -> str | None:
    """Why `frontend` cannot serve the strategy in `sel` (its deploy type runs one frontend
    only: vLLM-Omni's own API server); None when it can."""
    fixed = deploy_type(catalog["strategies"][sel["strategy"]]).frontend
    if fixed is not None and frontend != fixed:
        return (f"vLLM-Omni serves its routes from its own {FRONTENDS[fixed].label} "
                f"API server, not the {FRONTENDS[frontend].label} frontend")
    return None


def selection_profile_reason(catalog: Data, recipe: Data, sel: Mapping[str, str],
                             profile: str) -> str | None:
    """Why `profile` cannot be picked for the selection in `sel` (resolved up to its nodes):
    `builder.estimates.profiles.profile_reason` on its hardware, variant, GPUs and
    strategy."""
    strategy = catalog["strategies"][sel["strategy"]]
    gpus = sel.get(GPUS)
    return profile_reason(recipe, catalog["hardware"][sel["hardware"]], sel["hardware"],
                          sel["variant"], sel["strategy"], int(gpus) if gpus else None,
                          deploy_type(strategy).is_plain(strategy), profile)


def default_frontend(catalog: Data, recipe: Data, sel: Mapping[str, str]) -> str:
    """The recipe's `default_frontend`, else the deploy type's one frontend (Python for
    vLLM-Omni), else Rust."""
    if recipe["model"].get("default_frontend"):
        return str(recipe["model"]["default_frontend"])
    return deploy_type(catalog["strategies"][sel["strategy"]]).frontend or "rust"


def _count(sel: Mapping[str, str], hw: Data) -> int | None:
    """The GPU count a count-qualified hardware key is matched against (`Context.count`):
    the selection's, else one card of a single-GPU id."""
    gpus = sel.get(GPUS)
    return int(gpus) if gpus else (1 if hw.get("max_gpus") else None)


def opt_in(recipe: Data, catalog: Data, fid: str, hw_id: str, gpus: str | None = None
           ) -> bool:
    """True when feature `fid` starts off on this hardware (`opt_in: true` or keys naming it;
    `gpus`: the selection's GPU count)."""
    value = recipe["features"][fid].get("opt_in", False)
    if isinstance(value, bool):
        return value
    hw = catalog["hardware"][hw_id]
    return most_specific(dict.fromkeys(value, True), hw_id, hw,
                         _count({GPUS: gpus} if gpus else {}, hw)) is not None

