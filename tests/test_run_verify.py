"""Issue 27.3: `vllm-recipes run` (against a stub `vllm` executable that records what it was
started with) and `vllm-recipes verify` (against a stub HTTP server on 127.0.0.1 that these
tests start)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from builder import build
from tests.recipes_data import ROOT, builder_catalog, builder_recipe

QWEN = "Qwen/Qwen3-8B"
FLASH = "deepseek-ai/DeepSeek-V4-Flash"


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False,
                          env={**os.environ, **(env or {})}, timeout=120)


# ---------------------------------------------------------------------------- run


@pytest.fixture
def stub_vllm(tmp_path: Path) -> tuple[Path, Path]:
    """(a PATH directory with a `vllm` that writes its argv and environment to a file, the
    file)."""
    bin_dir, record = tmp_path / "bin", tmp_path / "started.json"
    bin_dir.mkdir()
    stub = bin_dir / "vllm"
    stub.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                    f"json.dump({{'argv': ['vllm', *sys.argv[1:]], 'env': dict(os.environ)}}, "
                    f"open({str(record)!r}, 'w'))\n")
    stub.chmod(0o755)
    return bin_dir, record


def test_run_prints_then_starts_the_pip_command(stub_vllm: tuple[Path, Path]) -> None:
    bin_dir, record = stub_vllm
    out = cli("run", QWEN, "hardware=h100", env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert out.returncode == 0, out.stderr
    serve = build(builder_catalog(), builder_recipe(QWEN),
                  {"hardware": "h100", "install": "pip"})["commands"][0]
    assert out.stdout == serve["shell"] + "\n"
    started = json.loads(record.read_text())
    assert started["argv"] == serve["argv"]
    for name, value in serve["env"].items():
        assert started["env"][name] == value


def test_dry_run_prints_only(stub_vllm: tuple[Path, Path]) -> None:
    bin_dir, record = stub_vllm
    out = cli("run", QWEN, "hardware=h100", "--dry-run",
              env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert out.returncode == 0 and out.stdout.startswith("export VLLM_USE_RUST_FRONTEND=1\n")
    assert not record.exists()


@pytest.mark.parametrize("query", [
    ("hardware=h200", "strategy=multi_node_dep", "nodes=2"),
    ("hardware=h200", "variant=fp8", "strategy=pd_cluster"),
])
def test_several_servers_are_printed_not_started(stub_vllm: tuple[Path, Path],
                                                 query: tuple[str, ...]) -> None:
    bin_dir, record = stub_vllm
    out = cli("run", FLASH, *query, env={"PATH": f"{bin_dir}:{os.environ['PATH']}"})
    assert out.returncode == 2
    result = build(builder_catalog(), builder_recipe(FLASH),
                   {**dict(q.split("=") for q in query), "install": "pip"})
    assert out.stdout == result["copy_text"]
    assert out.stderr.startswith(f"vllm-recipes: run: {result['summary']} runs ")
    assert out.stderr.count("\n") == 1
    assert not record.exists()
    dry = cli("run", FLASH, *query, "--dry-run")
    assert dry.returncode == 0 and dry.stdout == result["copy_text"]


@pytest.mark.parametrize(("args", "error"), [
    (("hardware=ascend_950pr_8x",),
     "install: this recipe offers no pip install on Ascend 950PR 8×; use Docker"),
    (("install=docker",), "vllm-recipes: run starts the pip form (install=pip); for Docker, "
     f"run `vllm-recipes {FLASH} install=docker` and paste it"),
])
def test_run_refuses_what_has_no_pip_form(args: tuple[str, ...], error: str) -> None:
    out = cli("run", FLASH, *args)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == error + "\n"


def test_run_without_vllm_says_how_to_install_it(tmp_path: Path) -> None:
    out = cli("run", QWEN, "hardware=h100", env={"PATH": str(tmp_path)})
    assert out.returncode == 2
    assert out.stderr == ("vllm-recipes: run: vllm is not on PATH; install vLLM first (uv venv; "
                          "source .venv/bin/activate; uv pip install vllm==0.33.0 "
                          "--torch-backend auto)\n")  # the checked release (vllm_release.py)


# ---------------------------------------------------------------------------- verify


@dataclass
class Stub:
    """What the stub server answers, and what it was asked."""

    models: list[str]
    unhealthy: int = 0
    """503s /health answers before it answers 200."""
    answers: dict[str, tuple[int, Any]] = field(default_factory=dict)
    asked: list[tuple[str, str, bytes]] = field(default_factory=list)


def _handler(stub: Stub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, body: Any) -> None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            stub.asked.append(("GET", self.path, b""))
            if self.path == "/health":
                if stub.unhealthy > 0:
                    stub.unhealthy -= 1
                    self._send(503, b"")
                else:
                    self._send(200, b"")
            elif self.path == "/v1/models":
                self._send(200, {"object": "list", "data": [
                    {"id": m, "object": "model"} for m in stub.models]})
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            stub.asked.append(("POST", self.path, body))
            status, answer = stub.answers.get(self.path, (404, {"error": "not found"}))
            self._send(status, answer)

    return Handler


@pytest.fixture
def server() -> Iterator[tuple[str, Stub]]:
    stub = Stub(models=[QWEN])
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stub))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", stub
    finally:
        httpd.shutdown()
        httpd.server_close()


CHAT = (200, {"choices": [{"message": {"role": "assistant", "content": "Hello there!"}}]})


def test_verify_a_chat_model(server: tuple[str, Stub]) -> None:
    url, stub = server
    stub.unhealthy = 2
    stub.answers["/v1/chat/completions"] = CHAT
    out = cli("verify", url)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:3]] == [["health", "ok"], ["models", "ok"],
                                                        ["chat", "ok"]]
    assert lines[1].endswith(QWEN) and lines[2].endswith('"Hello there!"')
    assert lines[-1].startswith(f"PASS  {QWEN} at {url} (")
    assert [p for m, p, _ in stub.asked].count("/health") == 3
    (_, _, body), = [a for a in stub.asked if a[0] == "POST"]
    # The request the model page shows, without the tools `verify` cannot know are on.
    page = build(builder_catalog(), builder_recipe(QWEN), {"tool_calling": "off"})
    assert json.loads(body) == page["example_requests"][0]["json"]
    assert json.loads(body)["model"] == QWEN


@pytest.mark.parametrize(("model", "path", "answer", "shown"), [
    ("Qwen/Qwen3-Embedding-8B", "/v1/embeddings",
     (200, {"data": [{"embedding": [0.1] * 4096}]}), "embedding      ok"),
    ("openai/whisper-large-v3-turbo", "/v1/audio/transcriptions", (200, {"text": ""}),
     "transcription  ok"),
    ("Qwen/Qwen-Image", "/v1/images/generations", (200, {"data": [{"b64_json": "iVBOR"}]}),
     "t2i            ok"),
    ("jinaai/jina-reranker-m0", "/v1/rerank",
     (200, {"results": [{"index": 0, "relevance_score": 0.9}]}), "rerank         ok"),
    ("LiquidAI/LFM2.5-1.2B-Base", "/v1/completions",
     (200, {"choices": [{"text": " fast."}]}), "completion     ok"),
    # a recipe's own request, one plain curl: sent as the page shows it
    ("Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice", "/v1/audio/speech", (200, b"RIFF....WAVE"),
     "tts            ok"),
])
def test_verify_sends_the_request_of_the_recipe_s_kind(server: tuple[str, Stub], model: str,
                                                       path: str, answer: tuple[int, Any],
                                                       shown: str) -> None:
    url, stub = server
    stub.models = [model]
    stub.answers[path] = answer
    out = cli("verify", url)
    assert out.returncode == 0, out.stdout
    assert out.stdout.splitlines()[2].startswith(shown)
    (_, asked, body), = [a for a in stub.asked if a[0] == "POST"]
    assert asked == path
    if path == "/v1/audio/transcriptions":
        assert b'name="file"; filename="silence.wav"' in body and b"RIFF" in body
        assert f'name="model"\r\n\r\n{model}'.encode() in body


def test_verify_fails_with_exit_1(server: tuple[str, Stub]) -> None:
    url, stub = server
    stub.answers["/v1/chat/completions"] = (500, {"error": "boom"})
    out = cli("verify", url)
    assert out.returncode == 1
    assert out.stdout.splitlines()[-1].startswith(
        f'FAIL  {url}: POST /v1/chat/completions answered HTTP 500: {{"error": "boom"}}')
    stub.unhealthy = 10**6
    out = cli("verify", url, "--timeout", "1.5")
    assert out.returncode == 1
    assert out.stdout.splitlines()[-1].startswith(
        f"FAIL  {url}: GET /health did not answer 200 within 1.5 s (last: HTTP 503)")


def test_verify_a_model_the_catalogue_does_not_have(server: tuple[str, Stub]) -> None:
    url, stub = server
    stub.models = ["my-org/my-finetune", QWEN]
    stub.answers["/v1/chat/completions"] = CHAT
    out = cli("verify", url, "--model", "my-org/my-finetune")
    assert out.returncode == 0
    assert ("recipe         --  my-org/my-finetune is not in the catalogue: asking for a chat "
            "completion") in out.stdout.splitlines()
    missing = cli("verify", url, "--model", "other/model")
    assert missing.returncode == 1
    assert missing.stdout.splitlines()[-1].startswith(
        f"FAIL  {url}: other/model is not served here (GET /v1/models: my-org/my-finetune, "
        f"{QWEN})")


def test_nothing_listening_fails_fast(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = cli("verify", f"http://127.0.0.1:{port}", "--timeout", "1")
    assert out.returncode == 1
    assert "did not answer 200 within 1 s (last: no connection)" in out.stdout


# ------------------------------------------------------------ verify against hostile servers
# Issue 32, point 4: a server that answers anything at all (all on 127.0.0.1) gets one FAIL line
# and exit 1 within --timeout; a bad URL or --timeout one usage line and exit 2. In this
# process (tests.test_hostile_cli.cli: a traceback is caught and shown), each case bounded.

Reply = bytes | Callable[[socket.socket], None]
HEALTHY = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
SLACK_S = 1.5
"""What a run may take past its --timeout (a poll, the interpreter)."""


def http(body: bytes | str, status: str = "200 OK", headers: str = "") -> bytes:
    data = body.encode() if isinstance(body, str) else body
    return (f"HTTP/1.1 {status}\r\nContent-Length: {len(data)}\r\n{headers}"
            "Connection: close\r\n\r\n").encode() + data


def models_body(*ids: Any) -> bytes:
    return http(json.dumps({"object": "list", "data": [{"id": i} for i in ids]}))


class RawServer:
    """A TCP server on 127.0.0.1 that answers each request's path with raw bytes (or runs a
    function on the connection): replies no real HTTP server would send."""

    def __init__(self, routes: dict[str, Reply]) -> None:
        self.routes = {"/health": HEALTHY, "/v1/models": models_body(QWEN), **routes}
        self.stop = threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(10)
            try:
                data = b""
                while b"\r\n\r\n" not in data and len(data) < 1 << 16:
                    more = conn.recv(4096)
                    if not more:
                        return
                    data += more
                path = data.split(b" ", 2)[1].decode(errors="replace") if b" " in data else ""
                reply = self.routes.get(path, http('{"error": "not found"}', "404 Not Found"))
                if callable(reply):
                    reply(conn)
                else:
                    conn.sendall(reply)
            except OSError:
                pass

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.fixture
def raw() -> Iterator[Callable[[dict[str, Reply]], RawServer]]:
    servers: list[RawServer] = []

    def start(routes: dict[str, Reply]) -> RawServer:
        servers.append(RawServer(routes))
        return servers[-1]

    yield start
    for one in servers:
        one.close()


def verify_in_process(*args: str) -> tuple[int, str, str, float]:
    from tests.test_hostile_cli import cli as in_process

    began = time.monotonic()
    code, out, err = in_process("verify", *args)
    return code, out, err, time.monotonic() - began


def one_fail(code: int, out: str, err: str) -> str:
    """The FAIL line of a failed run: exit 1, nothing on standard error, no control character,
    and no line but the steps' and that one."""
    assert "Traceback" not in err, err[-3000:]
    assert code == 1 and err == "", (code, out[-500:], err[-500:])
    lines = out.splitlines()
    assert all(line.isprintable() for line in lines), lines
    assert [line for line in lines if line.startswith("FAIL")] == lines[-1:], lines
    assert all(line.split()[1] in ("ok", "--") for line in lines[:-1]), lines
    assert len(lines[-1]) <= 500
    return lines[-1]


