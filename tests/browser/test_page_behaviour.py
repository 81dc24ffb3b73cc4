"""The model page while Python loads, fails, or is asked odd things: Copy never hands out a
command other than the one the pills ask for, URLs of others are left alone, Back undoes a
choice, a failed start says so, and no click or bad value goes to the network."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from benchmarks.bench_public import LIMIT_MS, PROBE, ours
from tests.browser.conftest import Site
from tests.browser.widget import (
    PYTHON_TIMEOUT_MS,
    WarmTab,
    click_pill,
    expected,
    expected_text,
    follow_link,
    model_url,
    paints,
    pill,
    reason_of,
    shown_copy_text,
    url_query,
    wait_paint,
    wait_python,
)

V4 = "deepseek-ai/DeepSeek-V4-Flash"
V41 = "deepseek-ai/DeepSeek-V4.1-Flash"
WASM = "**/assets/pyodide/pyodide.asm.wasm"
UNTOUCHED = "clipboard before the click"


def copy_button(page: Page):
    return page.locator(".rb-widget button.rb-copy").first


def clipboard(page: Page) -> str:
    return page.evaluate("navigator.clipboard.readText()")


@contextmanager
def held(page: Page, pattern: str = WASM) -> Iterator[Callable[[], bool]]:
    """Holds Pyodide's download (so Python stays loading) until the block ends."""
    routes: list[Route] = []
    page.route(pattern, lambda route: routes.append(route))
    try:
        yield lambda: bool(routes)
    finally:
        deadline = time.monotonic() + 30
        while not routes and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        for route in routes:
            route.fallback()
        page.unroute(pattern)


def test_copy_waits_while_a_click_is_applied(site_page: Page) -> None:
    with held(site_page):
        site_page.goto(model_url(V4))
        site_page.evaluate(f"navigator.clipboard.writeText({UNTOUCHED!r})")
        before = paints(site_page)
        pill(site_page, "hardware", "mi355x").click()
        pill(site_page, "reasoning", "off").click()
        expect(pill(site_page, "reasoning", "off")).to_have_class(re.compile("rb-waiting"))
        status = site_page.locator(".rb-status")
        expect(status).to_be_visible()
        expect(status).to_contain_text("Applying your choice")
        button = copy_button(site_page)
        expect(button).to_have_attribute("aria-disabled", "true")
        expect(button).to_have_text("Wait…")
        button.click(force=True)  # aria-disabled: Playwright would wait
        assert clipboard(site_page) == UNTOUCHED
    wait_paint(site_page, before)
    wait_python(site_page)
    expect(site_page.locator(".rb-status")).to_be_hidden()
    expect(site_page.locator(".rb-waiting")).to_have_count(0)
    query = {"hardware": "mi355x", "reasoning": "off"}
    assert url_query(site_page) == query
    assert shown_copy_text(site_page) == expected_text(V4, query)
    copy_button(site_page).click()
    assert clipboard(site_page) == expected(V4, query)["result"]["commands"][0]["shell"]


def test_copy_never_hands_out_another_command_than_the_links(site_page: Page) -> None:
    query = {"hardware": "mi355x", "spec_decoding": "dspark", "install": "docker"}
    want = expected(V4, query)["result"]["commands"][0]["docker_text"]
    with held(site_page):
        site_page.goto(model_url(V4, "hardware=mi355x&spec_decoding=dspark&install=docker"))
        site_page.evaluate(f"navigator.clipboard.writeText({UNTOUCHED!r})")
        expect(site_page.locator(".rb-status")).to_contain_text("Applying the link")
        copy_button(site_page).click(force=True)
        assert clipboard(site_page) == UNTOUCHED
    wait_python(site_page)
    expect(copy_button(site_page)).not_to_have_attribute("aria-disabled", "true")
    copy_button(site_page).click()
    assert clipboard(site_page) == want
    expect(pill(site_page, "spec_decoding", "dspark")).to_have_attribute("aria-pressed", "true")


