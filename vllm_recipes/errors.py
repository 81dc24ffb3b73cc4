"""Errors of the recipe data."""

from __future__ import annotations

__all__ = ["InvalidRecipe"]


class InvalidRecipe(ValueError):
    """Recipe data that does not validate; the message has one `path: field: message` a line."""
