"""Errors of the recipe data."""

from __future__ import annotations

__all__ = ["InvalidRecipe", "UsageError"]


class InvalidRecipe(ValueError):
    """Recipe data that does not validate; the message has one `path: field: message` a line."""


class UsageError(Exception):
    """A request the command line refuses: one line, exit status 2."""
