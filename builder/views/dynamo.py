"""The "Deploy with NVIDIA Dynamo" widget as HTML, made from a `builder.dynamo` result.

The site prerenders it into the model page; the page's JavaScript (docs/javascripts/dynamo.js)
calls the same `page_state` under Pyodide after each click and swaps the markup in. Which pills
are pressed or disabled, the reasons, the steps and the comparison all come from here. Every
string from the data is escaped; `code` spans (backticks) are the only markup data may use.

URL state: the widget's keys are the selection keys with the `dynamo_` prefix
(`dynamo_framework`, `dynamo_gpu`, `dynamo_topology`); other keys belong to the page's main
builder and are left alone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..dynamo import targets as dynamo
from ..errors import SelectionError, dropped_item, dropped_list
from ..html_text import escape
from ..types import Data

__all__ = ["URL_PREFIX", "page_state", "render_widget", "url_key"]

URL_PREFIX = "dynamo_"
ROW_LABELS = {"framework": "Framework", "gpu": "GPU", "topology": "Topology"}
PERF_COLUMNS = (
    ("recipe", "Recipe"),
    ("framework_label", "Framework"),
    ("sku", "SKU"),
    ("concurrency", "Concurrency"),
    ("output_tok_s_per_gpu", "Output tok/s/GPU"),
    ("user_tok_s_p50", "User tok/s (P50)"),
    ("ttft_p50_ms", "TTFT P50 (ms)"),
    ("ttft_p90_ms", "TTFT P90 (ms)"),
)


def url_key(key: str) -> str:
    return URL_PREFIX + key


def page_state(data: Data, query: Mapping[str, str]) -> dict[str, object]:
    """What the widget shows for a URL query. Keys without the `dynamo_` prefix are ignored;
    bad keys, values and unavailable choices are dropped with a notice (cut and printable:
    `builder.errors.dropped_item`).

    Returns `explicit` (the honoured URL keys, to write back to the URL), `notice` (one line,
    empty when nothing was dropped), `result` and `html`."""
    explicit: dict[str, str] = {}
    dropped: list[str] = []
    for name, value in query.items():
        if not name.startswith(URL_PREFIX):
            continue
        key = name.removeprefix(URL_PREFIX)
        try:
            dynamo.parse_query(data, {key: value})
        except SelectionError as error:
            dropped.append(dropped_item(name, value, error.reason))
            continue
        explicit[key] = value
    while True:
        try:
            result = dynamo.build(data, explicit)
            break
        except SelectionError as error:
            value = explicit.pop(error.key)
            dropped.append(dropped_item(url_key(error.key), value, error.reason))
    notice = ""
    if dropped:
        notice = "Ignored from the URL, showing defaults instead: " + dropped_list(dropped)
    url_explicit = {url_key(key): value for key, value in explicit.items()}
    return {
        "explicit": url_explicit,
        "notice": notice,
        "result": result,
        "html": render_widget(data, result, url_explicit, notice),
    }


# ------------------------------------------------------------------------------ pieces


def e(value: object) -> str:
    return escape(str(value))


def inline(text: str) -> str:
    """Escaped text where `backtick spans` become <code>."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no markup at all
        return e(text)
    return "".join(f"<code>{e(part)}</code>" if i % 2 else e(part)
                   for i, part in enumerate(parts))


def _number(value: float | int) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,.2f}"


def _pill(key: str, value: str, text: str, result: dynamo.DynamoResult, title: str) -> str:
    pressed = result["selection"][key] == value
    reason = result["unavailable"].get(key, {}).get(value)
    ident = f"dy-why-{key}-{value}"
    attrs = [
        'type="button"',
        'class="rb-pill dy-pill"',
        f'data-key="{e(url_key(key))}"',
        f'data-value="{e(value)}"',
        f'aria-pressed="{"true" if pressed else "false"}"',
    ]
    if reason:
        attrs += ['aria-disabled="true"', f'aria-describedby="{e(ident)}"']
    elif title:
        attrs.append(f'title="{e(title)}"')
    pill = f"<button {' '.join(attrs)}>{e(text)}</button>"
    if reason:
        # Shown under the pills when the pill has focus or is tapped (dynamo.css, dynamo.js).
        pill += (f'<span class="dy-why" id="{e(ident)}" role="note">'
                 f"<strong>{e(text)}:</strong> {e(reason)}</span>")
    return pill


def _rows(data: Data, result: dynamo.DynamoResult) -> str:
    rows = []
    registries = {"framework": data["frameworks"], "gpu": data["gpus"],
                  "topology": data["topologies"]}
    for key, values in dynamo.choices(data).items():
        pills = "".join(
            _pill(key, value, registries[key][value]["label"], result,
                  registries[key][value].get("description", ""))
            for value in values
        )
        rows.append(
            f'<div class="rb-row" role="group" aria-label="{e(ROW_LABELS[key])}" '
            f'data-row="{e(key)}"><span class="rb-row-label">{e(ROW_LABELS[key])}</span>'
            f'<div class="rb-pills dy-pills">{pills}</div></div>'
        )
    return f'<div class="rb-rows">{"".join(rows)}</div>'


def _card(data: Data, result: dynamo.DynamoResult) -> str:
    target = result["target"]
    best = result["recommended"] == result["selection"]
    facts = [
        ("Model", f"<code>{e(result['model_id'])}</code>"),
        ("GPUs", e(f"{target['gpus']}× {result['labels']['gpu']}")),
        ("Layout", e(target["layout"])),
        ("Configuration", e(target["configuration"])),
        ("Source", f"<code>{e(target['source'])}</code>"),
    ]
    rows = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in facts)
    badge = ('<span class="dy-best">Highest measured output tok/s/GPU</span>' if best else "")
    notes = "".join(f"<li>{inline(note)}</li>" for note in target.get("notes", []))
    return (
        '<section class="dy-card" aria-label="Deployment target">'
        f'<p class="dy-card-title" aria-live="polite">'
        f'{e(dynamo.describe(data, result["selection"]))}{badge}</p>'
        f'<dl class="dy-facts">{rows}</dl>'
        + (f'<ul class="dy-notes">{notes}</ul>' if notes else "")
        + "</section>"
    )


