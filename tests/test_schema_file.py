"""recipes/schema.json is the current JSON Schema of the pydantic models (`make schema`)."""

from __future__ import annotations

import json

from tests.recipes_data import RECIPES
from vllm_recipes.schema import json_schema


def test_committed_schema_is_current() -> None:
    committed = json.loads((RECIPES / "schema.json").read_text(encoding="utf-8"))
    assert committed == json_schema(), "recipes/schema.json is stale: run `make schema`"


def test_every_yaml_points_editors_at_the_schema() -> None:
    for path in [RECIPES / "hardware.yaml", *RECIPES.glob("strategies/*.yaml"),
                 *RECIPES.glob("models/*/*.yaml")]:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema="), path
