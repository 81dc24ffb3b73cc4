"""The JSON endpoints: what a script fetches instead of reading a page.

Every command in them is a `builder.build` result (see `renderings.py`), the same function
the CLI and the page call. Paths inside documents (`json`, `alternatives`, `by_hardware`) are
site-absolute, like the published reference (`/deepseek-ai/DeepSeek-V4-Flash.json`), and all
resolve to files of the built site.

    /models.json                       every recipe and every variant with its own model id
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

from builder.commands.build import typed_selection
from builder.commands.selection import node_memory_gb
from builder.shell import reindent
from builder.types import Result
from vllm_recipes.loader import Catalog
from vllm_recipes.schema import json_schema

from .renderings import RecipeRenderings, Rendering, Tree, trees_of

__all__ = ["Endpoint", "alias_document", "global_endpoints", "recipe_endpoints",
           "recommended_command", "retired_document"]

Data = dict[str, Any]
Endpoint = tuple[str, str]
"""(path relative to the site root, JSON text)."""

CATALOG_JSON = "builder-catalog.json"
SHARED_KEYS = ("strategy_spec", "hardware_profile", "by_hardware")
"""Keys of `recommended_command` that per-selection files leave out."""


def dumps(data: Any) -> str:
    """Documents people read (recipes, variants, catalog-wide files): indented."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def dumps_compact(data: Any) -> str:
    """The many per-selection renderings: compact (indenting doubles their size)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def _primary(result: Result) -> Data:
    """The command a single-command consumer wants: `vllm serve`, or the head node's."""
    commands = result["commands"]
    for role in ("serve", "head"):
        for command in commands:
            if command["role"] == role:
                return dict(command)
    return dict(commands[0])


def hardware_profile(catalog: Data, hw_id: str, nodes: int) -> Data:
    hw = catalog["hardware"][hw_id]
    return {
        "brand": catalog["brands"][hw["brand"]]["display_name"],
        "generation": hw["generation"],
        "compute_arch": hw["compute_arch"],
        "display_name": hw["display_name"],
        "description": hw["description"],
        "gpu_count": hw["gpu_count"],
        "vram_gb": node_memory_gb(hw),
        "multi_node": nodes > 1,
    }


def recommended_command(
    catalog: Data,
    recipe: Data,
    result: Result,
    *,
    query: dict[str, str],
    alternatives: dict[str, str],
    by_hardware: dict[str, str],
    page: str,
    full: bool = True,
) -> Data:
    """The reference's `recommended_command` shape for one builder result, plus what a
    script needs to reproduce it (`query`, `features`, every command block).

    `command`/`argv`/`docker_*` are the `vllm serve` command (the head node's when there are
    several); `commands` has every block of the result (multi-node, prefill/decode, ...).
    `full` keeps every block's `sources` and `commands` even for one command; the many
    per-selection files leave out both (one command is `command`; sources are in --json) and
    what is the same in all of them (`SHARED_KEYS`: `/strategies/<s>.json`, `/hardware.json`
    and the recipe's document have them)."""
    selection = result["selection"]
    serve = _primary(result)
    nodes = int(selection["nodes"])
    strategy = catalog["strategies"][selection["strategy"]]
    command = {
        "selection": typed_selection(selection),
        "hardware": selection["hardware"],
        "strategy": selection["strategy"],
        "variant": selection["variant"],
        "node_count": nodes,
        "deploy_type": strategy["deploy_type"],
        "env": serve["env"],
        "docker_image": result["docker_image"],
        # The reference's format: continuation lines indented by one space.
        "command": reindent(serve["text"], serve["argv"], " "),
        "argv": serve["argv"],
        "docker_command": (reindent(serve["docker_text"], serve["docker_argv"], " ")
                           if serve["docker_text"] else serve["docker_text"]),
        "docker_argv": serve["docker_argv"],
        "strategy_spec": strategy,
        "hardware_profile": hardware_profile(catalog, selection["hardware"], nodes),
        "alternatives": alternatives,
        "by_hardware": by_hardware,
        "model_id": result["model_id"],
        "frontend": selection["frontend"],
        "install": selection["install"],
        "features": {fid: selection[fid] for fid in recipe.get("features", {})},
        "query": query,
        "page": page,
        "summary": result["summary"],
        "commands": result["commands"] if full else [
            {k: v for k, v in c.items() if k != "sources"} for c in result["commands"]
        ] if len(result["commands"]) > 1 else None,
        "install_commands": result["install"],
        "vllm_version": result["vllm_version"],
        "notes": result["notes"],
        "request": result["request"],
        # What fits the GPUs (None without memory facts); the per-selection files name the
        # facts file instead of repeating the facts (the recipe's document has them).
        "fit": (result["fit"] if full or not result["fit"] else
                {k: v for k, v in result["fit"].items() if k != "facts"}),
    }
    if not full:  # the same in every file of a tree: in the recipe's document and catalogs
        for key in SHARED_KEYS:
            command.pop(key)
    return {key: value for key, value in command.items()
            if not (key == "commands" and value is None)}


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
            doc = self.document(tree) if variant_id == "default" else self.variant_document(tree)
            yield tree.doc.uri, dumps(doc)
            for rendering in [*tree.hardware.values(), *tree.strategies.values(),
                              *tree.hw_strategies.values()]:
                yield rendering.uri, dumps_compact(self.rendering(tree, rendering))
        for alias in self.r.aliases.values():
            yield alias.uri, dumps(self.rendering(self.r.trees["default"], alias))


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


