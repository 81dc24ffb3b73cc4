"""The JSON endpoints: what a script fetches instead of reading a page.

Every command in them is a `builder.build` result (see `renderings.py`), the same function
the CLI and the page call. Each document is written by `publish` (API v1: `api_version`,
`$schema`, and the site-absolute links made here relative to the document, so that a copy
of the site under any path works; `vllm_recipes.api_contract`), and every link resolves to
a file of the built site.

    /models.json                       every recipe and variant id, with facets (indexes.py)
    /hardware-index.json, /taxonomy.json, /feed.json (+ /feed.xml)    indexes.py
    /api/v1/schema/<kind>.json         the JSON Schema of each kind (vllm_recipes.api_schemas)
    /<hf_id>.json                      a recipe: meta, recommended_command, its data, guide
    /<hf_id>/hw/<hw>.json              one rendering each (see renderings.py); a file whose
    /<hf_id>/strategies/<s>.json       selection another file already has points at it
    /<hf_id>/hw/<hw>/strategies/<s>.json   (`same_as`) instead of repeating it
    /<variant_model_id>.json           a variant with its own model id: its command and links
    /<variant_model_id>/hw/<hw>.json   the variant on one hardware
    /strategies.json, /strategies/<s>.json, /hardware.json, /schema.json
    /builder-catalog.json              the catalog argument of the builder (the page loads it)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from builder.commands.selection import node_memory_gb
from builder.estimates.report import gpu_comparison
from vllm_recipes import api_schemas
from vllm_recipes.api_contract import SCHEMA_DIR, finish, hardware_profile, recommended_command
from vllm_recipes.loader import Catalog
from vllm_recipes.schema import json_schema

from . import indexes
from .renderings import RecipeRenderings, Rendering, Tree, trees_of

__all__ = ["Endpoint", "alias_document", "global_endpoints", "gpu_rows", "hardware_profile",
           "publish", "recipe_endpoints", "recommended_command", "retired_document"]

Data = dict[str, Any]
Endpoint = tuple[str, str]
"""(path relative to the site root, JSON text)."""

CATALOG_JSON = "builder-catalog.json"


def gpu_rows(catalog: Data, recipe: Data, tree: Tree) -> list[Data]:
    """Which GPU for this model (`builder.estimates.report.gpu_comparison`): each
    hardware's default command with an estimate, from the tree's per-hardware renderings."""
    return gpu_comparison(catalog, recipe, {hw_id: r.result["performance"]
                                            for hw_id, r in tree.hardware.items()})


def dumps(data: Any) -> str:
    """Documents people read (recipes, variants, catalog-wide files): indented."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def dumps_compact(data: Any) -> str:
    """The many per-selection renderings: compact (indenting doubles their size)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def publish(uri: str, kind: str, document: Data, base: str, *, compact: bool = False
            ) -> Endpoint:
    """A document of the API at `uri`, as written: versioned, with its schema (`kind`),
    links relative to it (`vllm_recipes.api_contract.finish`)."""
    done = finish(document, uri, kind, base)
    return uri, dumps_compact(done) if compact else dumps(done)


class _RecipeApi:
    """The documents of one recipe, given its renderings."""

    def __init__(self, catalog: Data, recipe: Data, guide: str, renderings: RecipeRenderings,
                 base: str):
        self.catalog = catalog
        self.recipe = recipe
        self.guide = guide
        self.r = renderings
        self.base = base
        self.hf_id = renderings.hf_id

    def url(self, uri: str) -> str:
        return self.base + uri

    def page(self, query: dict[str, str]) -> str:
        suffix = f"?{urlencode(query)}" if query else ""
        return f"{self.base}{self.hf_id}/{suffix}"

    def by_hardware(self, rendering: Rendering) -> dict[str, str]:
        variant = rendering.variant
        tree = self.r.tree_for(variant)
        return {
            hw_id: self.url(hw.uri)
            for hw_id, hw in tree.hardware.items()
            if hw.variant == variant
        }

    def alternatives(self, tree: Tree, rendering: Rendering) -> dict[str, str]:
        """The other strategies available for the rendering's hardware and variant."""
        current = rendering.result["selection"]["strategy"]
        links = {}
        for sid in rendering.strategies:
            if sid == current:
                continue
            # Without a hardware in the query, the strategy's own file (as the reference does).
            target = (tree.with_strategy(rendering.hardware, sid) if "hardware" in rendering.query
                      else tree.strategies.get(sid))
            if target is not None:
                links[sid] = self.url(target.uri)
        return links

    def command(self, tree: Tree, rendering: Rendering, *, full: bool) -> Data:
        return recommended_command(
            self.catalog,
            self.recipe,
            rendering.result,
            query=rendering.query,
            alternatives=self.alternatives(tree, rendering),
            by_hardware=self.by_hardware(rendering),
            page=self.page(rendering.query),
            full=full,
        )

    def variant_links(self) -> dict[str, str]:
        links = {}
        for variant_id in trees_of(self.hf_id, self.recipe):
            if variant_id != "default" and variant_id in self.r.trees:
                links[variant_id] = self.url(self.r.trees[variant_id].doc.uri)
        for variant_id, alias in self.r.aliases.items():
            links[variant_id] = self.url(alias.uri)
        return links

    def data(self) -> Data:
        """The recipe's published data, each variant with its `json` link when it has one."""
        links = self.variant_links()
        data = {key: value for key, value in self.recipe.items() if key not in ("meta", "guide")}
        data["variants"] = {
            vid: {**variant, **({"json": links[vid]} if vid in links else {})}
            for vid, variant in self.recipe["variants"].items()
        }
        return data

    def document(self, tree: Tree) -> Data:
        """The recipe's document: meta, the default command, its data and guide, with the
        reference document's `opt_in_features` (and `hardware_opt_in_features`) worked out
        from each feature's `opt_in`, so scripts written against it find every key."""
        return {
            "hf_id": self.hf_id,
            "meta": self.recipe["meta"],
            "recommended_command": self.command(tree, tree.doc, full=True),
            "performance_by_gpu": gpu_rows(self.catalog, self.recipe, tree),
            **opt_in_lists(self.recipe),
            **self.data(),
            "guide": self.guide,
        }

    def variant_document(self, tree: Tree) -> Data:
        """A variant's own model id: what differs from the recipe (its command), and links."""
        return {
            "hf_id": tree.model_id,
            "recipe": self.hf_id,
            "variant": tree.variant,
            "title": self.recipe["meta"]["title"],
            "recipe_json": self.url(f"{self.hf_id}.json"),
            "recommended_command": self.command(tree, tree.doc, full=True),
        }

    def rendering(self, tree: Tree, rendering: Rendering) -> Data:
        if rendering.same_as is not None:
            return {
                "hf_id": tree.model_id,
                "query": rendering.query,
                "same_as": self.url(rendering.same_as.uri),
                "vllm_version": rendering.result["vllm_version"],
            }
        return {
            "hf_id": tree.model_id,
            **({"recipe": self.hf_id, "variant": tree.variant} if tree.variant else {}),
            "recipe_json": self.url(f"{self.hf_id}.json"),
            "recommended_command": self.command(tree, rendering, full=False),
        }

    def endpoints(self) -> Iterator[Endpoint]:
        for variant_id, tree in self.r.trees.items():
            if variant_id == "default":
                yield publish(tree.doc.uri, "recipe", self.document(tree), self.base)
            else:
                yield publish(tree.doc.uri, "variant", self.variant_document(tree), self.base)
            for rendering in [*tree.hardware.values(), *tree.strategies.values(),
                              *tree.hw_strategies.values()]:
                yield publish(rendering.uri, _kind(rendering), self.rendering(tree, rendering),
                              self.base, compact=True)
        for alias in self.r.aliases.values():
            yield publish(alias.uri, _kind(alias), self.rendering(self.r.trees["default"], alias),
                          self.base)


