"""The site side of a model's NVIDIA Dynamo deployment targets: the page section that holds the
prerendered widget, and the `/<hf_id>/deployments.json` endpoint.

Everything shown or published comes from `builder.dynamo.targets` / `builder.views.dynamo`, the same
functions the CLI and the page's Pyodide call.
"""

from __future__ import annotations

from collections.abc import Iterator
from html import escape
from typing import Any
from urllib.parse import urlencode

from builder.dynamo import targets as dynamo
from builder.views.dynamo import page_state, url_key
from vllm_recipes.api_contract import dynamo_deployment

from .api import publish

__all__ = ["HEADING", "SECTION_ID", "deployments_document", "endpoints", "section_html"]

Data = dict[str, Any]
HEADING = "Deploy with NVIDIA Dynamo"
SECTION_ID = "deploy-with-nvidia-dynamo"
"""The anchor Markdown's toc gives the heading."""


def json_uri(hf_id: str) -> str:
    return f"{hf_id}/deployments.json"


def section_html(hf_id: str, data: Data, base: str) -> str:
    """The widget's mount, with the default selection prerendered inside (works without JS)."""
    state = page_state(data, {})
    url = base + json_uri(hf_id)
    return (
        f'<div class="dy-mount" data-deployments-json="{escape(url)}" data-search-exclude>'
        f'{state["html"]}</div>'
        '<p class="dy-links"><a class="rcp-link" '
        f'href="{escape(url)}">Deployments JSON</a> · every target, its steps and the measured '
        "numbers; on the command line: "
        f"<code>vllm-recipes {escape(hf_id)} --dynamo gpu=h200 topology=disaggregated</code></p>"
        '<noscript><p class="rcp-noscript">JavaScript is off, so this shows the default '
        "target only; the deployments JSON above has every target's steps.</p></noscript>"
    )


def _page(base: str, hf_id: str, selection: dict[str, str]) -> str:
    query = urlencode({url_key(key): value for key, value in selection.items()})
    return f"{base}{hf_id}/?{query}#{SECTION_ID}"


def _row(row: dynamo.PerformanceRow) -> Data:
    return {key: value for key, value in row.items() if key != "selected"}


def deployments_document(hf_id: str, data: Data, base: str) -> Data:
    """Every framework × GPU × topology combination, available or not (then with the reason),
    each available one with its target, steps, prerequisites, settings and measured row."""
    targets = []
    for combo in dynamo.combinations(data):
        selection = {key: str(combo[key]) for key in dynamo.KEYS}
        entry: Data = {**combo, "query": {url_key(k): v for k, v in selection.items()}}
        if combo["available"]:
            entry = dynamo_deployment(dynamo.build(data, selection), combo,
                                      _page(base, hf_id, selection))
        targets.append(entry)
    default = dynamo.resolve(data, {})
    return {
        "hf_id": hf_id,
        "page": f"{base}{hf_id}/#{SECTION_ID}",
        "default": default,
        "recommended": dynamo.recommended(data),
        "targets": targets,
        "performance": {
            "workload": data["performance"]["workload"],
            "notes": data["performance"].get("notes", ""),
            "rows": [_row(row) for row in dynamo.performance(data)],
        },
        "settings": data["settings"],
        "data": data,
    }


def endpoints(hf_id: str, data: Data, base: str) -> Iterator[tuple[str, str]]:
    yield publish(json_uri(hf_id), "deployments", deployments_document(hf_id, data, base), base)
