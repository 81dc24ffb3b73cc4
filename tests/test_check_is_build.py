"""`vllm-recipes check` is the build (issue 24, point 4): on trees the build refuses, check
reports a problem; on trees check passes, the build renders every recipe. The fuzz suite
(tests/fuzz/) holds the same over random mutations; these are the issue's cases."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.build_verdict import build_verdict, check, check_verdict
from tests.recipes_data import RECIPES

MODEL = "Qwen/Qwen3-8B"


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "recipes"
    for part in ("hardware.yaml", "strategies", f"models/{MODEL}.yaml", f"models/{MODEL}.md"):
        source, target = RECIPES / part, root / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)
    edit(recipe(root), "  related_recipes: [Qwen/Qwen3-4B, Qwen/Qwen3-32B]\n", "")
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def recipe(root: Path) -> Path:
    return root / "models" / f"{MODEL}.yaml"


Mutation = Callable[[Path], None]
MUTATIONS: dict[str, tuple[Mutation, str | None]] = {
    "a line break in an argument": (
        lambda root: edit(recipe(root), "--reasoning-parser: qwen3",
                          '--reasoning-parser: "qwen3\\nrm -rf /"'),
        "recipes/models/Qwen/Qwen3-8B.yaml:", ),
    "no strategy": (
        lambda root: edit(recipe(root), "strategies: [single_node_tp, multi_node_tp]",
                          "strategies: []"),
        "recipes/models/Qwen/Qwen3-8B.yaml:"),
    "a strategy for no GPU count": (
        lambda root: edit(root / "strategies" / "single_node_tp.yaml",
                          "  min_gpus: 1\n  max_gpus: 16\n", "  min_gpus: 32\n  max_gpus: 2\n"),
        "recipes/strategies/single_node_tp.yaml:"),
    "a malformed configuration": (
        lambda root: (root / "configurations").mkdir() or (
            root / "configurations" / "x.yaml").write_text(
                f"model: {MODEL}\nconfigurations: [\n", encoding="utf-8"),
        "recipes/configurations/x.yaml:"),
    "a configuration of no schema": (
        lambda root: (root / "configurations").mkdir() or (
            root / "configurations" / "x.yaml").write_text(
                f"model: {MODEL}\nsystems: 3\n", encoding="utf-8"),
        "recipes/configurations/x.yaml:"),
    "a parallel size of zero": (
        lambda root: edit(recipe(root), "    vram_minimum_gb: 20\n", "    vram_minimum_gb: 20\n"
                          "    extra_args: {--tensor-parallel-size: 0}\n"),
        "recipes/models/Qwen/Qwen3-8B.yaml:"),
    "a valid edit (another max-model-len)": (
        lambda root: edit(recipe(root), "  context_length: 40960\n", "  context_length: 40960\n"
                          "  base_args: {--max-model-len: 16k}\n"),
        None),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_check_and_the_build_agree(tmp_path: Path, name: str) -> None:
    mutate, refused_at = MUTATIONS[name]
    root = tree(tmp_path)
    mutate(root)
    checked, built = check_verdict(root), build_verdict(root)
    assert not checked.crashed, checked.why
    assert not built.crashed, built.why
    assert checked.ok == built.ok, (checked, built)
    if refused_at is None:
        assert checked.ok, checked.why
    else:
        assert checked.why.startswith(refused_at), checked.why


def test_the_gpu_range_message(tmp_path: Path) -> None:
    root = tree(tmp_path)
    MUTATIONS["a strategy for no GPU count"][0](root)
    code, out, err = check(root)
    assert code == 1, (out, err)
    assert out.splitlines()[0].endswith(
        "hardware_match.max_gpus: 2 is less than min_gpus (32): no hardware would match")


def test_the_real_tree_passes_check_and_builds_its_default(tmp_path: Path) -> None:
    code, out, err = check(RECIPES)
    assert code == 0, out[-2000:] + err[-2000:]
    assert out.endswith(": no problems\n")
