"""Issue 27.3: `vllm-recipes run` (against a stub `vllm` executable that records what it was
started with) and `vllm-recipes verify` (against a stub HTTP server on 127.0.0.1 that these
tests start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
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
    return subprocess.run([sys.executable, "-m", "vllm_recipes", *args], cwd=ROOT,
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
