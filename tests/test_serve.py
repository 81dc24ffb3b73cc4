"""`make serve`'s server (site_plugins.serve) on a small site of its own: precompressed copies,
MIME types, the site's 404 page, a sub-path, aborted downloads and a port already in use."""

from __future__ import annotations

import gzip
import http.client
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import brotli
import pytest

from site_plugins.serve import make_server

BIG = bytes(range(256)) * 40_000  # 10 MB, so a download can be cut short


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve") / "site"
    (root / "org" / "Model-1.5").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / "index.html").write_text("<h1>home</h1>")
    (root / "404.html").write_text("<h1>our own 404</h1>")
    (root / "org" / "Model-1.5" / "index.html").write_text("<h1>dotted</h1>")
    wasm = b"\0asm" + b"\1\0\0\0" * 1000
    (root / "assets" / "m.wasm").write_bytes(wasm)
    (root / "assets" / "m.wasm.br").write_bytes(brotli.compress(wasm))
    (root / "assets" / "m.wasm.gz").write_bytes(gzip.compress(wasm))
    (root / "assets" / "x.mjs").write_text("export {};")
    (root / "assets" / "big.bin").write_bytes(BIG)
    return root


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[int]:
    httpd = make_server(site, base="/recipes/", quiet=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_port
    httpd.shutdown()
    httpd.server_close()


def get(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def test_precompressed_copies_by_accept_encoding(server: int, site: Path) -> None:
    original = (site / "assets" / "m.wasm").read_bytes()
    status, headers, body = get(server, "/recipes/assets/m.wasm", **{"Accept-Encoding": "br"})
    assert (status, headers["content-type"], headers["content-encoding"]) == (
        200, "application/wasm", "br")
    assert brotli.decompress(body) == original
    status, headers, body = get(server, "/recipes/assets/m.wasm",
                                **{"Accept-Encoding": "gzip, deflate"})
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == original
    assert "accept-encoding" in headers["vary"].lower()
    status, headers, body = get(server, "/recipes/assets/m.wasm")
    assert "content-encoding" not in headers and body == original


def test_mime_types_and_pages(server: int) -> None:
    assert get(server, "/recipes/assets/x.mjs")[1]["content-type"] == "text/javascript"
    status, _, body = get(server, "/recipes/org/Model-1.5/")
    assert (status, body) == (200, b"<h1>dotted</h1>")
    status, headers, _ = get(server, "/recipes")
    assert status == 301 and headers["location"] == "/recipes/"


def test_missing_files_get_the_sites_404_page(server: int) -> None:
    for path in ("/recipes/nope", "/recipes/org/", "/elsewhere/index.html"):
        status, _, body = get(server, path)
        assert (status, body) == (404, b"<h1>our own 404</h1>"), path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_aborted_download_prints_no_traceback(site: Path) -> None:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "site_plugins.serve", "--port", str(port), str(site)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.1)
        for _ in range(3):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall(b"GET /assets/big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
            sock.recv(1024)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
            sock.close()  # a reset mid-download
        time.sleep(0.5)
        status, _, _ = get(port, "/")
        assert status == 200
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert "Traceback" not in err, err


def test_port_in_use_is_one_line(site: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run(
            [sys.executable, "-m", "site_plugins.serve", "--port", str(port), str(site)],
            capture_output=True, text=True, timeout=30, check=False,
        )
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"port {port} is in use; pick another: make serve PORT={port + 1}"]
