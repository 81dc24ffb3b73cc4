"""From a query (the page's URL keys) to a complete selection, and why choices are unavailable:
the public face of the resolution, whose parts are

    query.py        what a selection can hold (`choices`), a query read into explicit choices
    reasons.py      why one choice cannot be picked, one function per kind of choice
    stages.py       the stages, in order, that default what is not explicit
    resolver.py     `Resolver`: runs the stages and keeps what does not depend on the query
    unavailable.py  every choice that cannot be picked next to the explicit ones, with why

Explicit choices are kept or refused; everything not given is defaulted to the first choice
that works with them, stage by stage (see `stages.py`). Hardware and variants follow
`offering.py`; strategies are the recipe's `strategies` list in order of preference (see
`recipe_strategies`), each refused where `strategy_reason` says why; node counts follow the
deploy type (`deploy_types.py`). A choice is *unavailable* when adding it to the explicit
choices cannot be resolved; the reason is the sentence the resolution fails with.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..types import Data
from . import unavailable as _unavailable
from .query import (
    MAX_NODES,
    canonical_query,
    choices,
    fits_one_node,
    node_memory_gb,
    node_range,
    offered_hardware,
    parse_query,
    recipe_strategies,
    renamed_variants,
)
from .reasons import (
    connector_reason,
    default_frontend,
    feature_reason,
    frontend_reason,
    mode_reason,
    nodes_reason,
    opt_in,
    strategy_reason,
)
from .resolver import Resolver

__all__ = ["MAX_NODES", "Resolver", "canonical_query", "choices", "connector_reason",
           "default_frontend", "feature_reason", "fits_one_node", "frontend_reason",
           "mode_reason", "node_memory_gb", "node_range", "nodes_reason", "offered_hardware",
           "opt_in", "parse_query", "recipe_strategies", "renamed_variants", "resolve",
           "strategy_reason", "unavailable", "unavailable_with"]


def resolve(
    catalog: Data, recipe: Data, explicit: Mapping[str, str], focus: str | None = None
) -> dict[str, str]:
    """The complete selection for `explicit` (already parsed), or SelectionError.

    `focus` names the key being tried, so a conflict between two explicit choices is
    blamed on it (that is the pill that gets disabled).
    """
    return Resolver(catalog, recipe).run(explicit, focus)


def unavailable(
    catalog: Data, recipe: Data, explicit: Mapping[str, str], selection: Mapping[str, str]
) -> dict[str, dict[str, str]]:
    """For every key, the values that cannot be picked now, each with its reason."""
    return _unavailable.unavailable(Resolver(catalog, recipe), explicit, selection)


def unavailable_with(resolver: Resolver, explicit: Mapping[str, str],
                     selection: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """`unavailable`, with a resolver the caller keeps for many queries of one recipe."""
    return _unavailable.unavailable(resolver, explicit, selection)
