"""Every recipe × variant × hardware × strategy: it renders valid vLLM commands, or it is
unavailable with a reason. Rendered with default features, with every feature on, and with
every mode of every feature."""

from __future__ import annotations

import itertools
import shlex
from collections.abc import Iterator

import pytest

from builder import SelectionError, build, resolve
from tests.recipes_data import builder_catalog, builder_recipe, grid, hf_ids
from vllm_recipes.vllm_flags import check_serve_argv


def _feature_queries(recipe: dict) -> Iterator[dict[str, str]]:
    features = recipe.get("features", {})
    yield {}
    groups = recipe.get("exclusive_features", [])
    excluded = {f for group in groups for f in group}
    free = {fid: "on" for fid in features if fid not in excluded}
    for members in itertools.product(*groups) if groups else [()]:
        on = set(members)
        query = dict(free)
        for group in groups:
            for fid in group:
                query[fid] = "on" if fid in on and all(
                    m == fid or m not in on for m in group) else "off"
        yield query
    for fid, feature in features.items():
        for mode in feature.get("modes") or {}:
            yield {fid: mode}


def _check(result: dict) -> list[str]:
    problems = []
    for command in result["commands"]:
        argv = command["argv"]
        if argv[:2] == ["vllm", "serve"]:
            problems += [f"{command['label']}: {p}" for p in check_serve_argv(argv)]
        joined = command["text"].replace("\\\n", "")
        if shlex.split(joined) != argv:
            problems.append(f"{command['label']}: text does not round-trip")
        docker_text = command["docker_text"]
        if docker_text is not None and (
            shlex.split(docker_text.replace("\\\n", "")) != command["docker_argv"]
        ):
            problems.append(f"{command['label']}: docker text does not round-trip")
    return problems


@pytest.mark.parametrize("hf_id", hf_ids())
def test_every_combination_renders_or_says_why(hf_id: str) -> None:
    catalog = builder_catalog()
    recipe = builder_recipe(hf_id)
    rendered = 0
    problems: list[str] = []
    for _, variant, hardware, strategy in (g for g in grid() if g[0] == hf_id):
        base = {"variant": variant, "hardware": hardware, "strategy": strategy}
        try:
            resolve(catalog, recipe, base)
        except SelectionError as error:
            assert error.reason.strip(), f"{base}: empty reason"
            continue
        for features in _feature_queries(recipe):
            query = {**base, **features}
            try:
                result = build(catalog, recipe, query)
            except SelectionError as error:
                # A feature that cannot be on here must say why.
                assert error.key in features and error.reason.strip(), (query, error)
                continue
            rendered += 1
            problems += [f"{query}: {p}" for p in _check(result)]
            for key, reasons in result["unavailable"].items():
                for value, reason in reasons.items():
                    assert reason.strip(), f"{query}: {key}={value} unavailable without reason"
    assert rendered > 0
    assert not problems, "\n".join(problems[:20])
