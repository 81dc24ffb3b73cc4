"""The home page's model browser: one card per recipe, grouped by provider, and the filters.

Everything the browser shows is made here, from recipe data, at build time: each card carries
its facet values (`data-facets`, JSON) and the words it is found by (`data-names`,
`data-tags`); each filter option carries its label and its count over the whole catalogue.
`docs/javascripts/browse.js` only hides, shows and orders these cards, recounts the options and
keeps the filters in the URL.

Rules:
- Facets: provider, task, hardware (those the builder has a command for, any variant; and
  for a GPU sold singly, `l40s@2`-style counts of it that hold the model by the fit rule,
  `builder.commands.fewest`, the `fewest_gpus` of /models.json),
  precision (each part of a variant's precision: `mxfp4+mxfp8` counts as MXFP4 and MXFP8),
  architecture, size (a bucket of the total parameter count; see `SIZES`). Within a facet the
  option is one value; across facets every chosen value must hold (AND).
- Search: `model_search.py` (the words of a card: names, tasks, formats, hardware; exact and
  prefix matches first, one-letter typos forgiven). While a search is typed the cards are
  ordered best match first (within each provider when grouped), ties in the chosen order.
- Counts: an option's count is the number of models it would show with the other filters as
  they are (here, with none: the whole catalogue).
- Order (`SORTS`, the Sort select; the first is the default, and the page says which order it
  shows): newest first (`meta.date_added`, then name), by provider
  (grouped: providers A–Z, case-insensitive, models by title in natural order, 3B before 32B),
  or by name (title in natural order, then provider). Each card carries its rank in each order
  (`--rcp-o-<sort>`), worked out here; the stylesheet orders the cards by the chosen one.
- Dates: `meta.date_added` is a model's date, not ours: when it joined the public catalogue
  (github.com/vllm-project/recipes) or, for a model beyond it, its release; each recipe cites
  its source on that line. Our own edits (`date_updated`, git history) date the feed and the
  sitemap, never this order or the badge.
- New: a card whose `date_added` is within `NEW_DAYS` of the newest `date_added` of any recipe
  (the catalogue's latest addition) has a "New" badge.
"""

from __future__ import annotations

import datetime
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from builder.errors import QUOTE_MAX

from .model_search import card_words, compact
from .pages import ARCHITECTURES, TASKS, e, format_context, page_href

__all__ = [
    "COUNTS",
    "FILTERS",
    "NEW_DAYS",
    "SIZES",
    "SORTS",
    "BrowseCard",
    "browse_html",
    "card_facets",
    "catalogue_date",
    "compact",
    "count_value",
    "hardware_counts",
    "is_new",
    "parameter_total",
    "runs_on_counts",
    "search_attributes",
    "size_bucket",
    "sort_ranks",
]

Data = dict[str, Any]


@dataclass(frozen=True)
class BrowseCard:
    hf_id: str
    recipe: Data
    runs_on: list[str]
    """Hardware ids the builder has a command for (any variant)."""
    fewest: dict[str, int] = field(default_factory=dict)
    """Hardware id → the fewest of its GPUs that hold the model by the fit rule
    (`builder.commands.fewest`, the facet `fewest_gpus` of /models.json; empty without
    memory facts)."""


@dataclass(frozen=True)
class Size:
    id: str
    label: str
    below: float
    """Total parameters under this (the bucket holds [previous bucket's `below`, this))."""


SIZES: tuple[Size, ...] = (
    Size("under-5b", "Under 5B", 5e9),
    Size("5-20b", "5B – 20B", 20e9),
    Size("20-80b", "20B – 80B", 80e9),
    Size("80-300b", "80B – 300B", 300e9),
    Size("300b-1t", "300B – 1T", 1e12),
    Size("1t-plus", "1T and more", float("inf")),
)
UNSTATED = Size("unstated", "Not stated", float("nan"))
"""For a recipe whose parameter count has no number in it ("Undisclosed")."""

_UNITS = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
_AMOUNT = re.compile(r"(\d+(?:\.\d+)?)\s*([KMBT])\b", re.IGNORECASE)


