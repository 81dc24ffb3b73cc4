"""A command diff as HTML: what differs first; then, apart, the recipe settings the command says
it kept that the recipe has changed since; then deployment-specific entries and what is the
same, each folded. The site prerenders it for published configurations and the page renders it
under Pyodide for the "Compare your command" box; every string is escaped here.
"""

from __future__ import annotations

from ..diff_result import CommandDiff, ValueDiff, summarize
from ..html_text import escape

__all__ = ["diff_html", "error_html"]

STATUS_LABELS = {
    "changed": "changed",
    "added": "added",
    "removed": "removed",
    "recipe_changed": "recipe changed since",
    "equal": "same",
}


def _code(text: str | None) -> str:
    if text is None:
        return '<span class="cdiff-none">not set</span>'
    if text == "":
        return '<code class="cdiff-empty">""</code>'
    return f"<code>{escape(text)}</code>"


def _value(entry: ValueDiff, side: str) -> str:
    text = entry["recipe"] if side == "recipe" else entry["command"]
    if entry["keys"] and entry["status"] == "changed" and text is not None:
        n = len(entry["keys"])
        return f'<span class="cdiff-none">JSON object, {n} key{"s" if n != 1 else ""}</span>'
    return _code(text)


def _row(entry: ValueDiff, theirs: str, *, nested: bool = False, env: bool = False) -> str:
    status = entry["status"]
    label = STATUS_LABELS[status]
    name = escape(entry["name"])
    kind = '<span class="cdiff-kind">env</span>' if env else ""
    if entry["kind"] == "dynamo":
        kind = '<span class="cdiff-kind">Dynamo</span>'
    css = "cdiff-row cdiff-key" if nested else "cdiff-row"
    return (
        f'<tr class="{css}" data-status="{status}" data-key="{escape(entry["key"])}">'
        f'<th scope="row"><code>{name}</code>{kind}'
        f'<span class="cdiff-tag" data-status="{status}">{label}</span></th>'
        f'<td data-side="recipe" data-label="Recipe">{_value(entry, "recipe")}</td>'
        f'<td data-side="command" data-label="{escape(theirs)}">{_value(entry, "command")}</td>'
        "</tr>"
    )


def _rows(entries: list[ValueDiff], theirs: str, *, env: bool = False) -> str:
    rows = []
    for entry in entries:
        if entry["status"] == "equal":
            continue
        rows.append(_row(entry, theirs, env=env))
        if entry["keys"] and entry["status"] in ("changed", "recipe_changed"):
            rows += [_row(key, theirs, nested=True) for key in entry["keys"]
                     if key["status"] != "equal"]
            same = sum(1 for key in entry["keys"] if key["status"] == "equal")
            if same:
                rows.append(
                    f'<tr class="cdiff-row cdiff-key cdiff-same-keys"><th scope="row" '
                    f'colspan="3">{same} other key{"s" if same != 1 else ""} the same</th></tr>'
                )
    return "".join(rows)


def _table(body: str, theirs: str) -> str:
    return (
        '<div class="cdiff-scroll"><table class="cdiff-table"><thead><tr>'
        f'<th scope="col">Setting</th><th scope="col">Recipe</th>'
        f'<th scope="col">{escape(theirs)}</th></tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )


def diff_html(diff: CommandDiff, *, theirs: str = "Yours", phrase: str = "the command") -> str:
    """The diff of one command; `theirs` heads the command's column and `phrase` names it in
    the summary ("3 only in the command")."""
    engine = [e for e in diff["flags"] if e["kind"] != "deployment"]
    env = [e for e in diff["env"] if e["kind"] != "deployment"]
    deployment = [e for e in [*diff["flags"], *diff["env"]] if e["kind"] == "deployment"]
    if diff["image"] is not None:
        deployment.append(diff["image"])
    model = diff["model"]
    drifted = [e for e in engine if e["status"] == "recipe_changed"]
    drifted_env = [e for e in env if e["status"] == "recipe_changed"]
    engine = [e for e in engine if e["status"] != "recipe_changed"]
    env = [e for e in env if e["status"] != "recipe_changed"]
    body = _rows([model], theirs) + _rows(engine, theirs) + _rows(env, theirs, env=True)
    summary = summarize(diff["counts"], model["status"] != "equal", phrase)
    parts = [f'<p class="cdiff-summary">{escape(summary)}</p>']
    if body:
        parts.append(_table(body, theirs))
    else:
        beyond = " beyond what the recipe changed since" if drifted or drifted_env else ""
        parts.append('<p class="cdiff-clean">No engine flag or environment variable differs '
                     f"from the recipe{beyond}.</p>")
    if drifted or drifted_env:
        n = len(drifted) + len(drifted_env)
        parts.append(
            f'<div class="cdiff-drift" data-fold="recipe_changed"><p class="cdiff-drift-head">'
            f"The recipe changed since ({n}): {escape(phrase)} says it kept "
            f"{'these settings' if n != 1 else 'this setting'} from the recipe, which sets "
            f"{'them' if n != 1 else 'it'} otherwise today (or not at all).</p>"
            f"{_table(_rows(drifted, theirs) + _rows(drifted_env, theirs, env=True), theirs)}"
            "</div>"
        )
    differing = [e for e in deployment if e["status"] != "equal"]
    if differing:
        parts.append(
            f'<details class="cdiff-fold" data-fold="deployment"><summary>Deployment-specific '
            f"({len(differing)}): host, port, names, logging, NUMA binding, devices, image"
            f"</summary>{_table(_rows(differing, theirs), theirs)}</details>"
        )
    same = [e for e in [*engine, *env] if e["status"] == "equal"]
    if model["status"] == "equal":
        same.insert(0, model)
    if same:
        names = "".join(f"<li><code>{escape(e['name'])}</code> {_code(e['command'])}</li>"
                        for e in same)
        parts.append(
            f'<details class="cdiff-fold" data-fold="same"><summary>Same as the recipe '
            f'({len(same)})</summary><ul class="cdiff-same">{names}</ul></details>'
        )
    counts = diff["counts"]
    attrs = " ".join(f'data-{k}="{v}"' for k, v in counts.items())
    return f'<div class="cdiff" {attrs}>{"".join(parts)}</div>'


def error_html(message: str) -> str:
    """A one-line error where the diff would go."""
    return f'<p class="cdiff-error" role="alert">{escape(message)}</p>'
