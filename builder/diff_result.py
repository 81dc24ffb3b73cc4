"""A command diff's result: its shapes (`ValueDiff`, `CommandDiff`, the `STATUSES` of an
entry) and its one-line summary (`summarize`). `builder.diff` makes them and `builder.views`
shows them; both import them from here, so the views need nothing of `builder.diff`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

__all__ = ["STATUSES", "CommandDiff", "ValueDiff", "summarize"]

STATUSES = ("changed", "added", "removed", "recipe_changed", "equal")


class ValueDiff(TypedDict):
    key: str
    """Identity: "--tensor-parallel-size", "--speculative-config.method", "VLLM_X", "model"."""
    name: str
    """As written: the recipe's spelling when it has the option, else the command's."""
    status: str
    """"equal", "changed", "added" (only in the command), "removed" (only in the recipe), or
    "recipe_changed": a recipe setting the command says it kept, which today's recipe sets
    otherwise or not at all (see `mark_kept`)."""
    kind: str
    """"engine", "deployment" (host, port, names, logging, NUMA, devices) or "dynamo"."""
    recipe: str | None
    """The recipe's value as text ("4", "on", JSON); None when it does not set it."""
    command: str | None
    keys: list[ValueDiff]
    """For JSON objects on both sides: one entry per key (dotted for nested objects)."""


class CommandDiff(TypedDict):
    model: ValueDiff
    image: ValueDiff | None
    flags: list[ValueDiff]
    """Recipe order, then the command's own flags in its order."""
    env: list[ValueDiff]
    counts: dict[str, int]
    """changed / added / removed / recipe_changed / equal over engine flags and environment,
    and `deployment`: deployment-specific entries that differ."""
    distance: float
    summary: str


def summarize(counts: Mapping[str, int], other_model: bool = False,
              theirs: str = "the command") -> str:
    """One line: "another model, 1 changed, 2 only in the recipe, 3 only in the command,
    1 changed in the recipe since (+4 deployment-specific)"."""
    parts = ["another model"] if other_model else []
    for status, words in (("changed", "changed"), ("removed", "only in the recipe"),
                          ("added", f"only in {theirs}"),
                          ("recipe_changed", "changed in the recipe since")):
        if counts.get(status):
            parts.append(f"{counts[status]} {words}")
    text = ", ".join(parts) if parts else "same engine settings as the recipe"
    if counts.get("deployment"):
        text += f" (+{counts['deployment']} deployment-specific)"
    return text
