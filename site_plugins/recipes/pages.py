"""What becomes pages: one guide page per model and per variant model id (the home page's
model cards are made in `browse.py`).

A model page's Markdown is front matter, section headings, *slots* and the recipe's guide.
A slot is a paragraph holding a per-build random token; after Markdown has run, the slot is
replaced by HTML made here, where every recipe string goes through `html.escape`. So recipe
strings never pass through Markdown, and the guide (the only recipe Markdown) is rendered
with raw HTML turned off and an allow-list of elements and attributes (see
`vllm_recipes/guide_html.py`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any, Literal
from urllib.parse import quote

import yaml

from builder.hardware_keys import split_count
from builder.vocabulary import SELECTION_KEYS
from vllm_recipes.guide_html import safe_href

__all__ = [
    "KEYS_MARKER",
    "GeneratedPage",
    "Section",
    "VariantPage",
    "alias_page",
    "format_context",
    "model_page",
    "page_href",
    "relative_root",
    "retired_page",
    "selection_keys_html",
    "states_uri",
]

Data = dict[str, Any]
ARCHITECTURES = {"moe": "MoE", "dense": "Dense"}
TASKS = {
    "text": "Text",
    "multimodal": "Multimodal",
    "vision": "Vision",
    "embedding": "Embedding",
    "audio": "Audio",
    "reasoning": "Reasoning",
    "tools": "Tool calling",
    "omni": "Omni / generation",
    "rerank": "Rerank",
    "completion": "Completion (no chat template)",
}


def relative_root(model_id: str) -> str:
    """From the page of `model_id` (`org/repo/`) back to the site's root: "../../"."""
    return "../" * (model_id.count("/") + 1)


def page_href(root: str, model_id: str) -> str:
    """A link to a model page that every static host resolves: `org/repo/`, or
    `org/repo/index.html` when the last segment has a dot (`npx serve` lists such a
    directory instead of serving its index; the site's serve.json keeps it from rewriting
    `index.html` links)."""
    last = model_id.rsplit("/", 1)[-1]
    return f"{root}{model_id}/" + ("index.html" if "." in last else "")


def e(value: object) -> str:
    """Escape for HTML text and double-quoted attributes."""
    return escape(str(value), quote=True)


def format_context(tokens: int) -> str:
    """1048576 → "1M", 131072 → "128K"; other sizes with thousands separators."""
    for size, unit in ((1 << 20, "M"), (1 << 10, "K")):
        if tokens % size == 0:
            return f"{tokens // size}{unit}"
    return f"{tokens:,}"


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
"""libyaml's emitter where PyYAML has it (the same text, ~7× faster: a page's front matter
costs ~0.1 ms instead of ~0.5 ms)."""


def _front_matter(meta: Mapping[str, object]) -> str:
    return "---\n" + yaml.dump(dict(meta), Dumper=_DUMPER, sort_keys=False,
                               allow_unicode=True) + "---\n"


def _badge(key: str, value: str, title: str = "") -> str:
    tip = f' title="{e(title)}"' if title else ""
    return (
        f'<span class="rcp-badge"{tip}><span class="rcp-badge-k">{e(key)}</span>'
        f'<span class="rcp-badge-v">{e(value)}</span></span>'
    )


def model_badges(recipe: Data) -> list[str]:
    model = recipe["model"]
    badges = [_badge("Architecture", ARCHITECTURES.get(model["architecture"],
                                                       model["architecture"]))]
    badges.append(_badge("Parameters", model["parameter_count"]))
    if model.get("active_parameters"):
        badges.append(_badge("Active", model["active_parameters"], "active parameters per token"))
    tokens = model.get("context_length")  # none for generation models without a text context
    if tokens:
        badges.append(_badge("Context", format_context(tokens), f"{tokens:,} tokens"))
    badges.append(_badge("vLLM", f"≥ {model['min_vllm_version']}", "minimum vLLM version"))
    return badges


