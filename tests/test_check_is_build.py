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


def _lower_case_twin(root: Path) -> None:
    """A second recipe, qwen/qwen3-8b, whose id is Qwen/Qwen3-8B's in lower case."""
    twin = root / "models" / "qwen" / "qwen3-8b.yaml"
    twin.parent.mkdir()
    twin.write_text(recipe(root).read_text(encoding="utf-8").replace(
        "model_id: Qwen/Qwen3-8B", "model_id: qwen/qwen3-8b"), encoding="utf-8")
    shutil.copy(recipe(root).with_suffix(".md"), twin.with_suffix(".md"))


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
    # issue 32: nonsense `check` accepted and the build rendered
    "data parallel 999 on one node": (
        lambda root: edit(recipe(root), "    vram_minimum_gb: 20\n", "    vram_minimum_gb: 20\n"
                          "    extra_args: {--data-parallel-size: 999}\n"),
        "recipes/models/Qwen/Qwen3-8B.yaml:47: variants.default.extra_args[1]: 999 is more"),
    "a base TP of 3 (the strategy replaced it)": (
        lambda root: edit(recipe(root), "  context_length: 40960\n", "  context_length: 40960\n"
                          "  base_args: {--tensor-parallel-size: 3}\n"),
        "recipes/models/Qwen/Qwen3-8B.yaml:22: model.base_args[0]: --tensor-parallel-size:"),
    "a max-model-len beyond the context": (
        lambda root: edit(recipe(root), "  context_length: 40960\n", "  context_length: 40960\n"
                          "  base_args: {--max-model-len: 1M}\n"),
        "recipes/models/Qwen/Qwen3-8B.yaml:22: model.base_args[0]: --max-model-len 1M:"),
    "the same flag twice": (
        lambda root: edit(recipe(root), "args: {--reasoning-parser: qwen3}",
                          "args: [--reasoning-parser, qwen3, --reasoning-parser, deepseek_r1]"),
        "recipes/models/Qwen/Qwen3-8B.yaml:30: features.reasoning.args[2]: --reasoning-parser:"),
    "a min_vllm_version above the checked release": (
        lambda root: edit(recipe(root), "min_vllm_version: 0.8.5", "min_vllm_version: 999.0.0"),
        "recipes/models/Qwen/Qwen3-8B.yaml:17: model.min_vllm_version: 999.0.0 is above"),
    "a tool-call parser vLLM does not have": (
        lambda root: edit(recipe(root), "--tool-call-parser: hermes", "--tool-call-parser: foo"),
        "recipes/models/Qwen/Qwen3-8B.yaml:26: features.tool_calling.args[1]: "
        "--tool-call-parser 'foo': not a tool-call parser of vLLM"),
    "a reasoning parser vLLM does not have": (
        lambda root: edit(recipe(root), "--reasoning-parser: qwen3", "--reasoning-parser: foo"),
        "recipes/models/Qwen/Qwen3-8B.yaml:30: features.reasoning.args[0]: "
        "--reasoning-parser 'foo': not a reasoning parser of vLLM"),
    "a bidi override in a label": (
        lambda root: edit(recipe(root), "label: Tool calling", 'label: "Tool \\u202Ecalling"'),
        "recipes/models/Qwen/Qwen3-8B.yaml:24: features.tool_calling.label: holds an invisible "
        "U+202E"),
    "a zero-width space in a label": (
        lambda root: edit(recipe(root), "label: BF16", 'label: "BF\\u200B16"'),
        "recipes/models/Qwen/Qwen3-8B.yaml:44: variants.default.label: holds an invisible "
        "U+200B"),
    "no guide": (
        lambda root: (root / "models" / f"{MODEL}.md").unlink(),
        "recipes/models/Qwen/Qwen3-8B.yaml:16: model.model_id: no guide"),
    "an FP8 pill on the BF16 checkpoint": (
        lambda root: edit(recipe(root), "or a CPU host.\n", "or a CPU host.\n"
                          "  fp8: {label: FP8, precision: fp8, model_id: Qwen/Qwen3-8B, "
                          "vram_minimum_gb: 12}\n"),
        "recipes/models/Qwen/Qwen3-8B.yaml:48: variants.fp8.model_id: labelled 'FP8' (fp8)"),
    "a variant id in another letter case": (
        lambda root: edit(recipe(root), "or a CPU host.\n", "or a CPU host.\n"
                          "  fp8: {label: FP8, precision: fp8, model_id: qwen/qwen3-8b, "
                          "vram_minimum_gb: 12}\n"),
        "recipes/models/Qwen/Qwen3-8B.yaml:48: variants.fp8.model_id: 'qwen/qwen3-8b' differs "
        "only in letter case"),
    "two recipes whose ids differ only in letter case": (
        lambda root: _lower_case_twin(root),
        "recipes/models/qwen/qwen3-8b.yaml:16: model.model_id: 'qwen/qwen3-8b' differs only "
        "in letter case from 'Qwen/Qwen3-8B'"),
    "a valid edit (a longer window with vLLM's opt-in)": (
        lambda root: edit(recipe(root), "  context_length: 40960\n", "  context_length: 40960\n"
                          "  base_args: {--max-model-len: 1M}\n"
                          "  base_env: {VLLM_ALLOW_LONG_MAX_MODEL_LEN: '1'}\n"),
        None),
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
