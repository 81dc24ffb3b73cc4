"""Issue 32 in Chromium: every page's Content-Security-Policy holds while the builder, the
compare box and the Dynamo widget work, and a guide carrying every payload, forced past
`check` into the build, runs nothing: `window.__pwned` stays unset, no dialog opens, no
request is sent (tests/fixtures/recipes_xss).

The site here is small (`hostile_tree.py`: two real recipes and the hostile one), built once
for the module with the guide check switched off (`tests/sitebuild.py: build_unchecked`).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import _Handler, _QuietServer
from tests.browser.hostile_tree import hostile_tree
from tests.browser.test_dynamo import click as click_dynamo
from tests.browser.widget import (
    PYTHON_TIMEOUT_MS,
    click_pill,
    expected_text,
    model_url,
    shown_copy_text,
    wait_python,
)
from tests.sitebuild import build_unchecked

XSS_PAGE = "/xss-lab/Xss-Model/"
RECORD = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', e =>
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
delete window.SharedWorker;
"""
"""Run first in every page: CSP violations are recorded; the builder's worker is a dedicated
one, whose requests Playwright sees (as tests/browser/conftest.py does)."""


@dataclass
class HostileSite:
    origin: str
    root: Path
    requests: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostileSite]:
    base = tmp_path_factory.mktemp("csp")
    tree = hostile_tree(base / "recipes")
    site_dir = base / "site"
    site_dir.mkdir()
    server = _QuietServer(("127.0.0.1", 0),
                          functools.partial(_Handler, directory=str(site_dir)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_port}"
    try:
        run = build_unchecked(site_dir, "--quiet", RECIPES_DIR=str(tree),
                              SITE_URL=f"{origin}/")
        assert run.returncode == 0, run.stdout + run.stderr
        yield HostileSite(origin, site_dir)
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def context(browser: Browser, hostile_site: HostileSite) -> Iterator[BrowserContext]:
    context = browser.new_context(base_url=hostile_site.origin,
                                  viewport={"width": 1280, "height": 900})
    context.add_init_script(RECORD)
    context.on("request", lambda request: hostile_site.requests.append(request.url))
    context.on("weberror", lambda error: hostile_site.errors.append(str(error.error)))
    yield context
    context.close()


@pytest.fixture(autouse=True)
def origin_only(hostile_site: HostileSite) -> Iterator[None]:
    """This module's own site, not the session's: no request leaves its origin, no page
    throws, no dialog opens while a test runs."""
    requests, errors = len(hostile_site.requests), len(hostile_site.errors)
    yield
    foreign = [url for url in hostile_site.requests[requests:]
               if not url.startswith((hostile_site.origin + "/", "data:", "blob:"))]
    assert foreign == [], "requests left the page's origin"
    assert hostile_site.errors[errors:] == [], "uncaught errors in the page"
    assert hostile_site.dialogs == []


@pytest.fixture
def page(context: BrowserContext, hostile_site: HostileSite) -> Iterator[Page]:
    page = context.new_page()
    page.on("dialog", lambda dialog: (hostile_site.dialogs.append(dialog.message),
                                      dialog.dismiss()))
    yield page
    assert page.evaluate("window.__violations") == [], "the site's own code broke its policy"
    page.close()


def test_the_policy_is_enforced(page: Page) -> None:
    """A handler put into the page behind the site's back does not run (the policy is
    there and Chromium enforces it)."""
    page.goto(model_url("Qwen/Qwen3-8B"))
    page.evaluate("document.body.insertAdjacentHTML('beforeend', "
                  "'<img src=\"x.png\" onerror=\"window.__pwned = 1\">')")
    page.wait_for_function("() => window.__violations.length > 0")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.evaluate("window.__violations")[0].startswith("script-src-attr inline")
    page.evaluate("window.__violations = []")


def test_a_hostile_guide_runs_nothing(page: Page, hostile_site: HostileSite) -> None:
    before = len(hostile_site.requests)
    page.goto(XSS_PAGE)
    page.wait_for_load_state("networkidle")
    guide = page.locator("article.md-content__inner")
    # Everything a visitor does to the payloads: hover, focus, click each link.
    page.get_by_text("Cover the page.").hover()
    page.get_by_text("Focus trap").first.focus()
    page.keyboard.press("Tab")
    for text in ("entity link", "split link", "data link", "vb link", "bad link"):
        guide.get_by_text(text, exact=True).click()
    # The one real link keeps its href; its click runs no handler (the page stays: a
    # capturing listener cancels the navigation, not the link's own handlers).
    page.evaluate("document.addEventListener('click', e => e.preventDefault(), true)")
    guide.get_by_role("link", name="click link").click()
    page.wait_for_timeout(500)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.url.endswith(XSS_PAGE)
    made = hostile_site.requests[before:]
    assert not [url for url in made if "127.0.0.1:9/" in url or url.startswith("data:")]


def test_the_builder_works_under_the_policy(page: Page) -> None:
    page.goto(model_url("Qwen/Qwen3-8B"))
    wait_python(page)
    before = shown_copy_text(page)
    click_pill(page, "hardware", "xeon6")
    assert shown_copy_text(page) == expected_text("Qwen/Qwen3-8B", {"hardware": "xeon6"})
    assert shown_copy_text(page) != before


def test_the_compare_box_works_under_the_policy(page: Page) -> None:
    page.goto(model_url("Qwen/Qwen3-8B"))
    wait_python(page)
    page.locator(".cmp-input").fill("vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2")
    page.click("button.cmp-run")
    expect(page.locator(".cmp-output .cdiff")).to_have_count(1, timeout=PYTHON_TIMEOUT_MS)
    expect(page.locator(".cmp-output")).to_contain_text("--tensor-parallel-size")


def test_the_dynamo_widget_works_under_the_policy(page: Page) -> None:
    page.goto(model_url("deepseek-ai/DeepSeek-V4.1-Flash"))
    for key, value in (("framework", "vllm"), ("gpu", "h200"), ("topology", "disaggregated")):
        click_dynamo(page, key, value)
    expect(page.locator(".dy-widget .dy-step pre code").nth(1)).to_contain_text(
        "disagg-h200")


def test_instant_navigation_keeps_working(page: Page) -> None:
    """From the home page to a model page without a reload: the policy of the first page
    allows the scripts the next one runs."""
    page.goto("/")
    page.wait_for_load_state("networkidle")
    loads: list[str] = []
    page.on("load", lambda loaded: loads.append(loaded.url))
    page.locator('a[href*="Qwen/Qwen3-8B/"]').first.click()
    page.wait_for_function("() => location.pathname === '/Qwen/Qwen3-8B/'")
    wait_python(page)
    click_pill(page, "hardware", "xeon6")
    assert loads == []


def test_the_home_pages_notice_cuts_a_long_value(page: Page) -> None:
    """`/?hardware=` + 5,000 × `x` printed the whole value."""
    page.goto("/?hardware=" + "x" * 5000 + "%E2%80%AE%1B")
    notice = page.locator("[data-rcp-notice]")
    expect(notice).to_be_visible()
    text = notice.text_content() or ""
    assert "hardware=xxx" in text
    assert len(text) < 200
    assert "\u202e" not in text and "\x1b" not in text


def test_the_dynamo_notice_cuts_a_long_value(page: Page) -> None:
    """`?dynamo_gpu=` + 100 KB printed the whole value (50 KB here: Python's test server
    refuses a request line over 64 KB)."""
    page.goto(model_url("deepseek-ai/DeepSeek-V4.1-Flash", "dynamo_gpu=" + "x" * 50_000))
    notice = page.locator(".dy-widget .rb-notice")
    expect(notice).to_contain_text("dynamo_gpu=xxx", timeout=PYTHON_TIMEOUT_MS)
    assert len(notice.text_content() or "") < 500
