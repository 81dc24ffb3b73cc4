"""`vllm-recipes verify [URL] [--model ID] [--timeout S]`: check a running vLLM server.

1. wait for `GET /health` to answer 200 (a model takes a while to load);
2. `GET /v1/models`: the ids it serves (`--model` picks one, else the first);
3. one small request of the kind the model's recipe serves: the request its page shows
   (builder/commands/requests.py through builder/deployment/smoke.py: a chat completion, a
   completion, an embedding, a rerank, a transcription of a second of silence, a vLLM-Omni
   task's request); a model the catalogue does not have is asked for a chat completion.

The whole run, waiting included, ends by one deadline (`--timeout` seconds) that every read
honours; an answer is read as a hostile server's (http_client.py: a byte cap, no redirect
followed, every failure one reason). A served id names a recipe only when it is a model id
(ORG/NAME), never a path. Each step prints one line with its timing, then PASS or FAIL, the
server's text in it escaped and cut (builder.text_safety). Exit status 0 when every step
passed, 1 when one failed (one FAIL line), 2 for a usage error (one line). Standard library
only.
"""

from __future__ import annotations

import argparse
import io
import json
import time
import uuid
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any

from builder.deployment.smoke import SmokeRequest, smoke_request
from builder.text_safety import printable

from .cli_common import MAX_LINE, RECIPES, ArgumentParser, load, model_id_problem
from .errors import UsageError
from .http_client import Answer, Deadline, HttpError, Server, base_url, timeout_value

__all__ = ["main"]

DEFAULT_URL = "http://127.0.0.1:8000"
POLL_S = 1.0
SHOWN = 200
"""The most characters of a server's text (a body, an id) a line quotes."""


class Failed(Exception):
    """A step that did not pass (its message says why)."""