def trickle(head: bytes, stop: threading.Event, pause: float = 0.2) -> Reply:
    """A reply that sends `head`, then one byte every `pause` seconds for ever."""
    def send(conn: socket.socket) -> None:
        conn.sendall(head)
        while not stop.wait(pause):
            conn.sendall(b" ")
    return send


def endless(head: bytes, stop: threading.Event) -> Reply:
    def send(conn: socket.socket) -> None:
        conn.sendall(head)
        block = b"[" * 65536
        while not stop.is_set():
            conn.sendall(block)
    return send


def silent(stop: threading.Event) -> Reply:
    def wait(conn: socket.socket) -> None:
        stop.wait(30)
    return wait


TOO_MANY_HEADERS = ("HTTP/1.1 200 OK\r\n" + "".join(f"X-{i}: {i}\r\n" for i in range(120))
                    + "Content-Length: 0\r\n\r\n").encode()
BROKEN = [
    # (what, routes, the FAIL line's reason after "FAIL  URL: ")
    ("non-HTTP reply", {"/health": b"SSH-2.0-OpenSSH_9.6\r\n"},
     "GET /health: not an HTTP answer (status line"),
    ("TLS alert", {"/health": b"\x15\x03\x01\x00\x02\x02\x46"},
     "GET /health: not an HTTP answer (status line"),
    ("negative status", {"/health": b"HTTP/1.1 -200 OK\r\nContent-Length: 0\r\n\r\n"},
     "GET /health: not an HTTP answer (status line 'HTTP/1.1 -200 OK"),
    ("120 headers", {"/health": TOO_MANY_HEADERS},
     "GET /health: not a usable HTTP answer (got more than 100 headers)"),
    ("truncated body", {"/v1/models": b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"data\""},
     "GET /v1/models: the answer was cut short (7 bytes read, 93 more expected)"),
    ("redirect", {"/health": http("", "302 Found", "Location: http://127.0.0.1:9/\x1b[2J\r\n")},
     "GET /health answered HTTP 302, a redirect to http://127.0.0.1:9/\\x1b[2J: not followed"),
    ("POST redirect", {"/v1/chat/completions": http("", "302 Found", "Location: /v1/models\r\n")},
     "POST /v1/chat/completions answered HTTP 302, a redirect to /v1/models: not followed"),
    ("error body with ESC", {"/v1/models": http("\x1b]0;pwned\x07\x1b[31mred", "500 Oops")},
     "GET /v1/models answered HTTP 500: \\x1b]0;pwned\\x07\\x1b[31mred"),
]
SHAPES = [  # 19 answers of the wrong shape
    ("/v1/models", "[]", "GET /v1/models: not a model list"),
    ("/v1/models", '{"data": [5]}', "GET /v1/models lists no model"),
    ("/v1/models", '{"data": 5}', "GET /v1/models: not a model list"),
    ("/v1/models", '{"data": "abc"}', "GET /v1/models: not a model list"),
    ("/v1/models", '{"data": [{"id": 5}]}', "GET /v1/models lists no model"),
    ("/v1/models", '{"data": [{"id": ["a/b"]}]}', "GET /v1/models lists no model"),
    ("/v1/models", '{"data": [[]]}', "GET /v1/models lists no model"),
    ("/v1/models", '"data"', "GET /v1/models: not a model list"),
    ("/v1/models", "null", "GET /v1/models: not a model list"),
    ("/v1/models", "1e999999", "GET /v1/models: not a model list"),
    ("/v1/models", "[" * 100_000 + "]" * 100_000, "GET /v1/models did not answer JSON"),
    ("/v1/models", "\xff", "GET /v1/models did not answer JSON"),
    ("/v1/chat/completions", "[]", "POST /v1/chat/completions: no choices[0].message"),
    ("/v1/chat/completions", '{"choices": 5}', "POST /v1/chat/completions: no choices[0]"),
    ("/v1/chat/completions", '{"choices": [5]}', "POST /v1/chat/completions: no choices[0]"),
    ("/v1/chat/completions", '{"choices": [{"message": "hi"}]}',
     "POST /v1/chat/completions: no choices[0].message"),
    ("/v1/chat/completions", '{"choices": [{"message": {"content": 5}}]}',
     "POST /v1/chat/completions: the message's content is not text"),
    ("/v1/chat/completions", '{"choices": [{"message": {"content": ["x"]}}]}',
     "POST /v1/chat/completions: the message's content is not text"),
    ("/v1/chat/completions", "{", "POST /v1/chat/completions did not answer JSON"),
]