def parameter_total(text: str) -> float | None:
    """"8B" → 8e9, "2.4T" → 2.4e12, "552B + 196B Engram" → 748e9; None without a number."""
    amounts = [float(n) * _UNITS[unit.upper()] for n, unit in _AMOUNT.findall(text)]
    return sum(amounts) if amounts else None


def size_bucket(parameter_count: str) -> Size:
    total = parameter_total(parameter_count)
    if total is None:
        return UNSTATED
    return next(size for size in SIZES if total < size.below)


def _precisions(recipe: Data) -> list[str]:
    seen: dict[str, None] = {}
    for variant in recipe["variants"].values():
        seen.update(dict.fromkeys(part for part in variant["precision"].split("+") if part))
    return list(seen)


COUNTS = (2, 4, 8)
"""GPU counts the "runs on" filter offers for hardware sold as single GPUs (`max_gpus`), up
to the most one node holds; the hardware's own id stands for one of them."""


def count_value(hw_id: str, count: int) -> str:
    """The Hardware filter's value for `count` GPUs of a single-GPU model ("l40s@2")."""
    return f"{hw_id}@{count}"


def hardware_counts(hw: Data) -> list[int]:
    """The counts past its own the Hardware filter offers for this hardware (`COUNTS`)."""
    most = int(hw.get("max_gpus") or hw["gpu_count"])
    return [n for n in COUNTS if hw["gpu_count"] < n <= most]


def runs_on_counts(catalog: Data, card: BrowseCard) -> list[str]:
    """The card's Hardware values: each hardware it has a command for, then `count_value`
    for every count of a single-GPU model that holds it by the fit rule (`card.fewest`;
    a model without memory facts: the counts past one it has a command on)."""
    values = list(card.runs_on)
    for hw_id, hw in catalog["hardware"].items():
        fewest = card.fewest.get(hw_id)
        values += [count_value(hw_id, n) for n in hardware_counts(hw)
                   if hw_id in card.runs_on or (fewest is not None and fewest <= n)]
    return values


def card_facets(card: BrowseCard, catalog: Data | None = None) -> dict[str, list[str]]:
    """The card's value(s) of each filter (`FILTERS` order); `catalog` adds the GPU counts
    to its hardware (`runs_on_counts`)."""
    recipe = card.recipe
    return {
        "task": list(recipe["meta"]["tasks"]),
        "hardware": list(card.runs_on) if catalog is None else runs_on_counts(catalog, card),
        "precision": _precisions(recipe),
        "arch": [recipe["model"]["architecture"]],
        "size": [size_bucket(recipe["model"]["parameter_count"]).id],
        "provider": [recipe["meta"]["provider"]],
    }


def search_attributes(catalog: Data, card: BrowseCard) -> str:
    """The card's `data-names` and `data-tags`: the words it is found by (model_search.py)."""
    words = card_words(catalog, card.hf_id, card.recipe, card.runs_on)
    return (f'data-names="{e(" ".join(words.names))}" '
            f'data-tags="{e(" ".join(words.tags))}"')


def _natural(text: str) -> tuple[str | int, ...]:
    return tuple(int(part) if i % 2 else part
                 for i, part in enumerate(re.split(r"(\d+)", text.lower())))


def precision_label(precision: str) -> str:
    return precision.upper()


# ------------------------------------------------------------------ order and "new"

NEW_DAYS = 60


@dataclass(frozen=True)
class Sort:
    id: str
    """Its value in the URL (`sort=`) and in the card's `--rcp-o-<id>`."""
    label: str
    note: str
    """What the page says about the order while it is chosen."""
    grouped: bool = False
    """Cards under a heading per provider (else one list)."""


SORTS: tuple[Sort, ...] = (
    Sort("newest", "Newest",
         "Newest first, by the date a model joined the public vLLM recipes catalogue, or its "
         f"release date for the others (date_added). New: added within {NEW_DAYS} days of "
         "the latest addition."),
    Sort("provider", "Provider", "Grouped by provider, A–Z; each provider's models by name.",
         grouped=True),
    Sort("name", "Name", "By name, A–Z (3B before 32B)."),
)
"""The first is the default: newest first."""
SEARCH_NOTE = ("Searching: best match first (a model's name before its task, precision or "
               "hardware; within each provider when grouped); a one-letter typo is forgiven.")


