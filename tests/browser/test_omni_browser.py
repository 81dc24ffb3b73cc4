"""A vLLM-Omni recipe page in Chromium: the Task pill row swaps the served checkpoint and the
request example, as CPython's builder says, and the request block copies its own text."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.widget import WarmTab, blocks, click_pill, expected, pills, url_query

WAN = "Wan-AI/Wan2.2-T2V-A14B-Diffusers"


def _shown(page: Page) -> tuple[str, str]:
    """(command text, request text) as painted."""
    commands = [text for _, text in blocks(page)]
    requests = page.locator(
        '.rb-widget .rb-request[data-role="request"] pre code').all_text_contents()
    assert len(requests) == 1 and len(commands) == 1, (commands, requests)
    return commands[0], requests[0]


def _want(query: dict[str, str]) -> tuple[str, str, str]:
    """(command text, request text, request label) as CPython renders them."""
    result = expected(WAN, query)["result"]
    return result["commands"][0]["shell"], result["request"]["text"], result["request"]["label"]


def test_task_pill_changes_the_command_and_the_request(warm_tab: WarmTab) -> None:
    page = warm_tab.open(WAN)
    assert [p["value"] for p in pills(page, "task")] == ["t2v", "i2v", "ti2v"]
    command, request = _shown(page)
    assert (command, request) == _want({})[:2]
    assert "Wan-AI/Wan2.2-T2V-A14B-Diffusers" in command

    click_pill(page, "task", "i2v")
    assert url_query(page) == {"task": "i2v"}
    new_command, new_request = _shown(page)
    want_command, want_request, label = _want({"task": "i2v"})
    assert (new_command, new_request) == (want_command, want_request)
    assert new_command != command and "Wan-AI/Wan2.2-I2V-A14B-Diffusers" in new_command
    assert new_request != request and "input_reference=@" in new_request
    request = page.locator('.rb-widget .rb-request[data-role="request"]')
    expect(request.locator(".rb-block-label")).to_have_text(f"Try it: {label}")

    button = request.locator("button.rb-copy")
    button.click()
    expect(button).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == want_request
