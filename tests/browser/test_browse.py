"""The home page's model browser in Chromium: a typed search and a filter show the models the
recipes say, every option's count follows, the URL keeps the filters and back/forward step
through them, a bad URL value is dropped with a notice, and the filters fold away on a phone."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from urllib.parse import parse_qsl

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from site_plugins.recipes.model_search import CardWords, rank
from tests.browser.conftest import Site
from tests.browser.widget import hold_python
from tests.recipes_data import active_recipes


def query(page: Page) -> dict[str, str]:
    return dict(parse_qsl(page.evaluate("location.search").lstrip("?")))


def wait_query(page: Page, want: dict[str, str]) -> None:
    """Until the page's URL holds exactly `want` (browse.js writes it a moment later)."""
    page.wait_for_function(
        "want => JSON.stringify(Object.fromEntries(new URLSearchParams(location.search)))"
        " === JSON.stringify(want)", arg=want)


def control(page: Page, label: str) -> Locator:
    """A control of the browser's form, by its label."""
    return page.locator("form.rcp-filters").get_by_label(label, exact=True)


def shown_ids(page: Page) -> set[str]:
    return set(page.locator(".rcp-card:not([hidden]) .rcp-card-id code").all_text_contents())


def on_screen_order(page: Page) -> list[str]:
    """The shown cards' ids in the order a reader sees them (top to bottom, left to right)."""
    placed = page.evaluate("""() => [...document.querySelectorAll(".rcp-card:not([hidden])")]
        .map(el => { const box = el.getBoundingClientRect();
                     return [Math.round(box.y), box.x,
                             el.querySelector(".rcp-card-id code").textContent]; })""")
    return [hf_id for _, _, hf_id in sorted(placed)]


def natural_title(hf_id: str) -> tuple[object, ...]:
    title = active_recipes()[hf_id].meta.title.lower()
    return tuple(int(p) if i % 2 else p for i, p in enumerate(re.split(r"(\d+)", title)))


def shown_count(page: Page) -> int:
    return int(page.locator("[data-rcp-count]").inner_text())


def option_counts(page: Page, name: str) -> dict[str, tuple[int, bool]]:
    """value → (count shown, disabled) of a filter's options."""
    options = page.evaluate(
        """name => [...document.querySelector(`select[name="${name}"]`).options]
             .map(o => [o.value, o.textContent, o.disabled])""", name)
    counts = {}
    for value, text, disabled in options:
        match = re.fullmatch(r".+ \((\d+)\)", text)
        assert match, text
        counts[value] = (int(match[1]), disabled)
    return counts


def page_words(page: Page) -> dict[str, CardWords]:
    """Each card's words as the page carries them (built by model_search.card_words)."""
    cards = page.evaluate("""() => [...document.querySelectorAll(".rcp-card")].map(el => [
        el.querySelector(".rcp-card-id code").textContent, el.dataset.names, el.dataset.tags])""")
    return {hf_id: CardWords(tuple(names.split()), tuple(tags.split()))
            for hf_id, names, tags in cards}


def python_scores(page: Page, query: str) -> dict[str, int]:
    """hf_id → score of the cards model_search.rank finds for `query`, over the page's words."""
    words = page_words(page)
    ids = list(words)
    return {ids[i]: score for i, score in rank(query, list(words.values()))}


def with_task(task: str) -> set[str]:
    return {hf_id for hf_id, r in active_recipes().items() if task in r.meta.tasks}


def open_home(page: Page, path: str = "/") -> None:
    page.goto(path)
    page.wait_for_selector(".rcp-browse.rcp-js")