def _answer(server: Server, what: str, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> Answer:
    """The server's answer, or Failed: no answer, or a redirect (never followed)."""
    try:
        answer = server.request(method, path, body, headers)
    except HttpError as error:
        raise Failed(f"{what}: {error}") from None
    if answer.location is not None:
        raise Failed(f"{what} answered HTTP {answer.status}, a redirect to {answer.location}: "
                     "not followed (give verify the server's own URL)")
    return answer


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


def _json(answer: Answer, what: str) -> Any:
    if answer.status != 200:
        text = answer.body[:SHOWN * 4].decode(errors="replace")
        raise Failed(f"{what} answered HTTP {answer.status}: {printable(text, SHOWN)}")
    try:
        return json.loads(answer.body)
    except (ValueError, RecursionError):
        raise Failed(f"{what} did not answer JSON") from None


def _at(data: Any, *path: str | int) -> Any:
    """`data[path[0]][path[1]]...` where each step is a key of a JSON object or an index of a
    JSON array; None where the answer has another shape."""
    for step in path:
        if isinstance(step, int):
            if not isinstance(data, list) or len(data) <= step:
                return None
        elif not isinstance(data, dict):
            return None
        data = data[step] if isinstance(step, int) else data.get(step)
    return data


def _text(value: Any) -> str:
    return json.dumps(printable(value.strip(), 60), ensure_ascii=False)


def _checked(request: SmokeRequest, answer: Answer) -> str:
    """What the answer shows, for people; Failed when it is not an answer of its kind."""
    what = f"POST {request['path']}"
    kind = request["kind"]
    if kind == "chat":
        message = _at(_json(answer, what), "choices", 0, "message")
        if not isinstance(message, dict):
            raise Failed(f"{what}: no choices[0].message in the answer")
        text = next((message[k] for k in ("content", "reasoning", "reasoning_content")
                     if message.get(k)), "")
        if not isinstance(text, str):
            raise Failed(f"{what}: the message's content is not text")
        return _text(text)
    if kind == "completion":
        text = _at(_json(answer, what), "choices", 0, "text")
        if not isinstance(text, str):
            raise Failed(f"{what}: no choices[0].text in the answer")
        return _text(text)
    if kind == "embedding":
        vector = _at(_json(answer, what), "data", 0, "embedding")
        if not isinstance(vector, list) or not vector:
            raise Failed(f"{what}: no embedding in the answer")
        return f"{len(vector)} dimensions"
    if kind == "transcription":
        text = _at(_json(answer, what), "text")
        if not isinstance(text, str):
            raise Failed(f"{what}: no text in the answer")
        return _text(text)
    if answer.status != 200 or not answer.body:
        raise Failed(f"{what} answered HTTP {answer.status} with {len(answer.body)} bytes")
    if answer.body[:1] == b"{":
        found = _json(answer, what)
        data = _at(found, "data") or _at(found, "results")  # results: a rerank's answer
        if not isinstance(data, list) or not data:
            raise Failed(f"{what}: no data in the answer")
        return f"{len(data)} result{'s' if len(data) != 1 else ''}"
    return f"{len(answer.body)} bytes"


def _send(server: Server, request: SmokeRequest) -> str:
    if request["form"] is not None:
        files = {"file": ("silence.wav", silence_wav(), "audio/wav")} if (
            request["kind"] == "transcription") else {}
        body, media = _multipart(request["form"], files)
    else:
        body, media = json.dumps(request["json"]).encode(), "application/json"
    what = f"POST {request['path']}"
    answer = _answer(server, what, "POST", request["path"] or "", body,
                     {"Content-Type": media})
    return _checked(request, answer)


def _healthy(server: Server, deadline: Deadline) -> None:
    """Wait for `GET /health` to answer 200; Failed at the deadline, on a redirect, or on an
    answer that is not HTTP (a server still starting refuses connections or answers 503)."""
    last = "no connection"
    while not deadline.passed():
        try:
            answer = server.request("GET", "/health")
        except HttpError as error:
            if deadline.passed():
                last = "no answer"
                break
            if not error.connection:
                raise Failed(f"GET /health: {error}") from None
            time.sleep(max(0.0, min(POLL_S, deadline.left())))
            continue
        if answer.location is not None:
            raise Failed(f"GET /health answered HTTP {answer.status}, a redirect to "
                         f"{answer.location}: not followed (give verify the server's own URL)")
        if answer.status == 200:
            return
        last = f"HTTP {answer.status}"
        time.sleep(max(0.0, min(POLL_S, deadline.left())))
    raise Failed(f"GET /health did not answer 200 within {deadline.seconds:g} s (last: {last})")


def _served(server: Server) -> list[str]:
    data = _json(_answer(server, "GET /v1/models", "GET", "/v1/models"), "GET /v1/models")
    models = _at(data, "data")
    if not isinstance(models, list):
        raise Failed("GET /v1/models: not a model list (no `data` array)")
    served = [m["id"] for m in models if isinstance(m, dict) and isinstance(m.get("id"), str)
              and m["id"]]
    if not served:
        raise Failed("GET /v1/models lists no model")
    return served


def _ids(served: list[str]) -> str:
    """The served ids for one line: each printable and cut, at most five."""
    shown = ", ".join(printable(s, 100) for s in served[:5])
    return shown + (f" and {len(served) - 5} more" if len(served) > 5 else "")


def verify(base: str, model: str | None, timeout: float, recipes: Path,
           say: Callable[[str], None]) -> bool:
    """Every step within one deadline of `timeout` seconds (http_client.Deadline)."""
    started = time.monotonic()
    deadline = Deadline(timeout)
    server = Server(base, deadline)

    def line(text: str) -> None:  # a server's text never prints a control character
        say(printable(text, MAX_LINE))

    def step(name: str, began: float, detail: str = "") -> None:
        line(f"{name:<14} ok  {time.monotonic() - began:6.1f} s  {detail}".rstrip())

    try:
        began = time.monotonic()
        _healthy(server, deadline)
        step("health", began)
        began = time.monotonic()
        served = _served(server)
        if model is not None and model not in served:
            raise Failed(f"{printable(model, 100)} is not served here (GET /v1/models: "
                         f"{_ids(served)})")
        chosen = model or served[0]
        step("models", began, _ids(served))
        recipe = _recipe(recipes, chosen, line)
        request = smoke_request(recipe, chosen)
        began = time.monotonic()
        if request["path"] is None:
            line(f"{request['label']:<14} --  skipped: {request['reason']}")
        else:
            step(request["kind"], began, _send(server, request))
    except Failed as error:
        line(f"FAIL  {base}: {error} ({time.monotonic() - started:.1f} s)")
        return False
    line(f"PASS  {printable(chosen, 100)} at {base} ({time.monotonic() - started:.1f} s)")
    return True


def _recipe(recipes: Path, model_id: str, say: Callable[[str], None]) -> dict[str, Any] | None:
    """The recipe of a served id, or None. A served id is the server's text: it names a recipe
    only when it is a model id (ORG/NAME), never a path to read."""
    try:  # load() refuses an id no recipe file names; the tree may not even mention it
        if model_id_problem(model_id):
            raise KeyError(model_id)
        catalogue = load(recipes, model_id)
        hf_id, _ = catalogue.find(model_id)
    except (KeyError, UsageError):
        say(f"{'recipe':<14} --  {printable(model_id, 100)} is not in the catalogue: asking "
            "for a chat completion")
        return None
    return catalogue.recipes[hf_id]


def _url(text: str) -> str:
    try:
        return base_url(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _timeout(text: str) -> float:
    try:
        return timeout_value(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{printable(text, 40)!r} is not a number of seconds above zero") from None


def main(argv: list[str]) -> int:
    parser = ArgumentParser(
        prog="vllm-recipes verify",
        description="Wait for a vLLM server's /health, list /v1/models and send one small "
                    "request of the kind its recipe serves; PASS or FAIL with the timing.")
    parser.add_argument("url", nargs="?", default=DEFAULT_URL, type=_url,
                        help=f"the server (default {DEFAULT_URL})")
    parser.add_argument("--model", help="the served model to ask (default: the first listed)")
    parser.add_argument("--timeout", type=_timeout, default=900.0,
                        help="seconds the whole check may take, waiting for /health included "
                             "(default 900: loading takes a while)")
    parser.add_argument("--recipes", type=Path, default=RECIPES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    ok = verify(args.url, args.model, args.timeout, args.recipes,
                lambda line: print(line, flush=True))
    return 0 if ok else 1
