"""How fast, beside the fit line: the rendering's `performance` as HTML (built at build time
and by the page's Python alike; no chart library, no script).

    measured    first, where points were measured on this hardware: each as measured, with
                its source, the estimate of the same layout beside it and the estimates' error
    estimate    the line ("est. 4,119 tokens/s per GPU at 32 users, ...") with its source's
                label every time, and one tap away (a disclosure) a table of tokens/s per GPU
                and per user across concurrencies for every workload of the layout
    none        "no estimate for ... on ...: why", never a figure of ours

`comparison_html` is the model page's "which GPU" table (`performance.report.gpu_comparison`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..html_text import escape
from ..performance.estimates import layout_text, number

__all__ = ["comparison_html", "performance_html"]


def _measured(performance: Mapping[str, Any]) -> list[str]:
    items = []
    for point in performance["measured"]:
        estimate = point.get("estimate")
        beside = ""
        if estimate is not None:
            beside = (f'; <span class="rb-perf-est">est. '
                      f'{number(estimate["tokens_per_s_per_gpu"])} tokens/s per GPU '
                      f'({point["error_pct"]:+.0f}%)</span>')
        items.append(
            f'<li><strong>measured</strong> {number(point["tokens_per_s_per_gpu"])} tokens/s '
            f'per GPU at {point["concurrency"]} users, {number(point["tokens_per_s_per_user"])} '
            f'tokens/s per user, TTFT {number(point["ttft_ms"])} ms · '
            f'{escape(point["workload"])}{beside} <small class="rb-perf-source">'
            f'{escape(point["source"])}</small></li>')
    errors = performance.get("errors")
    return ['<ul class="rb-perf-measured">', *items, "</ul>",
            *([f'<p class="rb-perf-errors">{escape(errors)}</p>'] if errors else [])]


def _table(curves: Mapping[str, Any]) -> str:
    """Concurrency rows; per workload, tokens/s per GPU and per user."""
    names = list(curves)
    head = "".join(
        f'<th colspan="2" scope="colgroup">{escape(name.replace("_", " "))} '
        f'<small>{curves[name]["isl"]:,} in / {curves[name]["osl"]:,} out</small></th>'
        for name in names)
    sub = "".join('<th scope="col">per GPU</th><th scope="col">per user</th>' for _ in names)
    by_users: dict[int, dict[str, Mapping[str, Any]]] = {}
    for name in names:
        for point in curves[name]["points"]:
            by_users.setdefault(point["concurrency"], {})[name] = point
    rows = []
    for users in sorted(by_users):
        cells = "".join(
            (f'<td>{number(p["tokens_per_s_per_gpu"])}</td>'
             f'<td>{number(p["tokens_per_s_per_user"])}</td>')
            if (p := by_users[users].get(name)) is not None else "<td></td><td></td>"
            for name in names)
        rows.append(f'<tr><th scope="row">{users}</th>{cells}</tr>')
    return ('<div class="rb-perf-scroll"><table class="rb-perf-table"><thead><tr>'
            f'<th rowspan="2" scope="col">users</th>{head}</tr><tr>{sub}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def performance_html(performance: Mapping[str, Any] | None) -> str:
    """The block beside the fit line (see the module docstring); "" without `performance`."""
    if not performance:
        return ""
    out = ['<div class="rb-perf">']
    if performance["measured"]:
        out += _measured(performance)
    if not performance["estimated"]:
        out.append(f'<p class="rb-perf-line">{escape(performance["line"])}</p></div>')
        return "".join(out)
    label = performance["source"]["label"]
    why = performance.get("profile")
    out.append('<p class="rb-perf-line">'
               + (f'<span class="rb-perf-why">{escape(why["why"])}</span> ' if why else "")
               + f'{escape(performance["line"])} <small class="rb-perf-source">'
               f"{escape(label)}</small></p>")
    curves = performance.get("curves")
    if curves:
        layout = performance["layout"]
        out.append(
            '<details class="rb-perf-more"><summary>Estimated tokens/s per GPU and per user, '
            f'{layout["gpus"]}× GPU{"s" if layout["gpus"] != 1 else ""} '
            f'({escape(layout_text(layout["tp"], layout["dp"]))}), by workload</summary>'
            f'{_table(curves)}<p class="rb-perf-source">{escape(label)}</p></details>')
    out.append("</div>")
    return "".join(out)


def comparison_html(rows: Sequence[Mapping[str, Any]]) -> str:
    """Which GPU for this model: one row per hardware (`gpu_comparison`), with the labels of
    their sources; "" without rows."""
    if not rows:
        return ""
    labels = "".join(f'<p class="rb-perf-source">{escape(label)}</p>'
                     for label in dict.fromkeys(row["label"] for row in rows))
    body = "".join(
        f'<tr><th scope="row">{escape(row["display_name"])}</th>'
        f'<td>{row["gpus"]} ({escape(layout_text(row["tp"], row["dp"]))})</td>'
        f'<td>{number(row["tokens_per_s_per_gpu"])}</td>'
        f'<td>{number(row["tokens_per_s_per_user"])}</td><td>{row["concurrency"]}</td>'
        f'<td>{number(row["ttft_ms"])} ms</td></tr>'
        for row in rows)
    return ('<p class="rb-perf-lead">Estimated for each GPU\'s default command (the fewest GPUs '
            'that fit), at the default workload, at the most users that each still get half '
            'the speed of one user alone:</p>'
            '<div class="rb-perf-scroll"><table class="rb-perf-table rb-perf-gpus"><thead><tr>'
            '<th scope="col">GPU</th><th scope="col">GPUs</th>'
            '<th scope="col">tokens/s per GPU</th><th scope="col">tokens/s per user</th>'
            '<th scope="col">users</th><th scope="col">TTFT</th></tr></thead>'
            f'<tbody>{body}</tbody></table></div>{labels}')
