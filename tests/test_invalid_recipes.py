"""Each broken recipe in tests/invalid/ fails to load with exactly the message in its .error file.

The recipe (and its guide, `<case>.md`, when there is one, else `_base.md`; the cases of
`WITHOUT_GUIDE` have none) is placed at recipes/models/test-org/Broken.yaml of a copy of the
real tree, so the message names the file and line the way an author sees them, then the field,
then what is wrong. The .error files were checked by hand: each names the line and field the
case breaks.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.recipes_data import RECIPES
from vllm_recipes.errors import InvalidRecipe
from vllm_recipes.loader import load_catalog

INVALID = Path(__file__).resolve().parent / "invalid"
CASES = sorted(p.stem for p in INVALID.glob("*.yaml") if not p.stem.startswith("_"))
WITHOUT_GUIDE = {"no_guide"}
"""Cases whose recipe has no guide beside it."""


def _tree_with(tmp_path: Path, recipe: Path) -> Path:
    root = tmp_path / "recipes"
    shutil.copytree(RECIPES / "strategies", root / "strategies")
    shutil.copy(RECIPES / "hardware.yaml", root / "hardware.yaml")
    target = root / "models" / "test-org" / "Broken.yaml"
    target.parent.mkdir(parents=True)
    shutil.copy(recipe, target)
    guide = recipe.with_suffix(".md")
    if not guide.is_file():
        guide = INVALID / "_base.md"
    if recipe.stem not in WITHOUT_GUIDE:
        shutil.copy(guide, target.with_suffix(".md"))
    return root


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 8


def test_the_base_recipe_is_valid(tmp_path: Path) -> None:
    catalog = load_catalog(_tree_with(tmp_path, INVALID / "_base.yaml"))
    assert "test-org/Broken" in catalog.recipes


@pytest.mark.parametrize("case", CASES)
def test_broken_recipe_gives_its_exact_error(case: str, tmp_path: Path) -> None:
    expected = (INVALID / f"{case}.error").read_text(encoding="utf-8").rstrip("\n")
    with pytest.raises(InvalidRecipe) as caught:
        load_catalog(_tree_with(tmp_path, INVALID / f"{case}.yaml"))
    assert str(caught.value) == expected


def _real_tree(tmp_path: Path, hf_id: str) -> Path:
    """A tree holding the real recipe `hf_id` (with its guide and memory facts) alone."""
    root = tmp_path / "recipes"
    shutil.copytree(RECIPES / "strategies", root / "strategies")
    shutil.copy(RECIPES / "hardware.yaml", root / "hardware.yaml")
    for folder, suffixes in (("models", (".yaml", ".md")), ("facts", (".yaml",))):
        for suffix in suffixes:
            source = RECIPES / folder / f"{hf_id}{suffix}"
            target = root / folder / f"{hf_id}{suffix}"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
    # the related recipes are not in this tree (one line still, so that lines stay put)
    recipe = root / "models" / f"{hf_id}.yaml"
    recipe.write_text(re.sub(r"related_recipes: \[.*\]", "related_recipes: []",
                             recipe.read_text(encoding="utf-8")), encoding="utf-8")
    return root


def _facts_problems(tmp_path: Path, hf_id: str, old: str, new: str) -> list[str]:
    root = _real_tree(tmp_path, hf_id)
    path = root / "facts" / f"{hf_id}.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(InvalidRecipe) as caught:
        load_catalog(root)
    return [line for line in str(caught.value).splitlines() if "variants." in line
            or "recipes/facts/" in line.split(":")[0]]


@pytest.mark.parametrize("hf_id", ["baidu/ERNIE-4.5-21B-A3B-PT", "google/translategemma-27b-it",
                                   "moonshotai/Kimi-K2-Instruct"])
def test_the_real_recipe_with_its_facts_loads(hf_id: str, tmp_path: Path) -> None:
    assert hf_id in load_catalog(_real_tree(tmp_path, hf_id)).recipes


def test_facts_that_drop_a_variant_of_another_size_are_refused(tmp_path: Path) -> None:
    """ERNIE-4.5's 300b variant serves ERNIE-4.5-300B-A47B: without `not_covered: {300b: ...}`
    its facts (the 21B model's) would size it; `check` refuses at the variant's model id."""
    problems = _facts_problems(tmp_path, "baidu/ERNIE-4.5-21B-A3B-PT",
                               "not_covered:\n  300b:", "not_covered:\n  default:")
    assert problems == [
        "recipes/models/baidu/ERNIE-4.5-21B-A3B-PT.yaml:54: variants.300b.model_id: "
        "baidu/ERNIE-4.5-300B-A47B-PT is another model size than baidu/ERNIE-4.5-21B-A3B-PT "
        "(300B/A47B against 21B/A3B), and the memory facts describe the default checkpoint: "
        "give its facts under `variants:` or say why there are none under `not_covered:` in "
        "recipes/facts/baidu/ERNIE-4.5-21B-A3B-PT.yaml"]


def test_declaring_a_variant_of_another_size_the_same_architecture_is_refused(
        tmp_path: Path) -> None:
    problems = _facts_problems(tmp_path, "google/translategemma-27b-it",
                               "  small_4b_original: *translategemma_4b\n",
                               "same_architecture: [small_4b_original]\n")
    assert problems == [
        "recipes/facts/google/translategemma-27b-it.yaml:49: same_architecture[0]: "
        "google/translategemma-4b-it is another model size than google/translategemma-27b-it "
        "by the size in their names (4B against 27B)"]


def test_a_variant_the_names_cannot_tell_must_be_declared(tmp_path: Path) -> None:
    problems = _facts_problems(tmp_path, "moonshotai/Kimi-K2-Instruct",
                               "same_architecture: [instruct_0905]\n", "")
    assert problems == [
        "recipes/models/moonshotai/Kimi-K2-Instruct.yaml:49: variants.instruct_0905.model_id: "
        "the names do not tell whether moonshotai/Kimi-K2-Instruct-0905 has "
        "moonshotai/Kimi-K2-Instruct's architecture, and the memory facts describe the default "
        "checkpoint: declare it in recipes/facts/moonshotai/Kimi-K2-Instruct.yaml: "
        "`same_architecture` (with the source), its own facts under `variants:`, or "
        "`not_covered:` with why"]


def test_facts_naming_an_unknown_variant_are_refused(tmp_path: Path) -> None:
    problems = _facts_problems(tmp_path, "moonshotai/Kimi-K2-Instruct",
                               "same_architecture: [instruct_0905]",
                               "same_architecture: [instruct_0905, nope]")
    assert len(problems) == 1
    assert problems[0].startswith("recipes/facts/moonshotai/Kimi-K2-Instruct.yaml:")
    assert problems[0].endswith(": same_architecture[1]: no variant 'nope' in the recipe; "
                                "variants: default, instruct_0905")
