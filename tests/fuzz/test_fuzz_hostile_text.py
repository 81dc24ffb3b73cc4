"""Fuzz (issue 32, point 7): hostile text into the tool's terminal lines, YAML files and
clients. Seeded and bounded, in this process:

- `TEXTS` strings of control, bidi, zero-width and line-separator characters through
  `builder.text_safety.printable` and the YAML emitter (values and comments re-parsed);
- `SERVERS` replies of a hostile server (`verify`, one run each: PASS or one FAIL line, within
  its --timeout);
- `TOOLS` outputs of a hostile `nvidia-smi`, `amd-smi`, `rocm-smi`, `npu-smi`, `lscpu` or
  `$TPU_ACCELERATOR_TYPE` (`--detect`'s probes: a hardware= or one usage line);
- `COMMANDS` pasted commands with look-alike dashes and escapes (`diff`: a printable diff or
  one usage line).

Each test keeps a `FAILED` list of seeds that once failed, as cases of their own.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from pathlib import Path

import pytest
import yaml

from builder.text_safety import printable
from builder.yaml_text import comment_lines, dump
from tests.fuzz.hostile import ERROR_MAX, cli
from tests.recipes_data import builder_catalog

TEXTS = 300
SERVERS = 40
TOOLS = 200
COMMANDS = 60
FAILED: list[int] = []
"""Seeds that once failed (kept as cases of their own)."""
NASTY = ["\x1b", "\x1b[31m", "\x1b]0;x\x07", "\x9b", "\x85", "\u2028", "\u2029", "\r", "\n",
         "\r\n", "\x0b", "\x0c", "\x00", "\x7f", "\u202e", "\u2066", "\u200b", "\ufeff",
         "\udcff", "\U000e0001", "\ud800", "\t", "\u00a0", "\u3000"]
PLAIN = ["a", "Z", "0", " ", ":", "#", "-", "'", '"', "\\", "{", "[", "é", "×", "😀", "key: v"]


def hostile_text(rng: random.Random, most: int = 40) -> str:
    return "".join(rng.choice(NASTY if rng.random() < 0.4 else PLAIN)
                   for _ in range(rng.randrange(most)))


@pytest.mark.parametrize("seed", [*FAILED, 32])
def test_hostile_text_prints_and_round_trips(seed: int) -> None:
    rng = random.Random(seed)
    for case in range(TEXTS):
        text = hostile_text(rng) * rng.choice((1, 1, 1, 40))
        limit = rng.choice((1, 2, 10, 60, 500))
        shown = printable(text, limit)
        assert shown.isprintable() and len(shown) <= limit, (case, text[:80], shown)
        if text.isprintable() and len(text) <= limit:
            assert shown == text, (case, text)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: not a YAML string at all
            continue
        data = {"k": text, "l": [text, {"m": text}], text[:100] or "x": 1}  # (YAML: a key of
        # at most 1024 characters; the files' keys are names)
        written = dump(data)
        assert all(line.isprintable() for line in written.split("\n")), (case, written)
        assert yaml.safe_load(written) == data, (case, written)
        commented = comment_lines(text) + "k: 1\n"
        assert yaml.safe_load(commented) == {"k": 1}, (case, commented)


# ---------------------------------------------------------------------------- verify


def _reply(rng: random.Random) -> bytes:
    """One hostile reply: a broken status line, headers or body, or a valid answer of a
    wrong shape, or a redirect."""
    shapes = [[], {}, 5, "x", None, {"data": rng.choice([[], 5, [5], [{}], [{"id": 5}],
                                                         [{"id": hostile_text(rng)}]])},
              {"data": [{"id": "fuzz/none"}]}, {"choices": rng.choice([[], [5], [{}]])}]
    body = json.dumps(rng.choice(shapes)).encode()
    if rng.random() < 0.3:
        body = body[:rng.randrange(len(body) + 1)] + hostile_text(rng).encode(
            errors="surrogatepass")
    status = rng.choice(["200 OK", "200 OK", "503 X", "301 Moved", "302 Found", "-1 X",
                         "99 X", "1000 X", "200", "abc", ""])
    headers = rng.choice(["", "Location: http://127.0.0.1:9/\x1b[2J\r\n",
                          "".join(f"X-{i}: 1\r\n" for i in range(rng.choice((5, 150)))),
                          "Transfer-Encoding: chunked\r\n", "Content-Length: -5\r\n",
                          "Content-Length: 99999\r\n", "Content-Length: x\r\n",
                          hostile_text(rng) + "\r\n"])
    length = "" if "Content-Length" in headers or "chunked" in headers else (
        f"Content-Length: {len(body)}\r\n")
    head = f"HTTP/1.1 {status}\r\n{headers}{length}Connection: close\r\n\r\n"
    raw = head.encode(errors="surrogatepass") + body
    return raw if rng.random() < 0.9 else raw[:rng.randrange(len(raw) + 1)]


class _Server:
    """Answers /health and /v1/models with the given raw replies, anything else 404."""

    def __init__(self, replies: dict[str, bytes]) -> None:
        self.replies = replies
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    data = conn.recv(65536)
                    path = data.split(b" ")[1].decode() if data.count(b" ") > 1 else ""
                    conn.sendall(self.replies.get(path, b"HTTP/1.1 404 N\r\n"
                                                  b"Content-Length: 0\r\n\r\n"))
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()


@pytest.mark.parametrize("seed", [*FAILED, 3200])
def test_hostile_servers_get_one_fail_line(seed: int, tmp_path: Path) -> None:
    from tests.test_hostile_files import tree

    rng = random.Random(seed)
    root = tree(tmp_path)
    healthy = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
    failures = []
    for case in range(SERVERS):
        replies = {"/health": _reply(rng) if rng.random() < 0.4 else healthy,
                   "/v1/models": _reply(rng), "/v1/chat/completions": _reply(rng)}
        server = _Server(replies)
        began = time.monotonic()
        try:
            run = cli("verify", server.url, "--timeout", "1.5", "--recipes", str(root))
        finally:
            server.close()
        took = time.monotonic() - began
        code, out, err = run.code, run.out, run.err
        lines = out.splitlines()
        verdicts = [line for line in lines if line.startswith(("PASS", "FAIL"))]
        if ("Traceback" in err or err or code not in (0, 1) or took > 3.5
                or not all(line.isprintable() and len(line) <= 500 for line in lines)
                or verdicts != lines[-1:]
                or verdicts[0].startswith("PASS") != (code == 0)):
            failures.append(f"case {case}: {replies!r:.300} → {code} in {took:.1f} s: "
                            f"{out[-300:]!r} {err[-500:]!r}")
    assert not failures, "\n".join(failures[:10])


# ---------------------------------------------------------------------------- --detect


def _tool_output(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.25:
        return json.dumps(rng.choice([
            [{"asic": hostile_text(rng)}], [{"asic": {"market_name": hostile_text(rng)},
                                             "vram": rng.choice([5, [], {"size": 5}])}],
            {"gpu_data": rng.choice([5, [5], None])}, [1], {"card0": rng.choice([5, []])},
            {"card0": {"Card series": rng.choice([["a"], 5, hostile_text(rng)])}}]))
    if roll < 0.5:
        return "".join(f"Model name: {hostile_text(rng)}\nNUMA node(s): "
                       f"{rng.choice(['0', '²', '٨', '4', '999999999999', '', 'x'])}\n")
    if roll < 0.75:
        return "".join(f"| {rng.randrange(9)}  {hostile_text(rng, 10)}  | OK |\n"
                       for _ in range(rng.randrange(5)))
    return "".join(f"{hostile_text(rng, 20)}, {rng.randrange(10**6)} MiB\n"
                   for _ in range(rng.choice((0, 1, 8, 600))))


@pytest.mark.parametrize("seed", [*FAILED, 3201])
def test_hostile_tools_get_one_line(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from vllm_recipes_cli.detect import match, probe
    from vllm_recipes_cli.errors import UsageError

    rng = random.Random(seed)
    catalog = builder_catalog()
    failures = []
    for case in range(TOOLS):
        outputs = {tool: _tool_output(rng) for tool in
                   ("nvidia-smi", "amd-smi", "rocm-smi", "npu-smi", "lscpu")
                   if rng.random() < 0.5}
        tpu = rng.choice(["", "", "v6e-8", "v6e-0", "v6e-²", "v6e-99999999999",
                          "".join(c for c in hostile_text(rng)  # what an environment holds
                                  if c not in "\x00\udcff\ud800")])
        monkeypatch.setenv("TPU_ACCELERATOR_TYPE", tpu)
        try:
            line = match(catalog, probe(lambda argv, o=outputs: o.get(argv[0]))).line
        except UsageError as error:
            line = str(error)
        except Exception as error:  # any other is the failure sought
            failures.append(f"case {case}: {outputs!r:.300} {tpu!r}: {error!r}")
            continue
        shown = printable(f"vllm-recipes: {line}", 500)
        if not f"vllm-recipes: {line}"[:499].isprintable() or len(shown.encode()) > ERROR_MAX:
            failures.append(f"case {case}: {line[:300]!r}")
    assert not failures, "\n".join(failures[:10])


# ---------------------------------------------------------------------------- diff

DASHES = ["\u2014", "\u2013", "\u2212", "\u2010", "\u2011", "\ufe63", "\uff0d", "-", "--"]


@pytest.mark.parametrize("seed", [*FAILED, 3202])
def test_hostile_pasted_commands(seed: int) -> None:
    rng = random.Random(seed)
    failures = []
    for case in range(COMMANDS):
        words = ["vllm", "serve", "Qwen/Qwen3-8B"]
        for _ in range(rng.randrange(4)):
            words.append(rng.choice(DASHES) + rng.choice(["tensor-parallel-size", "max-model-len",
                                                          "served-model-name"]))
            words.append(rng.choice(["2", "4096", "'" + hostile_text(rng).replace("'", "")
                                     .replace("\x00", "") + "'"]))
        run = cli("diff", "Qwen/Qwen3-8B", "--command", " ".join(words))
        code, out, err = run.code, run.out, run.err
        bad_dash = any(w[:1] not in ("-", "'") and w[:1] in "".join(DASHES) for w in words)
        if ("Traceback" in err or code not in (0, 2) or (code == 2) != bad_dash
                or not all(line.isprintable() for line in (out + err).splitlines())):
            failures.append(f"case {case}: {words!r:.300} → {code}: {err[-300:]!r}")
    assert not failures, "\n".join(failures[:10])
