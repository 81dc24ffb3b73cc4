"""What to send a server once it is up: one request per task kind, from one registry.

The kind follows what the recipe serves (`request_kind`, first rule that matches):

    a vLLM-Omni recipe       its selected task's kind (t2i, tts, t2v, ...; `OMNI_KINDS`)
    tasks has rerank         rerank          POST /v1/rerank
    tasks has embedding      embedding       POST /v1/embeddings
    audio without text       transcription   POST /v1/audio/transcriptions (a form with a file)
    tasks has completion     completion      POST /v1/completions (no chat template)
    anything else            chat            POST /v1/chat/completions

Everything else comes from the built command: the served model name (`--served-model-name`,
else the model `vllm serve` is given), the port the client talks to (the router's in front of
prefill/decode pools, else the server's `--port`, else `SERVE_PORT`), and the chat request's
extras: a `tools` array with `tool_choice: "auto"` when the server has
`--enable-auto-tool-choice`, and the place the reasoning comes back when it has
`--reasoning-parser`. `base_request` is the same request without those extras: what
`vllm-recipes verify` sends, which cannot know the server's flags.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..types import Command, Data, ExampleRequest
from ..vocabulary import COMPANIONS, OMNI_KINDS, SERVE_PORT
from .memo import MISS, Memo
from .omni import request_parts, with_model
from .request_text import curl_text, python_text, read_curl

__all__ = ["REQUEST_KINDS", "RequestKind", "base_request", "example_requests", "request_kind",
           "served_at"]

HOST = "localhost"
MAX_TOKENS = 128
CHAT_PROMPT = "In one sentence, what is vLLM?"
TOOL_PROMPT = "What is the weather in Paris today?"
WEATHER_TOOL: Data = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
AUTO_TOOLS, REASONING = "--enable-auto-tool-choice", "--reasoning-parser"
"""The serve flags that turn on the chat request's extras."""


@dataclass(frozen=True)
class RequestKind:
    label: str
    path: str
    body: dict[str, Any] | None
    """The JSON body without `model` (None: a form)."""
    form: dict[str, Any] | None = None
    """Form fields; a value `@name` uploads the file `name` (curl's -F syntax)."""
    client_call: str | None = None
    """The OpenAI client's method for it (`chat.completions.create`); None: `client.post`."""
    answer: str = ""
    """Where the answer comes back in the response."""


REQUEST_KINDS: dict[str, RequestKind] = {
    "chat": RequestKind(
        "Chat completion", "/v1/chat/completions",
        {"messages": [{"role": "user", "content": CHAT_PROMPT}], "max_tokens": MAX_TOKENS},
        client_call="chat.completions.create", answer="choices[0].message.content"),
    "completion": RequestKind(
        "Completion", "/v1/completions", {"prompt": "vLLM is", "max_tokens": MAX_TOKENS},
        client_call="completions.create", answer="choices[0].text"),
    "embedding": RequestKind(
        "Embedding", "/v1/embeddings", {"input": "vLLM serves models fast."},
        client_call="embeddings.create", answer="data[0].embedding"),
    "rerank": RequestKind(
        "Rerank", "/v1/rerank",
        {"query": "What is the capital of France?",
         "documents": ["Paris is the capital of France.", "Berlin is in Germany."]},
        answer="results[].relevance_score, best first"),
    "transcription": RequestKind(
        "Transcription", "/v1/audio/transcriptions", None, form={"file": "@audio.wav"},
        client_call="audio.transcriptions.create", answer="text"),
}
"""The request kinds of text, pooling and speech-to-text models (vLLM-Omni's are
`vocabulary.OMNI_KINDS`, with the recipe's own request over them)."""

OMNI_ANSWERS = {"json": "data[0].b64_json", "binary": "the response body"}


def request_kind(recipe: Data, omni_task: Data | None = None) -> str:
    """The request kind of `recipe` (see the module docstring); `omni_task`: the selected task
    of a vLLM-Omni recipe."""
    if omni_task is not None:
        return str(omni_task["kind"])
    tasks = recipe["meta"]["tasks"]
    for kind, when in (("rerank", "rerank" in tasks), ("embedding", "embedding" in tasks),
                       ("transcription", "audio" in tasks and "text" not in tasks),
                       ("completion", "completion" in tasks)):
        if when:
            return kind
    return "chat"


def _flag(argv: list[str], flag: str) -> str | None:
    for i, token in enumerate(argv):
        if token == flag and i + 1 < len(argv):
            return argv[i + 1]
        if token.startswith(flag + "="):
            return token.split("=", 1)[1]
    return None


def served_at(commands: list[Command]) -> tuple[str, int, list[str]]:
    """(the served model name, the port a client talks to, the server's argv) of a result's
    commands."""
    serve = next(c for c in commands if c["argv"][:2] == ["vllm", "serve"])
    argv = serve["argv"]
    model = _flag(argv, "--served-model-name") or argv[2]
    front = next((c for c in commands if c["role"] in COMPANIONS), serve)
    return model, front["port"] or SERVE_PORT, argv


