"""Issue 36.4: the request example beside every command (builder/commands/requests.py).

Every recipe's example (its default selection, and every task of a vLLM-Omni recipe) is sent
to a stub server on 127.0.0.1 that checks the OpenAI-compatible shape of the request for its
endpoint; the curl text gives back the same URL and body through shlex; the OpenAI Python
client script, run with the real `openai` package (vLLM's parser environment has it), sends
the same request."""

from __future__ import annotations

import itertools
import json
import shlex
import subprocess
import sys
import threading
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from builder import build
from builder.commands.requests import REQUEST_KINDS, served_at
from builder.errors import SelectionError
from builder.types import ExampleRequest, Result
from builder.views.widget import page_state
from builder.vocabulary import OMNI_KINDS
from site_plugins.recipes.api import recommended_command
from tests.recipes_data import builder_catalog, builder_recipe, hf_ids
from tests.vllm_parser.envs import PYTHONS

Data = dict[str, Any]
Check = Callable[[Data, dict[str, Any]], None]
"""Checks a request's JSON body (or form fields, with files as {"filename": ...})."""


def _str(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _chat(body: Data, _: dict[str, Any]) -> None:
    assert _str(body["model"])
    messages = body["messages"]
    assert messages and all(m["role"] in ("system", "user", "assistant") and _str(m["content"])
                            for m in messages)
    for tool in body.get("tools", []):
        assert tool["type"] == "function" and _str(tool["function"]["name"])
        assert tool["function"]["parameters"]["type"] == "object"
    if "tools" in body:
        assert body["tool_choice"] == "auto"
    assert isinstance(body.get("max_tokens", 1), int)


def _json_fields(*required: str) -> Check:
    def check(body: Data, _: dict[str, Any]) -> None:
        for name in required:
            assert name in body, (name, body)
    return check


def _form(*required: str, files: tuple[str, ...] = ()) -> Check:
    def check(_: Data, form: dict[str, Any]) -> None:
        for name in required:
            assert _str(form.get(name)), (name, form)
        for name in files:
            assert isinstance(form.get(name), dict) and form[name]["filename"], (name, form)
    return check


SHAPES: dict[str, tuple[str, Check, Any]] = {
    "/v1/chat/completions": ("json", _chat, {
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": "Hello.", "reasoning": "Think."}}]}),
    "/v1/completions": ("json", lambda b, f: (_json_fields("model", "prompt")(b, f)), {
        "id": "x", "object": "text_completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "text": " fast.", "finish_reason": "stop"}]}),
    "/v1/embeddings": ("json", _json_fields("model", "input"), {
        "object": "list", "model": "m", "usage": {"prompt_tokens": 1, "total_tokens": 1},
        "data": [{"object": "embedding", "index": 0, "embedding": [0.1, 0.2]}]}),
    "/v1/rerank": ("json", _json_fields("model", "query", "documents"),
                   {"results": [{"index": 0, "relevance_score": 0.9}]}),
    "/v1/audio/transcriptions": ("form", _form("model", files=("file",)), {"text": "hi"}),
    "/v1/audio/speech": ("json", _json_fields("model", "input"), b"RIFF....WAVE"),
    "/v1/audio/generate": ("json", _json_fields("input"), b"RIFF....WAVE"),
    "/v1/images/generations": ("json", _json_fields("prompt"),
                               {"created": 0, "data": [{"b64_json": "iVBORw=="}]}),
    "/v1/images/edits": ("form", _form("prompt", files=("image",)),
                         {"created": 0, "data": [{"b64_json": "iVBORw=="}]}),
    "/v1/videos/sync": ("form", _form("prompt"), b"\0\0\0\x18ftypmp42"),
}
"""OpenAI-compatible endpoint → (body type, its shape check, an answer of its kind)."""


class Stub(ThreadingHTTPServer):
    asked: list[tuple[str, Data | None, dict[str, Any] | None]]
    problems: list[str]


def _parse_form(content_type: str, body: bytes) -> dict[str, Any]:
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        filename = part.get_filename()
        payload = part.get_payload(decode=True) or b""
        fields[name] = {"filename": filename} if filename else payload.decode()
    return fields


class Handler(BaseHTTPRequestHandler):
    server: Stub

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        kind, check, answer = SHAPES.get(self.path, ("", None, None))
        body: Data | None = None
        form: dict[str, Any] | None = None
        try:
            assert check is not None, f"no such endpoint: POST {self.path}"
            media = self.headers.get("Content-Type", "")
            if kind == "json":
                assert media.startswith("application/json"), media
                body = json.loads(raw)
                assert isinstance(body, dict)
            else:
                assert media.startswith("multipart/form-data"), media
                form = _parse_form(media, raw)
            check(body or {}, form or {})
        except (AssertionError, KeyError, ValueError) as error:
            self.server.problems.append(f"POST {self.path}: {error!r}")
            answer = None
        self.server.asked.append((self.path, body, form))
        data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
        self.send_response(200 if answer is not None else 400)
        self.send_header("Content-Type", "application/octet-stream" if isinstance(answer, bytes)
                         else "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def stub() -> Iterator[Stub]:
    server = Stub(("127.0.0.1", 0), Handler)
    server.asked, server.problems = [], []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _origin(server: Stub) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def _send(server: Stub, example: ExampleRequest) -> None:
    """Post `example` as its structured fields say (files: a few bytes each)."""
    assert example["path"] and example["url"]
    url = _origin(server) + example["path"]
    if example["form"] is None:
        data, media = json.dumps(example["json"]).encode(), "application/json"
    else:
        boundary = uuid.uuid4().hex
        parts = []
        for name, value in example["form"].items():
            head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'
            if value.startswith("@"):
                parts.append(f'{head}; filename="{value[1:]}"\r\n\r\n'.encode() + b"data\r\n")
            else:
                parts.append(f"{head}\r\n\r\n{value}\r\n".encode())
        data = b"".join(parts) + f"--{boundary}--\r\n".encode()
        media = f"multipart/form-data; boundary={boundary}"
    request = urllib.request.Request(url, data=data, method=example["method"],
                                     headers={"Content-Type": media})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 200


def _examples() -> Iterator[tuple[str, Data, Result]]:
    """(what, query, result) of every recipe's default selection and every vLLM-Omni task."""
    catalog = builder_catalog()
    for hf_id in hf_ids():
        recipe = builder_recipe(hf_id)
        yield hf_id, {}, build(catalog, recipe, {})
        for task in list((recipe.get("omni") or {}).get("tasks") or {})[1:]:
            try:
                yield f"{hf_id} task={task}", {"task": task}, build(catalog, recipe,
                                                                     {"task": task})
            except SelectionError:
                continue


def _curl(text: str) -> tuple[str, Data | None, dict[str, str] | None]:
    """(URL, JSON body, form fields) of a curl text, read back through shlex."""
    words = shlex.split(text)
    if "|" in words:
        words = words[:words.index("|")]
    assert words[0] == "curl" and words[words.index("-X") + 1] == "POST", words
    url = next(word for word in words if word.startswith("http://"))
    body, form = None, None
    for flag, value in itertools.pairwise(words):
        if flag == "-d":
            body = json.loads(value)
        elif flag == "-F":
            name, _, field = value.partition("=")
            form = {**(form or {}), name: field}
    return url, body, form


def test_every_example_has_the_shape_of_its_endpoint(stub: Stub) -> None:
    sent: dict[str, int] = {}
    for what, _, result in _examples():
        examples = result["example_requests"]
        assert len(examples) == 1, what
        example = examples[0]
        model, port, _ = served_at(result["commands"])
        if example["path"] is None:  # a recipe's own curl that is not one plain curl
            assert result["request"] and example["curl"] == result["request"]["text"], what
            continue
        assert example["url"] == f"http://localhost:{port}{example['path']}", what
        if example["json"] is not None:
            # Parses, and names the served model where the endpoint takes one (vLLM-Omni's
            # image, video and audio-generation endpoints serve the one model there is).
            if example["kind"] not in ("t2i", "t2a"):
                assert example["json"]["model"] == model, what
        elif example["kind"] == "transcription":
            assert example["form"] == {"file": "@audio.wav", "model": model}, what
        assert _curl(example["curl"]) == (example["url"], example["json"], example["form"]), what
        compile(example["python"] or "", what, "exec")
        _send(stub, example)
        sent[example["kind"]] = sent.get(example["kind"], 0) + 1
    assert not stub.problems, stub.problems[:5]
    # One example of each kind at least.
    kinds = set(REQUEST_KINDS) | set(OMNI_KINDS)
    assert set(sent) == kinds, kinds ^ set(sent)
    assert len(stub.asked) == sum(sent.values())


def test_chat_extras_follow_the_serve_flags() -> None:
    catalog, recipe = builder_catalog(), builder_recipe("Qwen/Qwen3-8B")
    on = build(catalog, recipe, {})
    assert "--enable-auto-tool-choice" in on["commands"][0]["argv"]
    body = on["example_requests"][0]["json"]
    assert body["tool_choice"] == "auto" and body["tools"][0]["function"]["name"]
    assert "message.reasoning" in on["example_requests"][0]["answer"]
    assert "reasoning" in (on["example_requests"][0]["python"] or "")
    off = build(catalog, recipe, {"tool_calling": "off", "reasoning": "off"})
    plain = off["example_requests"][0]
    assert "tools" not in plain["json"] and "tool_choice" not in plain["json"]
    assert "reasoning" not in plain["answer"] and "tool_calls" not in (plain["python"] or "")


@pytest.mark.parametrize(("hf_id", "query", "port", "model"), [
    # the router in front of the prefill and decode pools
    ("deepseek-ai/DeepSeek-V4-Flash", {"hardware": "h200", "strategy": "pd_cluster"}, 30000,
     None),
    ("dots-studio/dots3-note-prev", {}, 8000, "dots3-note-prev"),  # --served-model-name
])
def test_the_url_and_the_model_come_from_the_command(hf_id: str, query: Data, port: int,
                                                     model: str | None) -> None:
    result = build(builder_catalog(), builder_recipe(hf_id), query)
    example = result["example_requests"][0]
    assert example["url"] == f"http://localhost:{port}/v1/chat/completions"
    serve = next(c for c in result["commands"] if c["argv"][:2] == ["vllm", "serve"])
    assert example["json"]["model"] == (model or serve["argv"][2])


KINDS = {"chat": "Qwen/Qwen3-8B", "completion": "LiquidAI/LFM2.5-1.2B-Base",
         "embedding": "Qwen/Qwen3-Embedding-8B", "rerank": "jinaai/jina-reranker-m0",
         "transcription": "openai/whisper-large-v3-turbo", "t2i": "Qwen/Qwen-Image",
         "i2v": ("Wan-AI/Wan2.2-T2V-A14B-Diffusers", {"task": "i2v"}),
         "t2v": "Wan-AI/Wan2.2-T2V-A14B-Diffusers", "tts": "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice",
         "t2a": "stabilityai/stable-audio-open-1.0"}
"""One recipe per request kind whose Python script is run."""


def test_the_python_scripts_send_the_same_request(stub: Stub, tmp_path: Path) -> None:
    catalog = builder_catalog()
    scripts = []
    wanted = []
    for kind, model in KINDS.items():
        hf_id, query = model if isinstance(model, tuple) else (model, {})
        example = build(catalog, builder_recipe(hf_id), query)["example_requests"][0]
        assert example["kind"] == kind and example["python"], (kind, example)
        base = example["url"].removesuffix(example["path"] or "")
        scripts.append(example["python"].replace(base, _origin(stub)))
        wanted.append((example["path"], example["json"], example["form"]))
    for name in ("audio.wav", "input.png"):
        (tmp_path / name).write_bytes(b"data")
    runner = ("import sys, json\nfor script in json.load(sys.stdin):\n"
              "    exec(compile(script, 'example', 'exec'), {})\n")
    out = subprocess.run([PYTHONS["vllm"], "-c", runner], input=json.dumps(scripts),
                         cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert not stub.problems, stub.problems
    asked = []
    for path, body, form in stub.asked:
        if form is not None:  # files arrive as {"filename": ...}; compare with curl's @name
            form = {k: f"@{v['filename']}" if isinstance(v, dict) else v
                    for k, v in form.items()}
        if path == "/v1/embeddings" and body is not None:  # the client asks for base64
            body = {k: v for k, v in body.items() if k != "encoding_format"}  # and decodes it
        asked.append((path, body, form))
    assert asked == wanted


def test_the_page_shows_the_example_once_below_the_command() -> None:
    catalog, recipe = builder_catalog(), builder_recipe("Qwen/Qwen3-8B")
    state = page_state(catalog, recipe, {})
    html, example = state["html"], state["result"]["example_requests"][0]
    command = html.index('data-role="serve"')
    curl = html.index('data-role="request"')
    python = html.index('data-role="request-python"')
    assert command < curl < python
    assert html.count('data-role="request"') == 1 and html.count("rb-request-python") == 1
    # each with one Copy of its own, numbered after the command's
    assert html.count('class="rb-copy" data-copy="1" aria-label="Copy: Try it: ') == 1
    assert html.count('class="rb-copy" data-copy="2" aria-label="Copy: Python: ') == 1
    # the Python script sits in a closed disclosure
    assert '<details class="rb-request-python"><summary>' in html
    assert example["curl"].split("\n")[0] in html


def test_every_json_rendering_carries_the_examples() -> None:
    catalog, recipe = builder_catalog(), builder_recipe("openai/whisper-large-v3-turbo")
    result = build(catalog, recipe, {"hardware": "h100"})
    out = subprocess.run([sys.executable, "-m", "vllm_recipes_cli", "openai/whisper-large-v3-turbo",
                          "hardware=h100", "--json"], capture_output=True, text=True, check=True,
                         timeout=120)
    cli = json.loads(out.stdout)["recommended_command"]
    assert cli["example_requests"] == result["example_requests"]
    static = recommended_command(catalog, recipe, result, query={"hardware": "h100"},
                                 alternatives={}, by_hardware={}, page="", full=False)
    assert static["example_requests"] == result["example_requests"]
    assert result["example_requests"][0]["kind"] == "transcription"
