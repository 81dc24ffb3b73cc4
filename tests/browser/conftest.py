"""Browser tests: the real site, built once per session, served on a free localhost port and
driven with Debian's Chromium through Playwright (one browser, one context for the session).

The site is the session's one build (`built_site`, tests/conftest.py: SITE_URL
`tests.sitebuild.BUILT_FOR`). The server here gives `sitemap.xml` as a build for its own origin
would write it: the sitemap's `<loc>` addresses are what mkdocs-material's instant navigation
compares with the page's origin (it engages only for the pages listed there), so instant
navigation engages as it does in production, at the cost of no second build of the site.
Every request any page or worker makes is recorded; a request to another origin fails the test
that caused it. (The builder's worker is a dedicated one in this context; see `site_context`.)
Every page has a Content-Security-Policy without 'unsafe-eval': `wait_for_function` takes a
function (`"() => ..."`), as a bare expression is polled with eval, which the policy refuses.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Request

from site_plugins.serve import DISCONNECTS
from tests.browser.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.browser.widget import WarmTab
from tests.sitebuild import BUILT_FOR, BuiltSite

ROOT = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.browser)


class _Handler(SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 (the stdlib's own class attribute)
        **SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
    }

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] != "/sitemap.xml":
            return super().do_GET()
        text = (Path(self.directory) / "sitemap.xml").read_text(encoding="utf-8")
        host, port = self.server.server_address[:2]
        body = text.replace(f"<loc>{BUILT_FOR}", f"<loc>http://{host}:{port}/").encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _QuietServer(ThreadingHTTPServer):
    """A browser that goes away mid-download (a tab or context closed while the builder's
    worker fetches Pyodide) is not an error: no traceback for it (as `make serve`)."""

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], DISCONNECTS):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


@dataclass
class Site:
    origin: str
    """http://127.0.0.1:PORT, no trailing slash."""
    root: Path
    """The built site's directory."""
    foreign: list[str] = field(default_factory=list)
    """Every request that left the origin, in the order made."""
    errors: list[str] = field(default_factory=list)
    """Uncaught page errors."""

    def url(self, path: str) -> str:
        return f"{self.origin}/{path.lstrip('/')}"


@pytest.fixture(scope="session")
def site(built_site: BuiltSite) -> Iterator[Site]:
    handler = functools.partial(_Handler, directory=str(built_site.root))
    server = _QuietServer(("127.0.0.1", 0), handler)
    origin = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(origin, built_site.root)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def site_context(browser: Browser, site: Site) -> Iterator[BrowserContext]:
    """One context for the session (HTTP cache shared, so Pyodide is fetched once)."""
    context = browser.new_context(
        permissions=["clipboard-read", "clipboard-write"],
        base_url=site.origin,
        viewport={"width": 1280, "height": 900},
    )

    def record(request: Request) -> None:
        url = request.url
        if url.startswith(("data:", "blob:", "about:")):
            return
        if url != site.origin and not url.startswith(site.origin + "/"):
            site.foreign.append(url)

    # Workers' requests (Pyodide's fetches) are reported on the context too, a dedicated
    # worker's only: Playwright neither sees nor routes a shared worker's requests
    # (microsoft/playwright#33917), so these pages get the dedicated worker the builder uses
    # where the browser has no shared ones, and every request it makes is checked.
    # test_shared_worker.py covers the shared worker, in contexts of its own.
    context.add_init_script("delete window.SharedWorker;")
    context.on("request", record)
    context.on("weberror", lambda error: site.errors.append(str(error.error)))
    yield context
    context.close()


@pytest.fixture(autouse=True)
def origin_only(site: Site) -> Iterator[None]:
    """Fails the test if any request left the origin or a page threw while it ran."""
    foreign_before = len(site.foreign)
    errors_before = len(site.errors)
    yield
    assert site.foreign[foreign_before:] == [], "requests left the page's origin"
    assert site.errors[errors_before:] == [], "uncaught errors in the page"


@pytest.fixture
def site_page(site_context: BrowserContext, site: Site) -> Iterator[Page]:
    """A fresh tab: a cold page load, Python booting from scratch."""
    page = site_context.new_page()
    page.on("websocket", lambda ws: site.foreign.append(ws.url))
    yield page
    page.close()


@pytest.fixture(scope="session")
def warm_tab(site_context: BrowserContext, site: Site) -> Iterator[WarmTab]:
    """One tab for the session: Python boots once, pages change by instant navigation."""
    page = site_context.new_page()
    page.on("websocket", lambda ws: site.foreign.append(ws.url))
    tab = WarmTab(page)
    page.goto("/")
    # Instant navigation intercepts links only once it has read the sitemap.
    page.wait_for_load_state("networkidle")
    yield tab
    page.close()
