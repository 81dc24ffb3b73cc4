"""Sizing: what a model needs of a GPU's memory, and how many GPUs hold it (pure standard
library; typed facts in, numbers out). `memory` holds the byte counts, `fit` the rule that
picks a tensor-parallel size and a context; `builder.commands.fit` applies them to a
selection."""

from __future__ import annotations

from .fit import (
    CONTEXT_STEP,
    DEFAULT_UTILIZATION,
    MIN_CONTEXT,
    RUNTIME_OVERHEAD_GB,
    Gpu,
    Plan,
    plan,
    smallest_count,
    valid_tp,
)
from .memory import (
    BYTES_PER_WEIGHT,
    GB,
    bytes_per_weight,
    checkpoint_facts,
    full_attention_layers,
    kv_bytes_per_token,
    sequence_bytes,
    weights_bytes,
    weights_per_gpu,
)

__all__ = ["BYTES_PER_WEIGHT", "CONTEXT_STEP", "DEFAULT_UTILIZATION", "GB", "MIN_CONTEXT",
           "RUNTIME_OVERHEAD_GB", "Gpu", "Plan", "bytes_per_weight", "checkpoint_facts",
           "full_attention_layers",
           "kv_bytes_per_token", "plan", "sequence_bytes", "smallest_count", "valid_tp",
           "weights_bytes", "weights_per_gpu"]
