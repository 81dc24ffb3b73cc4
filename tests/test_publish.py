"""The builder reads the published JSON (only the keys an author wrote); its defaults must be
the schema's defaults. Rendering the fully-defaulted dump gives the same commands."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from builder.commands.build import Builder
from tests.recipes_data import builder_catalog, catalog, hf_ids, kept_builder


@cache
def _full_catalog() -> dict[str, Any]:
    """The hardware and strategies dumped with every default filled in (read-only: the
    builders below keep it)."""
    cat = catalog()
    full = cat.hardware.model_dump(mode="json")
    full["strategies"] = {
        k: {**s.model_dump(mode="json"), "file": builder_catalog()["strategies"][k]["file"]}
        for k, s in cat.strategies.items()}
    return full


@pytest.mark.parametrize("hf_id", hf_ids())
def test_builder_defaults_agree_with_schema_defaults(hf_id: str) -> None:
    """Both sides rendered by a kept `Builder` (a fresh `build`'s answers, byte for byte:
    tests/test_unavailable_agrees.py), one over the published data, one over the dump."""
    cat = catalog()
    full_recipe = {**cat.recipes[hf_id].model_dump(mode="json"),
                   "file": cat.builder_recipe(hf_id)["file"]}
    published, full = kept_builder(hf_id), Builder(_full_catalog(), full_recipe)
    for hardware in builder_catalog()["hardware"]:
        query = {"hardware": hardware}
        try:
            expected = published.build(query)
        except ValueError:
            continue
        assert full.build(query) == expected
    assert full.build({}) == published.build({})