def test_search_filter_counts_url_and_back(site_page: Page) -> None:
    page = site_page
    total = len(active_recipes())
    open_home(page)
    assert shown_count(page) == total == len(shown_ids(page))

    search = control(page, "Search")
    search.press_sequentially("qwen3")
    qwen = set(python_scores(page, "qwen3"))
    assert len(qwen) >= 20 and {h for h in active_recipes() if h.startswith("Qwen/Qwen3")} <= qwen
    expect(page.locator("[data-rcp-count]")).to_have_text(str(len(qwen)))
    assert shown_ids(page) == qwen
    wait_query(page, {"search": "qwen3"})  # one entry for the whole word

    control(page, "Task").select_option("multimodal")
    both = qwen & with_task("multimodal")
    assert 0 < len(both) < len(qwen)
    expect(page.locator("[data-rcp-count]")).to_have_text(str(len(both)))
    assert shown_ids(page) == both
    wait_query(page, {"search": "qwen3", "task": "multimodal"})
    tasks = option_counts(page, "task")
    assert tasks[""] == (len(qwen), False)  # the other filters only
    for task in tasks.keys() - {""}:  # each counts within the search; nothing to show: disabled
        n = len(qwen & with_task(task))
        assert tasks[task] == (n, n == 0), task
    assert any(n == 0 for n, _ in tasks.values()) and tasks["text"][0] > 0
    # The other filters count within the search and the task.
    arch = option_counts(page, "arch")
    moe = {h for h in both if active_recipes()[h].model.architecture == "moe"}
    assert arch["moe"] == (len(moe), not moe)
    # Groups count what they show; a provider with nothing shown is hidden.
    providers: dict[str, int] = {}
    for hf_id in both:
        provider = active_recipes()[hf_id].meta.provider
        providers[provider] = providers.get(provider, 0) + 1
    groups = page.locator(".rcp-group:not([hidden]) .rcp-group-title").all_text_contents()
    assert sorted(groups) == sorted(f"{p} {n}" for p, n in providers.items())

    page.go_back()
    wait_query(page, {"search": "qwen3"})
    expect(control(page, "Task")).to_have_value("")
    expect(page.locator("[data-rcp-count]")).to_have_text(str(len(qwen)))
    page.go_back()
    wait_query(page, {})
    expect(search).to_have_value("")
    expect(page.locator("[data-rcp-count]")).to_have_text(str(total))
    page.go_forward()
    wait_query(page, {"search": "qwen3"})
    expect(search).to_have_value("qwen3")
    assert shown_ids(page) == qwen


@pytest.fixture(scope="module")
def home_tab(site_context: BrowserContext, site: Site) -> Iterator[Callable[[str], Page]]:
    """A tab per home page address for the tests that only type into the search box and read
    the cards: the page is loaded once (about 1.5 CPU-seconds for its ~600 KB of cards), and
    each test's search replaces the last one's (the cards shown and their order follow the
    box's text alone). Called with the address, it gives its tab, loaded there."""
    tabs: dict[str, Page] = {}

    def at(path: str) -> Page:
        page = tabs.get(path)
        if page is None:
            page = tabs[path] = site_context.new_page()
            page.on("websocket", lambda ws: site.foreign.append(ws.url))
        elif page.evaluate("location.pathname") == "/" and page.locator(
                ".rcp-browse.rcp-js").count():
            return page
        open_home(page, path)
        return page

    yield at
    for tab in tabs.values():
        tab.close()


def test_family_search_ignores_separators(home_tab: Callable[[str], Page]) -> None:
    page = home_tab("/")
    search = control(page, "Search")
    found = []
    for words in ("llama 3", "Llama-3", "llama3"):
        search.fill(words)
        found.append(shown_ids(page))
    llama = {h for h in active_recipes() if h.startswith("meta-llama/Llama-3")}
    assert found == [llama, llama, llama]


def test_omni_filter_and_ungrouped_cards(site_page: Page) -> None:
    page = site_page
    # `group=none` is the older URL form of an ungrouped list: sorted by name, and the URL says so.
    open_home(page, "/?task=omni&group=none")
    wait_query(page, {"task": "omni", "sort": "name"})
    omni = with_task("omni")
    assert len(omni) >= 25
    assert shown_ids(page) == omni
    expect(control(page, "Task")).to_have_value("omni")
    expect(control(page, "Sort")).to_have_value("name")
    # Provider headings are off screen (kept for screen readers): at most 1 px.
    boxes = [title.bounding_box() for title in page.locator(".rcp-group-title").all()]
    assert boxes and all(b is None or (b["width"] <= 1 and b["height"] <= 1) for b in boxes)
    # Ungrouped, each card names its provider.
    assert page.locator(".rcp-card:not([hidden]) .rcp-card-provider:visible").count() == len(omni)
    assert on_screen_order(page) == sorted(on_screen_order(page), key=natural_title)
    control(page, "Sort").select_option("newest")  # the default: not in the URL
    wait_query(page, {"task": "omni"})
    dates = [str(active_recipes()[h].meta.date_added) for h in on_screen_order(page)]
    assert dates == sorted(dates, reverse=True)
    control(page, "Sort").select_option("provider")
    wait_query(page, {"task": "omni", "sort": "provider"})
    assert page.locator(".rcp-group-title:visible").count() > 1

    # A card's JSON link serves the recipe's JSON.
    link = page.locator(".rcp-card:not([hidden]) .rcp-card-json").first
    response = page.request.get(link.get_attribute("href") or "")
    assert response.ok and json.loads(response.text())["hf_id"] in omni


