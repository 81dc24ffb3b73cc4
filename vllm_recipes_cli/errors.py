"""The tool's errors: `UsageError`, its own, and the data layer's `InvalidRecipe`, which the
subcommands report (exit status 1)."""

from __future__ import annotations

from vllm_recipes.errors import InvalidRecipe

__all__ = ["InvalidRecipe", "UsageError"]


class UsageError(Exception):
    """A request the command line refuses: one line, exit status 2."""