def test_search_and_other_widgets_keys_are_left_alone(site_page: Page) -> None:
    # mkdocs-material's search result links add ?h=<term>; dynamo_* belong to another widget.
    with held(site_page):
        site_page.goto(model_url(V4, "h=flash&dynamo_gpu=b200"))
        # Nothing of ours in the URL: the prerendered command is right, Copy works at once.
        expect(copy_button(site_page)).not_to_have_attribute("aria-disabled", "true")
        expect(site_page.locator(".rb-status")).to_be_hidden()
    wait_python(site_page)
    click_pill(site_page, "hardware", "mi355x")
    expect(site_page.locator(".rb-notice")).to_have_count(0)
    assert url_query(site_page) == {"h": "flash", "dynamo_gpu": "b200", "hardware": "mi355x"}


def test_search_result_link_opens_without_a_notice(warm_tab: WarmTab) -> None:
    # A real search: mkdocs-material's result links carry ?h=<term>. (Not from the home page,
    # whose one search box is the model browser's: test_browse.py.) In the session's warm tab:
    # the theme's search index is built once per tab, and the model page's widget is a fresh
    # one (instant navigation) whichever way Python is.
    page = warm_tab.page
    follow_link(page, "/api/")
    # The theme closes its search 125 ms after a navigation starts (bundle.ts: "Always close
    # drawer and search on navigation", delay(125)), and the address changes when it starts:
    # open the search only once the new page is in and a timer made after that one has fired.
    page.wait_for_function("() => location.pathname === '/api/' && document.querySelector("
                           "'.md-content h1')?.id === 'json-api-command-line'")
    page.evaluate("() => new Promise(done => setTimeout(done, 150))")
    page.keyboard.press("s")  # the theme's shortcut to the search box
    expect(page.locator("#__search")).to_be_checked()
    page.keyboard.type("Flash", delay=30)
    link = page.locator("a.md-search-result__link").first
    expect(link).to_be_visible(timeout=20_000)
    assert "h=flash" in (link.get_attribute("href") or "")
    link.click()
    page.wait_for_function("() => location.pathname !== '/api/'"
                           " && document.querySelector('.rb-mount')?.rbMount")
    assert url_query(page).get("h") == "flash"
    expect(copy_button(page)).not_to_have_attribute("aria-disabled", "true")
    wait_python(page)
    page.wait_for_timeout(200)
    expect(page.locator(".rb-notice")).to_have_count(0)
    expect(page.locator(".rb-status")).to_be_hidden()


def test_back_undoes_the_last_choice(warm_tab: WarmTab) -> None:
    page = warm_tab.open(V4)
    click_pill(page, "hardware", "b200")
    click_pill(page, "install", "docker")
    second = url_query(page)
    second_text = shown_copy_text(page)
    click_pill(page, "reasoning", "off")
    before = paints(page)
    page.go_back()
    wait_paint(page, before)
    assert url_query(page) == second == {"hardware": "b200", "install": "docker"}
    assert shown_copy_text(page) == second_text == expected_text(V4, second)
    before = paints(page)
    page.go_back()
    wait_paint(page, before)
    assert url_query(page) == {"hardware": "b200"}
    before = paints(page)
    page.go_forward()
    wait_paint(page, before)
    assert url_query(page) == second


def test_unknown_values_are_quoted_short_and_clicks_stay_in_the_page(warm_tab: WarmTab) -> None:
    long = "z" * 300
    page = warm_tab.open(V4, f"hardware={long}&__proto__=x&install=docker")
    notice = page.locator(".rb-widget .rb-notice")
    expect(notice).to_contain_text("__proto__=x")
    text = notice.text_content() or ""
    assert "z" * 60 not in text and "z" * 59 in text
    assert url_query(page) == {"install": "docker"}
    # Clicks after the data has loaded make no request (Chromium itself looks at the favicon
    # again when a history entry is added; that is the browser's, served from its cache).
    requests: list[str] = []
    page.on("request", lambda r: None if r.url.endswith("/favicon.png")
            else requests.append(r.url))
    click_pill(page, "hardware", "mi355x")
    click_pill(page, "install", "pip")
    click_pill(page, "reasoning", "off")
    assert requests == []


def test_unknown_hardware_is_never_fetched(site_page: Page) -> None:
    requests: list[str] = []
    site_page.on("request", lambda r: requests.append(r.url))
    site_page.goto(model_url(V4, "hardware=nope"))
    wait_python(site_page)
    expect(site_page.locator(".rb-notice")).to_contain_text("hardware=nope")
    assert [url for url in requests if "nope" in url.split("?")[0]] == []
    assert not [url for url in requests if "/hw/" in url or "/strategies/" in url]


