"""Our memory arithmetic (builder/sizing) against NVIDIA AIConfigurator's (`make aic-env`:
aiconfigurator-core 0.12.0, its vLLM memory model), for every model both know.

Both read the same kind of fact (a checkpoint's config.json), so they must agree:
- the facts themselves: every architecture number in our `recipes/facts/` file equals the
  one in AIConfigurator's copy of the model's config.json;
- KV cache per token per GPU, BF16, at every tensor-parallel size vLLM accepts up to 8: equal
  to the byte for full attention and MLA. Where a model has sliding-window or linear-attention
  layers, AIConfigurator counts every layer's cache per token (it sizes for its own sequence
  lengths), ours only the full-attention layers (the others stop growing past their window
  or hold a constant state: `builder/sizing/memory.py`): there ours must be the smaller,
  and equal to AIConfigurator's share of the full-attention layers;
- weights per GPU, where both read the checkpoint as the same format: ours is the stated
  size, else parameters x bytes per weight of the precision, split evenly over TP (an encoder
  whole on each GPU); AIConfigurator sums its per-layer tensors. Measured on 164 cells
  (2026-12-06), ours / AIConfigurator's - 1:
    BF16   76 cells  -6.3% .. +7.2% (GLM-5.x at TP 8: AIConfigurator keeps more whole on
           each GPU; Llama-4-Scout at TP 1: ours above), but for SAME_MATRIX;
    FP8    36 cells  -10.5% .. +0.6%: for the FP8 DeepSeek-sparse-attention checkpoints
           (GLM-5.x, DeepSeek-V3.2) AIConfigurator counts 8-11% more than their parameter
           count at one byte a weight (ours, with the 128x128 block scales);
    NVFP4  40 cells  -16.9% .. +0.1%, MXFP4 8 cells +2.4% .. +14.2%: ours counts every weight
           of a 4-bit checkpoint at 4 bits, while such checkpoints keep attention,
           embeddings, shared experts and norms wider (GLM-5.2 NVFP4 at TP 8: -16.9%, an
           under-count a stated `weights_gb` from the safetensors index removes); gpt-oss-20b
           (+14.2%) states no size and AIConfigurator keeps its MXFP4 experts' scales apart.
  WEIGHTS_TOLERANCE holds those ranges with a little room; a cell where AIConfigurator's
  config copy gives another format than our variant (a BF16 config behind an FP8 label) is not
  compared.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builder.performance.cells import SAME_CHECKPOINT
from builder.sizing.memory import (
    checkpoint_facts,
    kv_bytes_per_token,
    weights_bytes,
    weights_per_gpu,
)
from tests.recipes_data import ROOT, catalog

pytestmark = pytest.mark.aiconfigurator

PYTHON = os.environ.get("AICONFIGURATOR_PYTHON") or str(
    next(iter(sorted((ROOT / ".aic-venv").glob("aiconfigurator-core-*/bin/python"))),
         ROOT / ".aic-venv" / "missing" / "bin" / "python"))
SCRIPT = Path(__file__).with_name("memory_figures.py")
SYSTEM = "h200_sxm"
"""Weights and KV bytes do not depend on the GPU; one system with vLLM data is enough."""
WEIGHTS_TOLERANCE = {"bf16": (-0.08, 0.08), "fp8": (-0.12, 0.02), "4bit": (-0.18, 0.15)}
"""(lowest, highest) of ours / AIConfigurator's - 1, by the width of the weights (docstring)."""
FOUR_BIT = {"nvfp4", "mxfp4", "fp4", "int4", "w4a16", "w4a8", "awq", "gptq"}
CONFIG_KEYS = {
    # our facts key: the config.json keys AIConfigurator's copy may spell it with
    "num_hidden_layers": ("num_hidden_layers", "num_layers", "n_layers"),
    "num_attention_heads": ("num_attention_heads", "n_heads"),
    "num_key_value_heads": ("num_key_value_heads", "num_kv_heads", "n_kv_heads"),
    "hidden_size": ("hidden_size", "dim"),
    "vocab_size": ("vocab_size",),
    "kv_lora_rank": ("kv_lora_rank",),
    "qk_rope_head_dim": ("qk_rope_head_dim",),
    "num_experts": ("n_routed_experts", "num_local_experts", "num_experts"),
}
SAME_MATRIX = {
    # recipe: why AIConfigurator's weights differ (not compared)
    "Qwen/Qwen3-1.7B": "tie_word_embeddings: vLLM holds one 151936 x 2048 matrix for the "
                       "embedding and the LM head, AIConfigurator counts two (+0.62 GB)",
}


