"""The fit rule applied to a selection (`builder.sizing` does the arithmetic): the inputs a
command's options and the recipe's memory facts give it, why a model does not fit the GPUs
asked for (with the numbers and the nearest ways out), and the `fit` every rendering carries.

Inputs: the variant's weights (`sizing.weights_bytes`), the hardware's memory and node size
(`max_gpus`, else `gpu_count`), `--gpu-memory-utilization` (vLLM's 0.9 when unset),
`--max-model-len` (the model's `max_position_embeddings` when unset) and `--kv-cache-dtype`
(an FP8 cache halves the KV bytes) as the recipe's layers set them. GPUs asked for: the
selection's `gpus`, else the hardware's `gpu_count`. A recipe without memory facts, and a
variant its facts do not cover (`not_covered`: another model size), has no estimate: the
builder sizes it as before and says "no fit estimate" (`no_estimate`). The facts of a variant
are its checkpoint's (`variant_facts`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..sizing import (
    GB,
    Gpu,
    Plan,
    bytes_per_weight,
    checkpoint_facts,
    full_attention_layers,
    plan,
    smallest_count,
    weights_bytes,
)
from ..sizing.fit import DEFAULT_UTILIZATION, RUNTIME_OVERHEAD_GB
from ..types import Data
from .offering import label, precision_keys

if TYPE_CHECKING:
    from ..arglist import ArgList

__all__ = ["NO_ESTIMATE", "UNFIT", "fit_arithmetic", "fit_json", "fit_line", "fit_plan",
           "fit_refusal", "gpu_of", "most_gpus", "no_estimate", "sizing_inputs", "unfit_reason",
           "variant_facts"]

NO_ESTIMATE = "no fit estimate: this recipe has no memory facts (recipes/facts/)"
UNFIT = "does not fit"
"""`fit_refusal(..., explain=False)`'s answer when the variant does not fit."""


def variant_facts(recipe: Data, variant_id: str) -> Data | None:
    """The memory facts of the variant's checkpoint (`sizing.checkpoint_facts`); None without
    facts or for a variant they do not cover."""
    return checkpoint_facts(recipe.get("facts"), variant_id)


def no_estimate(recipe: Data, variant_id: str) -> str | None:
    """Why the variant has no fit estimate; None when it has one."""
    facts = recipe.get("facts")
    if not facts:
        return NO_ESTIMATE
    why = (facts.get("not_covered") or {}).get(variant_id)
    if why is None:
        return None
    return (f"no fit estimate for variant {variant_id}: "
            f"recipes/facts/{recipe['model']['model_id']}.yaml does not cover it ({why})")


def most_gpus(hw: Data) -> int:
    """The most GPUs of this hardware one node holds (the `gpus` row's upper bound)."""
    return int(hw.get("max_gpus") or hw["gpu_count"])


def gpu_of(hw: Data) -> Gpu:
    return Gpu(str(hw["display_name"]), float(hw["memory_gb"]), most_gpus(hw))


def sizing_inputs(args: ArgList, facts: Data, recipe: Data | None = None
                  ) -> tuple[float, int, float]:
    """(utilization, context, KV bytes per value) that the command's options `args` set; the
    context is `--max-model-len`, else the model's `max_position_embeddings`, else the
    recipe's `context_length` (0 when none says)."""
    util = args.get("--gpu-memory-utilization")
    length = args.get("--max-model-len")
    dtype = args.get("--kv-cache-dtype")
    context = int(facts["config"].get("max_position_embeddings")
                  or ((recipe or {}).get("model") or {}).get("context_length") or 0)
    if length and length[0].isdigit():
        context = int(length[0])
    kv_bytes = 1.0 if dtype and dtype[0].startswith("fp8") else 2.0
    return (float(util[0]) if util else DEFAULT_UTILIZATION), context, kv_bytes


def fit_plan(recipe: Data, variant_id: str, hw: Data, args: ArgList, available: int,
             tp: int | None = None) -> Plan | None:
    """The plan for `available` GPUs (None: no facts, or it does not fit)."""
    facts = variant_facts(recipe, variant_id)
    if not facts:
        return None
    weights = weights_bytes(facts, recipe["variants"][variant_id]["precision"], variant_id)
    if weights is None:
        return None
    util, context, kv_bytes = sizing_inputs(args, facts, recipe)
    if not context:
        return None
    return plan(facts, weights, gpu_of(hw), available, utilization=util, context=context,
                kv_bytes=kv_bytes, tp=tp)