def _date(value: str) -> datetime.date:
    return datetime.date.fromisoformat(str(value))


def catalogue_date(cards: Sequence[BrowseCard]) -> datetime.date | None:
    """The catalogue's latest addition: the newest `date_added` of any recipe (None without
    cards). Not `date_updated`: that is the date of our own edit, not of a model."""
    return max((_date(card.recipe["meta"]["date_added"]) for card in cards), default=None)


def is_new(recipe: Data, today: datetime.date | None) -> bool:
    """Added within `NEW_DAYS` of `today` (the catalogue's latest addition)."""
    if today is None:
        return False
    return (today - _date(recipe["meta"]["date_added"])).days <= NEW_DAYS


def _provider_key(card: BrowseCard) -> tuple[object, ...]:
    meta = card.recipe["meta"]
    return (meta["provider"].lower(), _natural(meta["title"]), card.hf_id)


def _name_key(card: BrowseCard) -> tuple[object, ...]:
    meta = card.recipe["meta"]
    return (_natural(meta["title"]), meta["provider"].lower(), card.hf_id)


def _newest_key(card: BrowseCard) -> tuple[object, ...]:
    return (-_date(card.recipe["meta"]["date_added"]).toordinal(), *_name_key(card))


SORT_KEYS = {"provider": _provider_key, "newest": _newest_key, "name": _name_key}


def sort_ranks(cards: Sequence[BrowseCard]) -> dict[str, dict[str, int]]:
    """hf_id → {sort id: the card's place in that order, from 0}."""
    ranks: dict[str, dict[str, int]] = {card.hf_id: {} for card in cards}
    for sort in SORTS:
        for place, card in enumerate(sorted(cards, key=SORT_KEYS[sort.id])):
            ranks[card.hf_id][sort.id] = place
    return ranks


# ------------------------------------------------------------------ filters


@dataclass(frozen=True)
class Filter:
    key: str
    """Its name in the URL and in each card's facets."""
    label: str
    empty: str
    """The first option: no filter."""


FILTERS: tuple[Filter, ...] = (
    Filter("task", "Task", "Any"),
    Filter("hardware", "Hardware", "Any"),
    Filter("precision", "Precision", "Any"),
    Filter("arch", "Architecture", "Any"),
    Filter("size", "Size", "Any"),
    Filter("provider", "Provider", "Any"),
)


def _option(value: str, label: str, count: int) -> str:
    return (f'<option value="{e(value)}" data-label="{e(label)}">'
            f"{e(label)} ({count})</option>")


def _options(catalog: Data, key: str, counts: Counter[str]) -> str:
    def options(values: Iterable[tuple[str, str]]) -> str:
        return "".join(_option(v, label, counts[v]) for v, label in values if counts[v])

    if key == "hardware":
        groups = []
        for brand_id, brand in catalog["brands"].items():
            ids = [pair for hw, spec in catalog["hardware"].items()
                   if spec["brand"] == brand_id for pair in _hardware_options(hw, spec)]
            ids = [(value, label) for value, label in ids if counts[value]]
            if ids:
                groups.append(f'<optgroup label="{e(brand["display_name"])}">'
                              f"{options(ids)}</optgroup>")
        return "".join(groups)
    if key == "task":
        known = [(t, label) for t, label in TASKS.items()]
        return options(known + [(t, t) for t in sorted(counts) if t not in TASKS])
    if key == "arch":
        return options((a, ARCHITECTURES.get(a, a)) for a in sorted(counts))
    if key == "size":
        return options((s.id, s.label) for s in (*SIZES, UNSTATED))
    if key == "precision":  # most used first
        ordered = sorted(counts, key=lambda p: (-counts[p], p))
        return options((p, precision_label(p)) for p in ordered)
    return options((v, v) for v in sorted(counts, key=str.lower))


def _hardware_options(hw_id: str, spec: Data) -> list[tuple[str, str]]:
    """(value, label) of the hardware's options: itself ("1× L40S" for a single-GPU model
    offered in counts), then each of its `hardware_counts` ("2× L40S")."""
    counts = hardware_counts(spec)
    name = spec["display_name"]
    return [(hw_id, f"1× {name}" if counts else name),
            *((count_value(hw_id, n), f"{n}× {name}") for n in counts)]


