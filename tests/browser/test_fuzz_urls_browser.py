"""Fuzz in the browser (issue 24, point 9): seeded hostile URLs opened in the page, which must
show what CPython's `page_state` gives for the same [key, value] pairs (command and notice),
and write back the URL `page_state` honoured. The Python side is tests/fuzz/; this adds the
page's own reading of its URL (URLSearchParams, the variant page's base). Bounded: `URLS`."""

from __future__ import annotations

import random
from urllib.parse import urlencode

from playwright.sync_api import Page, expect

from builder.vocabulary import is_foreign
from tests.browser.widget import (
    WarmTab,
    follow_link,
    model_url,
    painted,
    url_query,
    wait_paint,
    wait_python,
)
from tests.fuzz.hostile import model_ids, page, url_pairs, written_back

URLS = 16
SEED = 2401
"""Its case 13 (`variant=default%00`) once failed: the notice held the NUL as is, which HTML
cannot carry (now shown as `\\x00`; tests/test_view.py keeps it as a case too)."""
MARKUP = ("<img src=x onerror=window.__pwned=1>", "\"><svg onload=window.__pwned=1>",
          "javascript:window.__pwned=1", "'-alert(1)-'", "</p><script>window.__pwned=1</script>")
"""Issue 32: one of these joins each URL, under one of the page's own keys; none may run
(`window.__pwned` stays unset, no dialog opens) under the page's Content-Security-Policy."""
PAGES = ("nvidia/DeepSeek-V4-Flash-NVFP4", "deepseek-ai/DeepSeek-V4-Flash", "Qwen/Qwen3-8B",
         "deepseek-ai/DeepSeek-V4.1-Flash")


def open_page(tab: WarmTab, model_id: str, query: str) -> Page:
    """`tab.open`, counting the widget's paints from the page's arrival on (a count kept from
    the pages before can be cleared on the way)."""
    page = tab.page
    follow_link(page, "/")
    page.wait_for_function(
        "() => location.pathname === '/' && !document.querySelector('.rb-mount')")
    page.evaluate("performance.clearMarks('rb-paint')")
    follow_link(page, model_url(model_id, query))
    page.wait_for_function(
        "path => location.pathname === path && document.querySelector('.rb-mount')?.rbMount",
        arg=f"/{model_id}/")
    wait_python(page)
    wait_paint(page, 0)
    return page


def test_hostile_urls_show_what_python_gives(warm_tab: WarmTab) -> None:
    rng = random.Random(SEED)
    pages = {m: (h, b) for m, h, b in model_ids() if m in PAGES}
    dialogs: list[str] = []
    warm_tab.page.on("dialog", lambda dialog: (dialogs.append(dialog.message),
                                                dialog.dismiss()))
    for number in range(URLS):
        model_id = rng.choice(PAGES)
        hf_id, base = pages[model_id]
        pairs = [(k, v[:500]) for k, v in url_pairs(rng, hf_id)]
        if not any(not is_foreign(k) for k, _ in pairs):
            pairs.append(("install", "docker"))
        pairs.append((("hardware", "variant", "strategy", "dynamo_gpu")[number % 4],
                      MARKUP[number % len(MARKUP)]))
        state = page(hf_id, pairs, base)
        tab = open_page(warm_tab, model_id, urlencode(pairs))
        shown = painted(tab)
        assert shown["copy_text"] == state["result"]["copy_text"], (model_id, pairs)
        notice = tab.locator(".rb-widget .rb-notice")
        if state["notice"]:
            expect(notice).to_have_text(str(state["notice"]))
        else:
            expect(notice).to_have_count(0)
        own = {k: v for k, v in url_query(tab).items() if not is_foreign(k)}
        assert own == dict(written_back(state, base)), (model_id, pairs)
        assert tab.evaluate("typeof window.__pwned") == "undefined", (model_id, pairs)
    assert dialogs == []