def _gb(value: float) -> str:
    return f"{value / GB:,.1f} GB"


def _tokens(value: int) -> str:
    return f"{value:,}"


def fit_refusal(catalog: Data, recipe: Data, variant_id: str, hw_id: str, args: ArgList,
                available: int, tp: int | None = None, *, explain: bool = True) -> str | None:
    """Why the variant does not fit `available` GPUs of `hw_id` (in one group of `tp`,
    when the layout fixes it), with the numbers and the nearest ways out; None when it fits
    or the recipe has no facts. `explain=False`: `UNFIT` instead of the sentence (for a
    caller that asks only whether it fits)."""
    facts = variant_facts(recipe, variant_id)
    if not facts or fit_plan(recipe, variant_id, catalog["hardware"][hw_id], args, available,
                             tp) is not None:
        return None
    return unfit_reason(catalog, recipe, variant_id, hw_id, args, available, explain=explain)


def unfit_reason(catalog: Data, recipe: Data, variant_id: str, hw_id: str, args: ArgList,
                 available: int, *, explain: bool = True) -> str | None:
    """`fit_refusal`'s sentence, for a caller that already knows the variant does not fit
    `available` GPUs of `hw_id` (its plan is None); None when the recipe has no facts or the
    variant's weights have no figure. `explain=False`: `UNFIT` instead of the sentence."""
    hw = catalog["hardware"][hw_id]
    facts = variant_facts(recipe, variant_id)
    if not facts:
        return None
    variant = recipe["variants"][variant_id]
    weights = weights_bytes(facts, variant["precision"], variant_id)
    if weights is None:
        return None
    if not explain:
        return UNFIT
    util, context, kv_bytes = sizing_inputs(args, facts, recipe)
    gpu = gpu_of(hw)
    budget = gpu.memory_gb * GB * util
    name = hw["display_name"]
    text = (f"{label(variant_id, variant)} does not fit {available}× {name}: its weights take "
            f"{_gb(weights)} ({_gb(weights / available)} per GPU) + {RUNTIME_OVERHEAD_GB:g} GB "
            f"runtime + the KV cache, and one {name} gives vLLM {_gb(budget)} "
            f"({gpu.memory_gb:g} GB x {util:g})")
    ways = []
    smallest = smallest_count(facts, weights, gpu, utilization=util, context=context,
                              kv_bytes=kv_bytes)
    if smallest is not None:
        capped = (f", context capped at {_tokens(smallest.max_model_len)}"
                  if smallest.capped else "")
        ways.append(f"gpus={smallest.tp} ({smallest.tp}× {name}{capped})")
    for other, data in recipe["variants"].items():
        if (other == variant_id or not _runs_on(catalog, data, hw_id)
                or variant_facts(recipe, other) != facts):
            continue
        other_weights = weights_bytes(facts, data["precision"], other)
        if other_weights is None or other_weights >= weights:
            continue
        found = smallest_count(facts, other_weights, gpu, utilization=util, context=context,
                               kv_bytes=kv_bytes)
        if found is not None:
            ways.append(f"variant={other} ({label(other, data)}, {_gb(other_weights)}) on "
                        f"gpus={found.tp}")
            break
    if not ways:
        scale = ("pick a multi-node strategy" if hw.get("scalable", True)
                 else f"a {name} cannot join a multi-node deployment")
        return f"{text}; no node of {most_gpus(hw)}× {name} holds it: {scale}"
    return f"{text}; smallest that fits: {' or '.join(ways)}"


def _runs_on(catalog: Data, variant: Data, hw_id: str) -> bool:
    keys = precision_keys(variant)
    if keys is None:
        return True
    hw = catalog["hardware"][hw_id]
    return bool({hw_id, hw["brand"], hw["generation"], f"arch:{hw['compute_arch']}"} & set(keys))


def fit_line(found: Plan, hw: Data) -> str:
    """"weights 16.4 GB per GPU · KV cache room 24.8 GB → 168K tokens, 4 sequences of 40K",
    with the cap when there is one."""
    line = (f"weights {_gb(found.weights_gpu)} per GPU · KV cache room {_gb(found.kv_room)} → "
            f"{_tokens(found.max_tokens)} tokens, {found.max_sequences} "
            f"sequence{'s' if found.max_sequences != 1 else ''} of "
            f"{_tokens(found.max_model_len)}")
    if found.capped:
        more = (f"; {found.full_context_gpus} GPUs give the full context"
                if found.full_context_gpus else "")
        line += (f" · context capped at {_tokens(found.max_model_len)} of "
                 f"{_tokens(found.context)} to fit {found.tp}× {hw['display_name']}{more}")
    return line


