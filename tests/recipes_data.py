"""The real recipe tree, loaded once per test session, and iteration over its selections."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

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


def hf_ids() -> list[str]:
    return list(catalog().recipes)


def grid() -> Iterator[tuple[str, str, str, str]]:
    """Every recipe × variant × hardware × strategy combination, available or not."""
    data = builder_catalog()
    for hf_id in hf_ids():
        recipe = builder_recipe(hf_id)
        for variant in recipe["variants"]:
            for hardware in data["hardware"]:
                for strategy in data["strategies"]:
                    yield hf_id, variant, hardware, strategy