def _task_chips(recipe: Data) -> str:
    return "".join(
        f'<span class="rcp-chip rcp-chip-task">{e(TASKS.get(task, task))}</span>'
        for task in recipe["meta"]["tasks"]
    )


KEYS_MARKER = "<!-- recipes:selection-keys -->"
"""Where a hand-written page lists the selection keys (the API page)."""


def selection_keys_html() -> str:
    """The selection keys, from the builder's registry, as a table."""
    rows = "".join(f"<tr><td><code>{e(key.name)}</code></td><td>{e(key.label)}</td>"
                   f"<td>{e(key.help)}</td></tr>" for key in SELECTION_KEYS.values())
    rows += ("<tr><td><code>&lt;feature&gt;</code></td><td>Features</td><td>every feature id "
             "of the recipe: on, off or a mode name</td></tr>")
    return (f'<table class="rcp-keys"><thead><tr><th>key</th><th>row</th><th>values</th></tr>'
            f"</thead><tbody>{rows}</tbody></table>")


# ------------------------------------------------------------------------ model page


def hero_html(recipe: Data, base: str, variant: VariantPage | None = None) -> str:
    """The page's title and what the model is, kept short: the command comes right after it,
    inside the first screen on a phone as on a desktop. Which hardware the recipe was
    verified on is marked on the builder's hardware pills."""
    meta = recipe["meta"]
    hf_id = recipe["model"]["model_id"] if variant is None else variant.model_id
    json_href = base + (variant.json if variant is not None else f"{hf_id}.json")
    title = meta["title"] if variant is None else f"{meta['title']} ({variant.label})"
    headline = meta.get("performance_headline", "")
    return (
        '<header class="rcp-hero">'
        f'<nav class="rcp-crumbs" aria-label="Breadcrumb"><a href="{e(base)}">Models</a>'
        f'<span aria-hidden="true">/</span><span>{e(meta["provider"])}</span></nav>'
        f'<h1 class="rcp-title">{e(title)}</h1>'
        f'<p class="rcp-ids"><code>{e(hf_id)}</code>'
        f'<a class="rcp-link" href="https://huggingface.co/{e(quote(hf_id))}">Hugging Face</a>'
        f'<a class="rcp-link" href="{e(json_href)}">JSON</a></p>'
        + (f'<p class="rcp-headline">{e(headline)}</p>' if headline else "")
        + f'<p class="rcp-description">{e(meta["description"])}</p>'
        f'<div class="rcp-badges">{"".join(model_badges(recipe))}'
        f'<span class="rcp-tasks"><span class="rcp-row-label">Tasks</span>'
        f"{_task_chips(recipe)}</span></div>"
        "</header>"
    )


@dataclass(frozen=True)
class VariantPage:
    """A variant model id's own page: its recipe's page with that variant picked."""

    variant: str
    model_id: str
    label: str
    json: str
    """Its JSON document, relative to the site's root (the recipe's when it has none)."""
    canonical: str
    """The recipe page's absolute URL (the variant page is a view of it)."""


def states_uri(model_id: str) -> str:
    """Where a model page's states one click away are published (`widget_html`), from the
    site root: beside its page, `/<model_id>/states.json`."""
    return f"{model_id}/states.json"


def widget_html(hf_id: str, state_html: str, base: str, catalog_json: str,
                variant: str | None = None, states_json: str | None = None) -> str:
    """The mount the page's JavaScript takes over, with the prerendered widget inside;
    `variant`: the variant a variant page starts from (the URL's keys override it);
    `states_json`: the site path of the page's states one click away (`states_uri`: the
    `builder.views.widget.neighbours` of the prerendered state), which the page fetches while
    it parses (a preload its script's fetch takes) and shows on a click while its Python has
    not started. They are not in the page: on the heaviest pages they were nine tenths of its
    HTML, and the first paint and the command need none of them."""
    start = (f' data-base="{e(json.dumps([["variant", variant]]))}"'
             if variant is not None else "")
    preload = ""
    if states_json is not None:
        start += f' data-states-json="{e(base + states_json)}"'
        # Fetched while the page still parses: the script's fetch() takes this response.
        preload = (f'<link rel="preload" href="{e(base + states_json)}" as="fetch" '
                   'crossorigin="anonymous">')
    return (
        f'{preload}<div class="rb-mount" id="rb-mount" data-hf-id="{e(hf_id)}" '
        f'data-recipe-json="{e(base + hf_id)}.json"{start} '
        f'data-catalog-json="{e(base + catalog_json)}" data-search-exclude>'
        f"{state_html}</div>"
        '<noscript><p class="rcp-noscript">JavaScript is off, so this is the default '
        "command and the choices below cannot be changed. The same commands are in the "
        "JSON files linked at the top of the page.</p></noscript>"
    )


