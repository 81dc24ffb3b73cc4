"""How fast: the rendering's `performance` as HTML (built at build time and by the page's
Python alike; no chart library, no script). Beside the fit line, one line
(`performance_line`); after the commands, one tap away (`performance_html`, a disclosure), the
rest, so that the command and its Copy stay in the first screen:

    measured    first, where points were measured on this hardware: each as measured, with
                its source, the estimate of the same layout beside it and the estimates' error
    estimate    the line ("est. 4,119 tokens/s per GPU at 32 users, ...") with its source's
                label every time; the table of tokens/s per GPU and per user across
                concurrencies for every workload of the layout
    none        "no estimate for ... on ...: why", never a figure of ours

`comparison_html` is the model page's "which GPU" table (`estimates.report.gpu_comparison`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..estimates.estimates import layout_text, number
from ..html_text import escape

__all__ = ["comparison_html", "performance_html", "performance_line"]


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


def performance_line(performance: Mapping[str, Any] | None) -> str:
    """The line beside the fit line: the first measured point (measured beats estimated),
    the estimate with its source's label, or "no estimate ..."; "" without `performance`."""
    if not performance:
        return ""
    out = ['<p class="rb-perf">']
    measured = performance["measured"]
    if measured:
        first = measured[0]
        more = len(measured) - 1
        out.append(f'<strong>measured</strong> {number(first["tokens_per_s_per_gpu"])} tokens/s '
                   f'per GPU at {first["concurrency"]} users, '
                   f'{number(first["tokens_per_s_per_user"])} tokens/s per user · '
                   f'{escape(first["layout"])}'
                   + (f" ({more} more below)" if more else "") + "</p>")
        if not performance["estimated"]:  # why none is beside them: below, with them
            return "".join(out)
        out.append('<p class="rb-perf">')
    if not performance["estimated"]:
        out.append(f"{escape(performance['line'])}</p>")
        return "".join(out)
    why = performance.get("profile")
    if why:
        out.append(f'<span class="rb-perf-why">{escape(why["why"])}</span> ')
    out.append(f'{escape(performance["line"])} <small class="rb-perf-source">'
               f'{escape(performance["source"]["label"])}</small></p>')
    return "".join(out)


def performance_html(performance: Mapping[str, Any] | None) -> str:
    """One tap away, after the commands: the measured points with their sources and the
    estimates' error, and the table of every workload; "" when there is neither."""
    if not performance:
        return ""
    curves = performance.get("curves") if performance["estimated"] else None
    if not performance["measured"] and not curves:
        return ""
    what = " and ".join(part for part in (
        "measured" if performance["measured"] else "",
        "estimated by workload" if curves else "") if part)
    out = [f'<details class="rb-perf-more"><summary>How fast: {what}</summary>']
    if performance["measured"]:
        out += _measured(performance)
    if curves:
        layout = performance["layout"]
        label = performance["source"]["label"]
        out.append(
            f'<p class="rb-perf-caption">Estimated tokens/s per GPU and per user, '
            f'{layout["gpus"]}× GPU{"s" if layout["gpus"] != 1 else ""} '
            f'({escape(layout_text(layout["tp"], layout["dp"]))})</p>'
            f'{_table(curves)}<p class="rb-perf-source">{escape(label)}</p>')
    chosen = performance.get("profile")
    if chosen:  # what the profile tuned, and the scheduler flags it left alone
        out.append(f'<p class="rb-perf-scope">The {escape(chosen["name"])} profile picks '
                   f'{escape(" and ".join(chosen["tunes"]))}. ' + " ".join(
                       f"<code>{escape(flag)}</code>: {escape(why)}."
                       for flag, why in chosen["not_modelled"].items()) + "</p>")
    out.append("</details>")
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