def _select(catalog: Data, cards: Sequence[BrowseCard], flt: Filter) -> str:
    counts: Counter[str] = Counter()
    for card in cards:
        counts.update(card_facets(card, catalog)[flt.key])
    ident = f"rcp-f-{flt.key}"
    return (
        f'<div class="rcp-filter"><label class="rcp-filter-label" for="{ident}">'
        f"{e(flt.label)}</label>"
        f'<select id="{ident}" name="{flt.key}" data-filter="{flt.key}">'
        f'<option value="" data-label="{e(flt.empty)}" selected>{e(flt.empty)} '
        f"({len(cards)})</option>"
        f"{_options(catalog, flt.key, counts)}</select></div>"
    )


# ------------------------------------------------------------------ cards


def _hardware_summary(catalog: Data, card: BrowseCard) -> str:
    """Brand names with how many of their hardware the model has a command for."""
    by_brand: Counter[str] = Counter(catalog["hardware"][hw]["brand"] for hw in card.runs_on)
    chips = []
    for brand_id, brand in catalog["brands"].items():
        if by_brand[brand_id]:
            names = ", ".join(catalog["hardware"][hw]["display_name"] for hw in card.runs_on
                              if catalog["hardware"][hw]["brand"] == brand_id)
            chips.append(
                f'<li class="rcp-card-brand" title="{e(names)}">{e(brand["display_name"])}'
                f' <span class="rcp-card-n">{by_brand[brand_id]}</span></li>'
            )
    return "".join(chips)


def _facts(recipe: Data) -> str:
    model = recipe["model"]
    facts = [ARCHITECTURES.get(model["architecture"], model["architecture"]),
             f"{model['parameter_count']} parameters"]
    active = model.get("active_parameters")
    if active and active != model["parameter_count"]:
        facts.append(f"{active} active")
    if model.get("context_length"):
        facts.append(f"{format_context(model['context_length'])} context")
    return "".join(f'<li>{e(fact)}</li>' for fact in facts)


def _card(catalog: Data, card: BrowseCard, base: str, ranks: dict[str, int], new: bool
          ) -> str:
    recipe = card.recipe
    meta = recipe["meta"]
    order = "; ".join(f"--rcp-o-{sort}: {place}" for sort, place in ranks.items())
    badge = (f'<span class="rcp-new" title="Added {e(meta["date_added"])}">New</span>'
             if new else "")
    facets = json.dumps(card_facets(card, catalog), ensure_ascii=False, separators=(",", ":"))
    tags = "".join(f'<li class="rcp-tag rcp-tag-task">{e(TASKS.get(t, t))}</li>'
                   for t in meta["tasks"])
    tags += "".join(f'<li class="rcp-tag">{e(precision_label(p))}</li>'
                    for p in _precisions(recipe))
    return (
        f'<article class="rcp-card" data-facets="{e(facets)}" '
        f'{search_attributes(catalog, card)} style="{order}">'
        '<div class="rcp-card-head">'
        '<h3 class="rcp-card-title"><a class="rcp-card-link" '
        f'href="{e(page_href(base, card.hf_id))}">'
        f'{e(meta["title"])}</a>{badge}</h3>'
        f'<a class="rcp-card-json" href="{e(base + card.hf_id)}.json" '
        f'aria-label="{e(meta["title"])} as JSON">JSON</a></div>'
        f'<p class="rcp-card-id"><span class="rcp-card-provider">{e(meta["provider"])}</span>'
        f' <code>{e(card.hf_id)}</code></p>'
        f'<p class="rcp-card-desc">{e(meta["description"])}</p>'
        f'<ul class="rcp-card-facts" aria-label="Model">{_facts(recipe)}</ul>'
        f'<ul class="rcp-card-tags" aria-label="Tasks and precisions">{tags}</ul>'
        '<div class="rcp-card-hw"><span class="rcp-row-label">Runs on</span>'
        f'<ul aria-label="Hardware brands">{_hardware_summary(catalog, card)}</ul></div>'
        "</article>"
    )


