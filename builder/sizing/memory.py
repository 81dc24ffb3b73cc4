"""Bytes a model takes on a GPU under vLLM, from its memory facts (`recipes/facts/`): the
weights, the KV cache per token and per sequence, and what stays whole on every GPU.

    weights        the checkpoint's stated size (`weights_gb` of the variant), else
                   `parameters` x the bytes per weight of the variant's precision
                   (`BYTES_PER_WEIGHT`; a mixed checkpoint `a+b` counts as its first part)
    per GPU        (weights - encoder) / TP + encoder: vLLM shards every layer, embeddings
                   and LM head included, over tensor parallelism; a vision/audio encoder
                   (`encoder_parameters`, BF16) is kept whole on every GPU
    KV per token   full-attention layers x 2 (K and V) x KV heads per GPU x head_dim x
                   bytes per value; vLLM replicates KV heads when TP exceeds them, so a GPU
                   holds max(1, KV heads / TP) of them. MLA (`kv_lora_rank`): one latent of
                   kv_lora_rank + qk_rope_head_dim values per layer, the same on every GPU,
                   plus a DeepSeek-sparse-attention model's indexer key (`indexer_bytes`)
    per sequence   the per-token cost x tokens, plus sliding-window layers for at most
                   `sliding_window` tokens, plus each linear-attention layer's constant
                   state (split over TP like its heads)
    bytes/value    2 (BF16/FP16), halved by an FP8 KV cache (`--kv-cache-dtype fp8*`)

Every function is pure; `facts` is the JSON form of `ModelFacts` (vllm_recipes/schema.py),
as `checkpoint_facts` gives it for one variant: a variant of another model size has its own
(`variants`) or none (`not_covered`); every other variant has the default checkpoint's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["BYTES_PER_WEIGHT", "COVERAGE_KEYS", "ENCODER_BYTES_PER_WEIGHT", "GB", "SequenceCost",
           "bytes_per_weight", "checkpoint_facts", "full_attention_layers", "indexer_bytes",
           "kv_bytes_per_token", "sequence_bytes", "sequence_cost", "weights_bytes",
           "weights_per_gpu"]

GB = 1e9
"""Bytes in a GB as datasheets and checkpoints count them."""

BYTES_PER_WEIGHT: dict[str, float] = {
    "fp32": 4.0, "bf16": 2.0, "fp16": 2.0,
    "fp8": 1.0, "int8": 1.0, "w8a8": 1.0,
    # MXFP8: one E8M0 scale byte per 32 values.
    "mxfp8": 1.0 + 1 / 32,
    # NVFP4: 4-bit values and one FP8 scale per 16; MXFP4: one E8M0 scale per 32;
    # FP4 checkpoints carry NVFP4-style scales.
    "nvfp4": 0.5 + 1 / 16, "fp4": 0.5 + 1 / 16, "mxfp4": 0.5 + 1 / 32,
    # 4-bit integer formats with a 16-bit scale per group of 128.
    "int4": 0.5 + 2 / 128, "w4a16": 0.5 + 2 / 128, "w4a8": 0.5 + 2 / 128,
    "awq": 0.5 + 2 / 128, "gptq": 0.5 + 2 / 128,
    "int2": 0.25 + 2 / 128,
}
"""Bytes per weight of each precision word of the schema (GGUF has no single figure)."""
ENCODER_BYTES_PER_WEIGHT = 2.0
"""Vision/audio encoders stay in BF16 in the checkpoints we serve."""


COVERAGE_KEYS = ("variants", "not_covered", "same_architecture")
"""The keys of a facts file that say which variants its numbers describe (not numbers)."""


def checkpoint_facts(facts: Mapping[str, Any] | None, variant_id: str
                     ) -> dict[str, Any] | None:
    """The facts of `variant_id`'s checkpoint: its own (`variants`), none when the file does
    not cover it (`not_covered`) or there is no file, else the default checkpoint's; without
    the coverage keys, with the file's `weights_gb`."""
    if not facts or variant_id in (facts.get("not_covered") or {}):
        return None
    own = (facts.get("variants") or {}).get(variant_id)
    if own is not None:
        return {**own, "weights_gb": facts.get("weights_gb") or {}}
    return {k: v for k, v in facts.items() if k not in COVERAGE_KEYS}


