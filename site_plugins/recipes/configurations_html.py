"""The HTML of published serving configurations, made from their published entries
(`configurations.PublishedConfigurations`): the catalogue page's filters, featured picks and
cards, and the model pages' "Published configurations" list and "Compare your command" box.

Every string from the data is escaped here; diffs are rendered by `builder.views.diff`.
"""

from __future__ import annotations

import datetime
from html import escape
from typing import Any

from builder.diff.published import (
    engine_label,
    role_layout,
    role_text,
    speculative_label,
)
from builder.views.diff import diff_html

__all__ = ["CATALOGUE_PATH", "cards_html", "compare_box_html", "e", "featured_html",
           "filters_html", "model_list_html"]

Data = dict[str, Any]
CATALOGUE_PATH = "configurations/"
FRAMEWORKS = {"vllm": "vLLM", "sglang": "SGLang"}
SERVING = {"aggregated": "Aggregated (one server)", "disaggregated": "Prefill/decode disaggregated"}


def e(value: object) -> str:
    """`value` as text for HTML (attribute values included)."""
    return escape(str(value), quote=True)


def _date(text: str) -> str:
    day = datetime.date.fromisoformat(text)
    return f"{day.day} {day.strftime('%B')} {day.year}"


# ------------------------------------------------------------------ catalogue page


def filters_html(entries: list[Data], systems: dict[str, Data]) -> str:
    """The catalogue's filter form (hardware, precision, framework, dates) and its count."""
    total = len(entries)
    ids = list(dict.fromkeys(entry["system"] for entry in entries))
    precisions = sorted({entry["precision"] for entry in entries})
    frameworks = [f for f in FRAMEWORKS if any(x["framework"] == f for x in entries)]
    dates = sorted(entry["date"] for entry in entries)

    def select(name: str, label: str, empty: str, options: list[tuple[str, str]]) -> str:
        body = "".join(f'<option value="{e(v)}">{e(t)}</option>' for v, t in options)
        return (f'<label class="cfg-filter"><span class="cfg-filter-label">{e(label)}</span>'
                f'<select name="{name}" data-filter="{name}"><option value="">{e(empty)}'
                f"</option>{body}</select></label>")

    low, high = (dates[0], dates[-1]) if dates else ("", "")
    date_inputs = "".join(
        f'<label class="cfg-filter cfg-filter-date"><span class="cfg-filter-label">{label}'
        f'</span><input type="date" name="{name}" data-filter="{name}" min="{e(low)}" '
        f'max="{e(high)}"></label>'
        for name, label in (("from", "Added from"), ("to", "Added until")))
    return (
        '<div class="cfg-catalogue" data-cfg-catalogue data-search-exclude>'
        '<form class="cfg-filters" role="search" aria-label="Filter configurations">'
        + select("hardware", "Hardware", "Any hardware",
                 [(s, systems[s]["display_name"]) for s in ids])
        + select("precision", "Precision", "Any precision", [(p, p) for p in precisions])
        + select("framework", "Framework", "Any framework",
                 [(f, FRAMEWORKS[f]) for f in frameworks])
        + date_inputs
        + '<button type="reset" class="cfg-reset">Clear</button></form>'
        f'<p class="cfg-count" aria-live="polite">Showing <span data-cfg-shown>{total}'
        f"</span> of {total} configurations</p>"
        '<p class="cfg-empty" hidden>No configuration matches these filters. '
        '<a href="?" data-cfg-clear>Clear the filters</a>.</p></div>'
    )


def item_attrs(entry: Data) -> str:
    """The attributes the catalogue's filters read from a pick or a card."""
    return (f'data-cfg-item data-hardware="{e(entry["system"])}" '
            f'data-precision="{e(entry["precision"])}" '
            f'data-framework="{e(entry["framework"])}" data-date="{e(entry["date"])}"')


