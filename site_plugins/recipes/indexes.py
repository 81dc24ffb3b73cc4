"""The indexes a script reads in one request: /models.json with its facets, the hardware
index, the taxonomy, and the change feed (Atom and JSON Feed).

Rows are made per recipe (in the render workers, from the recipe's renderings: `model_rows`,
`hardware_rows`) and gathered by `site.py`; the documents are made here. Links are
site-absolute with the site's base path, as the producers of every other document make them:
`api.publish` writes them relative to each file.

    /models.json           every recipe (retired ones too) and every variant with its own id,
                           with tasks, sizes, variants and their precision, hardware offered
    /hardware-index.json   hardware id → the models and variants that run there, each with
                           its strategy, node and GPU count, per-selection file and page
    /taxonomy.json         the vocabularies: brands, generations, hardware, strategies,
                           features, tasks, precisions
    /feed.json, /feed.xml  the newest FEED_SIZE changes to recipes, from the git history (each
                           recipe's `date_updated` outside a checkout)
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode
from xml.sax.saxutils import escape, quoteattr

from builder.commands.deploy_types import deploy_type
from builder.commands.fewest import fewest_gpus
from builder.commands.query import offered_hardware
from builder.commands.summary import parallel_sizes
from builder.types import Result
from vllm_recipes.api_contract import relative
from vllm_recipes.history import Change
from vllm_recipes.loader import recipe_sources

from .renderings import RecipeRenderings, Rendering

__all__ = ["FEED_SIZE", "FeedEntry", "feed_entries", "feed_json", "feed_xml",
           "fewest_by_variant", "fewest_of_recipe", "hardware_index", "hardware_rows",
           "model_rows", "models_document", "retired_row",
           "taxonomy"]

Data = dict[str, Any]
FEED_SIZE = 50
"""How many entries the change feed holds (the newest)."""
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMBT])\s*$", re.I)
_SCALE = {"K": 1e-6, "M": 1e-3, "B": 1.0, "T": 1e3}


def billions(size: str | None) -> float | None:
    """"284B" → 284.0, "1.5T" → 1500.0, "600M" → 0.6; None for anything else."""
    match = _SIZE.match(size or "")
    if not match:
        return None
    return round(float(match.group(1)) * _SCALE[match.group(2).upper()], 6)


def _sizes(recipe: Data) -> Data:
    model = recipe["model"]
    return {
        "parameters": model.get("parameter_count"),
        "parameters_b": billions(model.get("parameter_count")),
        "active_parameters": model.get("active_parameters"),
        "active_parameters_b": billions(model.get("active_parameters")),
        "architecture": model.get("architecture"),
        "context_length": model.get("context_length"),
    }


def _variant(variant_id: str, variant: Data) -> Data:
    return {"id": variant_id, "label": variant.get("label") or variant_id,
            "precision": variant.get("precision"), "model_id": variant.get("model_id")}


def _hardware_of(renderings: RecipeRenderings, variant: str | None) -> list[str]:
    """Hardware with a command: the recipe's (any variant), or one variant's."""
    if variant is None:
        return list(renderings.trees["default"].hardware)
    tree = renderings.tree_for(variant)
    return [hw for hw, r in tree.hardware.items() if r.variant == variant]


def fewest_by_variant(catalog: Data, recipe: Data) -> dict[str, dict[str, int]] | None:
    """Variant → {hardware id: the fewest of its GPUs that hold the variant} by the fit rule
    (`builder.commands.fewest`), for the hardware the recipe offers; None for a recipe
    without memory facts (no estimate)."""
    if not recipe.get("facts"):
        return None
    offered = offered_hardware(catalog, recipe)
    return {vid: {hw: n for hw in offered
                  if (n := fewest_gpus(catalog, recipe, vid, hw)) is not None}
            for vid in recipe["variants"]}


def fewest_of_recipe(fewest: dict[str, dict[str, int]] | None) -> dict[str, int] | None:
    """Hardware id → the fewest GPUs any variant needs there (`fewest_by_variant`)."""
    if fewest is None:
        return None
    found: dict[str, int] = {}
    for counts in fewest.values():
        for hw, n in counts.items():
            found[hw] = min(n, found.get(hw, n))
    return found


def model_rows(recipe: Data, renderings: RecipeRenderings, base: str,
               fewest: dict[str, dict[str, int]] | None = None) -> list[Data]:
    """The recipe's rows of /models.json: itself, then each variant with its own document.
    `fewest`: `fewest_by_variant` (each row's `fewest_gpus`: hardware id → GPUs, null
    without memory facts)."""
    hf_id, meta = renderings.hf_id, recipe["meta"]
    common = {"provider": meta["provider"], "tasks": list(meta.get("tasks", [])),
              **_sizes(recipe), "date_added": meta.get("date_added"),
              "date_updated": meta.get("date_updated")}
    variants = [_variant(vid, v) for vid, v in recipe["variants"].items()]
    rows: list[Data] = [{
        "hf_id": hf_id,
        "title": meta["title"],
        **common,
        "variants": variants,
        "precisions": sorted({v["precision"] for v in variants if v["precision"]}),
        "hardware": _hardware_of(renderings, None),
        "fewest_gpus": fewest_of_recipe(fewest),
        "retired": None,
        "url": f"{base}{hf_id}/",
        "json": f"{base}{hf_id}.json",
    }]
    documents = {vid: tree.doc for vid, tree in renderings.trees.items() if vid != "default"}
    documents.update(renderings.aliases)
    for variant_id, variant in recipe["variants"].items():
        if variant_id not in documents:
            continue
        label = variant.get("label") or variant_id
        own = _variant(variant_id, variant)
        rows.append({
            "hf_id": variant["model_id"],
            "title": f"{meta['title']} ({label})",
            **common,
            "variants": [own],
            "precisions": [own["precision"]] if own["precision"] else [],
            "hardware": _hardware_of(renderings, variant_id),
            "fewest_gpus": None if fewest is None else dict(fewest.get(variant_id, {})),
            "retired": None,
            "url": f"{base}{variant['model_id']}/",
            "json": base + documents[variant_id].uri,
            "recipe": hf_id,
            "variant": variant_id,
        })
    return rows


def retired_row(recipe: Data, reason: str, base: str) -> Data:
    """A retired recipe's row: its facets, no hardware, and why (`retired`)."""
    hf_id, meta = recipe["model"]["model_id"], recipe["meta"]
    variants = [_variant(vid, v) for vid, v in recipe["variants"].items()]
    return {
        "hf_id": hf_id, "title": meta["title"], "provider": meta["provider"],
        "tasks": list(meta.get("tasks", [])), **_sizes(recipe),
        "date_added": meta.get("date_added"), "date_updated": meta.get("date_updated"),
        "variants": variants,
        "precisions": sorted({v["precision"] for v in variants if v["precision"]}),
        "hardware": [], "fewest_gpus": None,
        "retired": {**recipe.get("retired", {}), "reason": reason},
        "url": f"{base}{hf_id}/", "json": f"{base}{hf_id}.json",
    }


