"""The serving-configurations catalogue and the "Compare your command" box in Chromium.

Expected values come from CPython: the published JSON the site was built from, and
builder.diff.compare (the function Pyodide runs in the page) called on the same input."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from playwright.sync_api import Page, expect

from builder.diff.compare import compare
from builder.diff.published import role_text
from tests.browser.conftest import Site
from tests.browser.widget import (
    PYTHON_TIMEOUT_MS,
    WarmTab,
    click_pill,
    expected_text,
    model_url,
    painted,
    wait_python,
)
from tests.recipes_data import builder_catalog, builder_recipe

V41 = "deepseek-ai/DeepSeek-V4.1-Flash"
EXAMPLE = f"vllm serve {V41} --tensor-parallel-size 8"
CMP_PAINTS = "window.__cmpPaints || 0"


def configurations(site: Site) -> list[dict]:
    return json.loads((site.root / "configurations.json").read_text())["configurations"]


def visible_cards(page: Page) -> list[str]:
    return page.evaluate(
        "() => [...document.querySelectorAll('article.cfg-card')].filter(c => !c.hidden)"
        ".map(c => c.id)")


def shown_count(page: Page) -> str:
    return page.locator("[data-cfg-shown]").text_content() or ""


def test_catalogue_filters_work_and_survive_a_reload(site_page: Page, site: Site) -> None:
    everything = configurations(site)
    page = site_page
    page.goto("/configurations/")
    assert len(visible_cards(page)) == 20
    page.select_option('select[name="hardware"]', "mi355x_x8")
    expect(page.locator("[data-cfg-shown]")).to_have_text("3")
    mi355x = [c["id"] for c in everything if c["system"] == "mi355x_x8"]
    assert visible_cards(page) == mi355x
    assert "hardware=mi355x_x8" in page.evaluate("location.search")
    featured = page.evaluate(
        "() => [...document.querySelectorAll('.cfg-featured-system')].filter(b => !b.hidden)"
        ".map(b => b.dataset.system)")
    assert featured == ["mi355x_x8"]

    page.reload()
    expect(page.locator('select[name="hardware"]')).to_have_value("mi355x_x8")
    assert shown_count(page) == "3" and visible_cards(page) == mi355x

    page.select_option('select[name="hardware"]', "")
    page.select_option('select[name="framework"]', "sglang")
    expect(page.locator("[data-cfg-shown]")).to_have_text("2")
    assert visible_cards(page) == [c["id"] for c in everything if c["framework"] == "sglang"]

    page.select_option('select[name="framework"]', "")
    page.fill('input[name="from"]', "2026-10-08")
    page.fill('input[name="to"]', "2026-10-12")
    in_range = [c["id"] for c in everything if "2026-10-08" <= c["date"] <= "2026-10-12"]
    assert 0 < len(in_range) < 20
    expect(page.locator("[data-cfg-shown]")).to_have_text(str(len(in_range)))
    assert visible_cards(page) == in_range
    page.reload()
    expect(page.locator('input[name="from"]')).to_have_value("2026-10-08")
    assert visible_cards(page) == in_range

    page.click("button.cfg-reset")
    expect(page.locator("[data-cfg-shown]")).to_have_text("20")
    assert page.evaluate("location.search") == ""


def test_a_filter_that_matches_nothing_says_so(site_page: Page) -> None:
    page = site_page
    page.goto("/configurations/?hardware=h100_x8&precision=NVFP4")
    expect(page.locator("[data-cfg-shown]")).to_have_text("0")
    expect(page.locator(".cfg-empty")).to_be_visible()
    page.click("[data-cfg-clear]")
    expect(page.locator("[data-cfg-shown]")).to_have_text("20")


def test_copy_button_copies_the_published_command(site_page: Page, site: Site) -> None:
    page = site_page
    config = next(c for c in configurations(site) if c["id"] == "mi355x-vllm-tp4")
    page.goto("/configurations/#mi355x-vllm-tp4")
    card = page.locator("#mi355x-vllm-tp4")
    card.locator("details.cfg-commands > summary").click()
    card.locator("button.cfg-copy").first.click()
    expect(card.locator("button.cfg-copy").first).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == role_text(config["roles"][0]["command"])


def _rows(page: Page) -> list[tuple[str, str, str, str]]:
    return [tuple(row) for row in page.evaluate(
        """() => [...document.querySelectorAll('.cmp-output .cdiff-table tbody tr[data-key]')]
            .filter(r => !r.closest('details'))
            .map(r => [r.dataset.key, r.dataset.status,
                       r.querySelector('[data-side=recipe]').textContent,
                       r.querySelector('[data-side=command]').textContent])""")]


def _expected_rows(query: dict[str, str], text: str) -> list[tuple[str, str, str, str]]:
    # The box compares with the page's selection: the default variant unless the URL says so.
    diff = compare(builder_catalog(), builder_recipe(V41), {"variant": "default", **query},
                   text)["diff"]
    rows = []
    for entry in [diff["model"], *diff["flags"], *diff["env"]]:
        if entry["kind"] == "deployment" or entry["status"] == "equal":
            continue
        if entry["keys"] and entry["status"] == "changed":  # the keys' rows say what differs
            n = len(entry["keys"])
            shown = f"JSON object, {n} key{'s' if n != 1 else ''}"
            rows.append((entry["key"], entry["status"], shown, shown))
        else:
            rows.append((entry["key"], entry["status"], entry["recipe"] or "not set",
                         entry["command"] or "not set"))
        if entry["status"] == "changed":
            rows += [(k["key"], k["status"], k["recipe"] or "not set", k["command"] or "not set")
                     for k in entry["keys"] if k["status"] != "equal"]
    return rows


def _compare(page: Page, text: str) -> None:
    before = page.evaluate(CMP_PAINTS)
    page.locator(".cmp-input").fill(text)
    page.click("button.cmp-run")
    page.wait_for_function(f"() => {CMP_PAINTS} > {before}", timeout=PYTHON_TIMEOUT_MS)


def count_compare_paints(page: Page) -> None:
    """window.__cmpPaints counts the compare box's paints (once per document: a warm tab keeps
    its document across instant navigations; the tests compare it with its value before)."""
    page.evaluate("() => { if (window.__cmpCounting) return; window.__cmpCounting = true;"
                  " document.addEventListener('cmp:paint', () => "
                  "{ window.__cmpPaints = (window.__cmpPaints || 0) + 1; }); }")


def test_compare_box_shows_the_diff_python_computes(warm_tab: WarmTab) -> None:
    # A fresh page by instant navigation, Python already running: the widget applies the
    # URL's selection first (`open` waits for that paint: it would re-run a comparison).
    page = warm_tab.open(V41, "hardware=h200")
    count_compare_paints(page)
    wait_python(page)
    _compare(page, EXAMPLE)
    assert _rows(page) == _expected_rows({"hardware": "h200"}, EXAMPLE)
    tp = next(r for r in _rows(page) if r[0] == "--tensor-parallel-size")
    assert tp == ("--tensor-parallel-size", "changed", "4", "8")
    summary = page.locator(".cmp-output .cdiff-summary").text_content()
    assert summary == compare(builder_catalog(), builder_recipe(V41),
                              {"hardware": "h200", "variant": "default"},
                              EXAMPLE)["diff"]["summary"]

    # Another pill: the comparison follows the new selection.
    click_pill(page, "hardware", "b200")
    page.wait_for_function(
        "() => document.querySelector('.cmp-output .cmp-against')?.textContent.includes('B200')",
        timeout=PYTHON_TIMEOUT_MS)
    assert _rows(page) == _expected_rows({"hardware": "b200"}, EXAMPLE)
    assert next(r for r in _rows(page) if r[0] == "--tensor-parallel-size")[2] == "2"


def test_compare_box_garbage_gives_one_line(warm_tab: WarmTab) -> None:
    page = warm_tab.open("meta-llama/Llama-3.1-8B-Instruct")
    count_compare_paints(page)
    for text, error in (
        ("vllm serve 'oops", "unbalanced quotes: a ' or \" is never closed"),
        ("sglang serve --model-path x", "an SGLang command: only vLLM commands (`vllm serve "
                                        "MODEL ...`) can be compared"),
        ("rm -rf /", "not a vllm serve command: no `vllm serve MODEL ...` (or docker run of it) "
                     "found"),
    ):
        _compare(page, text)
        expect(page.locator(".cmp-output .cdiff-error")).to_have_text(error)
    # A megabyte pasted: set the value directly (typing it would take minutes).
    before = page.evaluate(CMP_PAINTS)
    page.evaluate("document.querySelector('.cmp-input').value = "
                  "'vllm serve m ' + '--x 1 '.repeat(180000)")
    page.click("button.cmp-run")
    page.wait_for_function(f"() => {CMP_PAINTS} > {before}", timeout=PYTHON_TIMEOUT_MS)
    expect(page.locator(".cmp-output .cdiff-error")).to_have_text(
        "the text is 1,080,013 characters long; paste one command of at most 65,536 characters")
    # And it still works afterwards.
    _compare(page, "vllm serve meta-llama/Llama-3.1-8B-Instruct")
    expect(page.locator(".cmp-output .cdiff")).to_have_count(1)


def test_open_in_the_builder_shows_the_joined_selection(site_page: Page, site: Site) -> None:
    config = next(c for c in configurations(site) if c["id"] == "b300-vllm-tp2")
    page = site_page
    page.goto(model_url(V41))
    item = page.locator('li.cfg-model-item[data-configuration="b300-vllm-tp2"]')
    item.locator("a.cfg-open").click()
    page.wait_for_function("q => location.search === q",
                           arg="?" + urlencode(config["join"]["query"]))
    wait_python(page)
    page.wait_for_function(
        "q => document.querySelector('.rb-widget')?.dataset.explicit === q",
        arg=json.dumps(config["join"]["query"], sort_keys=True), timeout=PYTHON_TIMEOUT_MS)
    shown = painted(page)
    assert shown["query"] == config["join"]["query"]
    assert shown["copy_text"] == expected_text(V41, config["join"]["query"])
    assert shown["summary"] == config["join"]["summary"]