def featured_html(entries: list[Data], categories: dict[str, str],
                  systems: dict[str, Data]) -> str:
    """The featured picks: per model, per system, one link per featured category."""
    groups = []
    for model in dict.fromkeys(entry["model"] for entry in entries):
        picked = [x for x in entries if x["model"] == model and x["featured"]]
        blocks = []
        for sid in dict.fromkeys(x["system"] for x in picked):
            items = []
            for category, label in categories.items():
                for x in picked:
                    if x["system"] == sid and category in x["featured"]:
                        items.append(
                            f'<li class="cfg-pick" {item_attrs(x)}>'
                            f'<span class="cfg-pick-cat">{e(label)}</span>'
                            f'<a href="#{e(x["id"])}">{e(FRAMEWORKS[x["framework"]])} · '
                            f'{e(x["precision"])} · {e(x["gpus_used"])} of '
                            f'{e(x["accelerators"])} · {e(x["layout"])}'
                            + (" · DSpark" if x.get("speculative_decoding") else "")
                            + f' · {e(_date(x["date"]))}</a></li>')
            blocks.append(
                f'<div class="cfg-featured-system" data-system="{e(sid)}">'
                f'<p class="cfg-featured-name">{e(systems[sid]["display_name"])}</p>'
                f'<ul class="cfg-picks">{"".join(items)}</ul></div>')
        title = next(x["model_title"] for x in entries if x["model"] == model)
        groups.append(f'<div class="cfg-featured" data-model="{e(model)}">'
                      f'<p class="cfg-featured-model">{e(title)}</p>'
                      f'<div class="cfg-featured-grid">{"".join(blocks)}</div></div>')
    return "".join(groups)


def cards_html(entries: list[Data], categories: dict[str, str]) -> str:
    """Every configuration's card, in order."""
    return (f'<div class="cfg-cards">{"".join(card_html(x, categories) for x in entries)}</div>')


def card_html(x: Data, categories: dict[str, str]) -> str:
    """One configuration's card: facts, badges, notes, its join and its commands."""
    facts: list[tuple[str, str]] = [("Engine", e(engine_label(x["engine"])))]
    if x["engine"].get("image"):
        facts.append(("Image", f'<code>{e(x["engine"]["image"])}</code>'))
    if x["engine"].get("build"):
        facts.append(("Build", e(x["engine"]["build"])))
    if x["engine"].get("patches"):
        facts.append(("Patches", e(", ".join(x["engine"]["patches"]))))
    facts.append(("Serving", e(SERVING[x["serving"]])
                  + (" through NVIDIA Dynamo" if x.get("orchestrator") == "dynamo" else "")))
    for role in x["roles"]:
        if role["gpus"]:
            facts.append((role["label"], e(role_layout(role))))
    facts.append(("Speculative decoding", e(speculative_label(x.get("speculative_decoding")))))
    facts.append(("Precision", e(x["precision"])))
    facts.append(("Accelerators used", f'{e(x["gpus_used"])} of {e(x["accelerators"])}'))
    facts += [(d["label"], e(d["value"])) for d in x.get("details", [])]
    if x.get("weights"):
        weights = x["weights"]
        rev = f' @ {e(weights["revision"][:10])}' if weights.get("revision") else ""
        facts.append(("Weights", f'<code>{e(weights["model"])}</code>{rev}'))
    facts.append(("Submitted", f'{e(x["submitter"])} · {e(_date(x["date"]))}'))
    # Labels are text (escaped here); values are HTML made above from escaped text.
    dl = "".join(f'<div class="cfg-fact"><dt>{e(k)}</dt><dd>{v}</dd></div>'
                 for k, v in facts)
    badges = "".join(f'<span class="cfg-badge cfg-badge-pick">{e(categories[c])}</span>'
                     for c in x["featured"])
    badges += (f'<span class="cfg-badge">{e(FRAMEWORKS[x["framework"]])}'
               + (" + Dynamo" if x.get("orchestrator") == "dynamo" else "") + "</span>"
               f'<span class="cfg-badge">{e(x["precision"])}</span>')
    return (
        f'<article class="cfg-card" id="{e(x["id"])}" {item_attrs(x)}>'
        '<header class="cfg-card-head">'
        f'<p class="cfg-card-system">{e(x["system_name"])} · {e(x["model_title"])}</p>'
        f'<h3 class="cfg-card-title">{e(FRAMEWORKS[x["framework"]])} · {e(x["layout"])}'
        f' <small>{e(x["gpus_used"])} of {e(x["accelerators"])} GPUs</small></h3>'
        f'<div class="cfg-badges">{badges}</div></header>'
        f'<dl class="cfg-facts">{dl}</dl>'
        f'<p class="cfg-notes">{e(x["notes"])}</p>'
        f"{join_html(x, theirs='This configuration')}{commands_html(x)}</article>"
    )