def _run(args: list[str], stdin: str = "") -> str:
    if not Path(PYTHON).is_file():
        pytest.fail(f"{PYTHON} is missing: run `make aic-env` (make test does)")
    run = subprocess.run([PYTHON, "-W", "ignore", str(SCRIPT), *args], input=stdin,
                         capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def _aic_config(model: str) -> dict[str, Any]:
    folder = Path(PYTHON).parent.parent / "lib"
    name = model.replace("/", "--", 1) + "_config.json"
    found = sorted(folder.glob(f"python*/site-packages/aiconfigurator_core/model_configs/{name}"))
    assert found, model
    data = json.loads(found[0].read_text(encoding="utf-8"))
    return data.get("text_config") or data.get("llm_config") or data


def _cells() -> Iterator[dict[str, Any]]:
    """One (our recipe, variant, AIConfigurator model) per model id both know."""
    known = set(_run(["--models"]).split())
    lowered = {m.lower(): m for m in known}
    for hf_id, recipe in catalog().recipes.items():
        facts = recipe.model_dump(mode="json").get("facts")
        if not facts:
            continue
        for vid, variant in recipe.variants.items():
            own = checkpoint_facts(facts, vid)  # a variant of another size: its own, or none
            if own is None:
                continue
            model_id = variant.model_id or recipe.model.model_id
            aic = lowered.get(model_id.lower()) or SAME_CHECKPOINT.get(model_id)
            if aic is None or aic not in known:
                continue
            yield {"recipe": hf_id, "variant": vid, "precision": variant.precision,
                   "model": aic, "facts": own}


def _figures() -> list[dict[str, Any]]:
    cells = []
    for cell in _cells():
        heads, kv = (cell["facts"]["config"][k] for k in
                     ("num_attention_heads", "num_key_value_heads"))
        for tp in (1, 2, 4, 8):
            if heads % tp == 0 and (kv % tp == 0 or tp % kv == 0):
                cells.append({**cell, "system": SYSTEM, "tp": tp, "kv": "bfloat16",
                              "moe": bool(cell["facts"]["config"].get("num_experts"))})
    asked = [{k: c[k] for k in ("model", "system", "tp", "kv", "moe")} for c in cells]
    answers = json.loads(_run([], json.dumps(asked)))
    return [{**cell, **answer} for cell, answer in zip(cells, answers, strict=True)]


def test_kv_cache_and_weights_per_gpu_agree_with_aiconfigurator() -> None:
    """One test, so that AIConfigurator starts once (a few seconds) whatever the workers."""
    figures = _figures()
    models = {f["model"] for f in figures if "error" not in f}
    assert len(models) >= 25, sorted(models)
    check_kv_cache_per_token_per_gpu(figures)
    check_weights_per_gpu(figures)


def test_our_facts_are_the_config_json_aiconfigurator_ships() -> None:
    for cell in _cells():
        theirs = _aic_config(cell["model"])
        for ours_key, keys in CONFIG_KEYS.items():
            ours = cell["facts"]["config"].get(ours_key)
            given = next((theirs[k] for k in keys if theirs.get(k) is not None), None)
            if ours is None or given is None:
                continue
            assert ours == given, (cell["recipe"], ours_key, ours, given)


def check_kv_cache_per_token_per_gpu(figures: list[dict[str, Any]]) -> None:
    compared = 0
    for f in figures:
        if "error" in f:
            continue
        config = f["facts"]["config"]
        ours = kv_bytes_per_token(config, f["tp"], 2.0)
        theirs = f["kv_bytes_per_token"]
        if config.get("sliding_window_layers") or config.get("linear_attention_layers"):
            assert ours <= theirs, f
        else:
            assert ours == theirs, (f["recipe"], f["tp"], ours, theirs)
        compared += 1
    assert compared >= 40


def check_weights_per_gpu(figures: list[dict[str, Any]]) -> None:
    compared = 0
    for f in figures:
        if "error" in f or f.get("checkpoint") != f["precision"].split("+")[0]:
            continue
        total = weights_bytes(f["facts"], f["precision"], f["variant"])
        if total is None:
            continue
        ours = weights_per_gpu(f["facts"], total, f["tp"])
        if f["recipe"] in SAME_MATRIX:
            continue
        low, high = WEIGHTS_TOLERANCE["4bit" if f["checkpoint"] in FOUR_BIT else
                                      f["checkpoint"]]
        if os.environ.get("AIC_REPORT"):
            print("DEV", f["recipe"], f["variant"], f["checkpoint"], f["tp"],
                  round(ours / f["weights_bytes"] - 1, 4))
            continue
        assert low <= ours / f["weights_bytes"] - 1 <= high, (
            f["recipe"], f["variant"], f["tp"], round(ours / 1e9, 2),
            round(f["weights_bytes"] / 1e9, 2))
        compared += 1
    assert compared >= 40
