"""The fit rule: how many GPUs a model needs, and what context fits them.

Per GPU, vLLM must hold its share of the weights, the runtime's own memory and the KV cache
of at least one sequence of `--max-model-len` within memory x `--gpu-memory-utilization`,
or it refuses to start. So, given the GPUs a command may use (`available`):

1. the tensor-parallel size is the smallest that vLLM accepts for the model (it divides the
   attention heads, and the KV heads divide it or it divides them) and holds the weights
   and one sequence of the full context;
2. when that size is more than `available`, the largest accepted size within `available`
   that holds the weights and at least `MIN_CONTEXT` tokens is used, with `--max-model-len`
   capped to what fits (a multiple of `CONTEXT_STEP`);
3. when none does, the model does not fit (`plan` returns None; `smallest_count` says how
   many GPUs would do);
4. a recipe's own size (`tp`) is used as it is, if it holds the weights;
5. GPUs beyond the size serve as data-parallel replicas (`available // tp`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .memory import GB, SequenceCost, sequence_cost, weights_per_gpu

__all__ = ["CONTEXT_STEP", "DEFAULT_UTILIZATION", "MIN_CONTEXT", "RUNTIME_OVERHEAD_GB", "Gpu",
           "Plan", "plan", "smallest_count", "valid_tp"]

DEFAULT_UTILIZATION = 0.9
"""vLLM's `--gpu-memory-utilization` default (vLLM's EngineArgs)."""
RUNTIME_OVERHEAD_GB = 2.0
"""Per GPU, besides weights and KV cache: the CUDA context, CUDA graphs and the activation
peak of vLLM's profiling run (an estimate; vLLM's start-up log reports 1-3 GB for them on
the models we serve)."""
MIN_CONTEXT = 4096
"""The shortest context worth a command: below it the model does not fit."""
CONTEXT_STEP = 1024
"""A capped `--max-model-len` is a multiple of this."""


@dataclass(frozen=True)
class Gpu:
    name: str
    memory_gb: float
    most: int
    """The most of them one node holds."""


@dataclass(frozen=True)
class Plan:
    tp: int
    replicas: int
    context: int
    """The context asked for (the recipe's `--max-model-len`, else the model's)."""
    max_model_len: int
    """The context that fits (`context` unless capped)."""
    full_context_gpus: int | None
    """The fewest GPUs that hold the full context (None: no node of these GPUs does)."""
    budget: float
    """Bytes per GPU vLLM may use: memory x utilization."""
    weights: float
    weights_gpu: float
    overhead: float
    kv_token: float
    """KV-cache bytes per token per GPU."""
    kv_room: float
    """Bytes per GPU left for the KV cache."""
    max_tokens: int
    """Tokens of KV cache one replica holds."""
    max_sequences: int
    """Sequences of `max_model_len` tokens one replica holds at once."""

    @property
    def capped(self) -> bool:
        return self.max_model_len < self.context

    @property
    def gpus(self) -> int:
        return self.tp * self.replicas


def valid_tp(config: Mapping[str, Any], tp: int) -> bool:
    """vLLM accepts `tp` for the model: it divides the attention heads and, without MLA,
    the KV heads divide it or it divides them (vLLM replicates KV heads past their count)."""
    heads, kv = config["num_attention_heads"], config["num_key_value_heads"]
    if heads % tp:
        return False
    return bool(config.get("kv_lora_rank")) or kv % tp == 0 or tp % kv == 0


def _room(facts: Mapping[str, Any], weights: float, budget: float, tp: int) -> float:
    return budget - weights_per_gpu(facts, weights, tp) - RUNTIME_OVERHEAD_GB * GB


def _longest(cost: SequenceCost, room: float, limit: int) -> int:
    """The longest context (a multiple of CONTEXT_STEP, at most `limit`) one sequence of
    which fits `room` bytes."""
    if cost.bytes(limit) <= room:
        return limit
    low, high = 0, limit // CONTEXT_STEP
    while low < high:
        mid = (low + high + 1) // 2
        if cost.bytes(mid * CONTEXT_STEP) <= room:
            low = mid
        else:
            high = mid - 1
    return low * CONTEXT_STEP


def plan(facts: Mapping[str, Any], weights: float, gpu: Gpu, available: int, *,
         utilization: float = DEFAULT_UTILIZATION, context: int | None = None,
         kv_bytes: float = 2.0, tp: int | None = None) -> Plan | None:
    """The layout for `available` GPUs (see the module docstring); None when the model does
    not fit them. `tp`: the recipe's own size."""
    config = facts["config"]
    wanted = int(context or config.get("max_position_embeddings") or 0)
    if wanted < 1:
        return None
    budget = gpu.memory_gb * GB * utilization
    sizes = [t for t in range(1, max(gpu.most, available) + 1) if valid_tp(config, t)]
    costs: dict[int, SequenceCost] = {}

    def cost(t: int) -> SequenceCost:
        found = costs.get(t)
        if found is None:
            found = costs[t] = sequence_cost(config, t, kv_bytes)
        return found

    def holds(t: int, tokens: int) -> bool:
        return cost(t).bytes(tokens) <= _room(facts, weights, budget, t)

    full = next((t for t in sizes if holds(t, wanted) and t <= gpu.most), None)
    if tp is None:
        if full is not None and full <= available:
            tp = full
        else:
            short = min(wanted, MIN_CONTEXT)
            tp = max((t for t in sizes if t <= available and holds(t, short)), default=None)
    if tp is None or tp > available or _room(facts, weights, budget, tp) <= 0:
        return None
    room = _room(facts, weights, budget, tp)
    used = cost(tp)
    fits = _longest(used, room, wanted)
    if fits < min(wanted, MIN_CONTEXT):
        return None
    kv_token = used.per_token
    fixed = used.bytes(0) + (used.bytes(fits) - used.bytes(0) - kv_token * fits)
    tokens = int((room - fixed) / kv_token) if kv_token else fits
    sequences = int(room // used.bytes(fits))
    return Plan(tp=tp, replicas=max(1, available // tp), context=wanted, max_model_len=fits,
                full_context_gpus=full, budget=budget, weights=weights,
                weights_gpu=weights_per_gpu(facts, weights, tp),
                overhead=RUNTIME_OVERHEAD_GB * GB, kv_token=kv_token, kv_room=room,
                max_tokens=max(tokens, fits), max_sequences=sequences)


def smallest_count(facts: Mapping[str, Any], weights: float, gpu: Gpu, *,
                   utilization: float = DEFAULT_UTILIZATION, context: int | None = None,
                   kv_bytes: float = 2.0) -> Plan | None:
    """The plan on the fewest of these GPUs that fits (at most a node's), or None. (Only
    sizes vLLM accepts are tried: on other counts the plan is a smaller accepted size's.)"""
    for count in (t for t in range(1, gpu.most + 1) if valid_tp(facts["config"], t)):
        found = plan(facts, weights, gpu, count, utilization=utilization, context=context,
                     kv_bytes=kv_bytes)
        if found is not None:
            return found
    return None
