"""Property tests: any selection the builder accepts renders deterministically, round-trips
through the shell, never has two mutually exclusive features on, and its `unavailable` map
tells the truth about what can be picked next."""

from __future__ import annotations

import shlex

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builder import SelectionError, build, choices
from tests.recipes_data import builder_catalog, builder_recipe, hf_ids

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def queries(draw: st.DrawFn) -> tuple[str, dict[str, str]]:
    hf_id = draw(st.sampled_from(hf_ids()))
    options = choices(builder_catalog(), builder_recipe(hf_id))
    keys = draw(st.lists(st.sampled_from(sorted(options)), unique=True, max_size=5))
    return hf_id, {key: draw(st.sampled_from(options[key])) for key in keys}


def _build(hf_id: str, query: dict[str, str]) -> dict | None:
    try:
        return build(builder_catalog(), builder_recipe(hf_id), query)
    except SelectionError as error:
        assert error.reason.strip()
        return None


@SETTINGS
@given(queries())
def test_rendering_is_deterministic_and_round_trips(case: tuple[str, dict[str, str]]) -> None:
    hf_id, query = case
    result = _build(hf_id, query)
    if result is None:
        return
    assert _build(hf_id, dict(query)) == result
    for command in result["commands"]:
        assert shlex.split(command["text"].replace("\\\n", "")) == command["argv"]
        if command["docker_text"]:
            assert shlex.split(command["docker_text"].replace("\\\n", "")) == (
                command["docker_argv"])
    # The completed selection, given back explicitly, is a fixed point.
    again = _build(hf_id, result["selection"])
    assert again is not None
    assert again["selection"] == result["selection"]
    assert again["commands"] == result["commands"]

@SETTINGS
@given(queries())
def test_mutually_exclusive_features_are_never_both_on(case: tuple[str, dict[str, str]]) -> None:
    hf_id, query = case
    result = _build(hf_id, query)
    if result is None:
        return
    for group in builder_recipe(hf_id).get("exclusive_features", []):
        assert sum(result["selection"][f] != "off" for f in group) <= 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries())
def test_unavailable_tells_the_truth(case: tuple[str, dict[str, str]]) -> None:
    hf_id, query = case
    result = _build(hf_id, query)
    if result is None:
        return
    options = choices(builder_catalog(), builder_recipe(hf_id))
    for key, values in options.items():
        for value in values:
            picked = _build(hf_id, {**query, key: value})
            listed = value in result["unavailable"].get(key, {})
            assert listed == (picked is None), (key, value)


@st.composite
def keyed_mappings(draw: st.DrawFn) -> tuple[str, dict[str, int]]:
    """A hardware id and a mapping of hardware keys (some naming it, some not) to values."""
    hardware = builder_catalog()["hardware"]
    hw_id = draw(st.sampled_from(sorted(hardware)))
    keys = sorted({"all", *hardware, *(hw["brand"] for hw in hardware.values()),
                   *(hw["generation"] for hw in hardware.values()),
                   *(f"arch:{hw['compute_arch']}" for hw in hardware.values())})
    chosen = draw(st.lists(st.sampled_from(keys), unique=True, max_size=8))
    return hw_id, {key: index for index, key in enumerate(chosen)}


@settings(max_examples=300, deadline=None)
@given(keyed_mappings())
def test_most_specific_is_the_last_key_ranked_names(case: tuple[str, dict[str, int]]) -> None:
    """`most_specific` (one pass, inlined) is the definition: the last entry `ranked` lists."""
    from builder.hardware_keys import most_specific, ranked

    hw_id, mapping = case
    hw = builder_catalog()["hardware"][hw_id]
    entries = ranked(mapping, hw_id, hw)
    assert most_specific(mapping, hw_id, hw) == (entries[-1][2] if entries else None)
