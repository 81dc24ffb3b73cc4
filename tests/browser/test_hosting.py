"""The built site on the static hosts people use, under a sub-path (`/recipes/`), built for
another address than the one it is served from (SITE_URL elsewhere): nginx (Debian's package,
started here with a config of its own), `npx serve`, `npx http-server`, Python's http.server
and `make serve`'s server. On each, the home page's card of a model whose id has a dot
(DeepSeek-V4.1-Flash) opens its page, Python starts, and every widget of the page works: a
click on the builder shows what CPython renders, the compare box compares the command shown
(its data comes from under the sub-path too), and the Dynamo widget repaints. No request of
the page may fail."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

import pytest
from playwright.sync_api import Browser, Page, Response, expect

from builder.views.dynamo import page_state as dynamo_state
from tests.browser.conftest import ROOT
from tests.browser.test_dynamo import as_browser_writes
from tests.browser.test_dynamo import click as dynamo_click
from tests.browser.test_dynamo import widget_html as dynamo_html
from tests.browser.widget import (
    PYTHON_TIMEOUT_MS,
    click_pill,
    expected_text,
    shown_copy_text,
    wait_python,
)
from tests.sitebuild import BuiltSite
from tests.test_dynamo import HF_ID as DYNAMO_MODEL
from tests.test_dynamo import data as dynamo_data

DOTTED = "deepseek-ai/DeepSeek-V4.1-Flash"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
BIN = ROOT / "node_modules" / ".bin"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def www(tmp_path_factory: pytest.TempPathFactory, built_site: BuiltSite) -> Path:
    """www/recipes/ holds the site, built for an address it is never served from (the
    session's one build, for `tests.sitebuild.BUILT_FOR`: another port, and the root path
    where it is served under /recipes/). Hard links: the servers see plain files."""
    root = tmp_path_factory.mktemp("www")
    shutil.copytree(built_site.root, root / "recipes", copy_function=os.link)
    return root


def nginx_conf(root: Path, port: int, prefix: Path) -> Path:
    conf = prefix / "nginx.conf"
    conf.write_text(f"""
user root;
worker_processes 1;
error_log {prefix}/error.log;
pid {prefix}/nginx.pid;
events {{ worker_connections 64; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    gzip_static on;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        error_page 404 /recipes/404.html;
    }}
}}
""")
    return conf


def start(command: list[str], url: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            err = process.stderr.read().decode() if process.stderr else ""
            if process.stderr:
                process.stderr.close()
            pytest.fail(f"{command[0]} exited: {err}", pytrace=False)
        try:
            with urlopen(url, timeout=2):
                return process
        except URLError:
            time.sleep(0.2)
        except Exception:  # an HTTP error status still means the server is up
            return process
    process.kill()
    process.wait()
    if process.stderr:
        process.stderr.close()
    pytest.fail(f"{command[0]} did not answer at {url}", pytrace=False)


HOSTS = ["nginx", "npx serve", "npx http-server", "python http.server", "make serve"]


@pytest.fixture(params=HOSTS)
def host(request: pytest.FixtureRequest, www: Path, tmp_path: Path) -> Iterator[str]:
    """The home page's URL on a running server."""
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    name = request.param
    if name == "nginx":
        assert Path(NGINX).exists(), "nginx is missing: `make install-nginx` installs it"
        conf = nginx_conf(www, port, tmp_path)
        command = [NGINX, "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"]
        home = f"{origin}/recipes/"
    elif name == "npx serve":
        # Served at its root (as `npx serve site` does): serve reads site/serve.json.
        command = [str(BIN / "serve"), "-n", "-l", f"tcp://127.0.0.1:{port}",
                   str(www / "recipes")]
        home = f"{origin}/"
    elif name == "npx http-server":
        command = [str(BIN / "http-server"), "-s", "-a", "127.0.0.1", "-p", str(port), str(www)]
        home = f"{origin}/recipes/"
    elif name == "python http.server":
        command = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                   "--directory", str(www)]
        home = f"{origin}/recipes/"
    else:
        command = [sys.executable, "-m", "site_plugins.serve", "--port", str(port),
                   "--base", "/recipes/", str(www / "recipes")]
        home = f"{origin}/recipes/"
    process = start(command, home)
    try:
        yield home
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()


def test_dotted_model_page_works_from_the_home_page(browser: Browser, host: str) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    failed: list[str] = []

    def check(response: Response) -> None:
        if response.status >= 400:
            failed.append(f"{response.status} {response.url}")

    context.on("response", check)
    page: Page = context.new_page()
    try:
        page.goto(host)
        card = page.locator("a.rcp-card-link", has_text="DeepSeek-V4.1-Flash").first
        card.click()
        page.wait_for_function(
            "id => document.querySelector('.rb-mount')?.dataset.hfId === id", arg=DOTTED)
        assert "Index of" not in page.title()
        wait_python(page)
        click_pill(page, "install", "docker")
        assert shown_copy_text(page) == expected_text(DOTTED, {"install": "docker"})
        # The compare box, with the command the page shows: the same engine settings.
        page.locator(".cmp-input").fill(shown_copy_text(page))
        page.click("button.cmp-run")
        expect(page.locator(".cmp-output .cdiff-summary")).to_have_text(
            "same engine settings as the recipe", timeout=PYTHON_TIMEOUT_MS)
        # The Dynamo deployment widget (this model has one): what CPython renders for a click.
        assert DYNAMO_MODEL == DOTTED
        dynamo_click(page, "framework", "sglang")
        assert dynamo_html(page) == as_browser_writes(
            page, dynamo_state(dynamo_data(), {"dynamo_framework": "sglang"})["html"])
        # The crumb back to the models is relative too.
        page.locator(".rcp-crumbs a").click()
        page.wait_for_selector("a.rcp-card-link")
        assert page.url.rstrip("/") == host.rstrip("/")
    finally:
        context.close()
    assert failed == []