def notes_html(catalog: Data, recipe: Data) -> str:
    notes = []
    for key, note in recipe.get("hardware_notes", {}).items():
        hw_id, count = split_count(key)  # a note for N cards: `rtx_5090@2`
        hw_name = catalog["hardware"][hw_id]["display_name"]
        hw_name = f"{count}× {hw_name}" if count else hw_name
        link = ""
        if note.get("link"):
            href = safe_href(note["link"]["href"])
            label = e(note["link"]["label"])
            link = (f'<p><a href="{e(href)}">{label}</a></p>' if href is not None
                    else f"<p>{label}</p>")
        notes.append(
            f'<details class="info rcp-note" data-hardware="{e(key)}">'
            f'<summary><strong>{e(hw_name)}</strong> · {e(note["title"])}</summary>'
            f'<p>{e(note["body"])}</p>{link}</details>'
        )
    return "".join(notes)


@dataclass
class GeneratedPage:
    """A page made from recipe data: its Markdown, and the HTML that fills its slots."""

    uri: str
    """Path of the Markdown file in the docs tree (`<hf_org>/<hf_repo>.md`)."""
    nonce: str
    markdown: str = ""
    slots: dict[str, str] = field(default_factory=dict)
    """`<p>token</p>` → HTML."""
    head: str = ""
    """HTML for the page's <head> (metadata, see `machine.py`)."""
    canonical: str | None = None
    """Its canonical URL when another page's (a variant page's recipe page)."""
    body_of: str | None = None
    """The page whose rendered body it shares (a variant page: its recipe page's uri)."""

    def slot(self, name: str, html: str) -> str:
        """A Markdown paragraph that `fill` replaces with `html`."""
        token = f"rcpslot{self.nonce}{name}"
        self.slots[f"<p>{token}</p>"] = html
        return f"\n{token}\n"

    def mark(self, html: str) -> str:
        """The page's content with each slot paragraph turned into an HTML comment: what
        the theme's search indexes stays the guide's text (and is parsed at its size)."""
        for token in self.slots:
            html = html.replace(token, _comment(token), 1)
        return html

    def fill(self, output: str) -> str:
        """The finished page with each slot's HTML in place."""
        for token, fragment in self.slots.items():
            output = output.replace(_comment(token), fragment, 1)
        if self.head:
            output = output.replace("</head>", self.head + "</head>", 1)
        return output


def _comment(token: str) -> str:
    return f"<!--{token[3:-4]}-->"


@dataclass(frozen=True)
class Section:
    """A section another module adds to a model page, after the command builder: "command"
    sections first, then "install" ones (where the page's own install cards were, before the
    install moved into the builder's output; see `configurations.py`)."""

    after: Literal["command", "install"]
    heading: str
    name: str
    """The slot's name (unique on the page)."""
    html: str
    assets: tuple[str, ...] = ()
    """The kinds of page files it needs besides the model page's (mkdocs.yml's
    extra.page_assets: "dynamo")."""


def _sections(page: GeneratedPage, sections: Sequence[Section], after: str) -> list[str]:
    return [part for section in sections if section.after == after
            for part in (f"## {section.heading}\n", page.slot(section.name, section.html))]