def _kind(rendering: Rendering) -> str:
    return "pointer" if rendering.same_as is not None else "rendering"


def opt_in_lists(recipe: Data) -> Data:
    """`opt_in_features`: the features off by default everywhere (`opt_in: true`);
    `hardware_opt_in_features` (when any): hardware key → the features off by default there
    (`opt_in: [keys]`). The reference document's two keys, from the one `opt_in` field."""
    everywhere: list[str] = []
    by_key: dict[str, list[str]] = {}
    for fid, feature in recipe.get("features", {}).items():
        opt_in = feature.get("opt_in", False)
        if opt_in is True:
            everywhere.append(fid)
        elif isinstance(opt_in, list):
            for key in opt_in:
                by_key.setdefault(key, []).append(fid)
    return {"opt_in_features": everywhere,
            **({"hardware_opt_in_features": by_key} if by_key else {})}


def retired_document(recipe: Data, guide: str, reason: str) -> Data:
    """A retired recipe's JSON document: what it was, `retired` with why, no command."""
    return {"hf_id": recipe["model"]["model_id"], "meta": recipe["meta"],
            "retired": {**recipe["retired"], "reason": reason}, "model": recipe["model"],
            "guide": guide}


def alias_document(hf_id: str, alias: str, base: str) -> Data:
    """The JSON at an old model id (`aliases:`): where the recipe is now."""
    return {"hf_id": alias, "alias_of": hf_id, "recipe_json": f"{base}{hf_id}.json",
            "notice": f"{alias} is now {hf_id}"}


