"""The real recipe tree, loaded once per test session, and iteration over its selections."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from builder import SelectionError
from builder.commands.build import Builder
from vllm_recipes.loader import Catalog, load_catalog

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "recipes"


@cache
def catalog() -> Catalog:
    return load_catalog(RECIPES)


@cache
def builder_catalog() -> dict[str, Any]:
    return catalog().builder_catalog()


@cache
def builder_recipe(hf_id: str) -> dict[str, Any]:
    return catalog().builder_recipe(hf_id)


@cache
def kept_builder(hf_id: str) -> Builder:
    """One `Builder` per recipe per test process, for the tests that walk a recipe's grid:
    it keeps what does not depend on the query, so a query costs a fraction of a fresh
    `builder.build` (which builds a new one per call), and it answers byte-identically
    (tests/test_unavailable_agrees.py checks a kept `Builder` against fresh builds). Its
    `resolver.run(explicit)` is `builder.resolve(catalog, recipe, explicit)`."""
    return Builder(builder_catalog(), builder_recipe(hf_id))


def active_recipes() -> dict[str, Any]:
    """hf_id → validated recipe, for the recipes that give commands (not retired)."""
    return {h: r for h, r in catalog().recipes.items() if r.retired is None}


def hf_ids() -> list[str]:
    """The recipes that give commands (retired ones have a page and no command:
    tests/test_retired_and_aliases.py)."""
    return [h for h, r in catalog().recipes.items() if r.retired is None]


def grid_of(hf_id: str) -> Iterator[tuple[str, str, str]]:
    """Every variant × hardware × strategy combination of one recipe, available or not."""
    data = builder_catalog()
    for variant in builder_recipe(hf_id)["variants"]:
        for hardware in data["hardware"]:
            for strategy in data["strategies"]:
                yield variant, hardware, strategy


@cache
def resolving(hf_id: str, strategy: str,
              extra: tuple[tuple[str, str], ...] = ()) -> tuple[dict[str, str], ...]:
    """The queries {variant, hardware, strategy, **extra} of the recipe with this strategy that
    resolve. tests/test_render_matrix.py checks that every other combination says why; the
    tests of what the renderings say walk these, so a test process resolves each part of the
    grid once, not once per test (the grid is ~250,000 combinations, ~6 % of which resolve)."""
    data, recipe, kept = builder_catalog(), builder_recipe(hf_id), kept_builder(hf_id)
    found = []
    for variant in recipe["variants"]:
        for hardware in data["hardware"]:
            query = {"variant": variant, "hardware": hardware, "strategy": strategy, **dict(extra)}
            try:
                kept.resolver.run(query)
            except SelectionError:
                continue
            found.append(query)
    return tuple(found)


def small_tree(tmp_path: Path, models: dict[str, str]) -> Path:
    """A recipe tree with the real hardware and strategies and the given recipes (hf_id →
    YAML text; the guide is copied when the real recipe has one)."""
    tree = tmp_path / "recipes"
    tree.mkdir()
    for name in ("hardware.yaml", "schema.json"):
        shutil.copy(RECIPES / name, tree / name)
    shutil.copytree(RECIPES / "strategies", tree / "strategies")
    for name in ("configurations", "deployments"):
        (tree / name).mkdir()
        shutil.copy(RECIPES / name / "schema.json", tree / name / "schema.json")
    for hf_id, text in models.items():
        path = tree / "models" / f"{hf_id}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        # The recipes it links to are not in this tree (check refuses a link to none).
        path.write_text(re.sub(r"(?m)^  related_recipes: \[.*\]\n", "", text))
        guide = RECIPES / "models" / f"{hf_id}.md"
        if guide.is_file():
            shutil.copy(guide, path.with_suffix(".md"))
    return tree