def models_document(rows: list[Data]) -> Data:
    """/models.json: the rows, and how many recipe rows (not variant ids) have each facet
    value (a filter's counts)."""
    recipes = [row for row in rows if "recipe" not in row]
    facets: dict[str, Counter[str]] = {key: Counter() for key in
                                      ("tasks", "precisions", "hardware", "provider")}
    for row in recipes:
        for key in ("tasks", "precisions", "hardware"):
            facets[key].update(row[key])
        facets["provider"][row["provider"]] += 1
    return {
        "count": len(rows),
        "facets": {key: dict(sorted(counter.items())) for key, counter in facets.items()},
        "models": rows,
    }


def gpus_used(catalog: Data, result: Result) -> int | None:
    """GPUs a one-server answer's `vllm serve` takes (TP × DP × PP of its argv); None for a
    deployment of several servers or nodes, or a vLLM-Omni server (its stages place
    themselves; see its `summary`)."""
    strategy = catalog["strategies"][result["selection"]["strategy"]]
    if deploy_type(strategy).omni or int(result["selection"]["nodes"]) != 1:
        return None
    serve = [c for c in result["commands"] if c["role"] == "serve"]
    if len(serve) != 1:
        return None
    return math.prod(parallel_sizes(serve[0]["argv"]).values())