def recipe_endpoints(
    catalog: Data, recipe: Data, guide: str, renderings: RecipeRenderings, base: str
) -> Iterator[Endpoint]:
    """Every JSON file of one recipe."""
    return _RecipeApi(catalog, recipe, guide, renderings, base).endpoints()


def global_endpoints(
    catalog: Catalog,
    models: list[Data],
    strategy_models: dict[str, dict[str, str]],
    hardware_models: dict[str, dict[str, str]],
    hardware_rows: dict[str, list[Data]],
    base: str,
) -> Iterator[Endpoint]:
    """The catalog-wide files; `*_models` map an id to {hf_id: rendering path};
    `hardware_rows`: hardware id → its rows of the hardware index (`indexes.py`)."""
    builder_catalog = catalog.builder_catalog()
    yield publish("models.json", "models", indexes.models_document(models), base)
    yield publish("hardware-index.json", "hardware-index",  # ~3,500 rows: compact
                  indexes.hardware_index(builder_catalog, hardware_rows), base, compact=True)
    yield publish("taxonomy.json", "taxonomy", indexes.taxonomy(
        builder_catalog, (catalog.builder_recipe(h) for h in catalog.recipes)), base)
    yield publish(CATALOG_JSON, "builder-catalog", builder_catalog, base, compact=True)
    strategies = {}
    for sid, strategy in builder_catalog["strategies"].items():
        strategies[sid] = {**strategy, "json": f"{base}strategies/{sid}.json"}
        yield publish(f"strategies/{sid}.json", "strategy",
                      {**strategy, "models": strategy_models.get(sid, {})}, base)
    yield publish("strategies.json", "strategies", {"strategies": strategies}, base)
    hardware = {key: value for key, value in builder_catalog.items() if key != "strategies"}
    hardware["hardware"] = {
        hw_id: {
            **hw,
            "vram_gb": node_memory_gb(hw),
            "models": hardware_models.get(hw_id, {}),
        }
        for hw_id, hw in hardware["hardware"].items()
    }
    yield publish("hardware.json", "hardware", hardware, base)
    for kind, schema in api_schemas.SCHEMAS.items():
        yield f"{SCHEMA_DIR}/{kind}.json", dumps(api_schemas.published(kind, schema))
    committed = Path(catalog.root) / "schema.json"
    if committed.is_file():
        yield "schema.json", committed.read_text(encoding="utf-8")
    else:
        yield "schema.json", dumps(json_schema())
