"""Fuzz (issue 24, point 9): random mutations of a recipe tree through `vllm-recipes check`
and through the site build (tests/build_verdict.py): the same verdict, and no traceback in
either. A mutation changes one value of a recipe (or of a strategy) to a hostile one, drops or
doubles one, adds a key, or sets a vLLM option to a random value. Seeded and bounded:
`MUTATIONS` per seed, on small trees (a test recipe and Qwen3-8B)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.build_verdict import build_verdict, check_verdict
from tests.recipes_data import RECIPES, ROOT
from vllm_recipes.vllm_flags import serve_flags

MUTATIONS = 40
FAILED: list[int] = [4]
"""Seeds that once failed (kept as cases of their own): 4, an exclusive group naming a
feature twice (the builder's StopIteration; now a schema error)."""
SOURCES = {
    "test-org/Broken": ROOT / "tests" / "invalid" / "_base.yaml",
    "Qwen/Qwen3-8B": RECIPES / "models" / "Qwen" / "Qwen3-8B.yaml",
}
VALUES: tuple[Any, ...] = (
    -1, 0, 1, 3, 2**40, 7.5, -0.5, "", " ", "abc", "x\ny", "a&&b", None, True, False, [], {},
    [1, 2], {"a": 1}, "qwen3\nrm -rf /", "vllm/vllm-openai:latest; rm -rf /", "h", "q",
    "default", "all", "arch:sm90", "--bogus-flag", "x" * 300, "h100", "b200", "mi355x",
    "single_node_tp", "pd_cluster", "unsupported", "verified", "fp8", "nvfp4", "2026-02-30",
    "Qwen/Qwen3-8B", "test-org/Broken", "../../x", "on", "off", "tp", "\x00", "é",
)
KEYS = ("h", "q", "dynamo_x", "constructor", "__proto__", "strategies", "tp", "aliases",
        "model_id", "variant", "hardware", "extra_args", "when", "opt_in", "modes")


def _paths(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*path, index))
    return found


def _parent(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path[:-1]:
        data = data[part]
    return data


def _numeric_flags() -> list[tuple[str, dict[str, Any]]]:
    return sorted((f, s) for f, s in serve_flags().items()
                  if f.startswith("--") and s.get("value_type") in ("int", "float", "str"))


def mutate(rng: random.Random, data: dict[str, Any]) -> str:
    """Change `data` in place in one random way; a line saying how."""
    paths = [p for p in _paths(data) if p]
    path = rng.choice(paths)
    parent, last = _parent(data, path), path[-1]
    roll = rng.random()
    if roll < 0.45:
        value = rng.choice(VALUES)
        parent[last] = value
        return f"{'.'.join(map(str, path))} = {value!r:.80}"
    if roll < 0.6:
        del parent[last]
        return f"drop {'.'.join(map(str, path))}"
    if roll < 0.7 and isinstance(parent, list):
        parent.insert(last, parent[last])
        return f"double {'.'.join(map(str, path))}"
    if roll < 0.82:
        holder = parent if isinstance(parent, dict) else data
        key = rng.choice(KEYS)
        holder[key] = rng.choice(VALUES)
        return f"add {key} = {holder[key]!r:.80} beside {'.'.join(map(str, path))}"
    flag, spec = rng.choice(_numeric_flags())
    value = rng.choice((-5, 0, 1, 7.5, "abc", "32k", "auto", "None", "a&&b", 10**9,
                        *spec.get("known_values", [])[:2]))
    data.setdefault("model", {}).setdefault("base_args", {})
    args = data["model"]["base_args"]
    if isinstance(args, dict):
        args[flag] = value
    return f"model.base_args {flag} = {value!r}"


def tree(tmp_path: Path, hf_id: str) -> tuple[Path, Path]:
    root = tmp_path / "recipes"
    shutil.copytree(RECIPES / "strategies", root / "strategies")
    shutil.copy(RECIPES / "hardware.yaml", root / "hardware.yaml")
    target = root / "models" / f"{hf_id}.yaml"
    target.parent.mkdir(parents=True)
    text = SOURCES[hf_id].read_text(encoding="utf-8").replace(
        "  related_recipes: [Qwen/Qwen3-4B, Qwen/Qwen3-32B]\n", "")
    target.write_text(text, encoding="utf-8")
    guide = SOURCES[hf_id].with_suffix(".md")
    if guide.is_file():
        shutil.copy(guide, target.with_suffix(".md"))
    return root, target


@pytest.mark.parametrize("seed", [*FAILED, 2424])
def test_check_and_the_build_give_the_same_verdict(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    failures = []
    verdicts = {True: 0, False: 0}
    for case in range(MUTATIONS):
        hf_id = rng.choice(sorted(SOURCES))
        root, target = tree(tmp_path / str(case), hf_id)
        if rng.random() < 0.15:  # a strategy file instead
            target = root / "strategies" / rng.choice(sorted(
                p.name for p in (root / "strategies").glob("*.yaml")))
        data = yaml.safe_load(target.read_text(encoding="utf-8"))
        how = mutate(rng, data)
        target.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True),
                          encoding="utf-8")
        checked, built = check_verdict(root), build_verdict(root)
        verdicts[checked.ok] += 1
        where = f"case {case} ({target.relative_to(root)}: {how})"
        if checked.crashed or built.crashed:
            failures.append(f"{where}: a traceback: {checked.why or built.why}")
        elif checked.ok != built.ok:
            failures.append(f"{where}: check {'passes' if checked.ok else 'refuses'} "
                            f"({checked.why}), the build {'renders' if built.ok else 'refuses'}"
                            f" ({built.why})")
    assert not failures, "\n".join(failures)
    assert verdicts[True] and verdicts[False], verdicts  # both verdicts were exercised