def _prerequisites(result: dynamo.DynamoResult) -> str:
    items = "".join(
        f'<li data-prerequisite="{e(item["id"])}"><strong>{e(item["title"])}.</strong> '
        f"{inline(item['text'])}</li>"
        for item in result["prerequisites"]
    )
    return (f'<details class="dy-prereq"><summary>Prerequisites for this target</summary>'
            f"<ul>{items}</ul></details>")


def _steps(result: dynamo.DynamoResult) -> str:
    steps = "".join(
        f'<li class="dy-step" data-step="{e(step["id"])}">'
        f'<div class="rb-block-head"><span class="dy-step-title">{e(step["title"])}</span>'
        f'<button type="button" class="rb-copy" data-copy="{index}">Copy</button></div>'
        f'<p class="dy-step-text">{inline(step["text"])}</p>'
        f'<pre class="rb-code"><code>{e(step["shell"])}</code></pre></li>'
        for index, step in enumerate(result["steps"])
    )
    return f'<h3 class="dy-h">Steps</h3><ol class="dy-steps">{steps}</ol>'


def _is(row: Mapping[str, object], selection: Mapping[str, str]) -> bool:
    return all(row[key] == selection[key] for key in dynamo.KEYS)


def _performance(data: Data, result: dynamo.DynamoResult) -> str:
    perf = data["performance"]
    best = result["recommended"]
    text_columns = ("recipe", "framework_label", "sku")
    number_class = ' class="dy-num"'
    head = "".join(
        f'<th scope="col"{"" if key in text_columns else number_class}>{e(label)}</th>'
        for key, label in PERF_COLUMNS
    )
    body = []
    for measured in result["performance"]:
        row: dict[str, object] = dict(measured)
        cells = []
        for key, heading in PERF_COLUMNS:
            value = row[key]
            if key == "recipe":
                mark = ' <span class="dy-best">Highest output/GPU</span>' if _is(row, best) else ""
                cells.append(f'<th scope="row">{e(value)}{mark}</th>')
            elif isinstance(value, (int, float)):
                cells.append(f'<td class="dy-num" data-label="{e(heading)}">'
                             f"{e(_number(value))}</td>")
            else:
                cells.append(f'<td data-label="{e(heading)}">{e(value)}</td>')
        attrs = "".join(f' data-{key}="{e(row[key])}"' for key in dynamo.KEYS)
        if row["selected"]:
            attrs += ' class="dy-selected" aria-current="true"'
        body.append(f"<tr{attrs}>{''.join(cells)}</tr>")
    status = ""
    if not any(row["selected"] for row in result["performance"]):
        status = (f'<p class="dy-muted">No published benchmark results for '
                  f'{e(dynamo.describe(data, result["selection"]))}.</p>')
    comparison = result["comparison"]
    sentence = f'<p class="dy-compare">{e(comparison["sentence"])}</p>' if comparison else ""
    best_row = next(r for r in result["performance"] if _is(dict(r), best))
    best_line = (
        f'<p class="dy-muted">Highest measured output per GPU: {e(dynamo.describe(data, best))} '
        f'({e(_number(best_row["output_tok_s_per_gpu"]))} tok/s/GPU).</p>'
    )
    return (
        '<h3 class="dy-h">Measured performance</h3>'
        + (f'<p class="dy-muted">{inline(perf["notes"])}</p>' if perf.get("notes") else "")
        + status
        + '<div class="dy-table-wrap" tabindex="0" role="region" '
        'aria-label="Measured performance">'
        f'<table class="dy-perf"><caption>{e(perf["workload"])}</caption>'
        f'<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'
        + sentence + best_line
    )


def _settings(data: Data, result: dynamo.DynamoResult) -> str:
    table = result["settings"]
    if not table:
        return ""
    rows = "".join(
        f'<tr><th scope="row">{e(row["label"])}</th><td>{inline(row["value"])}</td></tr>'
        for row in table["rows"]
    )
    notes = "".join(f"<li>{inline(note)}</li>" for note in data["settings"].get("notes", []))
    return (
        '<details class="dy-settings"><summary>Settings of this target '
        f'({e(table["label"])})</summary>'
        '<div class="dy-table-wrap" tabindex="0" role="region" aria-label="Settings">'
        f'<table class="dy-settings-table"><tbody>{rows}</tbody></table></div>'
        + (f'<ul class="dy-notes">{notes}</ul>' if notes else "")
        + "</details>"
    )


def render_widget(
    data: Data,
    result: dynamo.DynamoResult,
    explicit: Mapping[str, str] | None = None,
    notice: str = "",
) -> str:
    """The whole widget; `explicit` (URL keys) is kept in a data attribute for the page."""
    notice_html = f'<p class="rb-notice" role="status">{e(notice)}</p>' if notice else ""
    state = e(json.dumps(dict(explicit or {}), sort_keys=True))
    return (
        f'<div class="dy-widget" data-model-id="{e(result["model_id"])}" '
        f'data-explicit="{state}">{notice_html}'
        f'<p class="dy-summary">{e(data["summary"])}</p>'
        f"{_rows(data, result)}"
        '<div class="dy-output">'
        f"{_card(data, result)}{_prerequisites(result)}{_steps(result)}"
        f"{_performance(data, result)}{_settings(data, result)}</div></div>"
    )
