"""The command-builder widget as HTML: pills and output, made from a builder result.

The site prerenders it into every model page, with the widget of every click one away
(`neighbours`), which the page shows at once; for anything further the page's JavaScript calls
the very same `page_state` under Pyodide, then patches the markup in. The JavaScript never
decides what is pressed, disabled or shown. Every recipe string is escaped here.

Layout: the output (summary, commands with their Copy buttons, install, notes) comes first,
then the pill rows, then a compact bar (hidden until the page shows it, while the output is
scrolled away and the rows are on screen): the answer is in the first screen without a script.

Markup rules the page relies on:
- each pill row is one keyboard stop (roving tabindex): its pressed pill, else its first pill,
  has tabindex 0 and the others -1; the page's arrow keys move within the row;
- an unavailable pill keeps focus and points (`aria-describedby`) at its reason, a hidden
  paragraph under the row that the page shows when the pill is focused or tapped;
- a row shows at most SHOWN_UNAVAILABLE unavailable pills (besides a pressed one); the others
  are listed with their reasons in one "N more, unavailable" disclosure at the row's end;
- URL keys of other widgets and of the theme (FOREIGN_KEYS, FOREIGN_PREFIXES) are neither used
  nor reported: page_state hands them back untouched in `foreign`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict

from ..commands.build import Builder
from ..commands.deploy_types import deploy_type
from ..commands.fit import most_gpus
from ..commands.offering import recipe_support
from ..commands.omni_tasks import TASK
from ..commands.query import GPUS, PROFILE
from ..commands.selection import canonical_query, choices, parse_query
from ..errors import SelectionError, dropped_item, dropped_list
from ..html_text import escape
from ..types import Command, Data, Result, Sources
from ..vocabulary import (
    CONNECTORS,
    FOREIGN_KEYS,
    FOREIGN_PREFIXES,
    FRONTENDS,
    INSTALL_METHODS,
    OFF,
    OFFLOAD_TIERS,
    OMNI_KINDS,
    ON,
    PROFILES,
    ROLES,
    SELECTION_KEYS,
    feature_label,
    is_foreign,
)
from .files import files_html
from .performance import performance_html, performance_line

__all__ = ["click_query", "clicks", "neighbours", "page_state", "render_widget", "widget_pieces"]

# Labels come from the vocabulary registries (one per vocabulary).
ROW_LABELS = {key: spec.label for key, spec in SELECTION_KEYS.items()}
CONNECTOR_LABELS = {cid: connector.label for cid, connector in CONNECTORS.items()}
OFFLOAD_LABELS = {OFF: "Off", **{tid: tier.label for tid, tier in OFFLOAD_TIERS.items()}}
ROLE_LABELS = ROLES
FRONTEND_LABELS = {fid: frontend.label for fid, frontend in FRONTENDS.items()}
INSTALL_LABELS = INSTALL_METHODS
SHOWN_UNAVAILABLE = 3
"""A row shows at most this many unavailable pills; the rest sit in its "N more" list."""


class PageState(TypedDict):
    """What the page shows for a URL query (see `page_state`)."""

    explicit: dict[str, str]
    notice: str
    foreign: dict[str, str]
    result: Result
    html: str


def page_state(catalog: Data, recipe: Data,
               query: Mapping[str, str] | Sequence[Sequence[str]],
               builder: Builder | None = None,
               cache: RowCache | None = None,
               base: Mapping[str, str] | None = None) -> PageState:
    """What the page shows for a URL query (a mapping, or the URL's [key, value] pairs in
    order): bad keys/values are dropped with a notice, and so is a key given more than once
    (the command line refuses it too). The notice names at most NOTICE_ITEMS of them, each
    cut (`builder.errors.dropped_item`).

    `builder`: a `Builder` of this catalog and recipe kept across calls (the page's worker
    keeps one per recipe, so what does not depend on the query is worked out once), and
    `cache`: the rows made so far for this catalog and recipe (see `render_widget`).
    `base`: what the page itself selects (a variant's own page: `{"variant": id}`), which the
    URL's keys override and which is never dropped: a URL key that cannot be honoured falls
    back to it (`api` module docstring: one rule with the CLI).

    Returns `explicit` (the URL's keys that were honoured, to write back to the URL; the base
    is not among them unless the URL gave it), `notice` (one line, empty when nothing was
    dropped), `foreign` (the keys of other widgets and of the theme, untouched), `result` and
    `html`.
    """
    given: list[tuple[str, ...]] = (list(query.items()) if isinstance(query, Mapping)
                                    else [tuple(p) for p in query])
    # An earlier node-shaped hardware id is its GPU and count, said (a `gpus` the URL gives
    # wins); an earlier variant id is the variant's id now, said.
    renamed: list[str] = []
    pairs: list[tuple[str, ...]] = []
    for key, value in given:
        if key in ("variant", "hardware") and not is_foreign(key):
            canonical, said = canonical_query(recipe, {key: value}, catalog)
            renamed += said
            pairs += [(k, v) for k, v in canonical.items()
                      if k == key or not any(g == k for g, _ in given)]
        else:
            pairs.append((key, value))
    start = dict(base or {})
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
            dropped.append(dropped_item(key, value, "given twice"))
            continue
        try:
            parse_query(catalog, recipe, {key: value}, builder.choices)
        except SelectionError as error:
            dropped.append(dropped_item(key, value, error.reason))
            continue
        explicit[key] = value
    while True:
        try:
            result = builder.build(explicit, base=start)
            break
        except SelectionError as error:
            blamed = error.key
            if blamed in explicit and explicit[blamed] != start.get(blamed):
                dropped.append(dropped_item(blamed, explicit.pop(blamed), error.reason))
                continue
            # Blamed on a key the URL did not give, or on the page's own base: drop the URL's
            # last other choice.
            droppable = [k for k, v in explicit.items() if v != start.get(k)]
            if not droppable:
                raise  # the page's own selection does not build
            key = droppable[-1]
            dropped.append(dropped_item(key, explicit.pop(key), f"{blamed}: {error.reason}"))
    notice = "; ".join(renamed)
    if dropped:
        listed = dropped_list(dropped)
        instead = "this page's defaults" if start else "defaults"
        notice += ((". " if notice else "") + f"Ignored from the URL, showing {instead} "
                   f"instead: {listed}")
    return {
        "explicit": explicit,
        "notice": notice,
        "foreign": foreign,
        "result": result,
        "html": render_widget(catalog, recipe, result, explicit, notice, cache),
    }


def clicks(builder: Builder, result: Result) -> list[list[str]]:
    """The choices a click can make next to `result`, as [key, value]: every value of every
    key that is neither the current one nor unavailable (what the page's worker works out
    ahead of the reader's clicks)."""
    selection, unavailable = result["selection"], result["unavailable"]
    # A GPU count is a rarer click: the page asks its Python for it when it comes (one
    # prerendered state per count would double a page's bytes).
    return [[key, value] for key, values in builder.choices.items() for value in values
            if value != selection.get(key) and value not in unavailable.get(key, {})
            and key != GPUS]


_TABINDEX = re.compile(r'tabindex="<(\d+)>"')
"""The placeholder `_Row.pill` writes for a pill's tab index, settled by `_Row.pieces`."""

Pieces = tuple[str, ...]
"""HTML in pieces: joined, they are the markup (see `neighbours`)."""
RowCache = dict[tuple[object, ...], Any]
"""Rows and pills already made, by what they depend on (see `render_widget`)."""


class _Row:
    """One row of pills: a keyboard stop of its own (roving tabindex), the reasons of its
    unavailable pills, each in a hidden paragraph under the row (`aria-describedby`), and,
    past SHOWN_UNAVAILABLE of them, the rest listed with their reasons in one disclosure.

    A row reads only `selection[k]` and `unavailable[k]` of the keys k of its pills: what
    `_row_key` makes its cache key of."""

    def __init__(self, key: str, label: str, result: Result, *, fold: bool = True,
                 cache: RowCache | None = None) -> None:
        self.key = key
        self.label = label
        self.result = result
        self.fold = fold
        self.cache = cache
        self.ident = "".join(c if c.isalnum() or c in "-_" else "-" for c in key)
        self.pressed: list[bool] = []
        self.reasons: list[str] = []
        self.folded: list[str] = []

    def pill(self, key: str, value: str, label: str, *, extra: str = "", title: str = "",
             pressed: bool | None = None) -> str:
        """The pill's button (empty when it is folded into the row's "N more" list)."""
        result = self.result
        if pressed is None:
            pressed = result["selection"].get(key) == value
        reason = result["unavailable"].get(key, {}).get(value)
        folded = bool(reason and not pressed and self.fold
                      and len(self.reasons) >= SHOWN_UNAVAILABLE)
        # Everything the markup depends on, its place in the row included.
        memo = ("pill", self.ident, key, value, label, extra, title, pressed, reason, folded,
                len(self.pressed), len(self.reasons))
        made = self.cache.get(memo) if self.cache is not None else None
        if made is None:
            made = self._markup(key, value, label, extra, title, pressed, reason, folded)
            if self.cache is not None:
                self.cache[memo] = made
        button, why = made
        if folded:
            self.folded.append(why)
            return ""
        self.pressed.append(pressed)
        if why:
            self.reasons.append(why)
        return button

    def _markup(self, key: str, value: str, label: str, extra: str, title: str,
                pressed: bool, reason: str | None, folded: bool) -> Pieces:
        """(the pill's button, its reason's paragraph); folded: ("", its list item)."""
        if folded:
            return ("", f'<li class="rb-more-item" data-key="{escape(key)}" '
                        f'data-value="{escape(value)}"><span class="rb-more-name">'
                        f'{escape(label)}</span> <span class="rb-more-why">{escape(reason or "")}'
                        "</span></li>")
        attrs = [
            'type="button"',
            'class="rb-pill"',
            f'data-key="{escape(key)}"',
            f'data-value="{escape(value)}"',
            f'aria-pressed="{"true" if pressed else "false"}"',
            # Settled in pieces(); "<" cannot occur in escaped text.
            f'tabindex="<{len(self.pressed)}>"',
        ]
        why = ""
        if reason:
            ident = f"rb-why-{self.ident}-{len(self.reasons)}"
            why = f'<p class="rb-why" id="{ident}" hidden>{escape(reason)}</p>'
            attrs += ['aria-disabled="true"', f'aria-describedby="{ident}"',
                      f'title="{escape(reason)}"']
        elif title:
            attrs.append(f'title="{escape(title)}"')
        return (f"<button {' '.join(attrs)}>{escape(label)}{extra}</button>", why)

    def pieces(self, body: list[str], legend: str = "") -> Pieces:
        """The row around `body` (this row's pills, in any wrapping); `legend`: a note
        beside the row's label."""
        stop = self.pressed.index(True) if True in self.pressed else 0
        settle = (lambda m: f'tabindex="{0 if int(m.group(1)) == stop else -1}"')  # noqa: E731
        label = (f'<span class="rb-row-label" id="rb-row-{self.ident}">{escape(self.label)}'
                 "</span>")
        if legend:  # beside the label, not part of the row's name
            label = (f'<span class="rb-row-label"><span id="rb-row-{self.ident}">'
                     f"{escape(self.label)}</span>{legend}</span>")
        out = [f'<div class="rb-row" role="group" aria-labelledby="rb-row-{self.ident}" '
               f'data-row="{escape(self.key)}">{label}<div class="rb-pills">']
        out += [_TABINDEX.sub(settle, piece) if 'tabindex="<' in piece else piece
                for piece in body if piece]
        if self.folded:
            out.append(f'<details class="rb-more"><summary>{len(self.folded)} more, '
                       'unavailable</summary><ul class="rb-more-list">')
            out += self.folded
            out.append("</ul></details>")
        out.append("</div>")
        if self.reasons:
            out += ['<div class="rb-whys">', *self.reasons, "</div>"]
        out.append("</div>")
        return tuple(out)


def _row_key(result: Result, name: str, keys: Sequence[str]) -> tuple[object, ...]:
    """What a row made of pills of `keys` depends on in `result` (see `_Row`)."""
    selection, unavailable = result["selection"], result["unavailable"]
    return (name, *((key, selection.get(key), tuple(sorted(unavailable.get(key, {}).items())))
                    for key in keys))


def _simple_row(key: str, result: Result, pills: list[tuple[str, str, str]],
                cache: RowCache | None = None) -> Pieces:
    """A row of (value, label, title) pills for `key`."""
    row = _Row(key, ROW_LABELS[key], result, cache=cache)
    return row.pieces([row.pill(key, value, label, title=title)
                       for value, label, title in pills])


def _hardware_row(catalog: Data, recipe: Data, result: Result,
                  cache: RowCache | None = None) -> Pieces:
    row = _Row("hardware", ROW_LABELS["hardware"], result, cache=cache)
    verified = False
    offered: list[tuple[str, Data, str]] | None = None
    if cache is not None:
        offered = cache.get(("offered",))
    if offered is None:
        offered = [(hw_id, hw, support) for hw_id, hw in catalog["hardware"].items()
                   if (support := recipe_support(recipe, hw_id, hw)) is not None]
        if cache is not None:
            cache[("offered",)] = offered
    body = []
    chosen = result["selection"]["hardware"]
    for brand_id, brand in catalog["brands"].items():
        pills: list[str] = []
        cards: list[str] = []
        for hw_id, hw, support in offered:
            if hw["brand"] != brand_id:
                continue
            mark = ""
            if support == "verified":
                verified = True
                mark = '<span class="rb-verified" aria-label="verified" title="verified">✓</span>'
            extra = f' <small class="rb-mem">{hw["gpu_count"]}×{hw["memory_gb"]} GB</small>{mark}'
            # Single cards (a `max_gpus` of their own) fold under the nodes, so that a
            # phone's screen shows the row and the command together.
            (cards if hw.get("max_gpus") else pills).append(row.pill(
                "hardware", hw_id, hw["display_name"], extra=extra, title=hw["description"]))
        if cards:
            is_open = " open" if catalog["hardware"][chosen].get("max_gpus") and (
                catalog["hardware"][chosen]["brand"] == brand_id) else ""
            pills.append(f'<details class="rb-more rb-cards"{is_open}><summary>'
                         f'{len(cards)} single GPUs</summary>{"".join(cards)}</details>')
        if pills:
            body += [f'<div class="rb-brand" data-brand="{escape(brand_id)}">'
                     f'<span class="rb-brand-label">{escape(brand["display_name"])}</span>',
                     *pills, "</div>"]
    legend = ('<small class="rb-legend"><span class="rb-verified">✓</span> verified</small>'
              if verified else "")
    return row.pieces(body, legend)


def _feature_rows(recipe: Data, result: Result, cache: RowCache | None = None) -> Pieces:
    # Not folded: a feature's toggle and its modes stay together (no recipe has more than
    # one unavailable feature pill at a time).
    row = _Row("features", "Features", result, fold=False, cache=cache)
    body = []
    for fid, feature in recipe.get("features", {}).items():
        label = feature_label(fid, feature)
        value = result["selection"][fid]
        on = value != "off"
        body.append(f'<div class="rb-feature" data-feature="{escape(fid)}">')
        # A toggle is pressed when the feature is on; clicking it asks for the other state.
        body.append(row.pill(fid, "off" if on else "on", label,
                             title=feature.get("description", ""), pressed=on))
        modes = feature.get("modes") or {}
        if on and len(modes) > 1:
            body.append('<div class="rb-modes">')
            body += [row.pill(fid, mid, mode["label"], title=mode.get("description", ""))
                     for mid, mode in modes.items()]
            body.append("</div>")
        body.append("</div>")
    return row.pieces(body)


def _blocks(result: Result, cache: RowCache | None = None) -> list[str]:
    """One block per command, each with its copy button. With several commands, the blocks of
    each role (head, worker, prefill, decode, router, ...) sit in one `rb-role` group, in
    order of first appearance, after a tab list naming the roles."""
    install = result["selection"]["install"]
    blocks: dict[str, list[str]] = {}
    for index, command in enumerate(result["commands"]):
        text = command["docker_text"] if install == "docker" and command["docker_text"] else (
            command["shell"])
        blocks.setdefault(command["role"], []).extend([
            f'<div class="rb-block" data-role="{escape(command["role"])}">'
            f'<div class="rb-block-head"><span class="rb-block-label">{escape(command["label"])}'
            f'</span><button type="button" class="rb-copy" data-copy="{index}" '
            f'aria-label="Copy: {escape(command["label"])}">Copy</button></div>',
            f'<pre class="rb-code"><code tabindex="0">{escape(text)}</code></pre>',
            *_why(command, cache), "</div>"])
    if len(result["commands"]) == 1:
        return blocks.popitem()[1]
    counts = {role: sum(1 for command in result["commands"] if command["role"] == role)
              for role in blocks}
    tabs = "".join(
        f'<button type="button" class="rb-role-tab" role="tab" data-role-tab="{escape(role)}" '
        f'aria-selected="{"true" if i == 0 else "false"}">'
        f'{escape(ROLE_LABELS.get(role, role))} <small>{counts[role]}</small></button>'
        for i, role in enumerate(blocks)
    )
    out = [f'<div class="rb-role-tabs" role="tablist" aria-label="Commands by role">{tabs}</div>']
    for role, items in blocks.items():
        count = counts[role]
        out += [f'<div class="rb-role" role="tabpanel" data-role="{escape(role)}" '
                f'data-count="{count}"><h3 class="rb-role-label">'
                f'{escape(ROLE_LABELS.get(role, role))}</h3>', *items, "</div>"]
    return out


def _source(origin: Mapping[str, Any]) -> str:
    """Where a line came from: the YAML path (or the builder's rule), its layer and file."""
    return (f'<span class="rb-lines-path">{escape(origin["path"])}</span> '
            f'<span class="rb-lines-layer">{escape(origin["layer"])}</span> '
            f'<span class="rb-lines-file">{escape(origin["file"])}</span>')


def _why(command: Command, cache: RowCache | None = None) -> list[str]:
    """Each option and variable of a command with the recipe field (or builder rule) that
    set it, and what it replaced: a disclosure under the block (readable without hover).
    Each line is made once per `cache` (most lines are the same from click to click)."""
    sources = command.get("sources") or Sources(args=[], env={})
    items = []
    for name, origin in (sources.get("env") or {}).items():
        memo: tuple[object, ...] = ("env", name, origin["value"], origin["path"],
                                    origin["layer"], origin["file"])
        item = cache.get(memo) if cache is not None else None
        if item is None:
            item = (f'<li><code>{escape(name)}={escape(origin["value"])}</code> '
                    f"{_source(origin)}</li>")
            if cache is not None:
                cache[memo] = item
        items.append(item)
    for arg in sources.get("args") or []:
        olds = arg.get("replaced") or []
        memo = ("arg", tuple(arg["option"]), arg["path"], arg["layer"], arg["file"],
                *((tuple(old["option"]), old["merged"], old["path"], old["layer"], old["file"])
                  for old in olds))
        item = cache.get(memo) if cache is not None else None
        if item is None:
            replaced = "".join(
                f'<li class="rb-lines-old">{"merged into" if old["merged"] else "replaced"} '
                f'<code>{escape(" ".join(old["option"]))}</code> {_source(old)}</li>'
                for old in olds)
            item = (f'<li><code>{escape(" ".join(arg["option"]))}</code> {_source(arg)}'
                    + (f"<ul>{replaced}</ul>" if replaced else "") + "</li>")
            if cache is not None:
                cache[memo] = item
        items.append(item)
    if not items:
        return []
    return ['<details class="rb-lines"><summary>Why each line?</summary>'
            '<ul class="rb-lines-list">', *items, "</ul></details>"]


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


def _output(catalog: Data, recipe: Data, result: Result, cache: RowCache | None = None
            ) -> list[str]:
    """The answer: the summary, the release the commands were checked with, the commands with
    their Copy buttons, the request to try (`_requests`), the deployment files (`files_html`),
    then the install for the picked method and the notes.

    All but the notes (which also say what the explicit choices turned off) come from the
    rendering of the selection alone (`Builder.build`): they are made once per selection in
    `cache`, however many queries lead to it."""
    key = ("answer", *result["selection"].items())
    head: Pieces | None = cache.get(key) if cache is not None else None
    if head is None:
        head = _answer(catalog, recipe, result, cache)
        if cache is not None:
            cache[key] = head
    return [*head,
            *(f'<div class="rb-note"><strong>{escape(note.get("title", ""))}</strong> '
              f'{escape(note.get("body", ""))}</div>' for note in result["notes"]),
            "</div>"]


def _answer(catalog: Data, recipe: Data, result: Result, cache: RowCache | None) -> Pieces:
    """`_output`'s pieces before the notes."""
    install = result["selection"]["install"]
    out = ['<div class="rb-output" aria-live="polite">',
           f'<p class="rb-summary">{escape(result["summary"])}</p>']
    fit = result.get("fit")
    if fit:  # what fits the GPUs, beside the summary
        out.append(f'<p class="rb-fit">{escape(fit["line"])}</p>')
    perf = performance_line(result.get("performance"))
    if perf:  # how fast: measured, else estimated (with its source), else "no estimate"
        out.append(perf)
    checked = result["install"][install].get("checked_with")
    if checked:  # beside the command: the release whose parser accepted it
        out.append(f'<p class="rb-checked">{escape(checked)}</p>')
    out += _blocks(result, cache)
    more = performance_html(result.get("performance"))
    if more:  # how fast, one tap away: measured points, the table of every workload
        out.append(more)
    out += _requests(result)
    out.append(files_html(catalog, recipe, result))
    out.append(_install(install, result["install"][install]))
    return tuple(out)


def _request_block(role: str, label: str, index: int, text: str) -> str:
    return (f'<div class="rb-block rb-request" data-role="{role}"><div class="rb-block-head">'
            f'<span class="rb-block-label">{escape(label)}</span>'
            f'<button type="button" class="rb-copy" data-copy="{index}" '
            f'aria-label="Copy: {escape(label)}">Copy</button></div>'
            f'<pre class="rb-code"><code tabindex="0">{escape(text)}</code></pre></div>')


def _requests(result: Result) -> list[str]:
    """What to send the server once it is up (`result["example_requests"]`): the curl with its
    Copy, where the answer comes back, and the same request with the OpenAI Python client in a
    disclosure. One piece per request, so the page's neighbours share it."""
    out = []
    index = len(result["commands"])
    for request in result.get("example_requests") or []:
        label = request["label"]
        piece = [f'<div class="rb-requests" data-kind="{escape(request["kind"])}">',
                 _request_block("request", f"Try it: {label}", index, request["curl"])]
        if request["answer"]:
            piece.append(f'<p class="rb-request-answer">The answer: '
                         f'<code>{escape(request["answer"])}</code></p>')
        if request["python"]:
            piece += ['<details class="rb-request-python"><summary>The same with the OpenAI '
                      'Python client</summary>',
                      _request_block("request-python", f"Python: {label}", index + 1,
                                     request["python"]), "</details>"]
        out.append("".join(piece) + "</div>")
        index += 2
    return out


def _bar(result: Result) -> str:
    """The compact bar the page pins to the bottom of the screen while the reader is among
    the rows and the output is scrolled away: the summary (already read out above: hidden
    from assistive technology), a way back to the output and, for a single command, Copy."""
    commands = result["commands"]
    count = len(commands)
    show = "Show the command" if count == 1 else f"Show the {count} commands"
    copy = ""
    if count == 1:
        copy = (f'<button type="button" class="rb-copy" data-copy="0" '
                f'aria-label="Copy: {escape(commands[0]["label"])}">Copy</button>')
    return (f'<div class="rb-bar"><p class="rb-bar-summary" aria-hidden="true">'
            f'{escape(result["summary"])}</p><button type="button" class="rb-bar-show">'
            f"{show}</button>{copy}</div>")


def _rows(catalog: Data, recipe: Data, result: Result, cache: RowCache | None) -> list[str]:
    """The pill rows, each from `cache` when a row with the same inputs was made before."""
    options = choices(catalog, recipe)
    strategies = catalog["strategies"]
    variants = recipe["variants"]

    def row(name: str, keys: Sequence[str], make: Callable[[], Pieces]) -> Pieces:
        if cache is None:
            return make()
        key = _row_key(result, name, keys)
        made = cache.get(key)
        if made is None:
            made = cache[key] = make()
        return made

    def simple(key: str, pills: Callable[[], list[tuple[str, str, str]]]) -> Pieces:
        return row(key, (key,), lambda: _simple_row(key, result, pills(), cache))

    rows = [
        row("hardware", ("hardware",), lambda: _hardware_row(catalog, recipe, result, cache)),
        simple("variant", lambda: [
            (vid, variants[vid].get("label") or vid, variants[vid].get("description", ""))
            for vid in options["variant"]]),
    ]
    if TASK in options:
        tasks = recipe["omni"]["tasks"]
        rows.append(simple(TASK, lambda: [
            (tid, tasks[tid].get("label") or OMNI_KINDS[tasks[tid]["kind"]].label,
             tasks[tid].get("description", "")) for tid in options[TASK]]))
    rows.append(simple("strategy", lambda: [
        (sid, strategies[sid]["display_name"], strategies[sid]["description"].strip())
        for sid in options["strategy"]]))
    if GPUS in result["selection"]:  # single-node strategies: up to the node's most GPUs
        most = most_gpus(catalog["hardware"][result["selection"]["hardware"]])
        rows.append(row(GPUS, (GPUS, "hardware"), lambda: _simple_row(
            GPUS, result, [(n, n, "") for n in options[GPUS][:most]], cache)))
    deploy = deploy_type(strategies[result["selection"]["strategy"]])
    if deploy.nodes_row:
        rows.append(simple("nodes", lambda: [
            (n, n, "") for n in options["nodes"]
            if n not in result["unavailable"].get("nodes", {})]))
    rows.append(simple(PROFILE, lambda: [
        (p, PROFILES[p].label, f"the estimated layout with the most {PROFILES[p].goal}"
         if PROFILES[p].goal else "the recipe's command") for p in options[PROFILE]]))
    if deploy.picks_connector:
        rows.append(simple("pd_connector", lambda: [
            (c, CONNECTOR_LABELS.get(c, c), "") for c in options["pd_connector"]]))
    if "kv_offload" in options:
        rows.append(simple("kv_offload", lambda: [
            (t, OFFLOAD_LABELS.get(t, t), "") for t in options["kv_offload"]]))
    features = recipe.get("features")
    if features:
        rows.append(row("features", tuple(features), lambda: _feature_rows(recipe, result, cache)))
    rows.append(simple("frontend", lambda: [
        (f, FRONTEND_LABELS.get(f, f), "") for f in options["frontend"]]))
    rows.append(simple("install", lambda: [
        (i, INSTALL_LABELS[i], "") for i in options["install"]]))
    return ['<div class="rb-rows">', *(piece for made in rows for piece in made), "</div>"]


def widget_pieces(
    catalog: Data,
    recipe: Data,
    result: Result,
    explicit: Mapping[str, str] | None = None,
    notice: str = "",
    cache: RowCache | None = None,
) -> list[str]:
    """`render_widget`'s markup in pieces (empty ones left out)."""
    state = escape(json.dumps(dict(explicit or {}), sort_keys=True))
    foreign = escape(json.dumps({"keys": FOREIGN_KEYS, "prefixes": FOREIGN_PREFIXES}))
    pieces = [
        f'<div class="rb-widget" data-hf-id="{escape(result["hf_id"])}"',
        f' data-explicit="{state}"',
        f' data-foreign="{foreign}">',
        f'<p class="rb-notice" role="status">{escape(notice)}</p>' if notice else "",
        *_output(catalog, recipe, result, cache),
        *_rows(catalog, recipe, result, cache),
        _bar(result),
        "</div>",
    ]
    return [piece for piece in pieces if piece]


def render_widget(
    catalog: Data,
    recipe: Data,
    result: Result,
    explicit: Mapping[str, str] | None = None,
    notice: str = "",
    cache: RowCache | None = None,
) -> str:
    """The whole widget for `result`; `explicit` is kept in a data attribute for the page.
    `cache`: rows made for other results of the same catalog and recipe, reused where their
    inputs are the same (a dict the caller keeps; rows made here are added to it)."""
    return "".join(widget_pieces(catalog, recipe, result, explicit, notice, cache))


def click_query(explicit: Mapping[str, str], key: str, value: str) -> list[list[str]]:
    """The query the page sends for a click on pill (key, value) in a state that honoured
    `explicit`: its choices in the order the page reads them (the widget's data-explicit,
    sorted by key) without `key`, then the click (recipe-builder.js withChoice)."""
    return [[k, v] for k, v in sorted(explicit.items()) if k != key] + [[key, value]]


def neighbours(catalog: Data, recipe: Data, explicit: Mapping[str, str], result: Result,
               builder: Builder, cache: RowCache | None = None) -> dict[str, object]:
    """What the widget shows one click away from the state of `explicit` (whose `result` it
    is), for every click `clicks` lists: the page shows these at once, before its Python has
    started, and asks Python for anything further.

    Returns {"parts": [html, ...], "states": {query: {"explicit": {...}, "html": [...]}}}:
    `query` is the JSON text of the click's `click_query` pairs (compact separators); a
    state's html is its widget's pieces, each the index of a part or [first, last] for a run
    of consecutive parts; joined, they are page_state's html for that query."""
    cache = {} if cache is None else cache
    parts: list[str] = []
    index: dict[str, int] = {}
    states: dict[str, object] = {}
    selection = result["selection"]
    # A click on a pressed pill asks for its value explicitly (and on the way back, after
    # another click, it is the click that returns): the same selection, another query.
    pressed = [[key, value] for key in builder.choices
               if key not in explicit and (value := selection.get(key)) is not None
               and not (key in recipe.get("features", {}) and value in (ON, OFF))]
    for key, value in [*clicks(builder, result), *pressed]:
        query = click_query(explicit, key, value)
        honoured = dict(query)
        try:
            after = builder.build(honoured)
        except SelectionError:  # `clicks` lists what builds: not expected
            continue
        runs: list[int | list[int]] = []
        for piece in widget_pieces(catalog, recipe, after, honoured, "", cache):
            at = index.get(piece)
            if at is None:
                at = index[piece] = len(parts)
                parts.append(piece)
            last = runs[-1] if runs else None
            if isinstance(last, list) and last[1] + 1 == at:
                last[1] = at
            elif isinstance(last, int) and last + 1 == at:
                runs[-1] = [last, at]
            else:
                runs.append(at)
        states[json.dumps(query, separators=(",", ":"), ensure_ascii=False)] = {
            "explicit": honoured, "html": runs}
    return {"parts": parts, "states": states}
