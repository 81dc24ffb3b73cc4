"""The builder reads the published JSON (only the keys an author wrote); its defaults must be
the schema's defaults. Rendering the fully-defaulted dump gives the same commands."""

from __future__ import annotations

import pytest

from builder import build
from tests.recipes_data import builder_catalog, catalog, hf_ids


@pytest.mark.parametrize("hf_id", hf_ids())
def test_builder_defaults_agree_with_schema_defaults(hf_id: str) -> None:
    cat = catalog()
    full_recipe = {**cat.recipes[hf_id].model_dump(mode="json"),
                   "file": cat.builder_recipe(hf_id)["file"]}
    full_catalog = cat.hardware.model_dump(mode="json")
    full_catalog["strategies"] = {
        k: {**s.model_dump(mode="json"), "file": builder_catalog()["strategies"][k]["file"]}
        for k, s in cat.strategies.items()}
    published = build(builder_catalog(), cat.builder_recipe(hf_id), {})
    for hardware in builder_catalog()["hardware"]:
        query = {"hardware": hardware}
        try:
            expected = build(builder_catalog(), cat.builder_recipe(hf_id), query)
        except ValueError:
            continue
        assert build(full_catalog, full_recipe, query) == expected
    assert build(full_catalog, full_recipe, {}) == published
