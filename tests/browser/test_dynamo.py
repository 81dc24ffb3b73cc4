"""The "Deploy with NVIDIA Dynamo" widget in Chromium: Python (Pyodide, in the page's one
worker) renders it, the page paints it. Expected HTML comes from CPython's builder."""

from __future__ import annotations

from urllib.parse import parse_qsl

from playwright.sync_api import Locator, Page, expect

from builder.views.dynamo import page_state
from tests.browser.widget import PYTHON_TIMEOUT_MS, WarmTab, hold_python, model_url, paints
from tests.test_dynamo import HF_ID, NO_SGLANG_B200, NO_SGLANG_H200, data

PAINTS = "performance.getEntriesByName('dy-paint').length"


def pill(page: Page, key: str, value: str) -> Locator:
    return page.locator(f'.dy-widget button.dy-pill[data-key="dynamo_{key}"]'
                        f'[data-value="{value}"]')


def click(page: Page, key: str, value: str) -> None:
    """Click an available pill and wait until Python's answer is painted."""
    before = page.evaluate(PAINTS)
    pill(page, key, value).click()
    page.wait_for_function(f"() => {PAINTS} > {before}", timeout=PYTHON_TIMEOUT_MS)


def own_query(page: Page) -> dict[str, str]:
    query = dict(parse_qsl(page.evaluate("location.search").lstrip("?")))
    return {k: v for k, v in query.items() if k.startswith("dynamo_")}


def widget_html(page: Page) -> str:
    return page.evaluate("document.querySelector('.dy-widget').outerHTML")


def as_browser_writes(page: Page, html: str) -> str:
    """`html` as the browser serialises it once parsed (entities, attribute quoting)."""
    return page.evaluate(
        "html => { const t = document.createElement('template'); t.innerHTML = html;"
        " return t.content.firstElementChild.outerHTML; }", html)


def test_sglang_disables_h200_and_b200_with_the_reason_readable_on_a_phone(
    site_page: Page,
) -> None:
    site_page.set_viewport_size({"width": 390, "height": 844})
    site_page.goto(model_url(HF_ID))
    # Prerendered: every GPU is available with vLLM.
    for gpu in ("gb200", "b200", "h200"):
        expect(pill(site_page, "gpu", gpu)).not_to_have_attribute("aria-disabled", "true")
    click(site_page, "framework", "sglang")
    assert own_query(site_page) == {"dynamo_framework": "sglang"}
    for gpu, reason in (("h200", NO_SGLANG_H200), ("b200", NO_SGLANG_B200)):
        target = pill(site_page, "gpu", gpu)
        expect(target).to_have_attribute("aria-disabled", "true")
        why = site_page.locator(f"#{target.get_attribute('aria-describedby')}")
        expect(why).to_be_hidden()
        before = widget_html(site_page)
        target.click(force=True)  # a tap (Playwright waits for enabled pills otherwise)
        expect(why).to_be_visible()
        expect(why).to_contain_text(reason)
        box = why.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert site_page.evaluate(PAINTS) == 1
        assert own_query(site_page) == {"dynamo_framework": "sglang"}
        assert widget_html(site_page).replace(" dy-open", "") == before.replace(" dy-open", "")
    # Only the reason of the pill tapped last is shown.
    expect(site_page.locator(".dy-why:visible")).to_have_count(1)
    expect(pill(site_page, "gpu", "gb200")).to_have_attribute("aria-pressed", "true")
    assert widget_html(site_page).replace(" dy-open", "") == as_browser_writes(
        site_page, page_state(data(), {"dynamo_framework": "sglang"})["html"])


def test_vllm_h200_disaggregated_shows_its_steps_and_row(warm_tab: WarmTab) -> None:
    # A fresh page by instant navigation in the warm tab (Python running); the tab's paints
    # of the main builder are counted from here.
    site_page = warm_tab.open(HF_ID)
    builder_paints = paints(site_page)
    for key, value in (("framework", "vllm"), ("gpu", "h200"), ("topology", "disaggregated")):
        click(site_page, key, value)
    explicit = {"dynamo_framework": "vllm", "dynamo_gpu": "h200",
                "dynamo_topology": "disaggregated"}
    assert own_query(site_page) == explicit
    steps = site_page.locator(".dy-widget .dy-step pre code")
    expect(steps.nth(1)).to_have_text(
        'kustomize build recipes/deepseek-v4.1-flash/vllm/disagg-h200-agentic > '
        '"${CLUSTER_CONFIG}/recipe.yaml"')
    expect(site_page.locator('.dy-widget .dy-step[data-step="port_forward"] code')).to_have_text(
        'kubectl port-forward svc/dsv41-flash-vllm-h200-disagg-agentic-frontend 8000:8000 '
        '-n "${NAMESPACE}"')
    selected = site_page.locator(".dy-widget tr.dy-selected")
    expect(selected).to_have_count(1)
    expect(selected).to_have_attribute("data-gpu", "h200")
    expect(selected).to_have_attribute("data-topology", "disaggregated")
    expect(site_page.locator(".dy-widget .dy-compare")).to_contain_text(
        "72% more output tok/s/GPU and 1% less P50 user tok/s")
    assert widget_html(site_page) == as_browser_writes(
        site_page, page_state(data(), explicit)["html"])
    # The main builder's widget was not touched.
    assert paints(site_page) == builder_paints


def test_copy_button_copies_the_step(site_page: Page) -> None:
    hold_python(site_page)  # the prerendered step's Copy: no Python asked
    site_page.goto(model_url(HF_ID))
    step = site_page.locator('.dy-widget .dy-step[data-step="render"]')
    step.locator("button.rb-copy").click()
    expect(step.locator("button.rb-copy")).to_have_text("Copied")
    copied = site_page.evaluate("navigator.clipboard.readText()")
    assert copied == step.locator("pre code").text_content()
    assert copied.startswith("kustomize build recipes/deepseek-v4.1-flash/vllm/agg-gb200-agentic")


def test_a_link_with_the_selection_opens_it(site_page: Page) -> None:
    query = "dynamo_framework=sglang&dynamo_topology=disaggregated"
    site_page.goto(model_url(HF_ID, query))
    site_page.wait_for_function(f"() => {PAINTS} > 0", timeout=PYTHON_TIMEOUT_MS)
    explicit = {"dynamo_framework": "sglang", "dynamo_topology": "disaggregated"}
    assert widget_html(site_page) == as_browser_writes(
        site_page, page_state(data(), explicit)["html"])
    expect(site_page.locator('.dy-widget .dy-step[data-step="apply"] code')).to_have_text(
        'kubectl apply -f recipes/deepseek-v4.1-flash/sglang/disagg-gb200/deploy-generic.yaml '
        '-n "${NAMESPACE}"')
