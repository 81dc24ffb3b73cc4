"""A GPU at a count on the page: the two-card ids (`rtx_5090_2x`) are no hardware pill any
more; the URL that names one shows the GPU with `gpus=2`, the notice CPython gives, and the
command the CLI prints for `hardware=rtx_5090 gpus=2`."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.widget import (
    WarmTab,
    cli_text,
    expected,
    folded,
    painted,
    pills,
    url_query,
)

QWEN = "Qwen/Qwen3.8-27B"


def test_a_two_card_id_in_the_url_is_the_gpu_at_two(warm_tab: WarmTab) -> None:
    state = expected(QWEN, {"hardware": "rtx_5090_2x"})
    page = warm_tab.open(QWEN, "hardware=rtx_5090_2x")
    expect(page.locator(".rb-widget .rb-notice")).to_have_text(str(state["notice"]))
    assert str(state["notice"]).startswith("hardware=rtx_5090_2x is now hardware=rtx_5090 gpus=2")
    shown = painted(page)
    assert shown["copy_text"] == state["result"]["copy_text"]
    assert shown["copy_text"] == cli_text(QWEN, {"hardware": "rtx_5090", "gpus": "2"})
    hardware = {p["value"]: p for p in pills(page, "hardware")}
    assert "rtx_5090_2x" not in hardware and "rtx_5090_2x" not in folded(page, "hardware")
    assert hardware["rtx_5090"]["pressed"] == "true"
    gpus = {p["value"]: p for p in pills(page, "gpus")}
    assert gpus["2"]["pressed"] == "true" and gpus["1"]["reason"] is None
    assert {k: url_query(page)[k] for k in ("hardware", "gpus")} == {
        "hardware": "rtx_5090", "gpus": "2"}
