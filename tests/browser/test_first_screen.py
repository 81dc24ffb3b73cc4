"""Issue 25, in Chromium: a model page answers in its first screen on a phone and on a desktop
(one title, the default command and its Copy button visible without scrolling, before any
script runs), keeps a Copy in reach while the reader changes pills, folds the unavailable
choices of a row behind one keyboard-usable control, follows the system's dark mode, loads
only its own scripts and styles, and answers a click before its Python has started."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.conftest import Site
from tests.browser.widget import (
    click_pill,
    expected,
    expected_text,
    folded,
    hold_python,
    model_url,
    paints,
    pill,
    pills,
    shown_copy_text,
    url_query,
    wait_python,
)
from tests.recipes_data import catalog

PAGES = ("Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V4.1-Flash", "meta-llama/Llama-3.1-8B-Instruct")
QWEN = PAGES[0]
V4 = "deepseek-ai/DeepSeek-V4-Flash"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SCREENS = {"phone": PHONE, "desktop": DESKTOP}
WASM = "**/assets/pyodide/pyodide.asm.wasm"

# Boxes of what the reader sees first: every visible <h1>, and the first visible Copy button
# and command of the widget, relative to the viewport.
FIRST_SCREEN = """() => {
  const shown = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden"; };
  const copy = [...document.querySelectorAll(".rb-widget button.rb-copy")].find(shown);
  const code = [...document.querySelectorAll(".rb-widget .rb-block pre code")].find(shown);
  return {
    titles: [...document.querySelectorAll("h1")].filter(shown).map((h) => h.textContent.trim()),
    copy: copy ? copy.getBoundingClientRect().toJSON() : null,
    code: code ? code.getBoundingClientRect().toJSON() : null,
    text: code ? code.textContent : null,
  };
}"""


def _context(browser: Browser, site: Site, screen: str, **options: object) -> BrowserContext:
    viewport = SCREENS[screen]
    phone = screen == "phone"
    return browser.new_context(viewport=viewport, base_url=site.origin, has_touch=phone,
                               is_mobile=phone, **options)  # type: ignore[arg-type]


@pytest.fixture(params=list(SCREENS))
def screen(request: pytest.FixtureRequest, browser: Browser, site: Site) -> Iterator[Page]:
    context = _context(browser, site, request.param,
                       permissions=["clipboard-read", "clipboard-write"])
    context.add_init_script("delete window.SharedWorker;")  # requests seen (conftest.py)
    page = context.new_page()
    page.viewport = SCREENS[request.param]  # type: ignore[attr-defined]
    yield page
    context.close()


@pytest.mark.parametrize("hf_id", PAGES)
def test_the_command_and_its_copy_button_are_in_the_first_screen(screen: Page,
                                                                 hf_id: str) -> None:
    page = screen
    height = page.viewport["height"]  # type: ignore[attr-defined]
    hold_python(page)  # the first screen, before Python: nothing here waits for it
    page.goto(model_url(hf_id))
    seen = page.evaluate(FIRST_SCREEN)
    assert seen["titles"] == [catalog().recipes[hf_id].meta.title]
    assert seen["copy"] is not None and seen["copy"]["top"] >= 0
    assert seen["copy"]["bottom"] <= height, (hf_id, seen["copy"])
    # The command starts on screen too: at least its first lines.
    assert seen["code"]["top"] + 60 <= height, (hf_id, seen["code"])
    assert seen["text"] + "\n" == expected_text(hf_id, {})


@pytest.mark.parametrize("screen_name", list(SCREENS))
def test_the_first_paint_needs_no_script(browser: Browser, site: Site, screen_name: str) -> None:
    """The prerendered HTML is already in that order: with JavaScript off the Copy button of
    the default command is inside the first screen of each page."""
    context = _context(browser, site, screen_name, java_script_enabled=False)
    try:
        page = context.new_page()
        for hf_id in PAGES:
            page.goto(model_url(hf_id))
            copy = page.locator(".rb-output button.rb-copy").first
            box = copy.bounding_box()
            assert box is not None and box["y"] + box["height"] <= SCREENS[screen_name][
                "height"], (hf_id, box)
            code = page.locator(".rb-output .rb-block pre code").first
            assert code.text_content() + "\n" == expected_text(hf_id, {})
            assert page.locator("h1").count() == 1
    finally:
        context.close()


def test_copy_stays_in_reach_while_the_pills_change(screen: Page) -> None:
    """Among the rows, with the output scrolled away, the widget's bar holds the summary and
    a Copy of the command the pills now ask for; "Show the command" goes back to it."""
    page = screen
    height = page.viewport["height"]  # type: ignore[attr-defined]
    # One click away from the page's state, answered from what the build prerendered: the
    # page's Python is not started (a boot nothing here uses).
    hold_python(page)
    page.goto(model_url(QWEN))
    bar = page.locator(".rb-widget .rb-bar")
    expect(bar).to_be_hidden()  # the output's own Copy is on screen
    # The rows' top under the header: the output above is scrolled away.
    page.evaluate("""() => { const rows = document.querySelector(".rb-rows");
        const header = document.querySelector(".md-header").getBoundingClientRect().height;
        window.scrollTo(0, rows.getBoundingClientRect().top + window.scrollY - header); }""")
    page.locator('.rb-row[data-row="install"]').scroll_into_view_if_needed()
    copy = page.locator(".rb-output button.rb-copy").first.bounding_box()
    assert copy is not None and copy["y"] + copy["height"] <= 48, copy
    before = paints(page)
    pill(page, "install", "docker").click()
    page.wait_for_function(f"() => performance.getEntriesByName('rb-paint').length > {before}")
    expect(bar).to_be_visible()
    box = bar.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, box
    want = expected(QWEN, {"install": "docker"})["result"]
    expect(bar.locator(".rb-bar-summary")).to_have_text(want["summary"])
    bar.locator("button.rb-copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == want["commands"][0]["docker_text"]
    bar.locator("button.rb-bar-show").click()
    expect(bar).to_be_hidden()
    first = page.locator(".rb-output button.rb-copy").first
    expect(first).to_be_focused()
    top = first.bounding_box()["y"]
    assert 0 <= top <= height


def test_the_unavailable_strategies_sit_behind_one_control_for_the_keyboard(screen: Page
                                                                             ) -> None:
    """Issue 25.3, keyboard only: Qwen3-8B's strategy row shows at most three unavailable
    pills; Tab reaches "8 more, unavailable", Enter shows every other one with the builder's
    reason (in the accessibility tree), Enter hides them again."""
    page = screen
    hold_python(page)  # the prerendered rows: no click here asks Python
    page.goto(model_url(QWEN))
    reasons = expected(QWEN, {})["result"]["unavailable"]["strategy"]
    shown = [p for p in pills(page, "strategy") if p["reason"] is not None]
    assert len(shown) <= 3
    row = page.locator('.rb-row[data-row="strategy"]')
    summary = row.locator("details.rb-more > summary")
    expect(summary).to_have_text(f"{len(reasons) - len(shown)} more, unavailable")
    listed = row.locator(".rb-more-list")
    expect(listed).to_be_hidden()
    # Only the keyboard from here: Tab from the row's own stop to the control.
    row.locator('button.rb-pill[tabindex="0"]').focus()
    for _ in range(3):
        if page.evaluate("document.activeElement.matches('details.rb-more > summary')"):
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('details.rb-more > summary')")
    page.keyboard.press("Enter")
    expect(listed).to_be_visible()
    tree = listed.aria_snapshot()
    got = folded(page, "strategy")
    assert set(got) | {p["value"] for p in shown} == set(reasons)
    for value, reason in got.items():
        assert reason == reasons[value]
        assert reason in tree, (value, tree)
    page.keyboard.press("Enter")
    expect(listed).to_be_hidden()
    # A tap opens it as well.
    summary.click()
    expect(listed).to_be_visible()


def test_dark_mode_follows_the_system_until_the_reader_picks(browser: Browser,
                                                             site: Site) -> None:
    context = browser.new_context(viewport=DESKTOP, base_url=site.origin, color_scheme="dark")
    try:
        page = context.new_page()
        hold_python(page)  # the theme's palette: no Python asked (its boot would be unused)
        # Without the theme's bundle, only the palette script in the header (before the first
        # paint) can have picked the system's scheme.
        page.route("**/assets/javascripts/bundle.*.min.js", lambda route: route.abort())
        page.goto(model_url(QWEN))
        assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
        page.unroute("**/assets/javascripts/bundle.*.min.js")
        page.reload()
        assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
        # The toggle is there; the reader's pick wins over the system.
        toggle = page.locator('label.md-header__button[for^="__palette_"]:visible')
        expect(toggle).to_have_count(1)
        expect(toggle).to_have_attribute("title", "Switch to light mode")
        toggle.click()
        page.wait_for_function("() => document.body.dataset.mdColorScheme === 'default'")
        page.reload()
        assert page.evaluate("document.body.dataset.mdColorScheme") == "default"
        light = browser.new_context(viewport=DESKTOP, base_url=site.origin,
                                    color_scheme="light")
        try:
            other = light.new_page()
            hold_python(other)
            other.goto(model_url(QWEN))
            assert other.evaluate("document.body.dataset.mdColorScheme") == "default"
        finally:
            light.close()
    finally:
        context.close()


OWN = {
    "home": ("stylesheets/browse.css", "javascripts/browse.js"),
    "model": ("stylesheets/builder.css", "javascripts/recipe-builder.js",
              "javascripts/compare.js", "javascripts/builder-client.js",
              "javascripts/builder-worker.js", "assets/pyodide/",
              "assets/builder/"),
    "dynamo": ("stylesheets/dynamo.css", "javascripts/dynamo.js"),
    "configurations": ("javascripts/configurations.js",),
}


def _requested(page: Page, site: Site, path: str) -> list[str]:
    made: list[str] = []
    page.on("request", lambda r: made.append(r.url.removeprefix(site.origin + "/")))
    page.goto(path)
    page.wait_for_load_state("networkidle")
    return made


def _others(made: list[str], own: tuple[str, ...]) -> list[str]:
    others = [prefix for kind, prefixes in OWN.items() for prefix in prefixes
              if prefix not in own]
    return [url for url in made if url.startswith(tuple(others))]


@pytest.mark.parametrize(("path", "kinds"), [
    (model_url(QWEN), ("model",)),
    (model_url("deepseek-ai/DeepSeek-V4.1-Flash"), ("model", "dynamo")),
    ("/", ("home",)),
    ("/configurations/", ("configurations",)),
    ("/api/", ()),
])
def test_a_page_requests_no_other_pages_scripts_or_styles(site_page: Page, site: Site,
                                                          path: str,
                                                          kinds: tuple[str, ...]) -> None:
    """Issue 25.5, from the requests the browser made (workers' included)."""
    made = _requested(site_page, site, path)
    own = tuple(prefix for kind in kinds for prefix in OWN[kind])
    assert _others(made, own) == [], made
    for prefix in own:
        if not prefix.startswith("assets/"):
            assert any(url.startswith(prefix) for url in made), (prefix, made)


def test_instant_navigation_brings_each_pages_own_files(site_page: Page, site: Site) -> None:
    """From the home page to a model page and back by links, without a reload: the model
    page's scripts run (its widget answers a click) and its styles apply; back home, the
    model browser is wired again and the builder's styles are gone."""
    page = site_page
    page.goto("/")
    page.wait_for_load_state("networkidle")
    loads = []
    page.on("load", lambda _: loads.append(1))
    page.locator(f'a[href$="{QWEN}/"]').first.click()
    page.wait_for_function("() => document.querySelector('.rb-mount')?.rbMount", timeout=20_000)
    assert loads == []  # no reload: instant navigation
    assert page.evaluate("getComputedStyle(document.querySelector('.rb-widget')).borderTopStyle"
                         ) == "solid"  # builder.css applies
    click_pill(page, "install", "docker")
    assert shown_copy_text(page) == expected_text(QWEN, {"install": "docker"})
    page.locator(".rcp-crumbs a").click()  # "Models": back to the home page
    page.wait_for_function("() => document.querySelector('[data-rcp-browse]')?.rcpBrowse")
    assert loads == []
    assert page.evaluate("[...document.styleSheets].some(s => (s.href || '')"
                         ".endsWith('/stylesheets/browse.css'))")
    assert not page.evaluate("[...document.styleSheets].some(s => (s.href || '')"
                             ".endsWith('/stylesheets/builder.css'))")


def test_a_click_one_away_is_answered_before_python_has_started(site_page: Page,
                                                               site: Site) -> None:
    """Issue 25.6: with Pyodide's download held, a click is painted at once from what the
    build prerendered (the command CPython gives), without a request; Back shows the page's
    own command again; a second click, two away, waits for Python."""
    page = site_page
    routes = []
    page.route(WASM, lambda route: routes.append(route))
    try:
        page.goto(model_url(V4))
        page.wait_for_function("() => document.querySelector('.rb-mount')?.rbMount")
        made: list[str] = []
        page.on("request", lambda r: made.append(r.url))
        started = time.monotonic()
        click_pill(page, "hardware", "mi355x")
        assert time.monotonic() - started < 2
        assert page.evaluate("performance.getEntriesByName('rb-python-ready').length") == 0
        assert shown_copy_text(page) == expected_text(V4, {"hardware": "mi355x"})
        assert url_query(page) == {"hardware": "mi355x"}
        python = ("/javascripts/builder-worker.js", "/assets/pyodide/", "/assets/builder/")
        assert [url for url in made if not any(part in url for part in python)
                and not url.endswith("/favicon.png")] == []
        # Clicking the same key again is one away too (from the page's own state).
        click_pill(page, "hardware", "b200")
        assert shown_copy_text(page) == expected_text(V4, {"hardware": "b200"})
        before = paints(page)
        page.go_back()
        page.wait_for_function(f"() => performance.getEntriesByName('rb-paint').length > {before}")
        assert shown_copy_text(page) == expected_text(V4, {"hardware": "mi355x"})
        page.go_back()
        page.wait_for_function(
            f"() => performance.getEntriesByName('rb-paint').length > {before + 1}")
        assert shown_copy_text(page) == expected_text(V4, {})
        assert url_query(page) == {}
        click_pill(page, "hardware", "mi355x")
        pill(page, "install", "docker").click()
        expect(page.locator(".rb-status")).to_contain_text("Applying your choice")
        assert page.evaluate("performance.getEntriesByName('rb-python-ready').length") == 0
    finally:
        for route in routes:
            route.fallback()
        page.unroute(WASM)
    wait_python(page)
    page.wait_for_function("() => !document.querySelector('.rb-widget[aria-busy]')")
    assert shown_copy_text(page) == expected_text(V4, {"hardware": "mi355x", "install": "docker"})


def test_python_is_fetched_after_the_page_has_loaded(site_page: Page, site: Site) -> None:
    """The builder's worker (and Pyodide with it) is requested only after the load event,
    when the browser is idle: the page's own files go first."""
    page = site_page
    order: list[str] = []
    page.on("request", lambda r: order.append(r.url.removeprefix(site.origin + "/")))
    page.on("load", lambda _: order.append("(load)"))
    page.goto(model_url(QWEN))
    wait_python(page)
    assert "(load)" in order
    loaded = order.index("(load)")
    worker = [i for i, url in enumerate(order)
              if url.startswith(("javascripts/builder-worker.js", "assets/pyodide/"))]
    assert worker and min(worker) > loaded, order
