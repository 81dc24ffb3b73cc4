"""The one small request that shows a server of a recipe works (`vllm-recipes verify`).

Its kind follows what the recipe serves: a vLLM-Omni task's own request (its endpoint and JSON
body, as the page's "Try it" block sends them; a task that takes a form or a whole `curl` has
no small request); an embedding model's `/v1/embeddings`; a speech-to-text model (audio in,
no text tasks) a transcription of a short audio file; anything else a short chat completion.
"""

from __future__ import annotations

from typing import Any, TypedDict

from ..commands.omni import request_parts, with_model
from ..types import Data
from ..vocabulary import OMNI_KINDS

__all__ = ["SmokeRequest", "smoke_request"]

PROMPT = "Say hello in five words or fewer."
MAX_TOKENS = 16


class SmokeRequest(TypedDict):
    kind: str
    """chat, embedding, transcription, or a vLLM-Omni task kind (t2i, tts, ...)."""
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
    request: SmokeRequest = {"kind": "chat", "label": "chat completion",
                             "path": "/v1/chat/completions", "form": None, "reason": None,
                             "json": {"model": served, "max_tokens": MAX_TOKENS,
                                      "messages": [{"role": "user", "content": PROMPT}]}}
    if recipe is None:
        return request
    tasks = recipe["meta"]["tasks"]
    if recipe.get("omni"):
        task = _task(recipe, served)
        kind = OMNI_KINDS[task["kind"]]
        label = task.get("label") or kind.label
        base: SmokeRequest = {**request, "kind": task["kind"], "label": label, "json": None}
        if (task.get("request") or {}).get("curl"):
            return {**base, "path": None, "reason": f"{label} is tried with its own curl"}
        endpoint, form, body = request_parts(task)
        if form is not None:
            return {**base, "path": None,
                    "reason": f"{label} takes a form with files, not a small request"}
        return {**base, "path": endpoint, "json": with_model(endpoint, body or {}, served)}
    if "embedding" in tasks:
        return {**request, "kind": "embedding", "label": "embedding", "path": "/v1/embeddings",
                "json": {"model": served, "input": PROMPT}}
    if "audio" in tasks and "text" not in tasks and "multimodal" not in tasks:
        return {**request, "kind": "transcription", "label": "transcription", "json": None,
                "path": "/v1/audio/transcriptions", "form": {"model": served}}
    return request
