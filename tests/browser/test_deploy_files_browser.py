"""The deployment files on a model page in Chromium (issue 27.4): after a click, Pyodide's
widget offers the vLLM config, Compose and Kubernetes files CPython makes for the selection;
Copy copies the file, Download carries it, an opened file stays open across clicks, and the
row fits a 390 px phone as well as a 1280 px desktop."""

from __future__ import annotations

import base64

import pytest
from playwright.sync_api import Page, expect

from builder.deployment.files import deploy_files
from tests.browser.widget import WarmTab, click_pill, expected
from tests.recipes_data import builder_catalog, builder_recipe

QWEN = "Qwen/Qwen3-8B"


def _files(query: dict[str, str]) -> dict:
    return deploy_files(builder_catalog(), builder_recipe(QWEN), expected(QWEN, query)["result"])


def _file(page: Page, fmt: str) -> tuple:
    details = page.locator(f'.rb-widget details.rb-file[data-format="{fmt}"]')
    return details, details.locator("pre code"), details.locator("a.rb-download")


@pytest.mark.parametrize("width", [1280, 390])
def test_files_follow_the_selection_with_copy_and_download(warm_tab: WarmTab, width: int
                                                           ) -> None:
    page = warm_tab.open(QWEN)
    page.set_viewport_size({"width": width, "height": 900})
    try:
        click_pill(page, "hardware", "h100")
        want = _files({"hardware": "h100"})
        details, code, link = _file(page, "compose")
        details.locator("summary").click()
        expect(details).to_have_attribute("open", "")
        assert code.text_content() == want["compose"]["text"]
        payload = link.get_attribute("href").split(",", 1)[1]
        assert base64.b64decode(payload).decode() == want["compose"]["text"]
        assert link.get_attribute("download") == "compose.yaml"
        button = details.locator("button.rb-copy")
        button.click()
        expect(button).to_have_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()") == want["compose"]["text"]
        for element in (button, link, details.locator("summary")):
            box = element.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width

        # Another click: the open file stays open and shows the new selection's file.
        click_pill(page, "hardware", "b200")
        expect(details).to_have_attribute("open", "")
        assert code.text_content() == _files({"hardware": "b200"})["compose"]["text"]
        k8s, k8s_code, _ = _file(page, "k8s")
        k8s.locator("summary").click()
        assert "nvidia.com/gpu" in k8s_code.text_content()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
