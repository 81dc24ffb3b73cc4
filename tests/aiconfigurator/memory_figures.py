"""Run inside the AIConfigurator environment (`make aic-env`), not by pytest: NVIDIA
AIConfigurator's own per-GPU memory figures for the cells the fit test asks about.

stdin: a JSON list of cells, each {"model": <an id of aiconfigurator_core's model_configs>,
"system": <its system name, e.g. h200_sxm>, "tp": <tensor-parallel size>, "kv": "bfloat16" |
"fp8", "moe": true|false}. stdout: the same list, each cell with "weights_bytes" (weights per
GPU), "kv_bytes_per_token" (KV cache per token per GPU) and "checkpoint" (the weights' format
its config copy gives), or "error".
`--models` prints the model ids AIConfigurator ships configs for, one per line.

Its vLLM memory model is `aiconfigurator_core.sdk.memory.estimate_kv_cache` (the path of
`aiconfigurator cli estimate --backend vllm`); a MoE model is asked with its experts split by
tensor parallelism (moe_tp = tp, moe_ep = 1), vLLM's layout without --enable-expert-parallel.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from functools import cache
from pathlib import Path
from typing import Any

CAPACITY = 1 << 44
"""16 TiB."""


def models() -> list[str]:
    import aiconfigurator_core

    folder = Path(aiconfigurator_core.__file__).parent / "model_configs"
    names = sorted(p.name[: -len("_config.json")] for p in folder.glob("*_config.json"))
    return [name.replace("--", "/", 1) for name in names]


def checkpoint_precision(model: str) -> str | None:
    """The weights' format AIConfigurator's copy of the config says the checkpoint has
    (`bf16`, `fp8`, `nvfp4`, `mxfp4`), None when it is mixed or not said."""
    import aiconfigurator_core

    folder = Path(aiconfigurator_core.__file__).parent / "model_configs"
    stem = model.replace("/", "--", 1)
    config = json.loads((folder / f"{stem}_config.json").read_text(encoding="utf-8"))
    quant = config.get("quantization_config") or {}
    extra = folder / f"{stem}_hf_quant_config.json"
    algo = (json.loads(extra.read_text(encoding="utf-8")).get("quantization", {})
            .get("quant_algo") if extra.is_file() else None) or quant.get("quant_algo")
    method = quant.get("quant_method")
    if algo == "MIXED_PRECISION":
        return None
    if algo in ("FP8", "NVFP4"):
        return algo.lower()
    if method in ("fp8", "mxfp4"):
        return str(method)
    if not quant and not algo:
        dtype = config.get("torch_dtype") or config.get("dtype")
        return "bf16" if dtype in ("bfloat16", None) else None
    return None


@cache
def database_version(system: str) -> str | None:
    """The latest perf database of `system` for vLLM. Asked once per system: AIConfigurator
    finds it by parsing every database's YAML metadata (~2.6 s a call), and the answer does not
    change within a run."""
    from aiconfigurator_core.sdk import perf_database

    return perf_database.get_latest_database_version(system, "vllm")


def figures(cell: dict[str, Any]) -> dict[str, Any]:
    from aiconfigurator_core.sdk.memory import estimate_kv_cache

    tp = int(cell["tp"])
    moe = bool(cell.get("moe"))
    try:
        result = estimate_kv_cache(
            cell["model"],
            cell["system"],
            "vllm",
            database_version(cell["system"]),
            max_num_tokens=4096,
            max_batch_size=1,
            memory_fraction_kind="of_total",
            memory_fraction_value=0.9,
            tp_size=tp,
            moe_tp_size=tp if moe else None,
            moe_ep_size=1 if moe else None,
            kvcache_quant_mode=cell.get("kv", "bfloat16"),
            # Weights and KV bytes do not depend on the GPU's size: a large enough one that
            # every model fits, so a model too big for the system still gets its figures.
            gpu_memory_capacity_bytes_override=CAPACITY,
        )
    except Exception as error:
        return {**cell, "error": f"{type(error).__name__}: {error}"[:300]}
    return {
        **cell,
        "checkpoint": checkpoint_precision(cell["model"]),
        "weights_bytes": int(result["memory_breakdown"]["weights_bytes"]),
        "kv_bytes_per_token": int(result["kv_size_per_token_bytes"]),
    }


def main() -> int:
    warnings.simplefilter("ignore")
    os.environ.setdefault("AICONFIGURATOR_LOG_LEVEL", "ERROR")
    if sys.argv[1:] == ["--models"]:
        print("\n".join(models()))
        return 0
    import logging

    logging.disable(logging.WARNING)
    cells = json.load(sys.stdin)
    json.dump([figures(cell) for cell in cells], sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
