"""Which selections the site publishes, and the builder's result for each.

A *tree* is a model id under which JSON files live. Every recipe has one, at its own id,
holding the default variant's renderings (queries leave the variant out, as the page does):

    T.json                           the tree's query
    T/hw/<hw>.json                   + hardware, for every hardware where it builds
    T/hw/<hw>/strategies/<s>.json    + hardware and strategy, for every other strategy there
    T/strategies/<s>.json            + strategy (on the default hardware)

No file is a copy of another: where two queries give the same selection (a strategy that is
the hardware's default; a strategy on the default hardware), the second file *points* at the
first (`same_as`). Each variant that declares its own model id (other than the recipe's) gets a
tree with its document and its per-hardware files, every query pinned to that variant; the
default variant's own model id is a pointer to the recipe's document.

"Available" is what the builder says: ``Builder.offered_strategies``, the strategies
``build`` does not list as unavailable. Every result comes from ``builder.Builder.build``, the
function the CLI calls (without the unavailable pills, which no JSON file shows, except for
each tree's document).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from builder.commands.build import Builder
from builder.errors import SelectionError
from builder.types import Result

__all__ = ["Rendering", "Tree", "render_recipe", "trees_of"]

Data = dict[str, Any]


@dataclass(frozen=True)
class Rendering:
    """One published selection: its query (URL keys) and the builder's result, or a pointer
    to the rendering that has the same selection."""

    uri: str
    """Where its JSON file goes, relative to the site root (no leading slash)."""
    query: dict[str, str]
    result: Result
    same_as: Rendering | None = None
    strategies: tuple[str, ...] = ()
    """The strategies offered next to its selection (its own included), catalog order."""

    @property
    def hardware(self) -> str:
        return self.result["selection"]["hardware"]

    @property
    def variant(self) -> str:
        return self.result["selection"]["variant"]

    @property
    def canonical(self) -> Rendering:
        return self.same_as or self


@dataclass
class Tree:
    model_id: str
    """The model id the tree's files are named after."""
    variant: str | None
    """The variant every query is pinned to; None for the recipe's own tree."""
    doc: Rendering
    hardware: dict[str, Rendering] = field(default_factory=dict)
    strategies: dict[str, Rendering] = field(default_factory=dict)
    hw_strategies: dict[tuple[str, str], Rendering] = field(default_factory=dict)

    def __iter__(self) -> Iterator[Rendering]:
        yield self.doc
        yield from self.hardware.values()
        yield from self.strategies.values()
        yield from self.hw_strategies.values()

    def with_strategy(self, hw_id: str, sid: str) -> Rendering | None:
        """The rendering of `sid` on `hw_id` (the hardware's own file for its default)."""
        rendering = self.hardware.get(hw_id)
        if rendering is not None and rendering.result["selection"]["strategy"] == sid:
            return rendering
        found = self.hw_strategies.get((hw_id, sid))
        return found.canonical if found else None


@dataclass
class RecipeRenderings:
    hf_id: str
    trees: dict[str, Tree]
    """By variant id: "default" is the recipe's own tree, then one per variant model id."""
    aliases: dict[str, Rendering]
    """Documents at a variant's model id that point into another tree (the default variant)."""

    def tree_for(self, variant: str) -> Tree:
        """The tree whose hardware files a rendering of `variant` links to."""
        return self.trees.get(variant, self.trees["default"])


def trees_of(hf_id: str, recipe: Data) -> dict[str, str]:
    """Variant id → model id of every variant with its own tree (the recipe's is "default")."""
    trees = {"default": hf_id}
    for variant_id, variant in recipe["variants"].items():
        model_id = variant.get("model_id")
        if variant_id != "default" and model_id and model_id != hf_id:
            trees[variant_id] = model_id
    return trees


def _try(builder: Builder, query: Mapping[str, str], *, unavailable: bool = False
         ) -> Result | None:
    try:
        return builder.build(query, unavailable=unavailable)
    except SelectionError:
        return None


def _rendering(builder: Builder, uri: str, query: dict[str, str], result: Result,
               same_as: Rendering | None = None) -> Rendering:
    return Rendering(uri, query, result, same_as,
                     tuple(builder.offered_strategies(result["selection"])))


def _tree(builder: Builder, model_id: str, variant: str | None) -> Tree | None:
    base = {"variant": variant} if variant else {}
    # The recipe's own tree must build: its root query is what the model page shows.
    result = (_try(builder, base, unavailable=True) if variant
              else builder.build(base))
    if result is None:
        return None
    tree = Tree(model_id, variant, _rendering(builder, f"{model_id}.json", base, result))
    for hw_id in builder.resolver.offered:  # (a query of any other hardware is refused)
        query = {**base, "hardware": hw_id}
        hw_result = _try(builder, query)
        if hw_result is None:
            continue
        hw = tree.hardware[hw_id] = _rendering(builder, f"{model_id}/hw/{hw_id}.json", query,
                                               hw_result)
        if variant:
            continue  # a variant's tree: its document and one file per hardware
        for sid in hw.strategies:
            pair = {**query, "strategy": sid}
            uri = f"{model_id}/hw/{hw_id}/strategies/{sid}.json"
            if sid == hw_result["selection"]["strategy"]:
                tree.hw_strategies[hw_id, sid] = _rendering(builder, uri, pair, hw_result,
                                                            same_as=hw)
            else:
                tree.hw_strategies[hw_id, sid] = _rendering(
                    builder, uri, pair, builder.build(pair, unavailable=False))
    if variant:
        return tree
    default_hw = result["selection"]["hardware"]
    for sid in tree.doc.strategies:
        target = tree.with_strategy(default_hw, sid)
        if target is not None:
            tree.strategies[sid] = _rendering(builder, f"{model_id}/strategies/{sid}.json",
                                              {**base, "strategy": sid}, target.result,
                                              same_as=target)
    return tree


def render_recipe(catalog: Data, recipe: Data, builder: Builder | None = None
                  ) -> RecipeRenderings:
    """Every rendering of one recipe (see the module docstring); `builder`: a `Builder` of
    this catalog and recipe to use (and keep using: what it worked out stays on it).

    Raises SelectionError when the recipe's default selection does not build; a variant
    whose own query builds nowhere simply gets no tree (and no `json` link).
    """
    hf_id = recipe["model"]["model_id"]
    builder = builder or Builder(catalog, recipe)
    trees: dict[str, Tree] = {}
    for variant_id, model_id in trees_of(hf_id, recipe).items():
        tree = _tree(builder, model_id, None if variant_id == "default" else variant_id)
        if tree is not None:
            trees[variant_id] = tree
    aliases = {}
    default_id = recipe["variants"]["default"].get("model_id")
    if default_id and default_id != hf_id:
        doc = trees["default"].doc
        aliases["default"] = Rendering(f"{default_id}.json", {"variant": "default"}, doc.result,
                                       same_as=doc, strategies=doc.strategies)
    return RecipeRenderings(hf_id, trees, aliases)
