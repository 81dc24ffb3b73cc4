"""Each broken recipe in tests/invalid/ fails to load with exactly the message in its .error file.

The recipe (and its guide, `<case>.md`, when there is one, else `_base.md`; the cases of
`WITHOUT_GUIDE` have none) is placed at recipes/models/test-org/Broken.yaml of a copy of the
real tree, so the message names the file and line the way an author sees them, then the field,
then what is wrong. The .error files were checked by hand: each names the line and field the
case breaks.
"""

from __future__ import annotations

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
