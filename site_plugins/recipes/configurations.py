"""Published serving configurations on the site.

    /configurations/                   the catalogue: filters, featured picks, one card each
    /configurations.json               every configuration with its builder join and diff
    /<hf_id>/configurations.json       the same for one model (an empty list for most)

and two sections of the model pages: "Compare your command" on every page (the diff runs in the
page under Pyodide, `builder.diff.compare.compare_state`), and "Published configurations" on the
pages of models that have some. The joins are computed once per build
(`builder.diff.closest_selection`); the HTML is made, every string from the data escaped, by
`configurations_html.py`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from builder.diff.closest_selection import Join, join_configuration
from builder.diff.published import layout_label
from vllm_recipes.api_contract import finish
from vllm_recipes.configurations import ConfigurationSet, publish_set
from vllm_recipes.loader import Catalog

from .configurations_html import (
    CATALOGUE_PATH,
    cards_html,
    compare_box_html,
    e,
    featured_html,
    filters_html,
    model_list_html,
)
from .memo import digest
from .pages import GeneratedPage, Section, relative_root
from .pages import _front_matter as front_matter

__all__ = ["CATALOGUE_URI", "PublishedConfigurations"]

Data = dict[str, Any]
Endpoint = tuple[str, str]
CATALOGUE_URI = "configurations.md"
NOT_JOINED = {
    "sglang": "an SGLang configuration: the builder makes vLLM commands only",
}


def _publish(uri: str, data: Data, base: str) -> Endpoint:
    text = json.dumps(finish(data, uri, "configurations", base), indent=2, ensure_ascii=False)
    return uri, text + "\n"


@dataclass
class PublishedConfigurations:
    """Every configuration set of the recipe tree, published and joined to the builder."""

    sets: list[ConfigurationSet]
    catalog: Catalog
    entries: list[Data] = field(default_factory=list)
    """Each configuration as published (see `_entry`), in file order."""
    categories: dict[str, str] = field(default_factory=dict)
    systems: dict[str, Data] = field(default_factory=dict)

    def join(self, builder_catalog: Data, base: str,
             known: dict[str, Join | None] | None = None) -> dict[str, Join | None]:
        """Compute every configuration's join (about 50 ms each); `known`: joins from an
        earlier build by a digest of their inputs (reused when the inputs are the same).
        Returns the joins of this build by that digest."""
        self.entries = []
        joins: dict[str, Join | None] = {}
        for data in self.sets:
            published = publish_set(data)
            recipe = self.catalog.builder_recipe(data.model)
            self.categories.update(published["featured_categories"])
            self.systems.update(published["systems"])
            for config in published["configurations"]:
                system = published["systems"][config["system"]]
                key = digest((builder_catalog, recipe, config, system))
                if known is not None and key in known:
                    joins[key] = known[key]
                else:
                    joins[key] = join_configuration(builder_catalog, recipe, config, system)
                self.entries.append(self._entry(published, config, joins[key], base))
        return joins

    def _entry(self, published: Data, config: Data, join: Data | None, base: str) -> Data:
        model = published["model"]
        system = published["systems"][config["system"]]
        entry = {
            **config,
            "model": model,
            "model_title": self.catalog.recipes[model].meta.title,
            "source": published["source"]["name"],
            "system_name": system["display_name"],
            "accelerators": system["accelerators"],
            "layout": layout_label(config),
            "catalogue": f"{base}{CATALOGUE_PATH}#{config['id']}",
            "join": None,
            "join_note": "",
        }
        if join is None:
            entry["join_note"] = NOT_JOINED.get(
                config["framework"], "no hardware of the recipe is near this system")
        else:
            url = f"{base}{model}/?{urlencode(join['query'])}#command"
            entry["join"] = {**join, "builder_url": url}
        return entry

    def for_model(self, hf_id: str) -> list[Data]:
        return [entry for entry in self.entries if entry["model"] == hf_id]

    # ------------------------------------------------------------------ JSON

    def _document(self, entries: list[Data]) -> Data:
        sources = []
        for data in self.sets:
            if any(entry["model"] == data.model for entry in entries):
                sources.append({**data.source.model_dump(mode="json"), "model": data.model})
        systems = {sid: self.systems[sid] for sid in dict.fromkeys(e["system"] for e in entries)}
        return {
            "count": len(entries),
            "sources": sources,
            "featured_categories": self.categories,
            "systems": systems,
            "configurations": entries,
        }

    def endpoints(self, hf_ids: list[str], base: str = "/") -> Iterator[Endpoint]:
        """The site's and each model's configurations.json (`base`: the site-absolute
        prefix of the links `join` made; they are written relative to each file)."""
        yield _publish("configurations.json", self._document(self.entries), base)
        for hf_id in hf_ids:
            uri = f"{hf_id}/configurations.json"
            yield _publish(uri, self._document(self.for_model(hf_id)), base)

    # ------------------------------------------------------------------ catalogue page

    def catalogue_page(self, base: str, nonce: str) -> GeneratedPage:
        page = GeneratedPage(CATALOGUE_URI, nonce)
        intro = (
            '<div class="cfg-intro"><p>What hardware benchmarks actually ran: each '
            "configuration with its system, engine, layout, speculative decoding, precision "
            "and the full launch command of every role. For each vLLM configuration, the "
            "closest selection of a model page's builder, a link that opens it, and a "
            "flag-level diff between the two commands.</p>"
            + "".join(
                f'<p class="cfg-source">{e(data.source.name)} · {e(data.source.publisher)} · '
                f'<a href="{e(base + data.model)}/">'
                f"{e(self.catalog.recipes[data.model].meta.title)}</a> · "
                f"{len(data.configurations)} configurations. {e(data.source.description)}</p>"
                for data in self.sets)
            + f'<p class="cfg-source"><a href="{e(base)}configurations.json">'
            "configurations.json</a> has every configuration with its join and diff.</p></div>"
        )
        page.markdown = "\n".join([
            front_matter({"title": "Serving configurations",
                          "description": "Published serving configurations, their commands "
                                         "and how they differ from the recipes.",
                          "hide": ["navigation"],
                          # Its scripts and styles (overrides/main.html, mkdocs.yml).
                          "assets": ["configurations"]}),
            "# Serving configurations\n",
            page.slot("intro", intro),
            page.slot("filters", filters_html(self.entries, self.systems)),
            "## Featured picks\n",
            page.slot("featured", featured_html(self.entries, self.categories, self.systems)),
            "## All configurations\n",
            page.slot("cards", cards_html(self.entries, self.categories)),
        ])
        return page

    # ------------------------------------------------------------------ model pages

    def model_sections(self, hf_id: str, base: str, catalog_json: str) -> tuple[Section, ...]:
        # The box's data URLs are relative to the page, as the widget's are (any sub-path).
        sections = [Section("command", "Compare your command", "compare",
                            compare_box_html(hf_id, relative_root(hf_id), catalog_json))]
        entries = self.for_model(hf_id)
        if entries:
            sections.append(Section("install", "Published configurations", "published",
                                    model_list_html(entries, base)))
        return tuple(sections)

