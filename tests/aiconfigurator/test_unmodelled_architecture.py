"""Issue 34, acceptance point 3: why DeepSeek-V4.1-Flash's measured points have no estimate
beside them. AIConfigurator 0.12.0 ships no config of a V4.1 checkpoint, and a config.json of
its own (`--model-path` a folder) is read only for an architecture it maps to one of its
models: V4.1's `DeepseekV41ForCausalLM` (its config.json, `vllm_recipes.estimates.
ARCHITECTURES`) is refused, V4-Flash's `DeepseekV4ForCausalLM` is not. A release that models
V4.1 fails this test: then estimate the measured layouts instead of saying why not.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.aiconfigurator.test_memory_against_aiconfigurator import PYTHON
from tests.recipes_data import ROOT
from vllm_recipes.estimates import ARCHITECTURES

pytestmark = pytest.mark.aiconfigurator

SCRIPT = """
import json, sys
from aiconfigurator_core.sdk.utils import get_model_config_from_model_path
from vllm_recipes.estimates import Estimator
found = {"architectures": Estimator().architectures(), "refused": {}}
for folder in sys.argv[1:]:
    try:
        get_model_config_from_model_path(folder)
    except ValueError as error:
        found["refused"][folder] = str(error)
print(json.dumps(found))
"""


def _config(folder: Path, architecture: str) -> str:
    """A config.json of `architecture` with V4.1-Flash's text shape (its config.json)."""
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({
        "architectures": [architecture], "vocab_size": 129280, "hidden_size": 5120,
        "num_hidden_layers": 40, "num_attention_heads": 64, "num_key_value_heads": 1,
        "head_dim": 512, "max_position_embeddings": 1048576, "n_routed_experts": 384,
        "num_experts_per_tok": 6, "moe_intermediate_size": 2304}), encoding="utf-8")
    return str(folder)


def test_aiconfigurator_refuses_the_v41_architecture_and_reads_v4s(tmp_path: Path) -> None:
    if not Path(PYTHON).is_file():
        pytest.fail(f"{PYTHON} is missing: run `make aic-env` (make test does)")
    v41 = _config(tmp_path / "v41", ARCHITECTURES["deepseek-ai/DeepSeek-V4.1-Flash"])
    v4 = _config(tmp_path / "v4", "DeepseekV4ForCausalLM")
    run = subprocess.run([PYTHON, "-W", "ignore", "-c", SCRIPT, v41, v4], capture_output=True,
                         text=True, timeout=600, check=False, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr[-2000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert "DeepseekV41ForCausalLM is not supported" in found["refused"][v41]
    assert "DeepseekV41ForCausalLM" not in found["architectures"]
    assert "DeepseekV4ForCausalLM" in found["architectures"]
    # V4's config passes the architecture check (it may still lack V4-only keys)
    assert "is not supported" not in found["refused"].get(v4, "")
    coverage = json.loads((ROOT / "recipes/performance/coverage.json").read_text("utf-8"))
    assert coverage["architectures"] == found["architectures"]


RATIOS_SCRIPT = """
import json, sys
from pathlib import Path
import aiconfigurator_core
from aiconfigurator.sdk.config_builders import build_model_config
from aiconfigurator.sdk.models import get_model
shipped = Path(aiconfigurator_core.__file__).parent / "model_configs"
config = json.loads((shipped / "deepseek-ai--DeepSeek-V4-Flash_config.json").read_text())
layers = len(config["compress_ratios"])
config["compress_ratios"] = [2 if layer % 2 else 1 for layer in range(layers)]
(Path(sys.argv[1]) / "config.json").write_text(json.dumps(config))
try:
    get_model(sys.argv[1], build_model_config(4, 1, 1, 1, 4), "vllm")
    print("accepted")
except ValueError as error:
    print(error)
"""


def test_v4s_model_refuses_v41s_compression_ratios(tmp_path: Path) -> None:
    """Nor can V4.1 pass for V4: V4.1 compresses its KV with ratios 1 and 2 (its recipe page,
    "Two-tier sparse attention"), AIConfigurator's V4 model knows 0, 4 and 128 only."""
    if not Path(PYTHON).is_file():
        pytest.fail(f"{PYTHON} is missing: run `make aic-env` (make test does)")
    run = subprocess.run([PYTHON, "-W", "ignore", "-c", RATIOS_SCRIPT, str(tmp_path)],
                         capture_output=True, text=True, timeout=600, check=False, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "Unsupported DeepSeek-V4 compress_ratios: [1, 2]"
