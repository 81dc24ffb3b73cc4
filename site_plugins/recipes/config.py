"""The plugin's options (`plugins: - recipes: ...` in mkdocs.yml), nothing else."""

from __future__ import annotations

from mkdocs.config import config_options as c
from mkdocs.config.base import Config

__all__ = ["RecipesConfig"]


class RecipesConfig(Config):
    recipes_dir = c.Type(str, default="recipes")
    """The recipe tree (hardware.yaml, strategies/, models/), relative to mkdocs.yml."""
    builder_dir = c.Type(str, default="builder")
    """The stdlib builder package; its modules are shipped to the page for Pyodide."""
    pyodide_dir = c.Type(str, default="node_modules/pyodide")
    """Pyodide's runtime (the npm package `pyodide`, installed by `make install`)."""
    workers = c.Type(int, default=0)
    """Processes that render recipes in parallel; 0 means one per CPU, 1 renders in-process."""
    browse_marker = c.Type(str, default="<!-- recipes:browse -->")
    """Where, in the site's home page, the model cards and filters go."""