def _request(kind_id: str, label: str, path: str | None, body: Data | None,
             form: Data | None, answer: str, call: str | None, port: int,
             curl: str | None = None) -> ExampleRequest:
    base = f"http://{HOST}:{port}"
    url = None if path is None else base + path
    return {
        "kind": kind_id, "label": label, "method": "POST", "path": path, "url": url,
        "json": body, "form": form, "answer": answer,
        "curl": curl if curl is not None else curl_text(url or "", body, form),
        "python": None if path is None else python_text(base + "/v1", path, body, form, call),
    }


def _omni(task: Data, model: str, port: int) -> ExampleRequest:
    kind = OMNI_KINDS[task["kind"]]
    given: Data = task.get("request") or {}
    label = task.get("label") or kind.label
    if given.get("curl"):
        curl = given["curl"].strip()
        read = read_curl(curl)
        if read is None:  # more than one plain curl: shown as it is
            return _request(task["kind"], label, None, None, None, "", None, port, curl=curl)
        url, body, form, output = read
        path = "/" + url.split("/", 3)[3] if url.count("/") >= 3 else "/"
        base = url.removesuffix(path)
        binary = body is None or "b64_json" not in json.dumps(body)
        return {"kind": task["kind"], "label": label, "method": "POST", "path": path,
                "url": url, "json": body, "form": form,
                "answer": OMNI_ANSWERS["binary" if binary else "json"], "curl": curl,
                "python": python_text(base + "/v1", path, body, form, None, output=output,
                                      binary=binary)}
    path, form, body = request_parts(task)
    output = given.get("output", kind.output)
    binary = not kind.decode
    out = _request(task["kind"], label, path,
                   None if body is None else with_model(path, body, model),
                   None if form is None else {k: str(v) for k, v in form.items()},
                   OMNI_ANSWERS["binary" if binary else "json"], None, port)
    out["curl"] = curl_text(out["url"] or "", out["json"], out["form"], output, kind.decode)
    out["python"] = python_text(f"http://{HOST}:{port}/v1", path, out["json"], out["form"],
                                None, output=output, binary=binary)
    return out


def _plain(kind_id: str, model: str, port: int) -> ExampleRequest:
    kind = REQUEST_KINDS[kind_id]
    body = None if kind.body is None else {"model": model, **kind.body}
    form = None if kind.form is None else {**kind.form, "model": model}
    return _request(kind_id, kind.label, kind.path, body, form, kind.answer, kind.client_call,
                    port)


def base_request(recipe: Data | None, model: str, omni_task: Data | None = None,
                 port: int = SERVE_PORT) -> ExampleRequest:
    """The request of `recipe`'s kind for a server of `model`, without the extras its flags
    may turn on (what `verify` sends); None recipe: a chat completion."""
    kind = "chat" if recipe is None else request_kind(recipe, omni_task)
    if omni_task is not None:
        return _omni(omni_task, model, port)
    return _plain(kind, model, port)


def example_requests(recipe: Data, commands: list[Command],
                     omni_task: Data | None = None, memo: Memo | None = None
                     ) -> list[ExampleRequest]:
    """The requests to send the server `commands` start (see the module docstring).
    `memo`: a `Memo` of this recipe the caller keeps (a `Builder`'s), to work out the
    requests of each served model, port and flags once; the lists are then shared between
    results, so treat them as read-only. (A vLLM-Omni task's are not kept.)"""
    model, port, argv = served_at(commands)
    tools, reasoning = AUTO_TOOLS in argv, REASONING in argv
    if memo is None or omni_task is not None:
        return _examples(recipe, model, port, tools, reasoning, omni_task)
    key = ("example_requests", model, port, tools, reasoning)
    found = memo.get(key, MISS)
    if found is MISS:
        found = memo[key] = _examples(recipe, model, port, tools, reasoning, None)
    return found


def _examples(recipe: Data, model: str, port: int, tools: bool, reasoning: bool,
              omni_task: Data | None) -> list[ExampleRequest]:
    request = base_request(recipe, model, omni_task, port)
    if request["kind"] != "chat" or request["json"] is None:
        return [request]
    body = dict(request["json"])
    answer = request["answer"]
    if tools:
        body["messages"] = [{"role": "user", "content": TOOL_PROMPT}]
        body["tools"] = [WEATHER_TOOL]
        body["tool_choice"] = "auto"
        answer += "; a tool call in choices[0].message.tool_calls"
    if reasoning:
        answer += "; the reasoning in choices[0].message.reasoning"
    kind = REQUEST_KINDS["chat"]
    out = _request("chat", kind.label, kind.path, body, None, answer, kind.client_call, port)
    out["python"] = python_text(f"http://{HOST}:{port}/v1", kind.path, body, None,
                                kind.client_call, tools=tools, reasoning=reasoning)
    return [out]