def model_entries(recipe: Data, renderings: RecipeRenderings, base: str) -> list[Data]:
    """The recipe's rows of /models.json: itself, then each variant with its own document."""
    hf_id, meta = renderings.hf_id, recipe["meta"]
    rows: list[Data] = [{
        "hf_id": hf_id,
        "title": meta["title"],
        "provider": meta["provider"],
        "url": f"{base}{hf_id}/",
        "json": f"{base}{hf_id}.json",
    }]
    documents = {vid: tree.doc for vid, tree in renderings.trees.items() if vid != "default"}
    documents.update(renderings.aliases)
    for variant_id, variant in recipe["variants"].items():
        if variant_id not in documents:
            continue
        label = variant.get("label") or variant_id
        rows.append({
            "hf_id": variant["model_id"],
            "title": f"{meta['title']} ({label})",
            "provider": meta["provider"],
            "url": f"{base}{variant['model_id']}/",
            "json": base + documents[variant_id].uri,
            "recipe": hf_id,
            "variant": variant_id,
        })
    return rows


def global_endpoints(
    catalog: Catalog,
    models: list[Data],
    strategy_models: dict[str, dict[str, str]],
    hardware_models: dict[str, dict[str, str]],
    base: str,
) -> Iterator[Endpoint]:
    """The catalog-wide files; `*_models` map an id to {hf_id: rendering path}."""
    builder_catalog = catalog.builder_catalog()
    yield "models.json", dumps(models)
    yield CATALOG_JSON, json.dumps(builder_catalog, ensure_ascii=False, separators=(",", ":"))
    strategies = {}
    for sid, strategy in builder_catalog["strategies"].items():
        strategies[sid] = {**strategy, "json": f"{base}strategies/{sid}.json"}
        yield f"strategies/{sid}.json", dumps(
            {**strategy, "models": strategy_models.get(sid, {})}
        )
    yield "strategies.json", dumps(strategies)
    hardware = {key: value for key, value in builder_catalog.items() if key != "strategies"}
    hardware["hardware"] = {
        hw_id: {
            **hw,
            "vram_gb": node_memory_gb(hw),
            "models": hardware_models.get(hw_id, {}),
        }
        for hw_id, hw in hardware["hardware"].items()
    }
    yield "hardware.json", dumps(hardware)
    committed = Path(catalog.root) / "schema.json"
    if committed.is_file():
        yield "schema.json", committed.read_text(encoding="utf-8")
    else:
        yield "schema.json", dumps(json_schema())