def test_empty_query_parts_are_harmless(site_page: Page) -> None:
    site_page.goto(model_url(V4, "&&&&"))
    expect(copy_button(site_page)).not_to_have_attribute("aria-disabled", "true")
    wait_python(site_page)
    expect(site_page.locator(".rb-notice")).to_have_count(0)
    assert shown_copy_text(site_page) == expected_text(V4, {})


def test_disabled_reason_shows_after_a_tap_on_a_phone(browser: Browser, site: Site) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True, base_url=site.origin)
    try:
        page = context.new_page()
        page.goto(model_url(V41, "text_only=on"))
        wait_python(page)
        target = pill(page, "encoder_parallel", "on")
        expect(target).to_have_attribute("aria-disabled", "true")
        reason = expected(V41, {"text_only": "on"})["result"]["unavailable"][
            "encoder_parallel"]["on"]
        why = reason_of(page, "encoder_parallel", "on")
        expect(why).to_be_hidden()
        target.tap(force=True)  # Playwright waits for enabled; aria-disabled pills stay live
        expect(why).to_be_visible()
        expect(why).to_have_text(reason)
        box = why.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    finally:
        context.close()


def test_arrow_keys_move_within_a_row(warm_tab: WarmTab) -> None:
    page = warm_tab.open(V4)
    row = page.locator('.rb-row[data-row="install"]')
    stops = row.locator('button.rb-pill[tabindex="0"]')
    expect(stops).to_have_count(1)
    stops.first.focus()
    start = page.evaluate("document.activeElement.dataset.value")
    page.keyboard.press("ArrowRight")
    moved = page.evaluate("document.activeElement.dataset.value")
    assert moved != start
    assert page.evaluate("document.activeElement.tabIndex") == 0
    expect(row.locator('button.rb-pill[tabindex="0"]')).to_have_count(1)
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.value") == start
    # Every row is one Tab stop: the widget's pills have one stop per row.
    rows = page.locator(".rb-widget .rb-row").count()
    expect(page.locator('.rb-widget button.rb-pill[tabindex="0"]')).to_have_count(rows)


def wasm_as(content_type: str, status: int = 200) -> Callable[[Route], None]:
    def handle(route: Route) -> None:
        if status != 200:
            route.fulfill(status=status, body="not here", content_type="text/html")
            return
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers,
                                                  "content-type": content_type})
    return handle


def test_wasm_with_a_wrong_mime_type_still_works(site_page: Page) -> None:
    site_page.route(WASM, wasm_as("application/octet-stream"))
    site_page.goto(model_url(V4))
    wait_python(site_page)
    click_pill(site_page, "hardware", "mi355x")
    assert shown_copy_text(site_page) == expected_text(V4, {"hardware": "mi355x"})


def test_missing_snapshot_falls_back_to_a_full_start(site_page: Page) -> None:
    site_page.route("**/assets/builder/snapshot-*.bin", lambda r: r.fulfill(status=404))
    site_page.goto(model_url(V4))
    wait_python(site_page)
    click_pill(site_page, "install", "docker")
    assert shown_copy_text(site_page) == expected_text(V4, {"install": "docker"})


def _assert_failed_in_time(page: Page, started: float, what: str,
                           shown: dict[str, str] | None = None) -> None:
    status = page.locator(".rb-status")
    expect(status).to_contain_text("could not start", timeout=10_000)
    assert time.monotonic() - started < 10
    expect(status).to_contain_text(what)
    expect(page.locator(".rb-waiting")).to_have_count(0)
    expect(page.locator(".rb-widget[aria-busy]")).to_have_count(0)
    page.evaluate(f"navigator.clipboard.writeText({UNTOUCHED!r})")
    copy_button(page).click()
    assert clipboard(page) == expected_text(V4, shown or {}).rstrip("\n")


def test_missing_wasm_is_reported_within_10_s(site_page: Page) -> None:
    site_page.route(WASM, wasm_as("", status=404))
    started = time.monotonic()
    site_page.goto(model_url(V4))
    # One click away: prerendered, shown at once without Python.
    click_pill(site_page, "hardware", "mi355x")
    # Two clicks away: Python's, which cannot start.
    pill(site_page, "install", "docker").click()
    _assert_failed_in_time(site_page, started, "HTTP 404", {"hardware": "mi355x"})
    # The pill asked for was not applied: the pills still match the command.
    expect(pill(site_page, "install", "docker")).to_have_attribute("aria-pressed", "false")
    expect(pill(site_page, "hardware", "mi355x")).to_have_attribute("aria-pressed", "true")


