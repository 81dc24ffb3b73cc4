"""The command-builder widget as HTML: pills and output, made from a builder result.

The site prerenders it into every model page and the page's JavaScript calls the very same
function under Pyodide after each click, then patches the markup in. The JavaScript never decides
what is pressed, disabled or shown. Every recipe string is escaped here.

Markup rules the page relies on:
- each pill row is one keyboard stop (roving tabindex): its pressed pill, else its first pill,
  has tabindex 0 and the others -1; the page's arrow keys move within the row;
- an unavailable pill keeps focus and points (`aria-describedby`) at its reason, a hidden
  paragraph under the row that the page shows when the pill is focused or tapped;
- URL keys of other widgets and of the theme (FOREIGN_KEYS, FOREIGN_PREFIXES) are neither used
  nor reported: page_state hands them back untouched in `foreign`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .api import Builder
from .errors import SelectionError
from .html_text import escape
from .offering import recipe_support
from .omni_tasks import TASK
from .selection import choices, parse_query
from .types import Command, Data, Result
from .vocabulary import (
    CONNECTORS,
    FRONTENDS,
    INSTALL_METHODS,
    OFF,
    OFFLOAD_TIERS,
    OMNI_KINDS,
    ROLES,
    SELECTION_KEYS,
    feature_label,
)

__all__ = ["clicks", "page_state", "render_widget"]

# Labels come from the vocabulary registries (one per vocabulary).
ROW_LABELS = {key: spec.label for key, spec in SELECTION_KEYS.items()}
CONNECTOR_LABELS = {cid: connector.label for cid, connector in CONNECTORS.items()}
OFFLOAD_LABELS = {OFF: "Off", **{tid: tier.label for tid, tier in OFFLOAD_TIERS.items()}}
ROLE_LABELS = ROLES
NODE_ROWS = ("multi_node", "kv_store")
"""Deploy types whose node count the user picks (a `nodes` row)."""
FRONTEND_LABELS = {fid: frontend.label for fid, frontend in FRONTENDS.items()}
INSTALL_LABELS = INSTALL_METHODS
FOREIGN_KEYS = ("h", "q")
"""URL keys the theme sets (mkdocs-material: `h` highlights search terms, `q` a search)."""
FOREIGN_PREFIXES = ("dynamo_",)
"""URL key prefixes of other widgets on a model page (the Dynamo deployment widget)."""
QUOTE_MAX = 60
"""A notice quotes at most this many characters of a URL key or value."""


def is_foreign(key: str) -> bool:
    """A URL key this widget leaves alone: not its own, and not worth a notice."""
    return key in FOREIGN_KEYS or key.startswith(FOREIGN_PREFIXES)


def _quote(text: str) -> str:
    return text if len(text) <= QUOTE_MAX else text[: QUOTE_MAX - 1] + "…"


def _dropped(key: str, value: str, reason: str) -> str:
    """One notice item; a long key or value is cut, also where the reason repeats it."""
    for long in (key, value):
        if len(long) > QUOTE_MAX:
            reason = reason.replace(repr(long), repr(_quote(long))).replace(long, _quote(long))
    return f"{_quote(key)}={_quote(value)} ({reason})"


def page_state(catalog: Data, recipe: Data,
               query: Mapping[str, str] | Sequence[Sequence[str]],
               builder: Builder | None = None) -> dict[str, object]:
    """What the page shows for a URL query (a mapping, or the URL's [key, value] pairs in
    order): bad keys/values are dropped with a notice, and so is a key given more than once
    (the command line refuses it too).

    `builder`: a `Builder` of this catalog and recipe kept across calls (the page's worker
    keeps one per recipe, so what does not depend on the query is worked out once).

    Returns `explicit` (the query that was honoured, to write back to the URL), `notice`
    (one line, empty when nothing was dropped), `foreign` (the keys of other widgets and of the
    theme, untouched), `result` and `html`.
    """
    pairs = list(query.items()) if isinstance(query, Mapping) else [tuple(p) for p in query]
    counts: dict[str, int] = {}
    for key, _ in pairs:
        counts[key] = counts.get(key, 0) + 1
    explicit: dict[str, str] = {}
    foreign: dict[str, str] = {}
    dropped: list[str] = []
    builder = builder or Builder(catalog, recipe)
    for key, value in pairs:
        if is_foreign(key):
            foreign[key] = value
            continue
        if counts[key] > 1:
            dropped.append(_dropped(key, value, "given twice"))
            continue
        try:
            parse_query(catalog, recipe, {key: value}, builder.choices)
        except SelectionError as error:
            dropped.append(_dropped(key, value, error.reason))
            continue
        explicit[key] = value
    while True:
        try:
            result = builder.build(explicit)
            break
        except SelectionError as error:
            value = explicit.pop(error.key, None)
            if value is None:  # blamed on a key that was not given: drop the last choice
                key = next(reversed(explicit))
                value = explicit.pop(key)
                dropped.append(_dropped(key, value, f"{error.key}: {error.reason}"))
            else:
                dropped.append(_dropped(error.key, value, error.reason))
    notice = ""
    if dropped:
        notice = "Ignored from the URL, showing defaults instead: " + "; ".join(dropped)
    return {
        "explicit": explicit,
        "notice": notice,
        "foreign": foreign,
        "result": result,
        "html": render_widget(catalog, recipe, result, explicit, notice),
    }


def clicks(builder: Builder, result: Result) -> list[list[str]]:
    """The choices a click can make next to `result`, as [key, value]: every value of every
    key that is neither the current one nor unavailable (what the page's worker works out
    ahead of the reader's clicks)."""
    selection, unavailable = result["selection"], result["unavailable"]
    return [[key, value] for key, values in builder.choices.items() for value in values
            if value != selection.get(key) and value not in unavailable.get(key, {})]


_TABINDEX = re.compile(r'tabindex="<(\d+)>"')
"""The placeholder `_Row.pill` writes for a pill's tab index, settled by `_Row.html`."""


class _Row:
    """One row of pills: a keyboard stop of its own (roving tabindex) and the reasons of its
    unavailable pills, each in a hidden paragraph under the row (`aria-describedby`)."""

    def __init__(self, key: str, label: str, result: Result) -> None:
        self.key = key
        self.label = label
        self.result = result
        self.ident = "".join(c if c.isalnum() or c in "-_" else "-" for c in key)
        self.pressed: list[bool] = []
        self.reasons: list[str] = []

    def pill(self, key: str, value: str, label: str, *, extra: str = "", title: str = "",
             pressed: bool | None = None) -> str:
        result = self.result
        if pressed is None:
            pressed = result["selection"].get(key) == value
        reason = result["unavailable"].get(key, {}).get(value)
        attrs = [
            'type="button"',
            'class="rb-pill"',
            f'data-key="{escape(key)}"',
            f'data-value="{escape(value)}"',
            f'aria-pressed="{"true" if pressed else "false"}"',
            # Settled in html(); "<" cannot occur in escaped text.
            f'tabindex="<{len(self.pressed)}>"',
        ]
        self.pressed.append(pressed)
        if reason:
            ident = f"rb-why-{self.ident}-{len(self.reasons)}"
            self.reasons.append(f'<p class="rb-why" id="{ident}" hidden>{escape(reason)}</p>')
            attrs += ['aria-disabled="true"', f'aria-describedby="{ident}"',
                      f'title="{escape(reason)}"']
        elif title:
            attrs.append(f'title="{escape(title)}"')
        return f"<button {' '.join(attrs)}>{escape(label)}{extra}</button>"

    def html(self, body: str) -> str:
        """The row around `body` (this row's pills, in any wrapping)."""
        stop = self.pressed.index(True) if True in self.pressed else 0
        body = _TABINDEX.sub(
            lambda m: f'tabindex="{0 if int(m.group(1)) == stop else -1}"', body)
        whys = f'<div class="rb-whys">{"".join(self.reasons)}</div>' if self.reasons else ""
        return (
            f'<div class="rb-row" role="group" aria-labelledby="rb-row-{self.ident}" '
            f'data-row="{escape(self.key)}"><span class="rb-row-label" '
            f'id="rb-row-{self.ident}">{escape(self.label)}</span>'
            f'<div class="rb-pills">{body}</div>{whys}</div>'
        )


def _simple_row(key: str, result: Result, pills: list[tuple[str, str, str]]) -> str:
    """A row of (value, label, title) pills for `key`."""
    row = _Row(key, ROW_LABELS[key], result)
    return row.html("".join(row.pill(key, value, label, title=title)
                            for value, label, title in pills))


def _hardware_row(catalog: Data, recipe: Data, result: Result) -> str:
    row = _Row("hardware", ROW_LABELS["hardware"], result)
    offered = [(hw_id, hw, support) for hw_id, hw in catalog["hardware"].items()
               if (support := recipe_support(recipe, hw_id, hw)) is not None]
    groups = []
    for brand_id, brand in catalog["brands"].items():
        pills = []
        for hw_id, hw, support in offered:
            if hw["brand"] != brand_id:
                continue
            mark = ""
            if support == "verified":
                mark = '<span class="rb-verified" aria-label="verified" title="verified">✓</span>'
            extra = f' <small class="rb-mem">{hw["gpu_count"]}×{hw["memory_gb"]} GB</small>{mark}'
            pills.append(row.pill("hardware", hw_id, hw["display_name"], extra=extra,
                                  title=hw["description"]))
        if pills:
            groups.append(
                f'<div class="rb-brand" data-brand="{escape(brand_id)}">'
                f'<span class="rb-brand-label">{escape(brand["display_name"])}</span>'
                f'{"".join(pills)}</div>'
            )
    return row.html("".join(groups))


def _feature_rows(recipe: Data, result: Result) -> str:
    row = _Row("features", "Features", result)
    features = []
    for fid, feature in recipe.get("features", {}).items():
        label = feature_label(fid, feature)
        value = result["selection"][fid]
        on = value != "off"
        # A toggle is pressed when the feature is on; clicking it asks for the other state.
        toggle = row.pill(fid, "off" if on else "on", label,
                          title=feature.get("description", ""), pressed=on)
        modes = feature.get("modes") or {}
        nested = ""
        if on and len(modes) > 1:
            nested = '<div class="rb-modes">' + "".join(
                row.pill(fid, mid, mode["label"], title=mode.get("description", ""))
                for mid, mode in modes.items()
            ) + "</div>"
        features.append(
            f'<div class="rb-feature" data-feature="{escape(fid)}">{toggle}{nested}</div>')
    return row.html("".join(features))


def _blocks(result: Result) -> str:
    """One block per command, each with its copy button. With several commands, the blocks of
    each role (head, worker, prefill, decode, router, ...) sit in one `rb-role` group, in
    order of first appearance, after a tab list naming the roles."""
    install = result["selection"]["install"]
    blocks: dict[str, list[str]] = {}
    for index, command in enumerate(result["commands"]):
        text = command["docker_text"] if install == "docker" and command["docker_text"] else (
            command["shell"])
        blocks.setdefault(command["role"], []).append(
            f'<div class="rb-block" data-role="{escape(command["role"])}">'
            f'<div class="rb-block-head"><span class="rb-block-label">{escape(command["label"])}'
            f'</span><button type="button" class="rb-copy" data-copy="{index}" '
            f'aria-label="Copy: {escape(command["label"])}">Copy</button></div>'
            f'<pre class="rb-code"><code tabindex="0">{escape(text)}</code></pre>'
            f"{_why(command)}</div>"
        )
    if len(result["commands"]) == 1:
        return "".join(blocks.popitem()[1])
    tabs = "".join(
        f'<button type="button" class="rb-role-tab" role="tab" data-role-tab="{escape(role)}" '
        f'aria-selected="{"true" if i == 0 else "false"}">'
        f'{escape(ROLE_LABELS.get(role, role))} <small>{len(items)}</small></button>'
        for i, (role, items) in enumerate(blocks.items())
    )
    groups = "".join(
        f'<div class="rb-role" role="tabpanel" data-role="{escape(role)}" '
        f'data-count="{len(items)}"><h3 class="rb-role-label">'
        f'{escape(ROLE_LABELS.get(role, role))}</h3>{"".join(items)}</div>'
        for role, items in blocks.items()
    )
    return (f'<div class="rb-role-tabs" role="tablist" aria-label="Commands by role">{tabs}</div>'
            f"{groups}")


def _source(origin: Mapping[str, Any]) -> str:
    """Where a line came from: the YAML path (or the builder's rule), its layer and file."""
    return (f'<span class="rb-lines-path">{escape(origin["path"])}</span> '
            f'<span class="rb-lines-layer">{escape(origin["layer"])}</span> '
            f'<span class="rb-lines-file">{escape(origin["file"])}</span>')


def _why(command: Command) -> str:
    """Each option and variable of a command with the recipe field (or builder rule) that
    set it, and what it replaced: a disclosure under the block (readable without hover)."""
    sources = command.get("sources") or {}
    items = []
    for name, origin in (sources.get("env") or {}).items():
        items.append(f'<li><code>{escape(name)}={escape(origin["value"])}</code> '
                     f"{_source(origin)}</li>")
    for origin in sources.get("args") or []:
        replaced = "".join(
            f'<li class="rb-lines-old">{"merged into" if old["merged"] else "replaced"} '
            f'<code>{escape(" ".join(old["option"]))}</code> {_source(old)}</li>'
            for old in origin.get("replaced") or [])
        items.append(f'<li><code>{escape(" ".join(origin["option"]))}</code> {_source(origin)}'
                     + (f"<ul>{replaced}</ul>" if replaced else "") + "</li>")
    if not items:
        return ""
    return ('<details class="rb-lines"><summary>Why each line?</summary>'
            f'<ul class="rb-lines-list">{"".join(items)}</ul></details>')


def _install(install: str, choice: Mapping[str, Any]) -> str:
    """The install command of the picked method, its note and the recipe's extra steps."""
    if not choice["command"]:
        return ""
    steps = "".join(
        f'<li><p>{escape(step["note"])}'
        + (' <span class="rb-optional">optional</span>' if step.get("optional") else "")
        + f'</p><pre class="rb-code"><code tabindex="0">{escape(step["command"])}</code></pre>'
        "</li>"
        for step in choice.get("dependencies") or [])
    note = f'<p class="rb-install-note">{escape(choice["note"])}</p>' if choice.get("note") else ""
    return (
        f'<div class="rb-install"><span class="rb-block-label">Install ({escape(install)})'
        '</span><pre class="rb-code"><code tabindex="0">'
        f'{escape(choice["command"])}</code></pre>{note}'
        + (f'<p class="rb-install-note">Then:</p><ol class="rb-steps">{steps}</ol>'
           if steps else "")
        + "</div>"
    )


def _output(result: Result) -> str:
    install = result["selection"]["install"]
    blocks = [_blocks(result)]
    install_html = _install(install, result["install"][install])
    notes = "".join(
        f'<div class="rb-note"><strong>{escape(note.get("title", ""))}</strong> '
        f'{escape(note.get("body", ""))}</div>'
        for note in result["notes"]
    )
    request = result.get("request")
    if request:
        index = len(result["commands"])
        notes = (
            f'<div class="rb-block rb-request" data-role="request"><div class="rb-block-head">'
            f'<span class="rb-block-label">Try it: {escape(request["label"])}</span>'
            f'<button type="button" class="rb-copy" data-copy="{index}" '
            f'aria-label="Copy: try it: {escape(request["label"])}">Copy</button></div>'
            f'<pre class="rb-code"><code tabindex="0">{escape(request["text"])}</code></pre>'
            "</div>"
        ) + notes
    return (
        f'<div class="rb-output" aria-live="polite">'
        f'<p class="rb-summary">{escape(result["summary"])}</p>{install_html}'
        f'{"".join(blocks)}{notes}</div>'
    )


def render_widget(
    catalog: Data,
    recipe: Data,
    result: Result,
    explicit: Mapping[str, str] | None = None,
    notice: str = "",
) -> str:
    """The whole widget for `result`; `explicit` is kept in a data attribute for the page."""
    rows = [_hardware_row(catalog, recipe, result)]
    options = choices(catalog, recipe)
    variants = recipe["variants"]
    rows.append(_simple_row("variant", result, [
        (vid, variants[vid].get("label") or vid, variants[vid].get("description", ""))
        for vid in options["variant"]]))
    if TASK in options:
        tasks = recipe["omni"]["tasks"]
        task_row = _Row(TASK, SELECTION_KEYS[TASK].label, result)
        rows.append(task_row.html("".join(
            task_row.pill(TASK, tid,
                          tasks[tid].get("label") or OMNI_KINDS[tasks[tid]["kind"]].label,
                          title=tasks[tid].get("description", ""))
            for tid in options[TASK])))
    strategies = catalog["strategies"]
    rows.append(_simple_row("strategy", result, [
        (sid, strategies[sid]["display_name"], strategies[sid]["description"].strip())
        for sid in options["strategy"]]))
    deploy = strategies[result["selection"]["strategy"]]["deploy_type"]
    if deploy in NODE_ROWS:
        rows.append(_simple_row("nodes", result, [
            (n, n, "") for n in options["nodes"]
            if n not in result["unavailable"].get("nodes", {})]))
    if deploy == "pd_cluster":
        rows.append(_simple_row("pd_connector", result, [
            (c, CONNECTOR_LABELS.get(c, c), "") for c in options["pd_connector"]]))
    if "kv_offload" in options:
        rows.append(_simple_row("kv_offload", result, [
            (t, OFFLOAD_LABELS.get(t, t), "") for t in options["kv_offload"]]))
    if recipe.get("features"):
        rows.append(_feature_rows(recipe, result))
    rows.append(_simple_row("frontend", result, [
        (f, FRONTEND_LABELS.get(f, f), "") for f in options["frontend"]]))
    rows.append(_simple_row("install", result, [
        (i, INSTALL_LABELS[i], "") for i in options["install"]]))
    notice_html = f'<p class="rb-notice" role="status">{escape(notice)}</p>' if notice else ""
    state = escape(json.dumps(dict(explicit or {}), sort_keys=True))
    foreign = escape(json.dumps({"keys": FOREIGN_KEYS, "prefixes": FOREIGN_PREFIXES}))
    return (
        f'<div class="rb-widget" data-hf-id="{escape(result["hf_id"])}" data-explicit="{state}" '
        f'data-foreign="{foreign}">'
        f'{notice_html}<div class="rb-rows">{"".join(rows)}</div>{_output(result)}</div>'
    )
