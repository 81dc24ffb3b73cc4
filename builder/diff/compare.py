"""Compare a pasted command with the builder's command for a selection.

`compare` is strict (the CLI): a bad query raises SelectionError, text that is not one vLLM
engine command raises CommandError. `compare_state` is the page's (the "Compare your command"
box, under Pyodide): URL keys the builder refuses are dropped as the widget drops them, and bad
text becomes a one-line error in the HTML. When the selection renders several engine commands
(prefill and decode pools, multi-node), the command is compared with the one it is closest to.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

from ..commands.build import build
from ..html_text import escape
from ..types import Data, Result
from ..views.diff import diff_html, error_html
from ..views.widget import page_state
from .command_diff import (
    CommandDiff,
    CommandError,
    ParsedCommand,
    diff_commands,
    parse_argv,
    parse_command,
)

__all__ = ["Comparison", "compare", "compare_result", "compare_state"]


class Comparison(TypedDict):
    hf_id: str
    query: dict[str, str]
    """The selection keys that were honoured."""
    selection: dict[str, str]
    summary: str
    """The builder's summary of the selection."""
    against: str
    """The label of the builder command the text was compared with."""
    role: str
    diff: CommandDiff


def compare_result(result: Result, command: ParsedCommand,
                   query: Mapping[str, str] | None = None) -> Comparison:
    """`command` against the closest engine command of a builder result."""
    best: tuple[float, str, str, CommandDiff] | None = None
    for block in result["commands"]:
        if block["argv"][:2] != ["vllm", "serve"]:
            continue
        ours = parse_argv(block["argv"], block["env"])
        ours["image"] = result["docker_image"]
        diff = diff_commands(ours, command)
        if best is None or diff["distance"] < best[0]:
            best = (diff["distance"], block["label"], block["role"], diff)
    assert best is not None, "every layout renders at least one vllm serve command"
    return {
        "hf_id": result["hf_id"],
        "query": dict(query or {}),
        "selection": result["selection"],
        "summary": result["summary"],
        "against": best[1],
        "role": best[2],
        "diff": best[3],
    }


def compare(catalog: Data, recipe: Data, query: Mapping[str, str], text: str) -> Comparison:
    """Strict: SelectionError for the query, CommandError for the text. Without `variant`
    in the query, the checkpoint the command serves picks the variant when one serves it."""
    command = parse_command(text)
    if "variant" not in query and command["model"]:
        for variant_id, variant in recipe["variants"].items():
            if (variant.get("model_id") or recipe["model"]["model_id"]) == command["model"]:
                query = {**query, "variant": variant_id}
                break
    return compare_result(build(catalog, recipe, query), command, query)


def comparison_html(comparison: Comparison, notice: str = "") -> str:
    notice_html = f'<p class="cmp-notice" role="status">{escape(notice)}</p>' if notice else ""
    return (
        f'<div class="cmp-result" data-role="{escape(comparison["role"])}">{notice_html}'
        f'<p class="cmp-against">Compared with the builder\'s <strong>'
        f'{escape(comparison["against"])}</strong> command for '
        f'{escape(comparison["summary"])}.</p>'
        f"{diff_html(comparison['diff'])}</div>"
    )


def compare_state(catalog: Data, recipe: Data,
                  query: Mapping[str, str] | Sequence[Sequence[str]], text: str,
                  base: Mapping[str, str] | None = None) -> dict[str, object]:
    """What the compare box shows: `html`, `error` (one line, empty when the text parsed),
    `explicit` (the URL keys honoured) and, when it parsed, the diff's `summary`. `query` and
    `base` are the builder widget's (`view.page_state`): on a variant's page the command is
    compared with that variant's."""
    state = page_state(catalog, recipe, query, base=base)
    explicit = state["explicit"]
    try:
        command = parse_command(text)
    except CommandError as error:
        return {"html": error_html(str(error)), "error": str(error), "explicit": explicit,
                "summary": ""}
    comparison = compare_result(state["result"], command, {**(base or {}), **explicit})
    return {
        "html": comparison_html(comparison, str(state["notice"])),
        "error": "",
        "explicit": explicit,
        "summary": comparison["diff"]["summary"],
    }
