"""`make serve`: the built site served like a real static host, with the standard library.

    python -m site_plugins.serve [--host 127.0.0.1] [--port 8000] [--base /] [site]

- precompressed copies (`<file>.br`, `<file>.gz`, made by the build) are sent when the browser
  accepts them, with the original's MIME type and `Vary: Accept-Encoding`;
- `.mjs`, `.js`, `.wasm` and `.json` get the MIME types browsers insist on;
- a missing file gets the site's own `404.html`, with status 404;
- a browser that aborts a download (closing a tab while Pyodide loads) is not an error: no
  traceback is printed;
- `--base /recipes/` serves the site under a sub-path, as GitHub Pages does for a project;
- a port already in use is one line that says how to pick another (`make serve PORT=8001`).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import os
import sys
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["Handler", "main", "make_server"]

MIME = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".map": "application/json",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".xml": "application/xml",
}
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))
DISCONNECTS = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


class Handler(SimpleHTTPRequestHandler):
    """Static files of one directory, optionally under a base path."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **MIME}  # noqa: RUF012
    base = "/"
    quiet = False

    def __init__(self, *args: object, base: str = "/", quiet: bool = False,
                 **kwargs: object) -> None:
        self.base = base
        self.quiet = quiet
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    # ----------------------------------------------------------------- paths

    def _site_path(self) -> str | None:
        """The request path inside the site, or None when it is outside the base path."""
        path = urlsplit(self.path).path
        if self.base != "/":
            if path == self.base.rstrip("/"):
                return ""  # redirected to the base with its slash by the directory logic
            if not path.startswith(self.base):
                return None
            path = "/" + path[len(self.base):]
        return path

    def translate_path(self, path: str) -> str:
        inside = self._site_path()
        if inside is None:
            return os.path.join(self.directory, "\0outside")  # never exists
        return super().translate_path(inside)

    # ----------------------------------------------------------------- responses

    def send_head(self):  # type: ignore[no-untyped-def]
        if self._site_path() == "":
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", self.base)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            index = os.path.join(path, "index.html")
            if not urlsplit(self.path).path.endswith("/") or not os.path.isfile(index):
                return super().send_head()  # the stdlib's redirect to "dir/", or 404 below
            path = index
        if not os.path.isfile(path):
            return self._not_found()
        accepted = self.headers.get("Accept-Encoding", "")
        for encoding, suffix in ENCODINGS:
            if encoding in accepted and os.path.isfile(path + suffix):
                return self._file(path + suffix, self.guess_type(path), encoding)
        return self._file(path, self.guess_type(path), None)

    def _file(self, path: str, content_type: str, encoding: str | None):  # type: ignore[no-untyped-def]
        try:
            f = open(path, "rb")  # noqa: SIM115 (closed by copyfile's caller)
        except OSError:
            return self._not_found()
        stat = os.fstat(f.fileno())
        modified = self.date_time_string(int(stat.st_mtime))
        if self.headers.get("If-Modified-Since") == modified:
            f.close()
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("Last-Modified", modified)
            self.send_header("Vary", "Accept-Encoding")
            self.end_headers()
            return None
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", content_type)
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(stat.st_size))
        self.send_header("Last-Modified", modified)
        self.end_headers()
        return f

    def _not_found(self):  # type: ignore[no-untyped-def]
        page = Path(self.directory, "404.html")
        body = page.read_bytes() if page.is_file() else b"<h1>404 Not Found</h1>\n"
        self.send_response(HTTPStatus.NOT_FOUND)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        return None

    def list_directory(self, path: str):  # type: ignore[no-untyped-def]
        return self._not_found()  # a static host shows no listings

    def handle(self) -> None:
        with contextlib.suppress(DISCONNECTS):  # the browser went away mid-download
            super().handle()

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], DISCONNECTS):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


def make_server(directory: Path, host: str = "127.0.0.1", port: int = 0, base: str = "/",
                quiet: bool = False, handler_class: type[Handler] = Handler) -> Server:
    """A server for `directory` (not started); port 0 picks a free one."""
    if not base.startswith("/"):
        base = "/" + base
    if not base.endswith("/"):
        base += "/"
    handler = functools.partial(handler_class, directory=str(directory), base=base, quiet=quiet)
    return Server((host, port), handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default="site", type=Path)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--base", default="/", help="serve under this path, e.g. /recipes/")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"{args.site}: no built site here; run `make build` first", file=sys.stderr)
        return 2
    try:
        server = make_server(args.site, args.host, args.port, args.base)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            print(f"port {args.port} is in use; pick another: make serve PORT={args.port + 1}",
                  file=sys.stderr)
            return 2
        raise
    base = args.base if args.base.endswith("/") else args.base + "/"
    print(f"Serving {args.site}/ on http://{args.host}:{server.server_port}{base} "
          "(Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