def test_no_webassembly_is_reported_within_10_s(site_context: BrowserContext) -> None:
    page = site_context.new_page()
    try:
        page.add_init_script("delete globalThis.WebAssembly")
        started = time.monotonic()
        page.goto(model_url(V4))
        _assert_failed_in_time(page, started, "WebAssembly")
    finally:
        page.close()


def test_python_ready_is_reported_once(site_page: Page) -> None:
    site_page.goto(model_url(V4))
    site_page.wait_for_function(
        "() => performance.getEntriesByName('rb-python-ready').length > 0",
        timeout=PYTHON_TIMEOUT_MS)
    assert site_page.evaluate("performance.getEntriesByName('rb-python-ready').length") == 1


def test_api_example_names_the_address_the_site_is_served_from(warm_tab: WarmTab) -> None:
    page = warm_tab.page
    follow_link(page, "/api/")
    page.wait_for_function("() => location.pathname === '/api/'")
    code = page.locator("[data-site-url] code").first
    origin = page.evaluate("location.origin")
    expect(code).to_contain_text(f'SITE="{origin}/"')


def test_why_each_line_opens_and_survives_a_reason_and_a_click(warm_tab: WarmTab) -> None:
    """The "Why each line?" disclosure names the recipe field of a line; showing a disabled
    pill's reason does not hide it, and it is there again after a pill click repaints."""
    page = warm_tab.open(V41, "hardware=mi355x&text_only=on")
    why = page.locator(".rb-widget details.rb-lines").first
    expect(why).to_be_visible()
    why.locator("summary").click()
    line = why.locator("li", has=page.locator("code", has_text="--monokernel")).first
    expect(line).to_be_visible()
    expect(line.locator(".rb-lines-path")).to_have_text("hardware_overrides.mi355x.extra_args")
    pill(page, "encoder_parallel", "on").click(force=True)
    expect(reason_of(page, "encoder_parallel", "on")).to_be_visible()
    expect(why).to_be_visible()
    click_pill(page, "frontend", "python")
    expect(page.locator(".rb-widget details.rb-lines").first).to_be_visible()


def test_a_click_after_a_pause_is_answered_from_what_the_worker_worked_out_ahead(
        warm_tab: WarmTab) -> None:
    """While the reader looks at a selection, the worker asks Python what each available pill
    would show (builder-worker.js): a click after a pause is answered without running the
    builder. The selection is one no other test shows, so nothing else could have asked."""
    page = warm_tab.open(V4, "hardware=mi325x&reasoning=off&install=docker")
    page.wait_for_timeout(4000)
    click_pill(page, "frontend", "python")
    kept = page.evaluate("performance.getEntriesByName('rb-python').at(-1).detail.kept")
    assert kept is True
    assert shown_copy_text(page) == expected_text(
        V4, {"hardware": "mi325x", "reasoning": "off", "install": "docker",
             "frontend": "python"})


def test_the_side_by_side_probe_finds_a_pill_and_sees_it_pressed(site_page: Page,
                                                                  site: Site) -> None:
    """benchmarks.bench_public clicks a hardware pill as soon as the page has one and waits
    for it to show pressed: on our markup it does so with a click the prerendered states
    answer, and the command it shows is the CLI's for that hardware."""
    probe = ours(site.origin)
    site_page.goto(probe.url("Qwen/Qwen3-8B"), wait_until="commit")
    result = site_page.evaluate(PROBE, [probe.pills, probe.pressed, probe.ident, LIMIT_MS])
    assert result["interactive"] is not None and result["clicks"] >= 1
    pressed = site_page.locator(
        '.rb-widget button.rb-pill[data-key="hardware"][aria-pressed="true"]')
    expect(pressed).to_have_count(1)
    hardware = pressed.get_attribute("data-value")
    assert hardware != "h200"  # the page's default; the probe picked another
    assert shown_copy_text(site_page) == expected_text("Qwen/Qwen3-8B", {"hardware": hardware})
