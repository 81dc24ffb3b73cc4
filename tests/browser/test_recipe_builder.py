"""The model page's builder widget in Chromium: Python (Pyodide in a worker) renders, the page
paints. Expected text always comes from CPython's builder, reading the YAML like the CLI."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from tests.browser.widget import (
    WarmTab,
    blocks,
    cli_text,
    click_pill,
    expected,
    expected_text,
    follow_link,
    model_url,
    painted,
    paints,
    pill,
    pills,
    reason_of,
    shown_copy_text,
    url_query,
    wait_paint,
    wait_python,
)
from tests.recipes_data import builder_recipe

V4 = "deepseek-ai/DeepSeek-V4-Flash"
V41 = "deepseek-ai/DeepSeek-V4.1-Flash"
KIMI = "moonshotai/Kimi-K2-Instruct"


def test_default_command_is_in_the_first_paint(site_page: Page) -> None:
    site_page.goto(model_url(V4), wait_until="domcontentloaded")
    # Prerendered at build time: there before any script or Python has run.
    assert shown_copy_text(site_page) == expected_text(V4, {})
    assert site_page.locator(".rb-widget .rb-summary").text_content() == (
        expected(V4, {})["result"]["summary"])


class Walk:
    """Clicks pills one by one and checks every painted state against CPython."""

    def __init__(self, page: Page, hf_id: str) -> None:
        self.page = page
        self.hf_id = hf_id
        self.explicit: dict[str, str] = {}
        self.checked: list[dict[str, str]] = []

    def click(self, key: str, value: str) -> bool:
        """Click when available; an unavailable pill must do nothing."""
        state = {p["value"]: p for p in pills(self.page, key)}
        if value not in state:
            return False
        # A pill in a folded group (the single GPUs under the brand's nodes) is reached as a
        # person reaches it: the fold opened first.
        pill(self.page, key, value).evaluate(
            "el => { const fold = el.closest('details'); if (fold) fold.open = true; }")
        if state[value]["reason"] is not None:
            shown = painted(self.page)
            pressed = [(p["value"], p["pressed"]) for p in pills(self.page, key)]
            before = paints(self.page)
            pill(self.page, key, value).click(force=True)  # Playwright waits for enabled
            self.page.wait_for_timeout(50)
            assert paints(self.page) == before
            assert painted(self.page) == shown
            assert [(p["value"], p["pressed"]) for p in pills(self.page, key)] == pressed
            # The tap shows the reason under the row: the builder's, as CPython gives it.
            reason = expected(self.hf_id, self.explicit)["result"]["unavailable"][key][value]
            expect(reason_of(self.page, key, value)).to_be_visible()
            expect(reason_of(self.page, key, value)).to_have_text(reason)
            return False
        click_pill(self.page, key, value)
        self.explicit = {**self.explicit, key: value}
        self.check()
        return True

    def check(self) -> None:
        shown = painted(self.page)
        assert shown["query"] == self.explicit
        want = expected(self.hf_id, self.explicit)
        assert want["explicit"] == self.explicit and not want["notice"]
        assert shown["copy_text"] == want["result"]["copy_text"], self.explicit
        assert shown["summary"] == want["result"]["summary"]
        self.checked.append(dict(self.explicit))

    def values(self, key: str) -> list[str]:
        return [p["value"] for p in pills(self.page, key)]

    def pressed(self, key: str) -> str | None:
        return next((p["value"] for p in pills(self.page, key) if p["pressed"] == "true"), None)

    def every(self, key: str, limit: int = 99) -> None:
        """Each value of `key` in turn, then back to the one pressed at the start."""
        start = self.pressed(key)
        for value in self.values(key)[:limit]:
            if value != start:
                self.click(key, value)
                if key == "strategy" and self.values("nodes"):
                    for nodes in self.values("nodes")[1:3]:
                        self.click("nodes", nodes)
        if start is not None:
            self.click(key, start)

    def features(self) -> None:
        for fid in builder_recipe(self.hf_id).get("features", {}):
            toggle = self.page.locator(f'.rb-feature[data-feature="{fid}"] > button.rb-pill')
            first = toggle.get_attribute("data-value")
            if not self.click(fid, first):
                continue
            for mode in self.values(fid):
                if mode not in ("on", "off") and self.pressed(fid) != mode:
                    self.click(fid, mode)
            back = toggle.get_attribute("data-value")
            self.click(fid, back)


@pytest.mark.parametrize("hf_id", [V4, KIMI])
def test_clicks_render_what_the_cli_prints(warm_tab: WarmTab, hf_id: str) -> None:
    page = warm_tab.open(hf_id)
    walk = Walk(page, hf_id)
    walk.every("hardware")
    walk.click("install", "docker")
    walk.every("strategy")
    walk.every("variant")
    walk.features()
    walk.click("frontend", "python")
    assert len(walk.checked) >= 12, walk.checked
    assert len({tuple(q.items()) for q in walk.checked}) >= 10
    # The CLI itself, as a subprocess, for the final selection.
    assert shown_copy_text(page) == cli_text(hf_id, walk.explicit)


def test_exclusive_features_disable_each_other(warm_tab: WarmTab) -> None:
    site_page = warm_tab.open(V41)
    encoder = site_page.locator('.rb-feature[data-feature="encoder_parallel"] > button.rb-pill')
    text_only = site_page.locator('.rb-feature[data-feature="text_only"] > button.rb-pill')
    expect(encoder).not_to_have_attribute("aria-disabled", "true")

    click_pill(site_page, "text_only", "on")
    reason = expected(V41, {"text_only": "on"})["result"]["unavailable"]["encoder_parallel"]["on"]
    expect(encoder).to_have_attribute("aria-disabled", "true")
    expect(encoder).to_have_attribute("title", reason)
    expect(text_only).to_have_attribute("aria-pressed", "true")
    # The reason shows as text under the row on keyboard focus, not only as a tooltip.
    why = reason_of(site_page, "encoder_parallel", "on")
    expect(why).to_be_hidden()
    encoder.focus()
    expect(why).to_be_visible()
    expect(why).to_have_text(reason)
    # Clicking it does nothing, and it stays focusable.
    before = paints(site_page)
    encoder.click(force=True)
    site_page.wait_for_timeout(50)
    assert paints(site_page) == before
    assert encoder.evaluate("b => b.tabIndex >= 0 && !b.disabled")

    click_pill(site_page, "text_only", "off")
    expect(encoder).not_to_have_attribute("aria-disabled", "true")
    click_pill(site_page, "encoder_parallel", "on")
    expect(text_only).to_have_attribute("aria-disabled", "true")
    assert shown_copy_text(site_page) == expected_text(V41, {
        "text_only": "off", "encoder_parallel": "on"})


def test_url_selection_is_restored(warm_tab: WarmTab) -> None:
    # A fresh widget reading the link (arrived at by instant navigation, Python already
    # running; test_page_behaviour's links test loads the same link cold).
    query = {"hardware": "mi355x", "spec_decoding": "dspark", "install": "docker"}
    site_page = warm_tab.open(V4, "hardware=mi355x&spec_decoding=dspark&install=docker")
    wait_python(site_page)
    expect(pill(site_page, "hardware", "mi355x")).to_have_attribute("aria-pressed", "true")
    expect(pill(site_page, "spec_decoding", "dspark")).to_have_attribute("aria-pressed", "true")
    expect(pill(site_page, "install", "docker")).to_have_attribute("aria-pressed", "true")
    assert shown_copy_text(site_page) == expected_text(V4, query)
    assert url_query(site_page) == query
    expect(site_page.locator(".rb-notice")).to_have_count(0)


def test_url_garbage_shows_a_notice_and_defaults(warm_tab: WarmTab) -> None:
    site_page = warm_tab.open(V4, "hardware=nope&colour=blue&install=docker")
    want = expected(V4, {"hardware": "nope", "colour": "blue", "install": "docker"})
    notice = site_page.locator(".rb-widget .rb-notice")
    expect(notice).to_be_visible()
    expect(notice).to_have_text(want["notice"])
    assert "colour=blue" in want["notice"] and "hardware=nope" in want["notice"]
    assert shown_copy_text(site_page) == expected_text(V4, {"install": "docker"})
    # The URL keeps only what was honoured.
    assert url_query(site_page) == {"install": "docker"}


def test_copy_button_copies_the_block(warm_tab: WarmTab) -> None:
    # The selection with the most command blocks among a few candidates.
    candidates = [
        (V4, {"strategy": "kv_store_centralized_mooncake", "install": "docker"}),
        (KIMI, {"strategy": "pd_cluster", "install": "docker"}),
        (KIMI, {"strategy": "multi_node_dep"}),
        (V4, {"install": "docker"}),
    ]
    hf_id, query = max(candidates, key=lambda c: len(expected(*c)["result"]["commands"]))
    query = expected(hf_id, query)["explicit"]
    site_page = warm_tab.open(hf_id, urlencode(query))
    shown = blocks(site_page)
    assert [text for _, text in shown] == [
        c["docker_text"] if query.get("install") == "docker" and c["docker_text"] else c["shell"]
        for c in expected(hf_id, query)["result"]["commands"]]
    for index, (_, text) in enumerate(shown):
        button = site_page.locator(f'.rb-widget button.rb-copy[data-copy="{index}"]')
        role = button.evaluate("b => b.closest('.rb-role')?.dataset.role ?? null")
        if role is not None:  # several roles: the block is behind its role's tab
            site_page.locator(f'.rb-widget button.rb-role-tab[data-role-tab="{role}"]').click()
        button.click()
        expect(button).to_have_text("Copied")
        assert site_page.evaluate("navigator.clipboard.readText()") == text


def test_keyboard_keeps_focus_on_the_pill(warm_tab: WarmTab) -> None:
    site_page = warm_tab.open(V4)
    target = pill(site_page, "hardware", "b200")
    target.focus()
    before = paints(site_page)
    site_page.keyboard.press("Enter")
    wait_paint(site_page, before)
    expect(target).to_have_attribute("aria-pressed", "true")
    assert site_page.evaluate("document.activeElement.dataset.value") == "b200"

    # A feature toggle flips its value; focus stays on the same toggle.
    toggle = site_page.locator('.rb-feature[data-feature="reasoning"] > button.rb-pill')
    toggle.focus()
    was = toggle.get_attribute("aria-pressed")
    before = paints(site_page)
    site_page.keyboard.press("Space")
    wait_paint(site_page, before)
    expect(toggle).not_to_have_attribute("aria-pressed", was)
    assert site_page.evaluate(
        "document.activeElement.closest('.rb-feature')?.dataset.feature") == "reasoning"
    assert url_query(site_page) == {"hardware": "b200", "reasoning": "off" if was == "true"
                                    else "on"}

    # A row is one Tab stop: Tab leaves the features row for the next row.
    site_page.keyboard.press("Tab")
    assert site_page.evaluate(
        "document.activeElement.closest('.rb-row')?.dataset.row") == "frontend"


def test_role_tabs_show_one_role_and_survive_a_repaint(warm_tab: WarmTab) -> None:
    page = warm_tab.open(KIMI, "strategy=multi_node_dep")
    tabs = page.locator(".rb-widget button.rb-role-tab")
    assert tabs.count() >= 2, "multi-node DEP should have a head and a worker tab"
    roles = [t.get_attribute("data-role-tab") for t in tabs.all()]
    second = roles[1]
    page.locator(f'.rb-widget button.rb-role-tab[data-role-tab="{second}"]').click()
    expect(page.locator(f'.rb-widget .rb-role[data-role="{second}"]')).to_be_visible()
    expect(page.locator(f'.rb-widget .rb-role[data-role="{roles[0]}"]')).to_be_hidden()
    # Arrow keys move between tabs.
    page.keyboard.press("ArrowLeft")
    expect(page.locator(f'.rb-widget .rb-role[data-role="{roles[0]}"]')).to_be_visible()
    page.keyboard.press("ArrowRight")
    # A repaint (another install method) keeps the reader's tab.
    click_pill(page, "install", "docker")
    expect(page.locator(f'.rb-widget .rb-role[data-role="{second}"]')).to_be_visible()
    expect(page.locator(f'.rb-widget button.rb-role-tab[data-role-tab="{second}"]')
           ).to_have_attribute("aria-selected", "true")


def test_node_count_changes_the_worker_list(warm_tab: WarmTab) -> None:
    page = warm_tab.open(KIMI, "hardware=h100&strategy=multi_node_dep")
    workers = page.locator('.rb-widget .rb-role[data-role="worker"] .rb-block')
    heads = page.locator('.rb-widget .rb-role[data-role="head"] .rb-block')
    first = int(page.locator('.rb-widget button.rb-pill[data-key="nodes"][aria-pressed="true"]'
                             ).get_attribute("data-value"))
    assert heads.count() == 1
    assert workers.count() == first - 1
    click_pill(page, "nodes", str(first + 2))
    expect(workers).to_have_count(first + 1)
    expect(heads).to_have_count(1)
    query = {"hardware": "h100", "strategy": "multi_node_dep", "nodes": str(first + 2)}
    assert shown_copy_text(page) == expected_text(KIMI, query)


def test_widget_follows_same_page_links(warm_tab: WarmTab) -> None:
    page = warm_tab.open(V4)
    follow_link(page, model_url(V4, "hardware=mi355x&install=docker"))
    # mkdocs-material decides where a same-page link lands (after an earlier instant
    # navigation it steps back in history); the widget shows whatever the URL ends up with.
    page.wait_for_timeout(300)
    page.wait_for_function(
        """() => {
            const url = [...new URLSearchParams(location.search)].sort().join('&');
            const shown = Object.entries(JSON.parse(
                document.querySelector('.rb-widget').dataset.explicit)).sort().join('&');
            return url === shown && !document.querySelector('.rb-widget[aria-busy]');
        }"""
    )
    query = url_query(page)
    assert shown_copy_text(page) == expected_text(V4, query)


def test_python_loads_once_per_tab(warm_tab: WarmTab) -> None:
    """Every page of the warm tab came by instant navigation: one load, one worker, one wasm."""
    warm_tab.open(KIMI)
    warm_tab.open(V4)
    assert len(warm_tab.loads) == 1, warm_tab.loads
    assert len([url for url in warm_tab.workers if url.endswith("/builder-worker.js")]) == 1
    assert len(warm_tab.wasm) == 1
