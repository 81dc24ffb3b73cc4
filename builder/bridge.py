"""The page's Python side: what the builder's worker (docs/javascripts/builder-worker.js) calls
under Pyodide. JSON text in, JSON text out; every answer comes from the functions the site's
build and the CLI call (`views.widget.page_state`, `diff.compare.compare_state`,
`views.dynamo.page_state`), so the page cannot disagree with them.

The worker makes one `PageBridge` per worker and hands it each document as text the first
time a page asks for it (the recipe JSON, the builder catalog, a model's Dynamo deployments);
the bridge keeps what it parsed, and one `Builder` per recipe, for every later click.
"""

from __future__ import annotations

import gc
import json
from typing import Any

from .commands.build import Builder
from .diff.compare import compare_state
from .types import Data
from .views.dynamo import page_state as dynamo_state
from .views.widget import clicks, page_state

__all__ = ["PAGE_ONLY", "PageBridge", "builder_input"]

PAGE_ONLY = frozenset({"api_version", "$schema", "hf_id", "recommended_command", "guide",
                       "widget_html", "opt_in_features", "hardware_opt_in_features"})
"""Keys of a recipe's JSON document (`/<hf_id>.json`) that are for readers, not the builder:
`builder_input` leaves them out (the document's other keys are the builder's recipe)."""


def builder_input(document: Data) -> Data:
    """The builder's recipe from a recipe's JSON document: the document minus `PAGE_ONLY`."""
    return {key: value for key, value in document.items() if key not in PAGE_ONLY}


class PageBridge:
    """One worker's documents (by URL) and builders (by catalog and recipe URL)."""

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self._builders: dict[tuple[str, str], Builder] = {}
        self._rows: dict[tuple[str, str], dict[Any, Any]] = {}

    def load(self, url: str, text: str, recipe: bool) -> None:
        """Keep the document at `url` (`recipe`: a recipe document, read as builder input)."""
        data = json.loads(text)
        self._data[url] = builder_input(data) if recipe else data
        # Everything so far (interpreter, modules, the data) lives as long as the worker: keep
        # the collector from walking it again on every full collection during clicks.
        gc.collect()
        gc.freeze()

    def call(self, catalog_url: str, recipe_url: str, pairs_json: str,
             base_json: str = "[]") -> str:
        """The widget for a query (`[key, value]` pairs: a repeated key is page_state's to
        refuse) on top of `base` (a variant page's own selection), and the queries one click
        away that the worker may work out ahead (`after`)."""
        query = json.loads(pairs_json)
        base = dict(json.loads(base_json))
        key = (catalog_url, recipe_url)
        if key not in self._builders:  # one per recipe: its query-independent work done once
            self._builders[key] = Builder(self._data[catalog_url], self._data[recipe_url])
            self._rows[key] = {}  # and each row, pill and line of the widget made once
        builder = self._builders[key]
        state = page_state(self._data[catalog_url], self._data[recipe_url], query, builder,
                           self._rows[key], base)
        return json.dumps({
            "html": state["html"],
            "explicit": state["explicit"],
            "notice": state["notice"],
            "foreign": state["foreign"],
            "after": clicks(builder, state["result"]),
        })

    def compare(self, catalog_url: str, recipe_url: str, query_json: str, text: str,
                base_json: str = "[]") -> str:
        """The compare box for a pasted command against the widget's selection."""
        return json.dumps(compare_state(self._data[catalog_url], self._data[recipe_url],
                                        json.loads(query_json), text,
                                        dict(json.loads(base_json))))

    def load_deployments(self, url: str, text: str) -> None:
        """Keep a model's Dynamo deployments (`/<hf_id>/deployments.json`: its `data`)."""
        self._data[url] = json.loads(text)["data"]

    def dynamo_call(self, url: str, query_json: str) -> str:
        """The Dynamo widget for a query."""
        state = dynamo_state(self._data[url], json.loads(query_json))
        return json.dumps({"html": state["html"], "explicit": state["explicit"],
                           "notice": state["notice"]})