def hardware_rows(catalog: Data, recipe: Data, renderings: RecipeRenderings, base: str
                  ) -> list[tuple[str, Data]]:
    """(hardware id, row) for every hardware × variant the recipe has a command for: the
    default answer there (its strategy), how many nodes and GPUs it takes, and its links."""
    hf_id = renderings.hf_id
    rows: list[tuple[str, Data]] = []
    seen: set[tuple[str, str]] = set()
    for tree in renderings.trees.values():
        for hw_id, rendering in tree.hardware.items():
            target: Rendering = rendering.canonical
            result = target.result
            variant = result["selection"]["variant"]
            if (hw_id, variant) in seen:
                continue
            seen.add((hw_id, variant))
            query = {**({"variant": variant} if variant != "default" else {}),
                     "hardware": hw_id}
            rows.append((hw_id, {
                "recipe": hf_id,
                "variant": variant,
                "model_id": result["model_id"],
                "precision": recipe["variants"][variant].get("precision"),
                "strategy": result["selection"]["strategy"],
                "nodes": int(result["selection"]["nodes"]),
                "gpus": gpus_used(catalog, result),
                "summary": result["summary"],
                "json": base + target.uri,
                "page": f"{base}{hf_id}/?{urlencode(query)}",
            }))
    return rows


def hardware_index(catalog: Data, rows: dict[str, list[Data]]) -> Data:
    """/hardware-index.json: every hardware id of the catalog (catalog order) with its
    profile and the rows of `hardware_rows` for it (recipe order)."""
    hardware = {}
    for hw_id, hw in catalog["hardware"].items():
        hardware[hw_id] = {
            "display_name": hw["display_name"],
            "brand": hw["brand"],
            "generation": hw["generation"],
            "gpu_count": hw["gpu_count"],
            "memory_gb": hw["memory_gb"],
            "models": rows.get(hw_id, []),
        }
    return {"hardware": hardware}


def taxonomy(catalog: Data, recipes: Iterable[Data]) -> Data:
    """/taxonomy.json: every vocabulary a recipe's choices come from."""
    features: dict[str, Data] = {}
    tasks: Counter[str] = Counter()
    precisions: Counter[str] = Counter()
    for recipe in recipes:
        tasks.update(recipe["meta"].get("tasks", []))
        precisions.update({v.get("precision") for v in recipe["variants"].values()} - {None})
        for fid, feature in recipe.get("features", {}).items():
            entry = features.setdefault(fid, {"label": feature.get("label") or fid,
                                              "modes": [], "recipes": 0})
            entry["recipes"] += 1
            for mode in feature.get("modes", {}):
                if mode not in entry["modes"]:
                    entry["modes"].append(mode)
    strategies = {
        sid: {key: s.get(key) for key in ("display_name", "short_label", "deploy_type",
                                            "description")}
        for sid, s in catalog["strategies"].items()
    }
    hardware = {
        hw_id: {key: hw.get(key) for key in ("display_name", "brand", "generation",
                                              "compute_arch", "gpu_count", "memory_gb")}
        for hw_id, hw in catalog["hardware"].items()
    }
    return {
        "brands": {b: {"display_name": v["display_name"]} for b, v in catalog["brands"].items()},
        "generations": {g: {"brand": v["brand"], "display_name": v["display_name"]}
                        for g, v in catalog["generations"].items()},
        "hardware": hardware,
        "strategies": strategies,
        "features": dict(sorted(features.items())),
        "tasks": dict(sorted(tasks.items())),
        "precisions": dict(sorted(precisions.items())),
    }


