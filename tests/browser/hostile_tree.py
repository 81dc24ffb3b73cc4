"""A small recipe tree for the CSP browser test: two real recipes (a model page with the
builder and the compare box; one with NVIDIA Dynamo targets and a published configuration)
and the hostile recipe of tests/fixtures/recipes_xss, whose guide carries every payload."""

from __future__ import annotations

import shutil
from pathlib import Path

from benchmarks.bench_build import _drop_missing_related
from tests.recipes_data import RECIPES, ROOT

XSS_FIXTURE = ROOT / "tests" / "fixtures" / "recipes_xss"
REAL = ("Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V4.1-Flash")


def hostile_tree(target: Path) -> Path:
    """The tree, written under `target`; its root."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(RECIPES / "hardware.yaml", target / "hardware.yaml")
    for name in ("strategies", "configurations", "deployments"):
        shutil.copytree(RECIPES / name, target / name)
    for hf_id in REAL:
        org = target / "models" / hf_id.split("/")[0]
        org.mkdir(parents=True, exist_ok=True)
        for suffix in (".yaml", ".md"):
            shutil.copy(RECIPES / "models" / f"{hf_id}{suffix}", org)
    shutil.copytree(XSS_FIXTURE / "models", target / "models", dirs_exist_ok=True)
    shutil.copytree(XSS_FIXTURE / "configurations", target / "configurations",
                    dirs_exist_ok=True)
    _drop_missing_related(target)
    return target
