"""The widget's HTML (builder.view): what the page shows besides pills and commands."""

from __future__ import annotations

import html

from hypothesis import given
from hypothesis import strategies as st

from builder import SelectionError, build
from builder.api import Builder
from builder.html_text import escape
from builder.view import clicks, page_state
from tests.htmltree import parse
from tests.recipes_data import builder_catalog, builder_recipe, hf_ids

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
    steps = install.find("ol", "rb-steps").find_all("li")
    assert any("vllm-omni" in step.find("code").text for step in steps)


@given(st.text(alphabet=st.sampled_from("&<>\"'a; é\u00a0#x27") | st.characters()))
def test_escape_is_the_standard_librarys(text: str) -> None:
    assert escape(text) == html.escape(text)


def test_clicks_are_the_choices_that_build() -> None:
    """Every click `clicks` lists builds; every other value but the current one is refused."""
    catalog = builder_catalog()
    for hf_id in hf_ids():
        recipe = builder_recipe(hf_id)
        builder = Builder(catalog, recipe)
        result = builder.build({})
        listed = {(key, value) for key, value in clicks(builder, result)}
        for key, values in builder.choices.items():
            for value in values:
                if value == result["selection"].get(key):
                    assert (key, value) not in listed
                    continue
                try:
                    build(catalog, recipe, {key: value})
                    builds = True
                except SelectionError:
                    builds = False
                assert ((key, value) in listed) == builds, (hf_id, key, value)
