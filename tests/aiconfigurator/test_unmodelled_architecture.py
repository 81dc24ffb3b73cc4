"""Issue 34, acceptance point 3: why DeepSeek-V4.1-Flash's measured points have no estimate
beside them. AIConfigurator 0.12.0 ships no config of a V4.1 checkpoint, and a config.json of
its own (`--model-path` a folder) is read only for an architecture it maps to one of its
models: V4.1's `DeepseekV41ForCausalLM` (its config.json, `vllm_recipes.estimates.
ARCHITECTURES`) is refused, V4-Flash's `DeepseekV4ForCausalLM` is not; nor can V4.1 pass for
V4: AIConfigurator's V4 model refuses V4.1's KV compression ratios. A release that models V4.1
fails these tests: then estimate the measured layouts instead of saying why not.
(One AIConfigurator process answers both tests: importing it takes seconds.)
"""

from __future__ import annotations

import json
import os
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.aiconfigurator.test_memory_against_aiconfigurator import PYTHON
from tests.recipes_data import ROOT
from vllm_recipes.estimates import ARCHITECTURES

pytestmark = pytest.mark.aiconfigurator

SCRIPT = """
import json, sys
from pathlib import Path
import aiconfigurator_core
from aiconfigurator.sdk.config_builders import build_model_config
from aiconfigurator.sdk.models import get_model
from aiconfigurator_core.sdk.utils import get_model_config_from_model_path
from vllm_recipes.estimates import Estimator


def error_of(call):
    try:
        call()
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return ""


v41, v4, ratios = sys.argv[1:]
shipped = Path(aiconfigurator_core.__file__).parent / "model_configs"
config = json.loads((shipped / "deepseek-ai--DeepSeek-V4-Flash_config.json").read_text())
layers = len(config["compress_ratios"])
config["compress_ratios"] = [2 if layer % 2 else 1 for layer in range(layers)]
(Path(ratios) / "config.json").write_text(json.dumps(config))
print(json.dumps({
    "architectures": Estimator().architectures(),
    "v41": error_of(lambda: get_model_config_from_model_path(v41)),
    "v4": error_of(lambda: get_model_config_from_model_path(v4)),
    "ratios": error_of(lambda: get_model(ratios, build_model_config(4, 1, 1, 1, 4), "vllm")),
}))
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


@cache
def answers(folder: Path) -> dict[str, Any]:
    if not Path(PYTHON).is_file():
        pytest.fail(f"{PYTHON} is missing: run `make aic-env` (make test does)")
    v41 = _config(folder / "v41", ARCHITECTURES["deepseek-ai/DeepSeek-V4.1-Flash"])
    v4 = _config(folder / "v4", "DeepseekV4ForCausalLM")
    (folder / "ratios").mkdir()
    run = subprocess.run([PYTHON, "-W", "ignore", "-c", SCRIPT, v41, v4, str(folder / "ratios")],
                         capture_output=True, text=True, timeout=600, check=False, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr[-2000:]
    found: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return found


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return answers(tmp_path_factory.mktemp("configs"))


def test_aiconfigurator_refuses_the_v41_architecture_and_reads_v4s(found: dict[str, Any]
                                                                   ) -> None:
    assert found["v41"].startswith("ValueError: The model's architecture "
                                   "DeepseekV41ForCausalLM is not supported")
    assert "DeepseekV41ForCausalLM" not in found["architectures"]
    assert "DeepseekV4ForCausalLM" in found["architectures"]
    # V4's config passes the architecture check (its parser then wants V4's own keys)
    assert "is not supported" not in found["v4"]
    coverage = json.loads((ROOT / "recipes/performance/coverage.json").read_text("utf-8"))
    assert coverage["architectures"] == found["architectures"]


def test_v4s_model_refuses_v41s_compression_ratios(found: dict[str, Any]) -> None:
    """V4.1 compresses its KV with ratios 1 and 2 (its recipe page, "Two-tier sparse
    attention"); AIConfigurator's V4 model knows 0, 4 and 128 only."""
    assert found["ratios"] == "ValueError: Unsupported DeepSeek-V4 compress_ratios: [1, 2]"
