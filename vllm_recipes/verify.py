"""`vllm-recipes verify [URL] [--model ID] [--timeout S]`: check a running vLLM server.

1. wait for `GET /health` to answer 200 (up to `--timeout` seconds: a model takes a while to
   load);
2. `GET /v1/models`: the ids it serves (`--model` picks one, else the first);
3. one small request of the kind the model's recipe serves: the request its page shows
   (builder/commands/requests.py through builder/deployment/smoke.py: a chat completion, a
   completion, an embedding, a rerank, a transcription of a second of silence, a vLLM-Omni
   task's request); a model the catalogue does not have is asked for a chat completion.

Each step prints one line with its timing, then PASS or FAIL. Exit status 0 when every step
passed, 1 when one failed, 2 for a usage error. Standard library only.
"""

from __future__ import annotations

import argparse
import io
import json
import time
import urllib.error
import urllib.request
import uuid
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any

from builder.deployment.smoke import SmokeRequest, smoke_request

from .cli_common import RECIPES, load
from .errors import UsageError

__all__ = ["main"]

DEFAULT_URL = "http://127.0.0.1:8000"
POLL_S = 1.0
REQUEST_TIMEOUT_S = 300.0


class Failed(Exception):
    """A step that did not pass (its message says why)."""


def _get(url: str, timeout: float) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _post(url: str, body: bytes, content_type: str) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def silence_wav(seconds: float = 1.0, rate: int = 16000) -> bytes:
    """A short mono 16-bit WAV of silence: audio any transcription endpoint takes."""
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(b"\0\0" * int(seconds * rate))
    return out.getvalue()


def _multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes, str]]
               ) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts: list[bytes] = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                     f"{value}\r\n".encode())
    for name, (filename, data, media) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                     f'filename="{filename}"\r\nContent-Type: {media}\r\n\r\n'.encode()
                     + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def _json(status: int, body: bytes, what: str) -> Any:
    if status != 200:
        raise Failed(f"{what} answered HTTP {status}: {body[:200].decode(errors='replace')}")
    try:
        return json.loads(body)
    except ValueError:
        raise Failed(f"{what} did not answer JSON") from None


def _checked(request: SmokeRequest, status: int, body: bytes) -> str:
    """What the answer shows, for people; Failed when it is not an answer of its kind."""
    what = f"POST {request['path']}"
    kind = request["kind"]
    if kind in ("chat", "completion"):
        choices = _json(status, body, what).get("choices") or []
        if not choices:
            raise Failed(f"{what}: no choices in the answer")
        message = choices[0].get("message") or {}
        text = (message.get("content") or message.get("reasoning")
                or message.get("reasoning_content") or choices[0].get("text") or "")
        return json.dumps(text.strip()[:60], ensure_ascii=False)
    if kind == "embedding":
        data = _json(status, body, what).get("data") or []
        vector = data[0].get("embedding") if data else None
        if not vector:
            raise Failed(f"{what}: no embedding in the answer")
        return f"{len(vector)} dimensions"
    if kind == "transcription":
        text = _json(status, body, what).get("text")
        if text is None:
            raise Failed(f"{what}: no text in the answer")
        return json.dumps(text.strip()[:60], ensure_ascii=False)
    if status != 200 or not body:
        raise Failed(f"{what} answered HTTP {status} with {len(body)} bytes")
    if body[:1] == b"{":
        answer = _json(status, body, what)
        data = answer.get("data") or answer.get("results") or []  # results: a rerank
        if not data:
            raise Failed(f"{what}: no data in the answer")
        return f"{len(data)} result{'s' if len(data) != 1 else ''}"
    return f"{len(body)} bytes"


def _send(base: str, request: SmokeRequest) -> str:
    url = base + (request["path"] or "")
    if request["form"] is not None:
        files = {"file": ("silence.wav", silence_wav(), "audio/wav")} if (
            request["kind"] == "transcription") else {}
        body, media = _multipart(request["form"], files)
    else:
        body, media = json.dumps(request["json"]).encode(), "application/json"
    status, answer = _post(url, body, media)
    return _checked(request, status, answer)


def verify(base: str, model: str | None, timeout: float, recipes: Path,
           say: Callable[[str], None]) -> bool:
    started = time.monotonic()

    def step(name: str, began: float, detail: str = "") -> None:
        say(f"{name:<14} ok  {time.monotonic() - began:6.1f} s  {detail}".rstrip())

    try:
        began = time.monotonic()
        while True:
            try:
                status, _ = _get(f"{base}/health", timeout=10)
            except OSError:
                status = 0
            if status == 200:
                break
            if time.monotonic() - began > timeout:
                raise Failed(f"GET /health did not answer 200 within {timeout:g} s "
                             f"(last: {'no connection' if status == 0 else f'HTTP {status}'})")
            time.sleep(POLL_S)
        step("health", began)
        began = time.monotonic()
        data = _json(*_get(f"{base}/v1/models", timeout=30), "GET /v1/models")
        served = [m.get("id") for m in data.get("data") or [] if m.get("id")]
        if not served:
            raise Failed("GET /v1/models lists no model")
        if model is not None and model not in served:
            raise Failed(f"{model} is not served here (GET /v1/models: {', '.join(served)})")
        chosen = model or served[0]
        step("models", began, ", ".join(served))
        recipe = _recipe(recipes, chosen, say)
        request = smoke_request(recipe, chosen)
        began = time.monotonic()
        if request["path"] is None:
            say(f"{request['label']:<14} --  skipped: {request['reason']}")
        else:
            step(request["kind"], began, _send(base, request))
    except Failed as error:
        say(f"FAIL  {base}: {error} ({time.monotonic() - started:.1f} s)")
        return False
    except OSError as error:
        say(f"FAIL  {base}: {error} ({time.monotonic() - started:.1f} s)")
        return False
    say(f"PASS  {chosen} at {base} ({time.monotonic() - started:.1f} s)")
    return True


def _recipe(recipes: Path, model_id: str, say: Callable[[str], None]) -> dict[str, Any] | None:
    try:  # load() refuses an id no recipe file names; the tree may not even mention it
        catalogue = load(recipes, model_id)
        hf_id, _ = catalogue.find(model_id)
    except (KeyError, UsageError):
        say(f"{'recipe':<14} --  {model_id} is not in the catalogue: asking for a chat "
            "completion")
        return None
    return catalogue.recipes[hf_id]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="vllm-recipes verify",
        description="Wait for a vLLM server's /health, list /v1/models and send one small "
                    "request of the kind its recipe serves; PASS or FAIL with the timing.")
    parser.add_argument("url", nargs="?", default=DEFAULT_URL,
                        help=f"the server (default {DEFAULT_URL})")
    parser.add_argument("--model", help="the served model to ask (default: the first listed)")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds to wait for /health (default 900: loading takes a while)")
    parser.add_argument("--recipes", type=Path, default=RECIPES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.url.startswith(("http://", "https://")):
        raise UsageError(f"verify: {args.url!r} is not an http:// or https:// URL")
    ok = verify(args.url.rstrip("/"), args.model, args.timeout, args.recipes,
                lambda line: print(line, flush=True))
    return 0 if ok else 1
