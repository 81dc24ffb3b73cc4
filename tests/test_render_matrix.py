"""Every recipe × variant × hardware × strategy (× task, for vLLM-Omni recipes): it renders
valid vLLM commands, or it is unavailable with a reason. Rendered with default features, with
every feature on, and with every mode of every feature. A vLLM-Omni command (`--omni`) is
checked against vLLM's options plus the listed vLLM-Omni ones."""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import pytest

from builder import SelectionError
from tests.recipes_data import builder_recipe, grid_of, hf_ids, kept_builder
from tests.serve_forms import form_key, forms
from vllm_recipes.vllm_flags import check_serve_argv, check_tokens, lookup


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


def _task_queries(recipe: dict) -> list[dict[str, str]]:
    """Every task of a vLLM-Omni recipe (one empty query for the others)."""
    return [{"task": task} for task in (recipe.get("omni") or {}).get("tasks", {})] or [{}]


def _omni_serve_problems(argv: list[str]) -> list[str]:
    """check_serve_argv for `vllm serve MODEL ... --omni`: vLLM-Omni's options are valid too."""
    problems = [problem for _, problem in check_tokens(argv[3:], omni=True)]
    seen: set[str] = set()
    for token in argv[3:]:
        spec, key = lookup(token, omni=True) if token.startswith("-") else (None, None)
        if spec is not None:
            identity = spec["dest"] + ("." + key if key else "")
            if identity in seen:
                problems.append(f"{token.split('=', 1)[0]}: given twice")
            seen.add(identity)
    return problems


@lru_cache(maxsize=8192)
def _split(text: str) -> tuple[str, ...]:
    """`shlex.split` of a command's text without its line continuations, once per text (the
    renderings of one recipe repeat most of their commands, and shlex was most of this test's
    time; the cache holds about a recipe's worth)."""
    return tuple(shlex.split(text.replace("\\\n", "")))


@lru_cache(maxsize=8192)
def _serve_problems(argv: tuple[str, ...]) -> tuple[str, ...]:
    """What is wrong with a `vllm serve` argv, once per argv."""
    listed = list(argv)
    return tuple(_omni_serve_problems(listed) if "--omni" in argv else check_serve_argv(listed))


def _check(result: dict) -> list[str]:
    problems = []
    for command in result["commands"]:
        argv = command["argv"]
        if argv[:2] == ["vllm", "serve"]:
            problems += [f"{command['label']}: {p}" for p in _serve_problems(tuple(argv))]
        if _split(command["text"]) != tuple(argv):
            problems.append(f"{command['label']}: text does not round-trip")
        docker_text = command["docker_text"]
        if docker_text is not None and _split(docker_text) != tuple(command["docker_argv"]):
            problems.append(f"{command['label']}: docker text does not round-trip")
    # The summary says a device count once ("8× RTX PRO 6000", not "8× RTX PRO 6000 8×").
    if re.search(r"\d× [^·(]*\d×", result["summary"]):
        problems.append(f"summary repeats a count: {result['summary']}")
    return problems


FormKey = tuple[str, tuple[str, ...], str]
ServeForm = tuple[FormKey, str, str]


@dataclass(frozen=True)
class Walk:
    """One recipe's render matrix, rendered once per test process: what the test below
    asserts, and the distinct `vllm serve` commands vLLM's own parser is given for it
    (tests/vllm_parser/test_published_commands.py walked the same grid again, one fresh
    resolution per combination). Immutable: tuples and strings only."""

    rendered: int
    """How many queries rendered."""
    unexplained: tuple[str, ...]
    """Refusals (of a combination, of a feature in it) and unavailable values without a
    reason, each as the failure it is."""
    problems: tuple[str, ...]
    """What `_check` found wrong with the renderings."""
    serve_forms: tuple[ServeForm, ...]
    """(form_key, where, install method) of every distinct `vllm serve` form
    (tests/serve_forms.py), where first rendered, in rendering order."""


_walked: dict[str, Walk] = {}