def _groups(catalog: Data, cards: Sequence[BrowseCard], base: str) -> str:
    ranks = sort_ranks(cards)
    today = catalogue_date(cards)
    by_provider: dict[str, list[BrowseCard]] = {}
    for card in cards:
        by_provider.setdefault(card.recipe["meta"]["provider"], []).append(card)
    sections = []
    for index, provider in enumerate(sorted(by_provider, key=str.lower)):
        members = sorted(by_provider[provider], key=lambda c: _natural(c.recipe["meta"]["title"]))
        heading = f"rcp-g{index}"
        sections.append(
            f'<section class="rcp-group" aria-labelledby="{heading}" '
            f'data-span="{min(len(members), 3)}" style="--n: {len(members)}">'
            f'<h2 class="rcp-group-title" id="{heading}">{e(provider)} '
            f'<span class="rcp-group-count" data-rcp-group-count>{len(members)}</span></h2>'
            '<div class="rcp-cards">'
            + "".join(_card(catalog, c, base, ranks[c.hf_id], is_new(c.recipe, today))
                      for c in members)
            + "</div>"
            "</section>"
        )
    return "".join(sections)


def _sort_options() -> str:
    """The Sort select's options: each says whether it groups by provider and what the page
    says about it (browse.js shows the chosen one's note)."""
    return "".join(
        f'<option value="{e(s.id)}" data-group="{"provider" if s.grouped else "none"}" '
        f'data-note="{e(s.note)}"{" selected" if i == 0 else ""}>{e(s.label)}</option>'
        for i, s in enumerate(SORTS))


def browse_html(catalog: Data, cards: list[BrowseCard], base: str) -> str:
    """The search box, the filters and every card, in the static HTML."""
    total = len(cards)
    selects = "".join(_select(catalog, cards, flt) for flt in FILTERS)
    default = SORTS[0]
    return (
        f'<div class="rcp-browse" data-rcp-browse data-search-exclude data-total="{total}" '
        f'data-sort="{default.id}" data-group="{"provider" if default.grouped else "none"}">'
        '<form class="rcp-filters" id="rcp-filters" role="search" aria-label="Filter models">'
        '<div class="rcp-filter rcp-filter-q"><label class="rcp-filter-label" '
        'for="rcp-f-search">Search</label>'
        '<input type="search" id="rcp-f-search" name="search" data-filter="search" '
        'autocomplete="off" spellcheck="false" enterkeyhint="search" '
        'placeholder="Model, task, GPU, format…"></div>'
        '<button type="button" class="rcp-filters-toggle" aria-expanded="false" '
        'aria-controls="rcp-facets">Filters <span data-rcp-active></span></button>'
        f'<div class="rcp-facets" id="rcp-facets">{selects}'
        '<div class="rcp-filter"><label class="rcp-filter-label" for="rcp-f-sort">Sort</label>'
        '<select id="rcp-f-sort" name="sort" data-sort>'
        + _sort_options()
        + "</select></div>"
        '<button type="reset" class="rcp-reset">Clear filters</button></div></form>'
        '<div class="rcp-results">'
        # A URL value the notice repeats is cut at the builder's QUOTE_MAX (browse.js).
        f'<p class="rcp-notice" role="status" data-rcp-notice data-quote-max="{QUOTE_MAX}" '
        "hidden></p>"
        '<p class="rcp-count" aria-live="polite"><strong data-rcp-count>'
        f"{total}</strong> of {total} models</p>"
        # (not data-search-*: the theme's search plugin strips those attributes)
        f'<p class="rcp-order" data-rcp-order data-note-searching="{e(SEARCH_NOTE)}">'
        f"{e(default.note)}</p>"
        '<noscript><p class="rcp-noscript">The filters need JavaScript; every model is '
        "listed below.</p></noscript>"
        f'<div class="rcp-groups">{_groups(catalog, cards, base)}</div>'
        # A button, not a link: the theme's instant navigation would reload the page.
        '<p class="rcp-empty" hidden>No model matches these filters. '
        '<button type="reset" form="rcp-filters" class="rcp-link-button" data-rcp-clear>'
        "Clear the filters</button></p></div></div>"
    )