# ------------------------------------------------------------------ model pages


def _selection_words(join: Data) -> str:
    """"2× B300 · TP (TP2) · FP8 (0909) — with Speculative decoding: DSpark, Text only on"."""
    chosen = [part for part in join["choices"].split(", ")
              if part and part not in join["summary"]]  # the summary names the variant
    return join["summary"] + (f" — with {', '.join(chosen)}" if chosen else "")


def drift_html(x: Data) -> str:
    """The recipe settings a configuration says it kept that today's recipe sets otherwise:
    the recipe changed since (not something the configuration changed)."""
    join = x["join"]
    if join is None or not join["recipe_changed"]:
        return ""
    names = ", ".join(f"<code>{e(claim)}</code>" for claim in join["recipe_changed"])
    cited = (x.get("recipe_claims") or {}).get("recipe")
    source = f" as of <code>{e(cited)}</code>" if cited else ""
    n = len(join["recipe_changed"])
    return (f'<p class="cfg-join-drift"><span class="cfg-join-label">Recipe changed since</span> '
            f"{names}: kept from the recipe{source} when this configuration was built; today's "
            f"recipe sets {'them' if n != 1 else 'it'} otherwise.</p>")


def join_html(x: Data, *, theirs: str) -> str:
    """The closest selection, its link, and the per-role diffs folded."""
    join = x["join"]
    if join is None:
        return f'<p class="cfg-join cfg-join-none">Not compared: {e(x["join_note"])}.</p>'
    note = f' <span class="cfg-join-note">({e(join["note"])})</span>' if join["note"] else ""
    roles = []
    for role in join["roles"]:
        if role["diff"] is None:
            roles.append(f'<p class="cfg-diff-role">{e(role["label"])}: the builder has no '
                         "command of this role here.</p>")
            continue
        roles.append(f'<p class="cfg-diff-role">{e(role["label"])}, compared with the '
                     f'builder\'s <strong>{e(role["against"])}</strong> command</p>'
                     + diff_html(role["diff"], theirs=theirs, phrase="the configuration"))
    return (
        '<div class="cfg-join">'
        f'<p class="cfg-join-head"><span class="cfg-join-label">Closest builder selection</span>'
        f' {e(_selection_words(join))}{note}</p>'
        f'<p class="cfg-join-diff"><span class="cfg-join-label">Differences</span> '
        f'{e(join["diff_summary"])}</p>{drift_html(x)}'
        f'<p class="cfg-join-links"><a class="cfg-open" href="{e(join["builder_url"])}">Open in '
        "the builder</a></p>"
        f'<details class="cfg-diff"><summary>Flag-level diff</summary>{"".join(roles)}</details>'
        "</div>"
    )


