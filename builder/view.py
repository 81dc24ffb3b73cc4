"""The command-builder widget as HTML: pills and output, made from a builder result.

The site prerenders it into every model page and the page's JavaScript calls the very same
function under Pyodide after each click, then swaps the markup in. The JavaScript never decides
what is pressed, disabled or shown. Every recipe string is escaped here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape

from .api import build
from .errors import SelectionError
from .offering import recipe_support
from .omni_tasks import TASK
from .selection import choices, parse_query
from .types import Data, Result
from .vocabulary import OMNI_KINDS, SELECTION_KEYS

__all__ = ["page_state", "render_widget"]

ROW_LABELS = {
    "hardware": "Hardware",
    "variant": "Variant",
    "strategy": "Strategy",
    "nodes": "Nodes",
    "pd_connector": "KV connector",
    "kv_offload": "KV offload",
    "frontend": "Frontend",
    "install": "Install",
}
CONNECTOR_LABELS = {"nixl": "NIXL", "mooncake": "Mooncake"}
OFFLOAD_LABELS = {"off": "Off", "cpu": "CPU", "fs": "CPU + filesystem"}
ROLE_LABELS = {
    "serve": "Serve",
    "head": "Head node",
    "worker": "Worker nodes",
    "prefill": "Prefill",
    "decode": "Decode",
    "router": "Router",
    "master": "Mooncake master",
    "config": "Store config",
    "store": "Mooncake store",
}
NODE_ROWS = ("multi_node", "kv_store")
"""Deploy types whose node count the user picks (a `nodes` row)."""
FRONTEND_LABELS = {"rust": "Rust", "python": "Python"}
INSTALL_LABELS = {"pip": "pip", "docker": "Docker"}


def page_state(catalog: Data, recipe: Data, query: Mapping[str, str]) -> dict[str, object]:
    """What the page shows for a URL query: bad keys/values are dropped with a notice.

    Returns `explicit` (the query that was honoured, to write back to the URL), `notice`
    (one line, empty when nothing was dropped), `result` and `html`.
    """
    explicit: dict[str, str] = {}
    dropped: list[str] = []
    for key, value in query.items():
        try:
            parse_query(catalog, recipe, {key: value})
        except SelectionError as error:
            dropped.append(f"{key}={value} ({error.reason})")
            continue
        explicit[key] = value
    while True:
        try:
            result = build(catalog, recipe, explicit)
            break
        except SelectionError as error:
            value = explicit.pop(error.key, None)
            if value is None:  # blamed on a key that was not given: drop the last choice
                key = next(reversed(explicit))
                value = explicit.pop(key)
                dropped.append(f"{key}={value} ({error.key}: {error.reason})")
            else:
                dropped.append(f"{error.key}={value} ({error.reason})")
    notice = ""
    if dropped:
        notice = "Ignored from the URL, showing defaults instead: " + "; ".join(dropped)
    return {
        "explicit": explicit,
        "notice": notice,
        "result": result,
        "html": render_widget(catalog, recipe, result, explicit, notice),
    }


def _pill(key: str, value: str, label: str, result: Result, *, extra: str = "",
          title: str = "", pressed: bool | None = None) -> str:
    if pressed is None:
        pressed = result["selection"].get(key) == value
    reason = result["unavailable"].get(key, {}).get(value)
    attrs = [
        'type="button"',
        'class="rb-pill"',
        f'data-key="{escape(key)}"',
        f'data-value="{escape(value)}"',
        f'aria-pressed="{"true" if pressed else "false"}"',
    ]
    if reason:
        attrs.append('aria-disabled="true"')
        attrs.append(f'title="{escape(reason)}"')
    elif title:
        attrs.append(f'title="{escape(title)}"')
    return f"<button {' '.join(attrs)}>{escape(label)}{extra}</button>"


def _row(key: str, label: str, body: str) -> str:
    return (
        f'<div class="rb-row" role="group" aria-label="{escape(label)}" data-row="{escape(key)}">'
        f'<span class="rb-row-label">{escape(label)}</span><div class="rb-pills">{body}</div></div>'
    )


def _hardware_row(catalog: Data, recipe: Data, result: Result) -> str:
    groups = []
    for brand_id, brand in catalog["brands"].items():
        pills = []
        for hw_id, hw in catalog["hardware"].items():
            support = recipe_support(recipe, hw_id, hw)
            if hw["brand"] != brand_id or support is None:
                continue
            mark = ""
            if support == "verified":
                mark = '<span class="rb-verified" aria-label="verified" title="verified">✓</span>'
            extra = f' <small class="rb-mem">{hw["gpu_count"]}×{hw["memory_gb"]} GB</small>{mark}'
            pills.append(_pill("hardware", hw_id, hw["display_name"], result, extra=extra,
                               title=hw["description"]))
        if pills:
            groups.append(
                f'<div class="rb-brand" data-brand="{escape(brand_id)}">'
                f'<span class="rb-brand-label">{escape(brand["display_name"])}</span>'
                f'{"".join(pills)}</div>'
            )
    return _row("hardware", ROW_LABELS["hardware"], "".join(groups))


def _feature_rows(recipe: Data, result: Result) -> str:
    rows = []
    for fid, feature in recipe.get("features", {}).items():
        label = feature.get("label") or fid.replace("_", " ").capitalize()
        value = result["selection"][fid]
        on = value != "off"
        # A toggle is pressed when the feature is on; clicking it asks for the other state.
        toggle = _pill(fid, "off" if on else "on", label, result,
                       title=feature.get("description", ""), pressed=on)
        modes = feature.get("modes") or {}
        nested = ""
        if on and len(modes) > 1:
            nested = '<div class="rb-modes">' + "".join(
                _pill(fid, mid, mode["label"], result, title=mode.get("description", ""))
                for mid, mode in modes.items()
            ) + "</div>"
        rows.append(f'<div class="rb-feature" data-feature="{escape(fid)}">{toggle}{nested}</div>')
    return _row("features", "Features", "".join(rows))


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
            f'</span><button type="button" class="rb-copy" data-copy="{index}">Copy</button></div>'
            f'<pre class="rb-code"><code>{escape(text)}</code></pre></div>'
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
        f'data-count="{len(items)}"><h4 class="rb-role-label">'
        f'{escape(ROLE_LABELS.get(role, role))}</h4>{"".join(items)}</div>'
        for role, items in blocks.items()
    )
    return f'<div class="rb-role-tabs" role="tablist">{tabs}</div>{groups}'


def _output(result: Result) -> str:
    install = result["selection"]["install"]
    blocks = [_blocks(result)]
    choice = result["install"][install]
    install_html = ""
    if choice["command"]:
        install_html = (
            f'<div class="rb-install"><span class="rb-block-label">Install ({escape(install)})'
            f'</span><pre class="rb-code"><code>{escape(choice["command"])}</code></pre></div>'
        )
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
            f'<button type="button" class="rb-copy" data-copy="{index}">Copy</button></div>'
            f'<pre class="rb-code"><code>{escape(request["text"])}</code></pre></div>'
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
    rows.append(_row("variant", ROW_LABELS["variant"], "".join(
        _pill("variant", vid, variants[vid].get("label") or vid, result,
              title=variants[vid].get("description", ""))
        for vid in options["variant"])))
    if TASK in options:
        tasks = recipe["omni"]["tasks"]
        rows.append(_row(TASK, SELECTION_KEYS[TASK].label, "".join(
            _pill(TASK, tid, tasks[tid].get("label") or OMNI_KINDS[tasks[tid]["kind"]].label,
                  result, title=tasks[tid].get("description", ""))
            for tid in options[TASK])))
    strategies = catalog["strategies"]
    rows.append(_row("strategy", ROW_LABELS["strategy"], "".join(
        _pill("strategy", sid, strategies[sid]["display_name"], result,
              title=strategies[sid]["description"].strip())
        for sid in options["strategy"])))
    deploy = strategies[result["selection"]["strategy"]]["deploy_type"]
    if deploy in NODE_ROWS:
        rows.append(_row("nodes", ROW_LABELS["nodes"], "".join(
            _pill("nodes", n, n, result) for n in options["nodes"]
            if n not in result["unavailable"].get("nodes", {}))))
    if deploy == "pd_cluster":
        rows.append(_row("pd_connector", ROW_LABELS["pd_connector"], "".join(
            _pill("pd_connector", c, CONNECTOR_LABELS.get(c, c), result)
            for c in options["pd_connector"])))
    if "kv_offload" in options:
        rows.append(_row("kv_offload", ROW_LABELS["kv_offload"], "".join(
            _pill("kv_offload", t, OFFLOAD_LABELS.get(t, t), result)
            for t in options["kv_offload"])))
    if recipe.get("features"):
        rows.append(_feature_rows(recipe, result))
    rows.append(_row("frontend", ROW_LABELS["frontend"], "".join(
        _pill("frontend", f, FRONTEND_LABELS.get(f, f), result) for f in options["frontend"])))
    rows.append(_row("install", ROW_LABELS["install"], "".join(
        _pill("install", i, INSTALL_LABELS[i], result) for i in options["install"])))
    notice_html = f'<p class="rb-notice" role="status">{escape(notice)}</p>' if notice else ""
    state = escape(json.dumps(dict(explicit or {}), sort_keys=True))
    return (
        f'<div class="rb-widget" data-hf-id="{escape(result["hf_id"])}" data-explicit="{state}">'
        f'{notice_html}<div class="rb-rows">{"".join(rows)}</div>{_output(result)}</div>'
    )
