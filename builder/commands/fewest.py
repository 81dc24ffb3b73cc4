"""The fewest GPUs of one model that the fit rule gives a variant a command on (its context
capped if need be): what `/models.json`'s `fewest_gpus` and the home page's "runs on" filter
by GPU and count publish. It reads the command's own options (utilization, context, KV
cache type) as single-node Tensor Parallel sets them on that hardware, and asks the fit
rule's `smallest_count` (the "smallest that fits" of a refusal); a recipe's own size for the
hardware (`tp:`, `parallel_size`) is the answer where it holds the model.
"""

from __future__ import annotations

from ..sizing import smallest_count, weights_bytes
from ..types import Data
from .compose import size_override, sizing_args
from .deploy_types import context, deploy_type
from .fit import fit_plan, gpu_of, sizing_inputs
from .offering import variant_reason
from .query import recipe_strategies

__all__ = ["fewest_gpus"]


def fewest_gpus(catalog: Data, recipe: Data, variant_id: str, hw_id: str) -> int | None:
    """The fewest `hw_id` GPUs (at most one node's) that hold the variant by the fit rule;
    None without memory facts, when the variant does not run there, when the recipe offers
    no single-node Tensor Parallel, or when no node of these GPUs holds it."""
    facts = recipe.get("facts")
    if not facts or variant_reason(catalog, recipe, variant_id, hw_id) is not None:
        return None
    strategies = catalog["strategies"]
    plain = next((sid for sid in recipe_strategies(catalog, recipe)
                  if deploy_type(strategies[sid]).is_plain(strategies[sid])), None)
    if plain is None:
        return None
    ctx = context(catalog, recipe, {"hardware": hw_id, "variant": variant_id,
                                    "strategy": plain})
    args = sizing_args(ctx)
    hw = catalog["hardware"][hw_id]
    override = size_override(ctx)
    if override is not None:
        size = override[0]
        return size if fit_plan(recipe, variant_id, hw, args, size, size) else None
    weights = weights_bytes(facts, recipe["variants"][variant_id]["precision"], variant_id)
    util, length, kv_bytes = sizing_inputs(args, facts, recipe)
    if weights is None or not length:
        return None
    found = smallest_count(facts, weights, gpu_of(hw), utilization=util, context=length,
                           kv_bytes=kv_bytes)
    return found.tp if found is not None else None
