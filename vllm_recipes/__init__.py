"""The recipe data layer: the pydantic schema, the YAML loader, cross-file checks, their errors,
and the `vllm-recipes` command line.

It sits between the mkdocs plugin (`site_plugins/`, above) and the command builder
(`builder/`, below): it imports `builder` for builder facts, and nothing under it imports it.
"""

from __future__ import annotations

from typing import Any

from .errors import InvalidRecipe

__all__ = ["Catalog", "InvalidRecipe", "load_catalog"]


def __getattr__(name: str) -> Any:
    """`Catalog` and `load_catalog` on first use: the command line answers from its cache
    without importing the schema (see answer_cache.py)."""
    if name in ("Catalog", "load_catalog"):
        from . import loader

        return getattr(loader, name)
    raise AttributeError(name)
