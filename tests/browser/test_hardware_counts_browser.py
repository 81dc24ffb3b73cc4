"""A GPU at a count on the page: the two-card ids (`rtx_5090_2x`) are no hardware pill any
more; the URL that names one shows the GPU with `gpus=2`, the notice CPython gives, and the
command the CLI prints for `hardware=rtx_5090 gpus=2`. The hardware row's brand names
("Huawei Ascend" on two lines) stay clear of its "N more, unavailable" control at every width,
in light and dark."""

from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.browser.widget import (
    WarmTab,
    cli_text,
    expected,
    folded,
    model_url,
    painted,
    pills,
    url_query,
    wait_python,
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


# The hardware row's boxes: each brand name with its brand's box, the row's own fold control
# ("N more, unavailable", after the brands) and, when open, its list.
HARDWARE_BOXES = """() => {
  const row = document.querySelector('.rb-row[data-row="hardware"]');
  const box = (el) => el.getBoundingClientRect().toJSON();
  const more = row.querySelector(".rb-pills > details.rb-more");
  const list = more && more.open ? more.querySelector(".rb-more-list") : null;
  return {
    brands: [...row.querySelectorAll(".rb-brand")].map((brand) => ({
      name: brand.querySelector(".rb-brand-label").textContent,
      label: box(brand.querySelector(".rb-brand-label")), brand: box(brand),
      pills: [...brand.querySelectorAll(":scope > .rb-pill")].map(box)})),
    control: more ? box(more.querySelector("summary")) : null,
    list: list ? box(list) : null,
    scheme: document.body.getAttribute("data-md-color-scheme"),
  };
}"""


def _meet(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two boxes share any area."""
    return (a["left"] < b["right"] and b["left"] < a["right"]
            and a["top"] < b["bottom"] and b["top"] < a["bottom"])


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_brand_names_stay_clear_of_the_rows_fold_control(site_context: BrowserContext,
                                                         scheme: str) -> None:
    """Seen on Qwen3.8-27B at 1280 px: "HUAWEI ASCEND", two lines in the names' gutter, ran
    out of its brand into the line below, where the row's "6 more, unavailable" sat. At a
    phone's, a tablet's and a desktop's width, closed and open, each name stays inside its
    brand, and no name meets the control, its list or a pill."""
    # A tab of the session's context (its HTTP cache holds Pyodide), the system's scheme
    # emulated before the page loads.
    page = site_context.new_page()
    try:
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(model_url(QWEN))
        wait_python(page)  # no repaint after this: the boxes are the page's own
        for width in (390, 768, 1280):
            page.set_viewport_size({"width": width, "height": 900})
            for opened in (False, True):
                if opened:
                    page.locator('.rb-row[data-row="hardware"] .rb-pills > details.rb-more'
                                 ' > summary').click()
                seen = page.evaluate(HARDWARE_BOXES)
                assert seen["scheme"] == ("slate" if scheme == "dark" else "default")
                assert seen["control"] is not None and (seen["list"] is not None) == opened
                names = [b["name"] for b in seen["brands"]]
                assert "Huawei Ascend" in names, names
                for brand in seen["brands"]:
                    where = (scheme, width, opened, brand["name"])
                    label, outer = brand["label"], brand["brand"]
                    assert outer["top"] <= label["top"] and label["bottom"] <= outer["bottom"], (
                        where, label, outer)
                    assert not _meet(label, seen["control"]), (where, label, seen["control"])
                    assert seen["list"] is None or not _meet(label, seen["list"]), where
                    assert not any(_meet(label, pill) for pill in brand["pills"]), where
            page.locator('.rb-row[data-row="hardware"] .rb-pills > details.rb-more'
                         ' > summary').click()  # closed again for the next width
    finally:
        page.close()