@pytest.mark.parametrize(("routes", "reason"), [(r, why) for _, r, why in BROKEN],
                         ids=[what for what, _, _ in BROKEN])
def test_a_broken_server_is_one_fail_line(raw: Callable[[dict[str, Reply]], RawServer],
                                          routes: dict[str, Reply], reason: str) -> None:
    server = raw({"/v1/chat/completions": http(json.dumps(CHAT[1])), **routes})
    code, out, err, took = verify_in_process(server.url, "--timeout", "5")
    assert one_fail(code, out, err).startswith(f"FAIL  {server.url}: {reason}")
    assert took < 5


@pytest.mark.parametrize(("path", "body", "reason"), SHAPES)
def test_an_answer_of_the_wrong_shape_is_one_fail_line(
        raw: Callable[[dict[str, Reply]], RawServer], path: str, body: str,
        reason: str) -> None:
    server = raw({path: http(body.encode("latin-1") if body == "\xff" else body)})
    code, out, err, _ = verify_in_process(server.url, "--timeout", "5")
    assert one_fail(code, out, err).startswith(f"FAIL  {server.url}: {reason}")


@pytest.mark.parametrize("how", ["trickled body", "unanswered POST", "endless body",
                                 "trickled headers"])
def test_one_deadline_holds_every_read(raw: Callable[[dict[str, Reply]], RawServer],
                                       how: str) -> None:
    stop = threading.Event()
    routes: dict[str, dict[str, Reply]] = {
        "trickled body": {"/v1/models": trickle(
            b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n", stop)},
        "unanswered POST": {"/v1/chat/completions": silent(stop)},
        "endless body": {"/v1/models": endless(b"HTTP/1.1 200 OK\r\n\r\n", stop)},
        "trickled headers": {"/health": trickle(b"HTTP/1.1 200 OK\r\n", stop)},
    }
    server = raw(routes[how])
    try:
        code, out, err, took = verify_in_process(server.url, "--timeout", "1.5")
    finally:
        stop.set()
    line = one_fail(code, out, err)
    assert took < 1.5 + SLACK_S, took
    if how == "endless body":
        assert line.startswith(f"FAIL  {server.url}: GET /v1/models: the answer's body is "
                               "larger than 32 MiB")
    elif how == "trickled headers":
        assert "did not answer 200 within 1.5 s (last: no answer)" in line
    else:
        assert "no complete answer within --timeout 1.5 s" in line, line


def test_https_on_a_plain_port_honours_the_timeout(
        raw: Callable[[dict[str, Reply]], RawServer], server: tuple[str, Stub]) -> None:
    stop = threading.Event()
    quiet = raw({})  # a server that takes the TLS hello and never answers
    try:
        code, out, err, took = verify_in_process(quiet.url.replace("http:", "https:"),
                                                 "--timeout", "1")
    finally:
        stop.set()
    one_fail(code, out, err)
    assert took < 1 + SLACK_S, took
    plain, _ = server  # a plain HTTP server: the TLS hello gets a reply that is not TLS
    code, out, err, took = verify_in_process(plain.replace("http:", "https:"),
                                             "--timeout", "5")
    assert "(is the server plain http?)" in one_fail(code, out, err)
    assert took < 5


def test_served_ids_are_text_not_paths_or_lines(raw: Callable[[dict[str, Reply]], RawServer],
                                                tmp_path: Path) -> None:
    """A served id with a line break and ESC forges no line and colours nothing; one that
    climbs out of the recipe tree (`../../../../x/recipe`) is not read as a recipe file."""
    from tests.test_hostile_files import tree

    root = tree(tmp_path / "p1" / "p2")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "recipe.yaml").write_text("model: [\n")  # read, it fails to load
    forged = "a/b\nFAIL  http://x: forged\x1b[31m\u202e"
    for served in (forged, "../../../../x/recipe"):
        server = raw({"/v1/models": models_body(served),
                      "/v1/chat/completions": http(json.dumps(CHAT[1]))})
        code, out, err, _ = verify_in_process(server.url, "--timeout", "5",
                                              "--recipes", str(root))
        assert "Traceback" not in err and code == 0, (out, err[-2000:])
        lines = out.splitlines()
        assert len(lines) == 5 and all(line.isprintable() for line in lines), lines
        assert lines[2].startswith("recipe         --  ") and "not in the catalogue" in lines[2]
        assert lines[-1].startswith("PASS  ")
        if served == forged:
            assert lines[1].endswith("a/b\\nFAIL  http://x: forged\\x1b[31m\\u202e")


@pytest.mark.parametrize(("args", "message"), [
    (["--timeout", "nan"], "argument --timeout: 'nan' is not a number of seconds above zero"),
    (["--timeout", "inf"], "argument --timeout: 'inf' is not a number of seconds above zero"),
    (["--timeout", "-1"], "argument --timeout: '-1' is not a number of seconds above zero"),
    (["--timeout", "0"], "argument --timeout: '0' is not a number of seconds above zero"),
    (["http://127.0.0.1:abc"], "argument url: 'http://127.0.0.1:abc' is not a URL (Port"),
    (["http://127.0.0.1:99999"], "argument url: 'http://127.0.0.1:99999' is not a URL (Port"),
    (["http://127.0.0.1:0"], "argument url: 'http://127.0.0.1:0': port 0 is not a port"),
    (["http://[::1"], "argument url: 'http://[::1' is not a URL (Invalid IPv6 URL)"),
    (["http://"], "argument url: 'http://' names no host"),
    (["http://127.0.0.1:8000/ x"], "argument url: 'http://127.0.0.1:8000/ x': a URL of "
                                   "printable ASCII without spaces"),
    (["http://127.0.0.1:8000\r\nX: y"], "argument url: 'http://127.0.0.1:8000\\r\\nX: y': a URL"),
    (["ftp://127.0.0.1/"], "argument url: 'ftp://127.0.0.1/' is not an http:// or https://"),
    (["http://127.0.0.1:8000", "extra"], "unrecognized arguments: extra"),
])
def test_a_bad_url_or_timeout_is_one_usage_line(args: list[str], message: str) -> None:
    from tests.test_hostile_cli import one_line

    code, out, err, took = verify_in_process(*args)
    assert one_line(code, err).startswith(f"vllm-recipes verify: {message}"), err
    assert out == "" and took < 2
