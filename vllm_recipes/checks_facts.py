"""Which variants a recipe's memory facts (`recipes/facts/<org>/<repo>.yaml`) describe.

The facts are the default checkpoint's. A variant serving another model id is the same
architecture in another precision, or another model; the names decide when they can
(`other_checkpoint`):

- the parameter-size tokens of the two names (`21B`, `A3B`, `0.6B`, `E4B`, `8x7B`) differ:
  another model size. The facts must give the variant its own (`variants`) or say why not
  (`not_covered`); declaring it `same_architecture` is refused;
- the tokens are equal, or the names are equal once trailing precision words (`-FP8`,
  `-NVFP4`, `-FP8-dynamic`) are dropped: the default's architecture;
- otherwise (no size in the names, another name: a dated refresh, a fine-tune, a task
  variant) the names cannot tell: the facts file must declare it (`same_architecture`,
  `variants` or `not_covered`).

Every variant id the facts name must be one of the recipe's.
"""

from __future__ import annotations

import re

from .schema import PRECISIONS, ModelFacts, Recipe
from .yaml_source import Located, YamlFile

__all__ = ["PRECISION_WORDS", "SIZE_TOKEN", "check_facts_coverage", "other_checkpoint",
           "size_tokens"]

SIZE_TOKEN = re.compile(
    r"(?<![a-z0-9.])(?:\d+x)?[ae]?\d+(?:\.\d+)?[bmt](?![a-z0-9])", re.IGNORECASE)
"""A parameter count in a model name: `8B`, `0.6B`, `A3B` (active), `E4B` (effective),
`8x7B`, `350M`, `1T`; a whole dash-separated word (not `4bit`, not `v3`)."""
PRECISION_WORDS = frozenset({*PRECISIONS, "dynamic", "block"})
"""Words a requantized checkpoint's name appends to its model's (`-FP8-dynamic`)."""


def size_tokens(model_id: str) -> tuple[str, ...]:
    """The parameter-size tokens of a model id's name, upper-cased, in order."""
    return tuple(t.upper() for t in SIZE_TOKEN.findall(model_id.split("/")[-1]))


def _stem(model_id: str) -> str:
    words = model_id.split("/")[-1].lower().split("-")
    while len(words) > 1 and words[-1] in PRECISION_WORDS:
        words.pop()
    return "-".join(words)


def other_checkpoint(default_id: str, model_id: str) -> bool | None:
    """True: `model_id` is another model size than `default_id`; False: the same
    architecture; None: the names cannot tell (see the module docstring)."""
    ours, theirs = size_tokens(default_id), size_tokens(model_id)
    if ours and theirs:
        return ours != theirs
    return False if _stem(default_id) == _stem(model_id) else None


def check_facts_coverage(recipe: Recipe, facts: ModelFacts, source: YamlFile,
                         facts_source: YamlFile) -> list[Located]:
    """Problems with which variants `facts` describe: at the recipe's `model_id` of a variant
    the facts leave undecided, at the facts file's key naming an unknown variant or
    contradicting the names."""
    problems: list[Located] = []
    known = ", ".join(recipe.variants)
    named: list[tuple[tuple[str | int, ...], str]] = [
        *((("weights_gb", v), v) for v in facts.weights_gb),
        *((("variants", v), v) for v in facts.variants),
        *((("not_covered", v), v) for v in facts.not_covered),
        *((("same_architecture", i), v) for i, v in enumerate(facts.same_architecture))]
    for loc, vid in named:
        if vid not in recipe.variants:
            problems.append(facts_source.problem(
                loc, f"no variant {vid!r} in the recipe; variants: {known}"))
    default_id = recipe.model.model_id
    facts_file = facts_source.display
    for vid, variant in recipe.variants.items():
        model_id = variant.model_id or default_id
        other = other_checkpoint(default_id, model_id)
        covered = vid in facts.variants or vid in facts.not_covered
        if vid in facts.same_architecture:
            if other is not None:
                index = facts.same_architecture.index(vid)
                problems.append(facts_source.problem(("same_architecture", index), (
                    f"{model_id} is {'another model size than' if other else 'the same as'} "
                    f"{default_id} by the size in their names "
                    f"({'/'.join(size_tokens(model_id)) or 'none'} against "
                    f"{'/'.join(size_tokens(default_id)) or 'none'})"
                    + ("" if other else "; drop the declaration"))))
            continue
        if covered or other is False:
            continue
        why = (f"{model_id} is another model size than {default_id} "
               f"({'/'.join(size_tokens(model_id))} against "
               f"{'/'.join(size_tokens(default_id))})" if other else
               f"the names do not tell whether {model_id} has {default_id}'s architecture")
        fix = ("give its facts under `variants:` or say why there are none under "
               f"`not_covered:` in {facts_file}" if other else
               f"declare it in {facts_file}: `same_architecture` (with the source), its own "
               "facts under `variants:`, or `not_covered:` with why")
        problems.append(source.problem(("variants", vid, "model_id"), (
            f"{why}, and the memory facts describe the default checkpoint: {fix}")))
    return problems