def test_default_order_is_newest_first_and_said(site_page: Page) -> None:
    """Issue 36.3: the default order was by provider (Arcee first); it is the models' release
    dates (date_added), newest first, and a line on the page says so."""
    page = site_page
    open_home(page)
    expect(control(page, "Sort")).to_have_value("newest")
    order = on_screen_order(page)
    assert len(order) == len(active_recipes())
    dates = [str(active_recipes()[h].meta.date_added) for h in order]
    assert dates == sorted(dates, reverse=True)
    note = page.locator("[data-rcp-order]")
    expect(note).to_be_visible()
    expect(note).to_contain_text("Newest first, by the date a model joined the public")
    control(page, "Sort").select_option("name")
    expect(note).to_contain_text("By name")


@pytest.mark.parametrize("width", [1280, 390])
def test_one_search_box_on_the_home_page(browser: Browser, site: Site, width: int) -> None:
    """Issue 36.3: the theme's header search and the model search disagreed; the home page
    shows one search box (the theme's keys f, s and / go to it), other pages the theme's."""
    context = browser.new_context(viewport={"width": width, "height": 900},
                                  base_url=site.origin)
    page = context.new_page()
    try:
        open_home(page)
        expect(page.locator(".md-search")).to_be_hidden()
        expect(page.locator('label.md-header__button[for="__search"]')).to_be_hidden()
        boxes = page.locator('input[type="search"]:visible, input[type="text"]:visible')
        if width < 960:  # the filters fold behind a button; the search box stays
            expect(control(page, "Search")).to_be_visible()
        assert boxes.count() == 1
        page.locator("body").press("/")
        expect(control(page, "Search")).to_be_focused()
        # A model page, by instant navigation (the home page's stylesheet goes): the theme's
        # search is back; and gone again back home. (Its Python is not started: unused here.)
        hold_python(page)
        page.locator('a.rcp-card-link[href$="Qwen/Qwen3-8B/"]').click()
        page.wait_for_selector(".rb-mount")
        # wide: the theme's search box in the header; narrow: its button
        theirs = ".md-header .md-search__form:visible, .md-header label.md-header__button" \
                 '[for="__search"]:visible'
        expect(page.locator(theirs)).to_have_count(1)
        page.go_back()
        page.wait_for_selector(".rcp-browse.rcp-js")
        expect(page.locator(theirs)).to_have_count(0)
    finally:
        context.close()


def test_search_finds_embedding_and_h100_models(site_page: Page, site: Site) -> None:
    """Issue 36.3: "embedding" found 2 of the 4 embedding models (not BAAI/bge-m3), "H100"
    none. Models named so come first, then those whose task or hardware it is."""
    page = site_page
    open_home(page)
    search = control(page, "Search")
    search.press_sequentially("embedding")
    embedding = with_task("embedding")
    assert "BAAI/bge-m3" in embedding and len(embedding) >= 4
    expect(page.locator("[data-rcp-count]")).to_have_text(str(len(embedding)))
    assert shown_ids(page) == embedding
    order = on_screen_order(page)
    named = [h for h in order if "embedding" in h.lower()]
    assert order[:len(named)] == named and "BAAI/bge-m3" not in named
    expect(page.locator("[data-rcp-order]")).to_contain_text("Searching")

    search.fill("H100")
    hardware = json.loads((site.root / "hardware.json").read_text(encoding="utf-8"))
    h100 = set(hardware["hardware"]["h100"]["models"])
    assert len(h100) >= 50
    expect(page.locator("[data-rcp-count]")).to_have_text(str(len(h100)))
    assert shown_ids(page) == h100
    wait_query(page, {"search": "H100"})


