"""The builder's shared worker, as browsers with shared workers run it: every tab of the site
talks to one Python. A second tab finds it running (the worker that answers started when the
first tab's did) and gets its own recipe's commands; both tabs keep being answered; a tab
opened after every other has closed is answered too. The worker is named after a
hash of what it runs and reads (the builder, its script, the recipes, the code publishing their
JSON), so tabs of a redeployed site do not share a worker holding older code or data.

These pages run in contexts of their own: the session's context hides shared workers (see
`conftest.site_context`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from site_plugins.recipes.assets import worker_sources, worker_version
from tests.browser.conftest import Site
from tests.browser.widget import (
    click_pill,
    expected_text,
    model_url,
    shown_copy_text,
    wait_python,
)

ROOT = Path(__file__).resolve().parents[2]
V4 = "deepseek-ai/DeepSeek-V4-Flash"
KIMI = "moonshotai/Kimi-K2-Instruct"


@pytest.fixture
def shared_context(browser: Browser, site: Site) -> Iterator[BrowserContext]:
    context = browser.new_context(base_url=site.origin, viewport={"width": 1280, "height": 900})
    context.on("weberror", lambda error: site.errors.append(str(error.error)))
    yield context
    context.close()


def _worker_started(page: Page) -> float:
    """When the worker that answered this page started (its time origin)."""
    return page.evaluate("window.rbPython.phases.timeOrigin")


def _open(context: BrowserContext, hf_id: str) -> Page:
    page = context.new_page()
    page.goto(model_url(hf_id))
    wait_python(page)
    return page


def test_a_second_tab_is_answered_by_the_running_worker(shared_context: BrowserContext) -> None:
    first = _open(shared_context, V4)
    assert first.evaluate("window.rbPython.worker.rbWorker instanceof SharedWorker")
    second = _open(shared_context, KIMI)
    assert _worker_started(second) == _worker_started(first)
    click_pill(second, "hardware", "mi355x")
    assert shown_copy_text(second) == expected_text(KIMI, {"hardware": "mi355x"})
    click_pill(first, "install", "docker")
    assert shown_copy_text(first) == expected_text(V4, {"install": "docker"})


def test_a_tab_after_the_others_closed_is_answered(shared_context: BrowserContext) -> None:
    # The browser ends a shared worker when its last tab closes, in its own time: the next tab
    # may find it still running or start a new one. Either way it gets its commands.
    first = _open(shared_context, KIMI)
    first.close()
    again = _open(shared_context, KIMI)
    click_pill(again, "install", "docker")
    assert shown_copy_text(again) == expected_text(KIMI, {"install": "docker"})


def test_the_worker_is_named_after_the_builders_version(site: Site) -> None:
    version = worker_version(*worker_sources(ROOT / "builder", ROOT / "docs", ROOT / "recipes"))
    for page in (f"{V4}/index.html", "index.html", "configurations/index.html"):
        html = (site.root / page).read_text()
        assert f'<meta name="rb-worker" content="recipe-builder-{version}">' in html, page
