"""The widget's HTML (builder.views.widget): what the page shows besides pills and commands."""

from __future__ import annotations

import html
import json
from functools import cache

from hypothesis import given
from hypothesis import strategies as st

from builder import SelectionError
from builder.commands.build import Builder
from builder.html_text import escape
from builder.views.widget import click_query, clicks, neighbours, page_state, render_widget
from tests.htmltree import parse
from tests.recipes_data import builder_catalog, builder_recipe, hf_ids, kept_builder

V41 = "deepseek-ai/DeepSeek-V4.1-Flash"


def test_each_command_line_can_show_where_it_came_from() -> None:
    """Issue 9.4: under each block, a disclosure (no hover needed) lists every option and
    variable with the recipe field or builder rule that set it, as `--explain` does."""
    state = page_state(builder_catalog(), builder_recipe(V41), {"hardware": "mi355x"})
    doc = parse(str(state["html"]))
    why = doc.find("details", "rb-lines")
    assert why.find("summary").text == "Why each line?"
    lines = {item.find("code").text: item for item in why.find("ul", "rb-lines-list").find_all(
        "li") if item.find_all("code")}
    monokernel = lines["--monokernel"]
    assert monokernel.find("span", "rb-lines-file").text == "recipes/models/deepseek-ai/" \
        "DeepSeek-V4.1-Flash.yaml"
    assert monokernel.find("span", "rb-lines-path").text == "hardware_overrides.mi355x.extra_args"
    assert monokernel.find("span", "rb-lines-layer").text == "override: mi355x"
    result = state["result"]
    options = [" ".join(s["option"]) for s in result["commands"][0]["sources"]["args"]]
    assert [o for o in options if o in lines] == options


def test_the_install_shows_the_recipes_extra_steps() -> None:
    """Issue 9.3 (dependencies in the install block) and issue 12 (vLLM-Omni's install)."""
    state = page_state(builder_catalog(), builder_recipe("Qwen/Qwen-Image"), {})
    install = parse(str(state["html"])).find("div", "rb-install")
    # Issue 35: vLLM-Omni is installed with the vLLM it was checked on, in the one pip line.
    assert "vllm-omni==0.30.0" in install.find("code").text


@given(st.text(alphabet=st.sampled_from("&<>\"'a; é\u00a0#x27") | st.characters()))
def test_escape_is_the_standard_librarys(text: str) -> None:
    assert escape(text) == html.escape(text)


@cache
def one_value_builds(hf_id: str) -> dict[tuple[str, str], bool]:
    """(key, value) → whether `build` answers the query {key: value} (False where it refuses
    it), for every value of every key of the recipe: one walk that the two tests below share
    (they ran it once each). Asked of the recipe's kept Builder (tests/recipes_data.py: what
    `build` gives, byte for byte; a refusal comes from the resolution, before the
    unavailable choices, which are not worked out here), not the one whose answers list the
    clicks."""
    builder = kept_builder(hf_id)
    found: dict[tuple[str, str], bool] = {}
    for key, values in builder.choices.items():
        for value in values:
            try:
                builder.build({key: value}, unavailable=False)
            except SelectionError:
                found[key, value] = False
            else:
                found[key, value] = True
    return found


@cache
def listed_clicks(hf_id: str) -> tuple[tuple[str, str], ...]:
    """The clicks `clicks` lists next to the recipe's default result, worked out by a
    Builder of the recipe's own (not the kept one that answers the clicks' queries): once per
    process for the two tests below."""
    builder = Builder(builder_catalog(), builder_recipe(hf_id))
    return tuple((key, value) for key, value in clicks(builder, builder.build({})))


def test_clicks_are_the_choices_that_build() -> None:
    """Every click `clicks` lists builds; every other value but the current one (and a GPU
    count, which the page asks its Python for) is refused."""
    for hf_id in hf_ids():
        kept = kept_builder(hf_id)
        selection = kept.build({}, unavailable=False)["selection"]
        listed = set(listed_clicks(hf_id))
        built = one_value_builds(hf_id)
        for key, values in kept.choices.items():
            for value in values:
                if value == selection.get(key) or key == "gpus":
                    # (a GPU count is asked of the page's Python when clicked: not listed)
                    assert (key, value) not in listed
                    continue
                assert ((key, value) in listed) == built[key, value], (hf_id, key, value)


NVFP4_PAGE = ("nvidia/DeepSeek-V4-Flash-NVFP4", "deepseek-ai/DeepSeek-V4-Flash", "nvfp4")