@pytest.mark.parametrize(("query", "sort"), [
    *((q, "newest") for q in ("embedding", "H100", "speech", "image", "flux", "fp8", "nvfp4",
                              "mi300x", "qwen3", "llama 3", "deepseek v4", "embeding", "speach",
                              "mini", "K2-Horizon")),
    ("qwen", "provider"), ("embedding", "name"),
])
def test_the_page_ranks_as_model_search_does(home_tab: Callable[[str], Page], query: str,
                                             sort: str) -> None:
    """browse.js's matcher is model_search.rank: the same cards, the same scores (the page's
    order key, the card's `order`, is score × cards + place in the chosen order; grouped by
    provider, the best match comes first within each provider)."""
    page = home_tab(f"/?sort={sort}" if sort != "newest" else "/")
    control(page, "Search").fill(query)
    want = python_scores(page, query)
    assert shown_ids(page) == set(want)
    got = page.evaluate("""sort => Object.fromEntries([...document.querySelectorAll(
        ".rcp-card:not([hidden])")].map(el => [el.querySelector(".rcp-card-id code").textContent,
        [Number(el.style.order),
         Number(el.style.getPropertyValue(`--rcp-o-${sort}`))]]))""", sort)
    total = len(active_recipes())
    assert {h: (key - place) // total for h, (key, place) in got.items()} == want
    if sort == "provider":  # within each group
        for group in page.locator(".rcp-group:not([hidden])").all():
            ids = group.locator(".rcp-card:not([hidden]) .rcp-card-id code").all_text_contents()
            boxes = [page.locator(f'.rcp-card:has(code:text-is("{h}"))').bounding_box()
                     for h in ids]
            seen = [h for _, h in sorted(((b["y"], b["x"]), h) for b, h in zip(
                boxes, ids, strict=True) if b)]
            assert seen == sorted(seen, key=lambda h: got[h][0])
    else:
        order = on_screen_order(page)
        assert order == sorted(order, key=lambda h: got[h][0])


def test_unknown_url_values_are_dropped_with_a_notice(site_page: Page, site: Site) -> None:
    page = site_page
    open_home(page, "/?task=bo%1Bgus&hardware=h200&size=huge&h=kept")
    notice = page.locator("[data-rcp-notice]")
    expect(notice).to_be_visible()
    # ESC escaped as every Python notice escapes it (printable.js); it was stripped.
    expect(notice).to_contain_text("task=bo\\x1bgus")
    expect(notice).to_contain_text("size=huge")
    expect(control(page, "Hardware")).to_have_value("h200")
    hardware = json.loads((site.root / "hardware.json").read_text(encoding="utf-8"))
    assert shown_ids(page) == set(hardware["hardware"]["h200"]["models"])
    # Dropped from the URL; what is not the browser's own stays.
    assert query(page) == {"hardware": "h200", "h": "kept"}
    control(page, "Hardware").select_option("")
    expect(notice).to_be_hidden()


def test_empty_result_and_clear(site_page: Page) -> None:
    page = site_page
    open_home(page, "/?search=no-such-model-anywhere")
    empty = page.locator(".rcp-empty")
    expect(empty).to_be_visible()
    assert shown_ids(page) == set()
    empty.get_by_role("button", name="Clear the filters").click()
    expect(page.locator("[data-rcp-count]")).to_have_text(str(len(active_recipes())))
    wait_query(page, {})
    expect(control(page, "Search")).to_be_focused()


def test_back_from_a_model_page_restores_the_filters(site_page: Page) -> None:
    page = site_page
    open_home(page)
    control(page, "Task").select_option("embedding")
    embedding = with_task("embedding")
    expect(page.locator("[data-rcp-count]")).to_have_text(str(len(embedding)))
    hold_python(page)  # the model page is only passed through: its Python would be unused
    page.locator(".rcp-card:not([hidden]) .rcp-card-link").first.click()
    page.wait_for_selector(".rb-mount")
    page.go_back()
    page.wait_for_selector(".rcp-browse.rcp-js")
    expect(control(page, "Task")).to_have_value("embedding")
    assert shown_ids(page) == embedding


@pytest.fixture
def phone(browser: Browser, site: Site) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 390, "height": 844}, base_url=site.origin,
                                  has_touch=True, is_mobile=True)
    page = context.new_page()
    page.on("pageerror", lambda error: site.errors.append(str(error)))
    page.on("request", lambda request: None if request.url.startswith(
        (site.origin + "/", "data:", "blob:")) else site.foreign.append(request.url))
    yield page
    context.close()


def test_phone_filters_fold_behind_a_button(phone: Page) -> None:
    page = phone
    open_home(page, "/?task=omni")
    toggle = page.get_by_role("button", name=re.compile("^Filters"))
    expect(toggle).to_be_visible()
    expect(toggle).to_have_text("Filters (1)")  # says a filter is on while folded
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(control(page, "Task")).to_be_hidden()
    toggle.focus()
    page.keyboard.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(control(page, "Task")).to_be_visible()
    page.keyboard.press("Tab")
    expect(control(page, "Task")).to_be_focused()
    # Cards take the full width, one column.
    width = page.evaluate("document.querySelector('.rcp-card:not([hidden])')"
                          ".getBoundingClientRect().width")
    assert width > 300
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