def bytes_per_weight(precision: str) -> float | None:
    """Bytes per weight of a precision (`a+b`: its first part); None when unknown."""
    return BYTES_PER_WEIGHT.get(precision.split("+")[0])


def weights_bytes(facts: Mapping[str, Any], precision: str, variant_id: str = "default"
                  ) -> float | None:
    """The whole checkpoint's weights in bytes (see the module docstring); None when the
    precision has no figure and the facts state no size."""
    stated = (facts.get("weights_gb") or {}).get(variant_id)
    if stated is not None:
        return float(stated) * GB
    per = bytes_per_weight(precision)
    return None if per is None else float(facts["parameters"]) * per


def weights_per_gpu(facts: Mapping[str, Any], weights: float, tp: int) -> float:
    """Bytes of `weights` one GPU of a `tp`-way tensor-parallel group holds."""
    encoder = float(facts.get("encoder_parameters") or 0) * ENCODER_BYTES_PER_WEIGHT
    encoder = min(encoder, weights)
    return (weights - encoder) / tp + encoder


def full_attention_layers(config: Mapping[str, Any]) -> int:
    return int(config["num_hidden_layers"] - (config.get("sliding_window_layers") or 0)
               - (config.get("linear_attention_layers") or 0))


def indexer_bytes(config: Mapping[str, Any]) -> int:
    """Bytes of one token's indexer key in one layer of a DeepSeek-sparse-attention model:
    `index_head_dim` FP8 values and a 4-byte scale per 128 of them, whatever the KV cache's
    dtype, on every GPU (vLLM's DeepseekV32IndexerCache); 0 for other models."""
    width = int(config.get("index_head_dim") or 0)
    return width + 4 * -(-width // 128)


def _per_layer_token(config: Mapping[str, Any], tp: int, kv_bytes: float) -> float:
    """KV bytes of one token in one attention layer, on one GPU of a `tp` group."""
    if config.get("kv_lora_rank"):
        return ((config["kv_lora_rank"] + config["qk_rope_head_dim"]) * kv_bytes
                + indexer_bytes(config))
    heads = max(1, config["num_key_value_heads"] // tp)
    return 2 * heads * config["head_dim"] * kv_bytes


def kv_bytes_per_token(config: Mapping[str, Any], tp: int = 1, kv_bytes: float = 2.0
                       ) -> float:
    """KV-cache bytes one more token of context costs one GPU (full-attention layers; the
    sliding-window and linear layers cost nothing per token past their window)."""
    return full_attention_layers(config) * _per_layer_token(config, tp, kv_bytes)


@dataclass(frozen=True)
class SequenceCost:
    """`sequence_bytes` of one model, tensor-parallel size and KV dtype, its parts worked out
    once (the fit rule asks it of many lengths); `bytes(tokens)` does the same arithmetic
    in the same order, so it gives the same floats."""

    per_token: float
    """`kv_bytes_per_token`."""
    window: int
    """The sliding window (0: none)."""
    window_token: float
    """The sliding-window layers' bytes per token within the window."""
    states: float
    """The linear-attention layers' states (0.0: none)."""

    def bytes(self, tokens: int) -> float:
        """KV cache and states of one sequence of `tokens` tokens on one GPU."""
        total = self.per_token * tokens
        if self.window:
            total += self.window_token * min(tokens, self.window)
        if self.states:
            total += self.states
        return total


def sequence_cost(config: Mapping[str, Any], tp: int = 1, kv_bytes: float = 2.0
                  ) -> SequenceCost:
    """The `SequenceCost` of the model's `config` on one GPU of a `tp` group."""
    window = config.get("sliding_window") or 0
    return SequenceCost(
        per_token=kv_bytes_per_token(config, tp, kv_bytes), window=window,
        window_token=(config["sliding_window_layers"] * _per_layer_token(config, tp, kv_bytes)
                      if window else 0.0),
        states=(config["linear_attention_layers"] * config["linear_state_bytes"] / tp
                if config.get("linear_attention_layers") else 0.0))


def sequence_bytes(config: Mapping[str, Any], tokens: int, tp: int = 1,
                   kv_bytes: float = 2.0) -> float:
    """KV cache and states of one sequence of `tokens` tokens on one GPU."""
    return sequence_cost(config, tp, kv_bytes).bytes(tokens)
