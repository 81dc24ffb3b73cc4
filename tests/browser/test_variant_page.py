"""A variant's own page in the browser (issue 24, points 2 and 3): a bad `variant=` keeps the
page's checkpoint (and the URL it writes reloads to it), another variant is honoured as the CLI
honours it, and the compare box compares with the page's checkpoint."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from builder.views.widget import page_state
from tests.browser.widget import (
    PYTHON_TIMEOUT_MS,
    WarmTab,
    cli_text,
    model_url,
    painted,
    url_query,
    wait_paint,
    wait_python,
)
from tests.recipes_data import builder_catalog, builder_recipe

PAGE = "nvidia/DeepSeek-V4-Flash-NVFP4"
RECIPE = "deepseek-ai/DeepSeek-V4-Flash"
BASE = {"variant": "nvfp4"}


def expected(query: list[tuple[str, str]]) -> dict:
    """page_state for the page's URL pairs, as the page asks it (its base under them)."""
    given = {k for k, _ in query}
    pairs = [*((k, v) for k, v in BASE.items() if k not in given), *query]
    return page_state(builder_catalog(), builder_recipe(RECIPE), pairs, base=BASE)


def cli_command(query: dict[str, str]) -> str:
    """The commands `vllm-recipes PAGE key=value ...` prints, after its install block (the
    page shows that block apart, under Install)."""
    own = cli_text(PAGE, query)
    shown = expected(list(query.items()))["result"]["copy_text"]
    assert own.endswith(shown), (own, shown)
    return shown


def test_a_bad_variant_keeps_the_page_checkpoint_across_a_reload(site_page: Page) -> None:
    page = site_page
    own = cli_command({})
    page.goto(model_url(PAGE, "variant=bogus"))
    wait_python(page)
    wait_paint(page, 0)
    shown = painted(page)
    assert shown["copy_text"] == own
    state = expected([("variant", "bogus")])
    expect(page.locator(".rb-widget .rb-notice")).to_have_text(str(state["notice"]))
    assert "variant" not in url_query(page)
    page.reload()
    wait_python(page)
    assert painted(page)["copy_text"] == own


def test_another_variant_is_the_clis_answer(warm_tab: WarmTab) -> None:
    # A fresh widget on the variant's page, reached by instant navigation (Python running):
    # the paint of the link's selection is what the CLI prints.
    page = warm_tab.open(PAGE, "variant=fp8")
    wait_python(page)
    assert painted(page)["copy_text"] == cli_command({"variant": "fp8"})
    assert url_query(page) == {"variant": "fp8"}


def test_the_compare_box_compares_with_the_pages_checkpoint(warm_tab: WarmTab) -> None:
    page = warm_tab.open(PAGE)
    wait_python(page)
    page.locator(".cmp-input").fill(cli_command({}))
    page.click("button.cmp-run")
    expect(page.locator(".cmp-output .cdiff-summary")).to_have_text(
        "same engine settings as the recipe", timeout=PYTHON_TIMEOUT_MS)