def walk(hf_id: str) -> Walk:
    """`_walk(hf_id)`, once per test process."""
    found = _walked.get(hf_id)
    if found is None:
        found = _walked[hf_id] = _walk(hf_id)
    return found


def serve_forms(hf_id: str) -> tuple[ServeForm, ...]:
    """`walk(hf_id).serve_forms`: the walk's when this process has walked the recipe, else
    the same combinations rendered by the kept `Builder` without what only the test below
    reads (the unavailable choices, the render checks); the same forms either way."""
    if hf_id in _walked:
        return _walked[hf_id].serve_forms
    recipe = builder_recipe(hf_id)
    found: list[ServeForm] = []
    seen: set[FormKey] = set()
    for query, _, outcome in _grid(hf_id, unavailable=False):
        if not isinstance(outcome, SelectionError):
            _add_forms(recipe, query, outcome, seen, found)
    return tuple(found)


def _combinations(hf_id: str, recipe: dict) -> Iterator[dict[str, str]]:
    for variant, hardware, strategy in grid_of(hf_id):
        for task in _task_queries(recipe):
            yield {"variant": variant, "hardware": hardware, "strategy": strategy, **task}


Outcome = dict | SelectionError


def _grid(hf_id: str, *, unavailable: bool = True
          ) -> Iterator[tuple[dict[str, str], dict[str, str] | None, Outcome]]:
    """(query, its feature part, its result or refusal) of every recipe × variant × hardware ×
    strategy (× task) combination of `hf_id`, resolved by the recipe's kept `Builder`
    (`resolver.run` is a fresh `resolve`; a refused combination comes with None for its
    feature part), and of every feature query of each that resolves, rendered by it (a fresh
    `build`'s answers, byte for byte: tests/test_unavailable_agrees.py)."""
    recipe, kept = builder_recipe(hf_id), kept_builder(hf_id)
    for base in _combinations(hf_id, recipe):
        try:
            kept.resolver.run(base)
        except SelectionError as error:
            yield base, None, error
            continue
        for features in _feature_queries(recipe):
            query = {**base, **features}
            try:
                yield query, features, kept.build(query, unavailable=unavailable)
            except SelectionError as error:
                yield query, features, error


def _add_forms(recipe: dict, query: dict[str, str], result: dict, seen: set[FormKey],
               found: list[ServeForm]) -> None:
    """The `vllm serve` forms of `result` not seen yet, with where they were first rendered."""
    for method, argv, files in forms(recipe, result):
        key = form_key(argv, files)
        if key not in seen:
            seen.add(key)
            found.append((key, f"selection {query}", method))


def _walk(hf_id: str) -> Walk:
    """The render matrix of `hf_id` (`_grid`): what it rendered, what it refused without
    saying why, what `_check` finds wrong, its distinct `vllm serve` forms."""
    recipe = builder_recipe(hf_id)
    rendered = 0
    unexplained: list[str] = []
    problems: list[str] = []
    seen: set[FormKey] = set()
    found: list[ServeForm] = []
    for query, features, outcome in _grid(hf_id):
        if isinstance(outcome, SelectionError):
            if features is None:
                if not outcome.reason.strip():
                    unexplained.append(f"{query}: empty reason")
            elif not (outcome.key in features and outcome.reason.strip()):
                # A feature that cannot be on here must say why.
                unexplained.append(f"{query}: {outcome!r}")
            continue
        rendered += 1
        problems += [f"{query}: {p}" for p in _check(outcome)]
        for key, reasons in outcome["unavailable"].items():
            for value, reason in reasons.items():
                if not reason.strip():
                    unexplained.append(f"{query}: {key}={value} unavailable without reason")
        _add_forms(recipe, query, outcome, seen, found)
    return Walk(rendered, tuple(unexplained), tuple(problems), tuple(found))


@pytest.mark.parametrize("hf_id", hf_ids())
def test_every_combination_renders_or_says_why(hf_id: str) -> None:
    found = walk(hf_id)
    assert not found.unexplained, "\n".join(found.unexplained[:20])
    assert found.rendered > 0
    assert not found.problems, "\n".join(found.problems[:20])
