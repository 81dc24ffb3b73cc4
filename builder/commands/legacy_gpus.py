"""NVIDIA GPUs older than Ampere (T4, V100) under the vLLM release the commands are checked
with: whether vLLM runs on them, which checkpoints it refuses there and why, and the one
option every command there needs (`--dtype half`).

What vLLM 0.33.0 says, each fact with where it says it:

- Its CUDA kernels start at compute capability 7.5 (Turing): the 0.33.0 wheel's
  `vllm/_C_stable_libtorch.abi3.so` carries cubins for sm75, sm80, sm86, sm89, sm90, sm100 and
  sm120 and none for sm70; the default build moved to CUDA 13.0 with `TORCH_CUDA_ARCH_LIST`
  "7.5 8.0 8.6 8.9 9.0 10.0 12.0+PTX" (vllm-project/vllm#39878; CUDA 13 has no Volta target);
  vLLM's GPU installation page asks for "compute capability 7.5 or higher (e.g., T4, ...)".
  So a V100 (7.0) is refused (`RUNS_FROM`).
- BF16 needs 8.0: `CudaPlatform.check_if_supports_dtype` (vllm/platforms/cuda.py) raises
  "Bfloat16 is only supported on GPUs with compute capability of at least 8.0 ... use float16
  instead ... --dtype=half". Below 8.0 every command says `--dtype half` (`BF16_FROM`),
  replacing a recipe's `--dtype bfloat16`, and a recipe's `--kv-cache-dtype bfloat16` becomes
  `float16` (the Triton attention backend refuses a BF16 KV cache below 8.0 and names float16).
- float16 is refused for some model types (`_FLOAT16_NOT_SUPPORTED_MODELS` in
  vllm/config/model.py: gemma2, gemma3, gemma3_text, glm4, "numerical instability"); without
  BF16 vLLM would fall back to float32 at twice the memory, which the fit rule does not size, so
  those recipes are refused there (`FLOAT16_REFUSED`).
- Quantization methods whose floor is above 7.5 (`get_min_capability`): MXFP4 (`Mxfp4Config`,
  80), ModelOpt MXFP8 and ModelOpt FP8 (80) (`CHECKPOINT_FROM`). Other FP8 checkpoints run from
  7.5 as weight-only FP8 Marlin (`Fp8Config.get_min_capability` 75, `is_fp8_marlin_supported`;
  compressed-tensors falls back to `CompressedTensorsW8A16Fp8`, "turing and up"); NVFP4 and FP4
  stay Blackwell-only by `vocabulary.PRECISION_HARDWARE`.
- Attention below 8.0 is the Triton backend (FlashAttention needs 8.0; FlashInfer is held at
  8.0 in 0.33.0), which refuses an FP8 KV cache below 8.9 (`FP8_KV_FROM`, v1/attention/backends/
  triton_attn.py): a variant whose own `extra_args` set one is refused there
  (`kv_cache_reason`; tests/test_legacy_gpus.py checks that no T4 command keeps one).
"""

from __future__ import annotations

import re

from ..arglist import ArgList
from ..types import Data, Origin
from ..vllm_release import VLLM_VERSION

__all__ = ["BF16_FROM", "CHECKPOINT_FROM", "FLOAT16_REFUSED", "FP8_KV_FROM", "RUNS_FROM",
           "compute_capability", "half_precision", "hardware_reason", "kv_cache_reason",
           "variant_reason"]

RUNS_FROM = 75
"""The lowest compute capability vLLM's CUDA wheel has kernels for (7.5, Turing)."""
BF16_FROM = 80
"""The lowest compute capability vLLM runs BF16 on (8.0, Ampere)."""
FP8_KV_FROM = 89
"""The lowest compute capability the Triton attention backend keeps an FP8 KV cache on."""
CHECKPOINT_FROM: tuple[tuple[str, str, str, int], ...] = (
    ("mxfp4", "", "MXFP4", 80),
    ("mxfp4+mxfp8", "", "MXFP4", 80),
    ("mxfp8", "", "MXFP8", 80),
    ("fp8", r"^nvidia/", "ModelOpt FP8", 80),
)
"""(variant precision, checkpoint id pattern, what vLLM loads it as, lowest compute capability):
checkpoints whose vLLM quantization method starts above vLLM's own floor (the method's
`get_min_capability`: `Mxfp4Config`, `ModelOptMxFp8Config` and `ModelOptFp8Config` say 80).
NVIDIA's own FP8 checkpoints are ModelOpt exports (`hf_quant_config.json` with `quant_algo`
FP8, e.g. aiconfigurator-core 0.12.0's copy of nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8's),
which vLLM loads as `modelopt`."""
FLOAT16_REFUSED: tuple[tuple[str, str], ...] = (
    (r"^google/(translate)?gemma-3-", "gemma3"),
    (r"^google/gemma-2-", "gemma2"),
    (r"^(THUDM|zai-org)/GLM-4-.*-0414$", "glm4"),
)
"""Model ids (regular expressions) whose config.json `model_type` vLLM refuses float16 for:
Gemma 3 4B/12B/27B and TranslateGemma (built on Gemma 3) are `Gemma3ForConditionalGeneration`,
model type gemma3 (Gemma 3n and Gemma 4 are other model types; zai-org/glm-4-9b-hf is `glm`)."""
_ORIGIN: Origin = {"file": "builder/commands/legacy_gpus.py", "path": "the variant's extra_args",
           "layer": "variant"}