def _argv(state: dict[str, object]) -> list[str]:
    return state["result"]["commands"][0]["argv"]  # type: ignore[index]


def _page(recipe: dict[str, object], base: dict[str, str],
          url: list[tuple[str, str]]) -> dict[str, object]:
    """A variant page for its URL's pairs: the query it sends is the base under the URL's
    keys (recipe-builder.js withBase), with the base itself to fall back to."""
    given = {k for k, _ in url}
    query = [*((k, v) for k, v in base.items() if k not in given), *url]
    return page_state(builder_catalog(), recipe, query, base=base)


def _reload(recipe: dict[str, object], base: dict[str, str],
            state: dict[str, object]) -> dict[str, object]:
    """The page again from the URL it wrote: its honoured keys, less those equal to its base
    (recipe-builder.js writeURL)."""
    written = [(k, v) for k, v in state["explicit"].items()  # type: ignore[attr-defined]
               if base.get(k) != v]
    return _page(recipe, base, written)


def test_a_bad_variant_on_a_variant_page_keeps_the_page_checkpoint() -> None:
    """Issue 24.2: `?variant=bogus` (and `constructor`, `default%00`, a repeated key) on a
    variant's page is dropped with a notice, and the page shows its own checkpoint, not the
    recipe's default; the URL it writes back reloads to the same command."""
    model_id, hf_id, variant = NVFP4_PAGE
    recipe, base = builder_recipe(hf_id), {"variant": variant}
    own = _argv(_page(recipe, base, []))
    assert own[2] == model_id
    for query in ([("variant", "bogus")], [("variant", "constructor")],
                  [("variant", "default\x00")], [("variant", "fp8"), ("variant", "default")],
                  [("variant", "__proto__")]):
        state = _page(recipe, base, query)
        assert _argv(state) == own, query
        notice = str(state["notice"])
        assert notice.startswith("Ignored from the URL, showing this page's defaults instead: "
                                 "variant="), notice
        assert _argv(_reload(recipe, base, state)) == own


def test_another_variant_on_a_variant_page_is_honoured_and_kept() -> None:
    model_id, hf_id, variant = NVFP4_PAGE
    recipe, base = builder_recipe(hf_id), {"variant": variant}
    state = _page(recipe, base, [("variant", "fp8")])
    assert state["notice"] == ""
    assert state["explicit"] == {"variant": "fp8"}
    assert _argv(state) == _argv(page_state(builder_catalog(), recipe, {"variant": "fp8"}))
    assert _argv(_reload(recipe, base, state)) == _argv(state)
    # A key that cannot be honoured with the page's variant is dropped, never the variant.
    state = _page(recipe, base, [("hardware", "h100")])
    assert _argv(state)[2] == model_id
    assert "hardware=h100" in str(state["notice"])
    assert "variant=" not in str(state["notice"])  # the page's own variant is never dropped


def test_a_notice_is_bounded() -> None:
    """Issue 24.6: at most five dropped keys are named, then how many more; each value is
    quoted at most 60 characters, whatever its characters."""
    recipe = builder_recipe(V41)
    query = [(f"k{i}", "v" * 100_000) for i in range(500)]
    query += [("hardware", "\x00" * 50_000), ("variant", "'" * 50_000)]
    state = page_state(builder_catalog(), recipe, query)
    notice = str(state["notice"])
    assert len(notice) < 2_000, len(notice)
    assert notice.endswith("; and 497 more"), notice[-100:]
    assert "v" * 61 not in notice
    # A character that does not print (HTML cannot even hold a NUL) is shown as its escape.
    state = page_state(builder_catalog(), recipe, [("variant", "default\x00\u202e")])
    assert "variant=default\\x00\\u202e (unknown value 'default\\x00\\u202e'" in str(
        state["notice"])


def test_the_compare_box_on_a_variant_page_compares_with_its_checkpoint() -> None:
    """Issue 24.3: pasting a variant page's own command into its compare box finds nothing
    different (it used to compare with the recipe's default checkpoint)."""
    from builder.diff.compare import compare_state

    _, hf_id, variant = NVFP4_PAGE
    recipe, base = builder_recipe(hf_id), {"variant": variant}
    own = _page(recipe, base, [])["result"]
    state = compare_state(builder_catalog(), recipe, [], own["copy_text"],  # type: ignore[index]
                          base=base)
    assert state["error"] == ""
    assert state["summary"] == "same engine settings as the recipe", state["summary"]
