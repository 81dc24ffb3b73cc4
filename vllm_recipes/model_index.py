"""The model index: one row per recipe (retired ones too) and per variant with a model id of
its own, with its facets, and how many recipes have each facet value. The site publishes it
as /models.json (`site_plugins.recipes.indexes`); `vllm-recipes --list --json` prints the
same document without the links into a site (`url`, `json`, `$schema`: the command line
has no site). One function makes the rows for both; each side says where a model has a
command:

- the site from the renderings it publishes (a hardware whose default selection builds);
- the command line from the builder's resolver (`offered_hardware`): a hardware where the
  selection resolves; a test over the built site proves the two give the same rows.

Standard library only (no I/O): the installed command line imports it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from builder.commands.build import Builder, retired_reason
from builder.commands.fewest import fewest_gpus
from builder.commands.query import offered_hardware as offered_ids
from builder.errors import SelectionError

from .api_contract import API_VERSION

__all__ = ["LINK_KEYS", "billions", "cli_models_document", "model_rows", "models_document",
           "offered_hardware", "retired_row"]

Data = dict[str, Any]
LINK_KEYS = ("url", "json")
"""A row's links into the site, which `--list --json` leaves out."""
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


def _links(base: str | None, page: str, document: str) -> Data:
    return {} if base is None else {"url": f"{base}{page}/", "json": f"{base}{document}"}


def fewest_by_variant(catalog: Data, recipe: Data) -> dict[str, dict[str, int]] | None:
    """Variant → {hardware id: the fewest of its GPUs that hold the variant} by the fit rule
    (`builder.commands.fewest`), for the hardware the recipe offers; None for a recipe
    without memory facts (no estimate)."""
    if not recipe.get("facts"):
        return None
    offered = offered_ids(catalog, recipe)
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


def model_rows(recipe: Data, hardware: Mapping[str, Sequence[str]],
               documents: Mapping[str, str], base: str | None,
               fewest: dict[str, dict[str, int]] | None = None) -> list[Data]:
    """The recipe's rows: itself, then each variant with a document of its own.

    `hardware`: variant id → the hardware with a command ("default": the recipe's, any
    variant); `documents`: variant id → its document's path from the site root, for each
    variant with one; `base`: the site's base path, or None for no links (the command line);
    `fewest`: `fewest_by_variant` (each row's `fewest_gpus`: hardware id → GPUs, null
    without memory facts)."""
    hf_id, meta = recipe["model"]["model_id"], recipe["meta"]
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
        "hardware": list(hardware["default"]),
        "fewest_gpus": fewest_of_recipe(fewest),
        "retired": None,
        **_links(base, hf_id, f"{hf_id}.json"),
    }]
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
            "hardware": list(hardware[variant_id]),
            "fewest_gpus": None if fewest is None else dict(fewest.get(variant_id, {})),
            "retired": None,
            **_links(base, variant["model_id"], documents[variant_id]),
            "recipe": hf_id,
            "variant": variant_id,
        })
    return rows


def retired_row(recipe: Data, reason: str, base: str | None) -> Data:
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
        **_links(base, hf_id, f"{hf_id}.json"),
    }


def models_document(rows: list[Data]) -> Data:
    """The index: the rows, and how many recipe rows (not variant ids) have each facet value
    (a filter's counts)."""
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


def offered_hardware(catalog: Data, recipe: Data) -> tuple[dict[str, list[str]], dict[str, str]]:
    """(hardware, documents) of `model_rows` from the builder alone: the hardware where the
    recipe's selection resolves (any variant), and each variant with a document of its own (a
    model id of its own whose selection resolves, or the default variant's other id) with the
    hardware where the selection resolves to that variant."""
    builder = Builder(catalog, recipe)
    hf_id = recipe["model"]["model_id"]

    def variant_on(query: Data) -> str | None:
        try:
            return builder.resolve(query)["variant"]
        except SelectionError:
            return None

    def hardware_of(variant: str | None) -> list[str]:
        pinned = {} if variant in (None, "default") else {"variant": variant}
        return [hw for hw in builder.resolver.offered
                if (found := variant_on({**pinned, "hardware": hw})) is not None
                and variant in (None, found)]

    hardware = {"default": hardware_of(None)}
    documents: dict[str, str] = {}
    for variant_id, variant in recipe["variants"].items():
        model_id = variant.get("model_id")
        if not model_id or model_id == hf_id:
            continue
        if variant_id != "default" and variant_on({"variant": variant_id}) is None:
            continue  # its selection builds nowhere: no document
        documents[variant_id] = f"{model_id}.json"
        hardware[variant_id] = hardware_of(variant_id)
    return hardware, documents


def cli_models_document(catalog: Data, recipes: Iterable[Data]) -> Data:
    """What `vllm-recipes --list --json` prints: /models.json without links."""
    rows: list[Data] = []
    for recipe in recipes:
        reason = retired_reason(recipe)
        if reason is not None:
            rows.append(retired_row(recipe, reason, None))
        else:
            rows += model_rows(recipe, *offered_hardware(catalog, recipe), None,
                               fewest_by_variant(catalog, recipe))
    return {"api_version": API_VERSION, **models_document(rows)}
