"""The one small request that shows a server of a recipe works (`vllm-recipes verify`).

It is the request the model page shows for the recipe's task (`commands.requests`, the one
registry), without the extras the page adds for flags `verify` cannot see (tools): a chat
completion, a completion, an embedding, a rerank, a transcription of a short audio file, or a
vLLM-Omni task's JSON request (the recipe's own curl when it is one plain curl). A task that
takes a form (image edits, videos), or whose own request is more than one plain curl, has none.
"""

from __future__ import annotations

from typing import Any, TypedDict

from ..commands.requests import base_request
from ..types import Data

__all__ = ["SmokeRequest", "smoke_request"]


class SmokeRequest(TypedDict):
    kind: str
    """chat, completion, embedding, rerank, transcription, or a vLLM-Omni task kind."""
    label: str
    path: str | None
    """Where it is posted; None when there is no small request of this kind."""
    json: dict[str, Any] | None
    form: dict[str, str] | None
    """Form fields; the caller adds the audio file (`file`) of a transcription."""
    reason: str | None
    """Why there is no small request (path None)."""


def _task(recipe: Data, served: str) -> Data:
    tasks = recipe["omni"]["tasks"]
    for task in tasks.values():
        if task.get("model_id") == served:
            return dict(task)
    return dict(next(iter(tasks.values())))


def smoke_request(recipe: Data | None, served: str) -> SmokeRequest:
    """The request for a server that serves `served` (its id in /v1/models) from `recipe`
    (None: a model the catalogue does not have, asked as a chat model)."""
    task = _task(recipe, served) if recipe is not None and recipe.get("omni") else None
    example = base_request(recipe, served, task)
    request: SmokeRequest = {"kind": example["kind"], "label": example["label"],
                             "path": example["path"], "json": example["json"], "form": None,
                             "reason": None}
    if example["path"] is None:
        return {**request, "reason": f"{example['label']} is tried with the recipe's own commands"}
    form = example["form"]
    if form is not None:
        if example["kind"] != "transcription":  # image edits and videos: not small
            return {**request, "path": None,
                    "reason": f"{example['label']} takes a form, not a small request"}
        request["form"] = {name: value for name, value in form.items() if name != "file"}
    return request