QWEN = "Qwen/Qwen3-8B"
FIRST_SCREEN = (QWEN, V41, "meta-llama/Llama-3.1-8B-Instruct")


def test_a_row_shows_three_unavailable_pills_and_lists_the_rest_with_their_reasons() -> None:
    """Issue 25.3: an 8B dense model offers one strategy of the catalogue's; the row shows it
    and three unavailable ones, and one disclosure lists the others, each with the reason the
    builder gives."""
    catalog = builder_catalog()
    state = page_state(catalog, builder_recipe(QWEN), {})
    reasons = state["result"]["unavailable"]["strategy"]
    assert len(catalog["strategies"]) >= 12
    assert len(reasons) == len(catalog["strategies"]) - 1
    row = parse(str(state["html"])).find("div", "rb-row", data_row="strategy")
    disabled = row.find_all("button", "rb-pill", aria_disabled="true")
    assert len(disabled) == 3
    more = row.find("details", "rb-more")
    assert more.find("summary").text == f"{len(reasons) - 3} more, unavailable"
    listed = {item.attrs["data-value"]: item for item in more.find_all("li", "rb-more-item")}
    shown = [pill.attrs["data-value"] for pill in disabled]
    assert sorted(shown + list(listed)) == sorted(reasons)
    for value, item in listed.items():
        assert item.find("span", "rb-more-why").text == reasons[value]
    for pill in disabled:  # the shown ones keep their reason under the row
        why = row.find("p", "rb-why", id=pill.attrs["aria-describedby"])
        assert why.text == reasons[pill.attrs["data-value"]]


def test_the_output_comes_before_the_rows() -> None:
    """Issue 25.2: the command and its Copy button come first in the markup, so the first
    paint (no script needed) has them above the pill rows."""
    html = str(page_state(builder_catalog(), builder_recipe(V41), {})["html"])
    widget = parse(html).find("div", "rb-widget")
    order = [child.attrs.get("class") for child in widget.children if not isinstance(child, str)]
    assert order == ["rb-output", "rb-rows", "rb-bar"]
    assert html.index('class="rb-copy"') < html.index('class="rb-rows"')


def _joined(parts: list[str], pieces: list[int | list[int]]) -> str:
    return "".join(part for item in pieces for part in (
        parts[item[0]:item[1] + 1] if isinstance(item, list) else [parts[item]]))


def test_the_states_one_click_away_are_what_python_answers() -> None:
    """Issue 25.6: `neighbours` holds, for every click the widget offers (and each pressed
    pill), exactly the page_state Python would answer for the query the page sends, pieces
    joined: the page shows them before its Python has started, deciding nothing."""
    catalog = builder_catalog()
    for hf_id in FIRST_SCREEN:
        recipe = builder_recipe(hf_id)
        builder = Builder(catalog, recipe)
        starts: list[dict[str, str]] = [{}]
        starts += [{"variant": v} for v in recipe["variants"] if v != "default"]
        for start in starts:
            state = page_state(catalog, recipe, start, builder)
            data = neighbours(catalog, recipe, state["explicit"], state["result"], builder)
            offered = {(key, value) for key, value in clicks(builder, state["result"])}
            queries = {json.dumps(click_query(state["explicit"], key, value),
                                  separators=(",", ":")) for key, value in offered}
            assert queries <= set(data["states"]), (hf_id, start)
            for query, known in data["states"].items():
                want = page_state(catalog, recipe, json.loads(query))
                assert known["explicit"] == want["explicit"] and not want["notice"], query
                assert _joined(data["parts"], known["html"]) == want["html"], (hf_id, query)


def test_a_shared_row_cache_changes_no_byte() -> None:
    """Rows, pills and 'why' lines made once per cache (the build's and the worker's) give
    the markup a fresh rendering gives, over every recipe's clicks."""
    catalog = builder_catalog()
    for hf_id in hf_ids():
        recipe, kept = builder_recipe(hf_id), kept_builder(hf_id)
        cache: dict = {}
        built = one_value_builds(hf_id)
        for key, value in [("", ""), *listed_clicks(hf_id)]:
            query = {key: value} if key else {}
            assert not key or built[key, value], (hf_id, query)
            after = kept.build(query)
            assert (render_widget(catalog, recipe, after, query, "", cache)
                    == render_widget(catalog, recipe, after, query)), (hf_id, query)