def fit_arithmetic(found: Plan, recipe: Data, variant_id: str, hw: Data, args: ArgList
                   ) -> list[str]:
    """The fit as sums a reader can redo, each number with where it comes from."""
    facts = variant_facts(recipe, variant_id) or {}
    config = facts["config"]
    variant = recipe["variants"][variant_id]
    util, _, kv_bytes = sizing_inputs(args, facts, recipe)
    stated = (facts.get("weights_gb") or {}).get(variant_id)
    weights = (f"{_gb(found.weights)} (weights_gb.{variant_id})" if stated is not None else
               f"{_gb(found.weights)} ({facts['parameters']:.4g} parameters x "
               f"{bytes_per_weight(variant['precision']):.4g} bytes, {variant['precision']})")
    util_from = "--gpu-memory-utilization" if args.get("--gpu-memory-utilization") else (
        "vLLM's default utilization")
    if config.get("kv_lora_rank"):
        per_layer = (f"({config['kv_lora_rank']} + {config['qk_rope_head_dim']}) MLA latent "
                     f"values x {kv_bytes:g} bytes")
    else:
        heads = max(1, config["num_key_value_heads"] // found.tp)
        per_layer = (f"2 x {heads} KV heads per GPU x {config['head_dim']} x {kv_bytes:g} "
                     "bytes")
    lines = [
        f"weights: {weights} / TP {found.tp} = {_gb(found.weights_gpu)} per GPU",
        f"budget: {hw['memory_gb']} GB x {util:g} ({util_from}) = {_gb(found.budget)} per GPU",
        f"KV cache room: {_gb(found.budget)} - {_gb(found.weights_gpu)} weights - "
        f"{_gb(found.overhead)} runtime = {_gb(found.kv_room)}",
        f"KV per token: {full_attention_layers(config)} full-attention layers x {per_layer} = "
        f"{found.kv_token:,.0f} bytes per GPU",
    ]
    if config.get("sliding_window"):
        lines.append(f"plus {config['sliding_window_layers']} sliding-window layers for at most "
                     f"{config['sliding_window']:,} tokens per sequence")
    if config.get("linear_attention_layers"):
        lines.append(f"plus {config['linear_attention_layers']} linear-attention layers x "
                     f"{config['linear_state_bytes']:,} bytes of state per sequence / TP "
                     f"{found.tp}")
    lines.append(f"→ {found.max_tokens:,} tokens; {found.max_sequences} sequences of "
                 f"{found.max_model_len:,} (context {found.context:,}"
                 f"{', capped' if found.capped else ''})")
    return lines


def fit_json(found: Plan | None, recipe: Data, variant_id: str, hw: Data, args: ArgList
             ) -> dict[str, Any] | None:
    """The `fit` of a rendering: per GPU weights and KV room, the tokens and sequences it
    holds, the arithmetic and the facts used (None without facts or a plan)."""
    facts = variant_facts(recipe, variant_id)
    if found is None or not facts:
        return None
    return {
        "gpus": found.gpus,
        "tensor_parallel": found.tp,
        "replicas": found.replicas,
        "gpu_memory_gb": hw["memory_gb"],
        "budget_gb": round(found.budget / GB, 2),
        "weights_gb": round(found.weights / GB, 2),
        "weights_per_gpu_gb": round(found.weights_gpu / GB, 2),
        "runtime_gb": round(found.overhead / GB, 2),
        "kv_room_per_gpu_gb": round(found.kv_room / GB, 2),
        "kv_bytes_per_token_per_gpu": round(found.kv_token),
        "max_model_len": found.max_model_len,
        "context": found.context,
        "capped": found.capped,
        "full_context_gpus": found.full_context_gpus,
        "max_tokens": found.max_tokens,
        "max_sequences": found.max_sequences,
        "line": fit_line(found, hw),
        "arithmetic": fit_arithmetic(found, recipe, variant_id, hw, args),
        "facts_file": f"recipes/facts/{recipe['model']['model_id']}.yaml",
        "facts": _stated(facts),
    }


def _stated(value: Any) -> Any:
    """`value` without the keys a facts file leaves unset (None, {}), however it was read: the
    JSON the site publishes omits them, a model dump of the schema holds them as None."""
    if isinstance(value, dict):
        return {k: _stated(v) for k, v in value.items() if v is not None and v != {}}
    return value
