"""Issue 32: a URL value a page's notice repeats is cut and printable (the model page's
builder and its Dynamo widget, both through `builder.errors.dropped_item`). The home page's
notice is checked in Chromium (tests/browser/test_csp.py)."""

from __future__ import annotations

import pytest

from builder.errors import ITEM_MAX, NOTICE_ITEMS, QUOTE_MAX, dropped_item
from builder.views import dynamo
from builder.views.widget import page_state
from tests.recipes_data import builder_catalog, builder_recipe
from tests.test_dynamo import HF_ID, data

HOSTILE = ["x" * 100_000, "\u202egpu\u2066" + "y" * 70, "a\x1b[31mb\nc\u2028d"]
UNSHOWABLE = {"\x1b", "\n", "\u2028", "\u202e", "\u2066"}


def _bounded(notice: str, items: int = 1) -> None:
    assert notice
    assert len(notice) <= 100 + items * ITEM_MAX, len(notice)
    assert not UNSHOWABLE & set(notice), notice


@pytest.mark.parametrize("value", HOSTILE)
def test_the_dynamo_widgets_notice_is_bounded(value: str) -> None:
    """`?dynamo_gpu=` + 100 KB on a model page printed the whole value."""
    notice = str(dynamo.page_state(data(), {"dynamo_gpu": value})["notice"])
    _bounded(notice)
    assert "dynamo_gpu=" in notice


@pytest.mark.parametrize("value", HOSTILE)
def test_the_builders_notice_is_bounded(value: str) -> None:
    state = page_state(builder_catalog(), builder_recipe(HF_ID), {"hardware": value})
    _bounded(state["notice"])
    assert "hardware=" in state["notice"]


def test_many_bad_keys_are_counted_not_listed() -> None:
    query = {f"dynamo_k{i}": "v" * 1000 for i in range(50)}
    notice = str(dynamo.page_state(data(), query)["notice"])
    _bounded(notice, NOTICE_ITEMS)
    assert notice.endswith(f"; and {50 - NOTICE_ITEMS} more")


def test_an_item_cuts_the_value_where_the_reason_repeats_it() -> None:
    item = dropped_item("gpu", "z" * 5000, f"unknown gpu {'z' * 5000!r}")
    assert len(item) <= ITEM_MAX
    assert item.count("z") <= 2 * QUOTE_MAX
