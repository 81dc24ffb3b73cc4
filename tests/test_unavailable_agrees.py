"""The unavailable choices are found in one pass over the options (`selection.unavailable`);
this checks that pass against the definition, option by option, for every recipe: a value is
unavailable exactly when the explicit choices plus that value cannot be resolved, and its
reason is the sentence that resolution fails with.

The selections checked per recipe: none, each variant alone, each offered hardware alone,
the default hardware with each strategy the recipe offers, and the default selection given
back explicitly (every key set, which exercises the later stages: nodes, connector, offload,
features, frontend, install), plus each feature turned off and on in it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from builder import SelectionError, build, choices, resolve
from builder.commands.build import Builder
from builder.commands.selection import Resolver, offered_hardware, recipe_strategies
from tests.recipes_data import builder_catalog, builder_recipe, hf_ids, kept_builder


def _queries(recipe: dict) -> Iterator[dict[str, str]]:
    catalog = builder_catalog()
    yield {}
    for variant in recipe["variants"]:
        yield {"variant": variant}
    for hw_id in offered_hardware(catalog, recipe):
        yield {"hardware": hw_id}
    default = resolve(catalog, recipe, {})
    for sid in recipe_strategies(catalog, recipe):
        yield {"hardware": default["hardware"], "strategy": sid}
    yield default
    for fid in recipe.get("features", {}):
        for value in ("off", "on"):
            yield {**default, fid: value}


def _by_definition(definition: Resolver, options: dict[str, list[str]], explicit: dict[str, str],
                   selection: dict[str, str]) -> dict[str, dict[str, str]]:
    """Every option resolved on its own: `resolve(catalog, recipe, {**explicit, key: value},
    focus=key)`, run by a `Resolver` of the recipe's own that only this definition uses (what
    a fresh `resolve` builds per call; a resolver kept across queries answers as a fresh one
    does, checked below for `build`), not by the pass under test."""
    found: dict[str, dict[str, str]] = {}
    for key, values in options.items():
        for value in values:
            if value == selection.get(key):
                continue
            try:
                definition.run({**explicit, key: value}, focus=key)
            except SelectionError as error:
                found.setdefault(key, {})[value] = error.reason
    return found


class Agreement:
    """One recipe's checks of a query: a fresh `build`'s unavailable choices are the
    definition's (`_by_definition`), and a `Builder` kept across the queries (what the page's
    worker and the site's build keep, with what it has worked out) answers as the fresh
    `build` does, a refusal included. `kept`: the Builder to check (by default a new one of
    the recipe's); the test below checks the one the grid-walking tests share
    (tests/recipes_data.py `kept_builder`), with what they worked out on it."""

    def __init__(self, catalog: dict, recipe: dict, kept: Builder | None = None) -> None:
        self.catalog, self.recipe = catalog, recipe
        self.kept = kept or Builder(catalog, recipe)
        self.definition = Resolver(catalog, recipe)
        self.options = choices(catalog, recipe)

    def check(self, query: dict[str, str]) -> bool:
        """Checks `query`; False when it is refused (the refusals checked equal)."""
        try:
            result = build(self.catalog, self.recipe, query)
        except SelectionError as error:
            with pytest.raises(SelectionError) as again:
                self.kept.build(query)
            assert (again.value.key, again.value.reason) == (error.key, error.reason)
            return False
        expected = _by_definition(self.definition, self.options, query, result["selection"])
        assert result["unavailable"] == expected, query
        assert self.kept.build(query) == result, query
        return True


@pytest.mark.parametrize("hf_id", hf_ids())
def test_unavailable_is_what_resolving_each_option_says(hf_id: str) -> None:
    recipe = builder_recipe(hf_id)
    agreement = Agreement(builder_catalog(), recipe, kept_builder(hf_id))
    assert sum(agreement.check(query) for query in _queries(recipe)) > 0