# ------------------------------------------------------------------ the change feed


@dataclass(frozen=True)
class FeedEntry:
    hf_id: str
    title: str
    date: str
    """RFC 3339."""
    subject: str
    commit: str
    """The commit's hash; empty for an entry made from `date_updated`."""


def feed_entries(changes: list[Change], paths: dict[str, Path], titles: dict[str, str],
                 dates: dict[str, str], size: int = FEED_SIZE) -> list[FeedEntry]:
    """The newest `size` changes to recipes: one entry per commit and recipe (its YAML, guide
    or memory facts), newest first (ties by commit and id). Without history (`changes`
    empty): one per recipe, dated by its `date_updated` (`dates`)."""
    owner = {}
    for hf_id, path in paths.items():
        for source in recipe_sources(path):
            owner[source.resolve()] = hf_id
    entries: dict[tuple[str, str], FeedEntry] = {}
    for change in changes:
        hf_id = owner.get(change.path.resolve())
        if hf_id is None or (change.commit, hf_id) in entries:
            continue
        entries[change.commit, hf_id] = FeedEntry(hf_id, titles[hf_id], change.date,
                                                  change.subject, change.commit)
    found = list(entries.values()) or [
        FeedEntry(hf_id, titles[hf_id], f"{date}T00:00:00+00:00", "updated", "")
        for hf_id, date in dates.items()]
    found.sort(key=lambda e: (e.date, e.commit, e.hf_id), reverse=True)
    return found[:size]


def _entry_id(entry: FeedEntry) -> str:
    return f"urn:vllm-recipes:{entry.commit or entry.date[:10]}:{entry.hf_id}"


def feed_json(entries: list[FeedEntry], base: str, title: str) -> Data:
    """A JSON Feed 1.1 document (https://www.jsonfeed.org/version/1.1/); our own keys start
    with `_` as the format asks (`_recipe` on each item; `api.publish` adds `_api_version`
    and `_schema`)."""
    return {
        "version": "https://jsonfeed.org/version/1.1",
        "title": f"{title}: recipe changes",
        "home_page_url": base,
        "feed_url": f"{base}feed.json",
        "items": [{
            "id": _entry_id(entry),
            "url": f"{base}{entry.hf_id}/",
            "title": f"{entry.title}: {entry.subject}",
            "content_text": entry.subject,
            "date_published": entry.date,
            "date_modified": entry.date,
            "_recipe": {"hf_id": entry.hf_id, "json": f"{base}{entry.hf_id}.json",
                        "commit": entry.commit or None},
        } for entry in entries],
    }


def feed_xml(entries: list[FeedEntry], title: str) -> str:
    """The same entries as an Atom feed (RFC 4287), its links relative to /feed.xml."""
    updated = entries[0].date if entries else "1970-01-01T00:00:00+00:00"
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom">',
        f"  <title>{escape(title)}: recipe changes</title>",
        "  <id>urn:vllm-recipes:feed</id>",
        f"  <updated>{updated}</updated>",
        '  <link rel="self" href="feed.xml"/>',
        '  <link rel="alternate" href="./"/>',
        "  <author><name>vLLM Recipes</name></author>",
    ]
    for entry in entries:
        href = relative(f"{entry.hf_id}/", "feed.xml")
        lines += [
            "  <entry>",
            f"    <title>{escape(entry.title)}: {escape(entry.subject)}</title>",
            f"    <id>{escape(_entry_id(entry))}</id>",
            f"    <updated>{entry.date}</updated>",
            f"    <link rel=\"alternate\" href={quoteattr(href)}/>",
            f"    <summary>{escape(entry.subject)}</summary>",
            "  </entry>",
        ]
    return "\n".join([*lines, "</feed>"]) + "\n"