def commands_html(x: Data) -> str:
    """Every role's launch command, folded, each with a copy button."""
    blocks = []
    for index, role in enumerate(x["roles"]):
        count = f" × {role['count']}" if role["count"] > 1 else ""
        blocks.append(
            f'<div class="cfg-block" data-role="{e(role["role"])}">'
            f'<div class="cfg-block-head"><span class="cfg-block-label">{e(role["label"])}'
            f"{e(count)}</span>"
            f'<button type="button" class="cfg-copy" data-copy="{index}">Copy</button></div>'
            f'<pre class="cfg-code"><code>{e(role_text(role["command"]))}</code></pre></div>')
    return (f'<details class="cfg-commands"><summary>Commands ({len(blocks)})</summary>'
            f'{"".join(blocks)}</details>')


def model_list_html(entries: list[Data], base: str) -> str:
    """A model page's "Published configurations": each one's closest selection and link."""
    items = []
    for x in entries:
        join = x["join"]
        if join is None:
            detail = f'<p class="cfg-model-diff">Not compared: {e(x["join_note"])}.</p>'
            link = ""
        else:
            detail = (f'<p class="cfg-model-diff"><span class="cfg-join-label">Closest</span> '
                      f'{e(_selection_words(join))}</p><p class="cfg-model-diff">'
                      f'<span class="cfg-join-label">Differences</span> '
                      f'{e(join["diff_summary"])}</p>{drift_html(x)}')
            link = (f'<a class="cfg-open" href="{e(join["builder_url"])}">Open in the '
                    "builder</a>")
        items.append(
            f'<li class="cfg-model-item" data-configuration="{e(x["id"])}">'
            f'<p class="cfg-model-head"><a href="{e(x["catalogue"])}"><strong>'
            f'{e(x["system_name"])}</strong> · {e(FRAMEWORKS[x["framework"]])}'
            + (" + Dynamo" if x.get("orchestrator") == "dynamo" else "")
            + f' · {e(x["layout"])} · {e(x["precision"])}</a>'
            f' <span class="cfg-model-meta">{e(x["submitter"])} · {e(_date(x["date"]))}</span></p>'
            f"{detail}{link}</li>")
    sources = ", ".join(dict.fromkeys(x["source"] for x in entries))
    return (
        '<div class="cfg-model" data-search-exclude>'
        f'<p class="rcp-muted">{len(entries)} configurations from {e(sources)}, each compared '
        "with the closest selection of the builder above. Filters, details and full commands: "
        f'<a href="{e(base)}{CATALOGUE_PATH}">Serving configurations</a>.</p>'
        f'<ul class="cfg-model-list">{"".join(items)}</ul></div>'
    )


def compare_box_html(hf_id: str, base: str, catalog_json: str) -> str:
    """The form the page's compare.js wires to Python; nothing is computed here. `base`: the
    way from the page to the site's root (`pages.relative_root`)."""
    ident = "cmp-" + "".join(c if c.isalnum() else "-" for c in hf_id)
    return (
        f'<div class="cmp-box" data-hf-id="{e(hf_id)}" data-recipe-json="{e(base + hf_id)}.json" '
        f'data-catalog-json="{e(base + catalog_json)}" data-search-exclude>'
        f'<form class="cmp-form"><label class="cmp-label" for="{e(ident)}">Paste a '
        "<code>vllm serve</code> or <code>docker run</code> command: it is compared, flag by "
        "flag, with the builder's command for the selection above.</label>"
        f'<textarea id="{e(ident)}" class="cmp-input" name="command" rows="5" '
        'spellcheck="false" autocomplete="off" autocapitalize="off" '
        f'placeholder="vllm serve {e(hf_id)} --tensor-parallel-size 8"></textarea>'
        '<div class="cmp-actions"><button type="submit" class="cmp-run">Compare</button>'
        '<button type="button" class="cmp-clear">Clear</button>'
        '<span class="cmp-status" role="status"></span></div></form>'
        '<div class="cmp-output" aria-live="polite"></div>'
        '<noscript><p class="rcp-noscript">The comparison runs in your browser; with '
        "JavaScript off, <code>vllm-recipes diff</code> gives the same diff on the command "
        "line.</p></noscript></div>"
    )
