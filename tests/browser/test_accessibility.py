"""axe-core (pinned from npm, injected from node_modules: nothing from another origin) on the
home page, the API page, the configurations page and model pages, in the system's light and
dark mode, after Python has painted.
Any violation fails, theme markup included: where mkdocs-material falls short, overrides/ and
the page glue fix it (search dialog and progress bar names, code-block nav names, contrast)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import ROOT, Site
from tests.browser.widget import wait_python

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
PAGES = {
    "home": "/",
    "api": "/api/",
    "configurations": "/configurations/",
    "model-v41": "/deepseek-ai/DeepSeek-V4.1-Flash/",
    "model-v41-text-only": "/deepseek-ai/DeepSeek-V4.1-Flash/?text_only=on",
    "model-qwen": "/Qwen/Qwen3-8B/",
    "model-kimi-roles": "/moonshotai/Kimi-K2-Instruct/?strategy=multi_node_dep",
}
SCHEMES = {"light": "default", "dark": "slate"}
SETTLED = """() => document.getAnimations().every((a) => a.playState !== "running"
    || a.effect.getComputedTiming().endTime === Infinity)"""
"""No transition or finite animation is running (getAnimations flushes pending styles, so
one that a change has just started counts)."""


@pytest.fixture(scope="module")
def tab(browser: Browser, site: Site) -> Iterator[Page]:
    """One tab for the module: each test loads its page afresh in it (a full load, the
    system's scheme emulated first), while the renderer keeps axe and the page scripts
    compiled and the HTTP cache keeps Pyodide: a fresh tab per test compiled axe anew (about
    2 s each) and a fresh context Pyodide too."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=site.origin)
    yield context.new_page()
    context.close()


@pytest.fixture(params=list(SCHEMES))
def scheme_page(request: pytest.FixtureRequest, tab: Page) -> Page:
    # The site follows the system's scheme (mkdocs-material's automatic palette).
    tab.emulate_media(color_scheme=request.param)
    tab.scheme = SCHEMES[request.param]  # type: ignore[attr-defined]
    return tab


@pytest.mark.parametrize("name", list(PAGES))
def test_axe_finds_nothing(scheme_page: Page, name: str) -> None:
    assert AXE.is_file(), "node_modules/axe-core is missing: run `make install`"
    page = scheme_page
    page.goto(PAGES[name])
    if page.locator(".rb-mount").count():
        wait_python(page)
        # Every row's "N more, unavailable" list open, the widget's bar shown (as it is while
        # the reader is among the rows; its observer stopped, so it stays), and a disabled
        # pill focused: its reason shows. All checked too.
        for more in page.locator(".rb-widget details.rb-more").all():
            more.locator("summary").click()
        page.evaluate("""() => { const mount = document.querySelector(".rb-mount");
            mount.rbMount.barObserver?.disconnect(); mount.dataset.bar = "on"; }""")
        expect(page.locator(".rb-widget .rb-bar")).to_be_visible()
        disabled = page.locator('.rb-widget .rb-pill[aria-disabled="true"]')
        if disabled.count():
            disabled.first.focus()
    assert page.evaluate("document.body.dataset.mdColorScheme") == page.scheme  # type: ignore[attr-defined]
    page.wait_for_function(SETTLED)  # the theme's transitions (colours, header) have ended
    # Evaluated through the browser's debugging protocol: an injected <script> would be an
    # inline script, which the page's Content-Security-Policy refuses.
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;undefined")
    violations = page.evaluate(
        """async (tags) => {
            // resultTypes: only the violations are worked out node by node (axe then skips
            // the bookkeeping of the ~20,000 passing nodes of the home page).
            const result = await axe.run(document, {runOnly: {type: "tag", values: tags},
                                                    resultTypes: ["violations"]});
            return result.violations.map((v) => `${v.id} (${v.impact}): ` + v.nodes.map(
                (n) => `${n.target.join(" ")} ${n.failureSummary.split("\\n")[1] ?? ""}`
            ).slice(0, 5).join(" | "));
        }""",
        TAGS,
    )
    assert violations == []


CONTRAST = """(el) => {
    const rgba = (s) => s.match(/[\\d.]+/g).map(Number);
    const lum = ([r, g, b]) => {
        const c = [r, g, b].map((v) => { v /= 255;
            return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    let node = el, bg = null;
    while (node && node.nodeType === 1) {
        const c = rgba(getComputedStyle(node).backgroundColor);
        if ((c[3] ?? 1) > 0) { bg = c; break; }
        node = node.parentElement;
    }
    bg = bg ?? [255, 255, 255];
    const fg = rgba(getComputedStyle(el).color);
    const a = fg[3] ?? 1;
    const mixed = [0, 1, 2].map((i) => fg[i] * a + bg[i] * (1 - a));
    const [l1, l2] = [lum(mixed), lum(bg)].sort((x, y) => y - x);
    return (l1 + 0.05) / (l2 + 0.05);
}"""


def test_unavailable_pills_stay_readable(scheme_page: Page) -> None:
    # axe leaves aria-disabled controls out of its contrast check; these carry a reason.
    page = scheme_page
    page.goto(PAGES["model-v41"])
    wait_python(page)
    disabled = page.locator('.rb-widget .rb-pill[aria-disabled="true"]')
    assert disabled.count() >= 2
    ratios = [disabled.nth(i).evaluate(CONTRAST) for i in range(disabled.count())]
    assert min(ratios) >= 4.5, ratios
    # ... and still look unavailable: dashed, unlike the available ones.
    assert disabled.first.evaluate("b => getComputedStyle(b).borderTopStyle") == "dashed"
