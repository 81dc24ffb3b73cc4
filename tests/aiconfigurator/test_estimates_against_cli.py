"""`make estimates` asks AIConfigurator what its own command line answers: the generator's
session (vllm_recipes/estimates.py, run in `make aic-env`'s environment) against the figures
`aiconfigurator cli estimate --model-path Qwen/Qwen3-8B --system h200_sxm --backend vllm
--isl 1024 --osl 1024 --batch-size 32 --tp-size 1` printed with aiconfigurator 0.12.0 on a
CPU-only machine (2026-12-06; issue 34 quotes it: TTFT 88.9 ms, TPOT 7.68 ms, 4,119
tokens/s/GPU, 130 tokens/s/user, 27.8 GB per GPU); and the committed data holds that point.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.aiconfigurator.test_memory_against_aiconfigurator import PYTHON
from tests.recipes_data import ROOT

pytestmark = pytest.mark.aiconfigurator

CLI_0_12_0 = {"ttft_ms": 88.9, "tpot_ms": 7.68, "tokens_per_s_per_gpu": 4119.0,
              "tokens_per_s_per_user": 130.0, "memory_gb": 27.8}
"""The command line's answer (rounded as it prints them)."""
SCRIPT = """
import json
from vllm_recipes.estimates import Estimator
estimator = Estimator()
cell = {"checkpoint": "Qwen/Qwen3-8B", "system": "h200_sxm", "tp": 1, "pp": 1, "dp": 1,
        "gpus": 1, "ep": 1, "kv_cache_dtype": "auto"}
points, formats = estimator.points(estimator.session(cell), 1, 1024, 1024)
print(json.dumps({"version": estimator.version, "points": points, "formats": formats}))
"""


def close(ours: float, cli: float) -> bool:
    """Equal to the 3 significant digits both are given to."""
    return abs(ours - cli) <= 0.005 * cli


def test_a_session_gives_what_the_command_line_gives() -> None:
    run = subprocess.run([PYTHON, "-W", "ignore", "-c", SCRIPT], capture_output=True,
                         text=True, timeout=600, check=False, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr[-2000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert found["version"] == "0.12.0", "re-measure CLI_0_12_0 with the new release's CLI"
    point = next(p for p in found["points"] if p["concurrency"] == 32)
    for name, cli in CLI_0_12_0.items():
        assert close(point[name], cli), (name, point[name], cli)
    assert found["formats"] == {"weights": "bf16", "kv_cache": "bf16"}


def test_the_committed_estimate_is_that_point() -> None:
    data = json.loads((ROOT / "recipes/performance/Qwen/Qwen3-8B.json").read_text("utf-8"))
    cell = next(c for c in data["cells"] if (c["hardware"], c["workload"], c["tp"]) ==
                ("h200", "chat", 1))
    point = next(p for p in cell["points"] if p["concurrency"] == 32)
    for name, cli in CLI_0_12_0.items():
        assert close(point[name], cli), (name, point[name], cli)
