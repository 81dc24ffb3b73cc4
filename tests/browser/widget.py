"""Reading and driving the recipe builder widget in a Playwright page."""

from __future__ import annotations

import subprocess
import sys
from urllib.parse import parse_qsl

from playwright.sync_api import Locator, Page

from builder.commands.build import build
from builder.views.widget import page_state
from tests.recipes_data import ROOT, builder_catalog, builder_recipe

# Pyodide's boot in the worker takes ~3-6 s cold on a small machine.
PYTHON_TIMEOUT_MS = 60_000
PAINTS = "performance.getEntriesByName('rb-paint').length"


def model_url(hf_id: str, query: str = "") -> str:
    return f"/{hf_id}/" + (f"?{query}" if query else "")


def wait_python(page: Page) -> None:
    """Until the page's Python (Pyodide in the worker) has answered once."""
    page.wait_for_function(
        "() => performance.getEntriesByName('rb-python-ready').length > 0",
        timeout=PYTHON_TIMEOUT_MS,
    )


def hold_python(page: Page) -> None:
    """Keep the tab's Python from starting: the request for the builder's worker script is
    held, never answered, until the tab closes (the page stays as it is while Python loads).
    For tests of what a page shows and answers before its Python has started: a boot they
    do not use costs about 2 CPU-seconds."""
    page.route("**/javascripts/builder-worker.js", lambda route: None)


def paints(page: Page) -> int:
    return page.evaluate(PAINTS)


def wait_paint(page: Page, before: int) -> None:
    page.wait_for_function(f"() => {PAINTS} > {before}", timeout=PYTHON_TIMEOUT_MS)


def pill(page: Page, key: str, value: str) -> Locator:
    return page.locator(f'.rb-widget button.rb-pill[data-key="{key}"][data-value="{value}"]')


def click_pill(page: Page, key: str, value: str) -> None:
    """Click an available pill and wait until the widget is repainted."""
    before = paints(page)
    pill(page, key, value).click()
    wait_paint(page, before)


def reason_of(page: Page, key: str, value: str) -> Locator:
    """The paragraph an unavailable pill's aria-describedby names."""
    ident = pill(page, key, value).get_attribute("aria-describedby")
    assert ident, f"{key}={value} has no aria-describedby"
    return page.locator(f"#{ident}")


def pills(page: Page, key: str) -> list[dict[str, str | None]]:
    """Every pill of `key` shown in its row: value, pressed, and the reason an unavailable
    one points at (None when available). A row's unavailable values past the first three
    are not pills: they are listed in its "N more" disclosure (`folded`)."""
    return page.evaluate(
        """key => [...document.querySelectorAll(`.rb-widget button.rb-pill[data-key="${key}"]`)]
            .map(b => ({value: b.dataset.value, pressed: b.getAttribute('aria-pressed'),
                        reason: b.getAttribute('aria-disabled') === 'true'
                          ? document.getElementById(b.getAttribute('aria-describedby'))
                              ?.textContent ?? '' : null}))""",
        key,
    )


def folded(page: Page, key: str) -> dict[str, str]:
    """The unavailable values of `key` listed in its row's "N more" disclosure: value →
    the reason shown beside it."""
    return dict(page.evaluate(
        """key => [...document.querySelectorAll(
              `.rb-widget .rb-more-item[data-key="${key}"]`)].map(
              li => [li.dataset.value, li.querySelector('.rb-more-why').textContent])""",
        key,
    ))


def blocks(page: Page) -> list[tuple[str, str]]:
    """(label, text) of every command block, in order."""
    return [tuple(b) for b in page.evaluate(
        """() => [...document.querySelectorAll('.rb-widget .rb-block:not(.rb-request)')].map(b => [
            b.querySelector('.rb-block-label').textContent,
            b.querySelector('pre code').textContent])"""
    )]


def shown_copy_text(page: Page) -> str:
    """The blocks as the CLI prints them: headed by their labels when there are several."""
    return _as_cli(blocks(page))


def _as_cli(shown: list[tuple[str, str]]) -> str:
    if len(shown) == 1:
        return shown[0][1] + "\n"
    return "\n\n".join(f"# {label}\n{text}" for label, text in shown) + "\n"


def painted(page: Page) -> dict:
    """What the widget shows, in one round trip: URL query, blocks as the CLI prints them,
    summary line."""
    state = page.evaluate(
        """() => ({
            search: location.search,
            summary: document.querySelector('.rb-widget .rb-summary').textContent,
            blocks: [...document.querySelectorAll(
                '.rb-widget .rb-block:not(.rb-request)')].map(b => [
                b.querySelector('.rb-block-label').textContent,
                b.querySelector('pre code').textContent]),
        })"""
    )
    return {
        "query": dict(parse_qsl(state["search"].lstrip("?"), keep_blank_values=True)),
        "copy_text": _as_cli([tuple(b) for b in state["blocks"]]),
        "summary": state["summary"],
    }


def url_query(page: Page) -> dict[str, str]:
    # page.url misses replaceState after an instant navigation: ask the page.
    return dict(parse_qsl(page.evaluate("location.search").lstrip("?"), keep_blank_values=True))


def expected(hf_id: str, query: dict[str, str]) -> dict:
    """page_state as CPython computes it from the YAML (what the CLI reads)."""
    return page_state(builder_catalog(), builder_recipe(hf_id), query)


def expected_text(hf_id: str, query: dict[str, str]) -> str:
    return build(builder_catalog(), builder_recipe(hf_id), query)["copy_text"]


def cli_text(hf_id: str, query: dict[str, str]) -> str:
    """What `vllm-recipes HF_ID key=value ...` prints after its install block: the commands
    (the page's copy-all text)."""
    run = subprocess.run(
        [sys.executable, "-m", "vllm_recipes_cli", hf_id, *(f"{k}={v}" for k, v in query.items())],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    install, blank, commands = run.stdout.partition("\n\n")
    assert install.startswith("# Install (") and blank, run.stdout
    return commands


def follow_link(page: Page, url: str) -> None:
    """Click a same-origin link, as a reader would: mkdocs-material navigates instantly."""
    page.evaluate(
        """url => { const a = document.createElement('a'); a.href = url; a.textContent = url;
                   document.body.append(a); a.click(); a.remove(); }""",
        url,
    )


class WarmTab:
    """A tab kept for the whole session; every model page is reached by instant navigation
    (through the home page, so each arrival is a fresh page with a fresh widget)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.workers: list[str] = []
        self.wasm: list[str] = []
        self.loads: list[str] = []  # the URL of each full page load
        page.on("worker", lambda worker: self.workers.append(worker.url))
        page.on("request", lambda r: self.wasm.append(r.url) if r.url.endswith(".wasm") else None)
        page.on("load", lambda loaded: self.loads.append(loaded.url))

    def open(self, hf_id: str, query: str = "") -> Page:
        page = self.page
        follow_link(page, "/")
        page.wait_for_function(
            "() => location.pathname === '/' && !document.querySelector('.rb-mount')")
        before = paints(page)
        follow_link(page, model_url(hf_id, query))
        page.wait_for_function(
            "path => location.pathname === path && document.querySelector('.rb-mount')?.rbMount",
            arg=f"/{hf_id}/",
        )
        wait_python(page)
        if query:
            wait_paint(page, before)
        return page