_HALF = frozenset({"half", "float16", "float", "float32"})
"""`--dtype` values that already run without BF16."""


def compute_capability(hw: Data) -> int | None:
    """An NVIDIA GPU's compute capability as vLLM writes it (`sm75` → 75); None elsewhere."""
    found = re.fullmatch(r"sm(\d+)", str(hw.get("compute_arch", "")))
    return int(found.group(1)) if found and hw.get("brand") == "nvidia" else None


def _version(capability: int) -> str:
    return f"{capability // 10}.{capability % 10}"


def hardware_reason(hw: Data) -> str | None:
    """Why vLLM does not run on this GPU at all; None when it does."""
    cc = compute_capability(hw)
    if cc is None or cc >= RUNS_FROM:
        return None
    return (f"vLLM {VLLM_VERSION} does not run on {hw['display_name']} (compute capability "
            f"{_version(cc)}): its CUDA kernels start at {_version(RUNS_FROM)} (T4 and newer)")


def _model_type_refused(recipe: Data) -> str | None:
    model_id = str((recipe.get("model") or {}).get("model_id", ""))
    for pattern, model_type in FLOAT16_REFUSED:
        if re.search(pattern, model_id):
            return model_type
    return None


def variant_reason(recipe: Data, variant_id: str, hw: Data) -> str | None:
    """Why vLLM cannot serve this variant of the recipe on this GPU; None when it can (or the
    GPU is not an NVIDIA GPU older than this rule's floors)."""
    cc = compute_capability(hw)
    if cc is None or cc >= BF16_FROM:
        return None
    refused = hardware_reason(hw)
    if refused:
        return refused
    name, here = hw["display_name"], _version(cc)
    variant = recipe["variants"][variant_id]
    label = variant.get("label") or variant_id
    checkpoint = str(variant.get("model_id") or (recipe.get("model") or {}).get("model_id", ""))
    for precision, pattern, what, floor in CHECKPOINT_FROM:
        if variant.get("precision") == precision and re.search(pattern, checkpoint) and cc < floor:
            return (f"{label}: vLLM {VLLM_VERSION} runs {what} checkpoints from compute "
                    f"capability {_version(floor)}; {name} has {here}")
    own = ArgList()
    own.extend(variant.get("extra_args") or [], _ORIGIN)
    kv = kv_cache_reason(own, hw)
    if kv:
        return f"{label}: {kv}"
    model_type = _model_type_refused(recipe)
    if model_type:
        return (f"{name} (compute capability {here}) has no BF16 and vLLM {VLLM_VERSION} "
                f"refuses float16 for model type {model_type} (numerical instability)")
    return None


def half_precision(args: ArgList, hw: Data) -> ArgList:
    """The command's options on this GPU: below BF16's floor, `--dtype half` (unless the
    command already asks for float16 or float32) and a BF16 KV cache as float16."""
    cc = compute_capability(hw)
    if cc is None or cc >= BF16_FROM:
        return args
    name, here = hw["display_name"], _version(cc)
    origin: Origin = {"file": "builder/commands/legacy_gpus.py", "layer": "builder",
              "path": (f"{name} (compute capability {here}) has no BF16: vLLM "
                       f"{VLLM_VERSION} runs float16 (BF16 needs {_version(BF16_FROM)})")}
    dtype, kv = args.get("--dtype"), args.get("--kv-cache-dtype")
    half = dtype is not None and dtype[0] in _HALF
    bf16_cache = kv is not None and kv[0] == "bfloat16"
    if half and not bf16_cache:
        return args
    args = args.copy()
    if not half:
        args.set(origin, "--dtype", "half")
    if bf16_cache:
        args.set(origin, "--kv-cache-dtype", "float16")
    return args


def kv_cache_reason(args: ArgList, hw: Data) -> str | None:
    """Why the command's KV cache type cannot run on this GPU older than Ampere, where Triton is
    vLLM's only attention backend; None when it can."""
    cc = compute_capability(hw)
    kv = args.get("--kv-cache-dtype")
    if cc is None or cc >= BF16_FROM or not (kv and kv[0].startswith("fp8")):
        return None
    return (f"--kv-cache-dtype {kv[0]}: vLLM {VLLM_VERSION}'s attention on "
            f"{hw['display_name']} (Triton, compute capability {_version(cc)}) keeps an FP8 "
            f"KV cache from {_version(FP8_KV_FROM)} only")