def model_page(catalog: Data, recipe: Data, guide: str, state_html: str, *,
               base: str, nonce: str, catalog_json: str,
               sections: Sequence[Section] = (),
               variant: VariantPage | None = None,
               states: bool = False) -> GeneratedPage:
    """The guide page of a recipe, at `/<hf_id>/`; or, with `variant`, the same page at
    `/<variant model id>/` with that variant picked (`state_html` is its; `states`: the
    page's states one click away are published at `states_uri`, see `widget_html`)."""
    hf_id = recipe["model"]["model_id"]
    meta = recipe["meta"]
    page = GeneratedPage(f"{hf_id if variant is None else variant.model_id}.md", nonce)
    front: Data = {
        # The theme writes title and description into <title>/<meta> without escaping.
        "title": e(meta["title"] if variant is None else f"{meta['title']} ({variant.label})"),
        "description": e(meta["description"]),
        "hide": ["navigation"],
        # The hero's <h1> is the page's title (overrides/partials/content.html).
        "own_h1": True,
        # The page's own scripts and styles (overrides/main.html, mkdocs.yml).
        "assets": ["model", *dict.fromkeys(kind for section in sections
                                           for kind in section.assets)],
        # overrides/main.html holds the first paint until the command is parsed.
        "render_blocking_id": "rb-mount",
    }
    if variant is not None:
        front["search"] = {"exclude": True}  # the recipe's page is the one to find
        page.canonical = variant.canonical
        page.body_of = f"{hf_id}.md"
    parts = [
        _front_matter(front),
        page.slot("hero", hero_html(recipe, base, variant)),
        "## Command\n",
        page.slot("widget", widget_html(
            hf_id, state_html, base, catalog_json, None if variant is None else variant.variant,
            states_uri(hf_id if variant is None else variant.model_id) if states else None)),
        # The install for the picked hardware and method is the builder's own (in its
        # output, under the command), so it follows every choice.
        *_sections(page, sections, "command"),
        *_sections(page, sections, "install"),
    ]
    if recipe.get("hardware_notes"):
        parts += ["## Hardware notes\n", page.slot("notes", notes_html(catalog, recipe))]
    guide = guide.strip()
    if guide:
        parts.append(guide + "\n")
    page.markdown = "\n".join(parts)
    return page


def retired_page(catalog: Data, recipe: Data, guide: str, reason: str, *, base: str,
                 nonce: str) -> GeneratedPage:
    """The page of a retired recipe (`retired:`): what the model was, why there is no
    command (`reason`, the builder's `retired_reason`), and its guide."""
    meta = recipe["meta"]
    page = GeneratedPage(f"{recipe['model']['model_id']}.md", nonce)
    # The hero's <h1> is the page's one title, as on a model page; its styles are a model
    # page's (no command, so no builder script runs: `assets` names styles and scripts alike).
    front: Data = {"title": e(meta["title"]), "description": e(meta["description"]),
                   "hide": ["navigation"], "own_h1": True, "assets": ["model"]}
    notice = ('<div class="rcp-retired" role="note"><p><strong>No command: this model is '
              f"retired.</strong> {e(reason)}</p></div>")
    parts = [_front_matter(front), page.slot("hero", hero_html(recipe, base)),
             "## Command\n", page.slot("retired", notice)]
    if guide.strip():
        parts.append(guide.strip() + "\n")
    page.markdown = "\n".join(parts)
    return page


def alias_page(page: GeneratedPage, alias: str, hf_id: str, canonical: str) -> GeneratedPage:
    """The page at an old model id (`aliases:`): the recipe's page, its body shared, with a
    notice above the title that names the id the model goes by now."""
    copy = GeneratedPage(f"{alias}.md", page.nonce, page.markdown, dict(page.slots), page.head,
                         canonical, page.uri)
    token = f"<p>rcpslot{page.nonce}hero</p>"
    copy.slots[token] = (
        f'<p class="rcp-alias" role="note"><code>{e(alias)}</code> is now '
        f"<code>{e(hf_id)}</code>: this is its page.</p>" + copy.slots[token])
    return copy
