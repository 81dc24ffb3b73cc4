"""The recipe data layer: the pydantic schema, the YAML loader, cross-file checks, their errors,
and the `vllm-recipes` command line.

It sits between the mkdocs plugin (`site_plugins/`, above) and the command builder
(`builder/`, below): it imports `builder` for builder facts, and nothing under it imports it.
"""

from .errors import InvalidRecipe
from .loader import Catalog, load_catalog

__all__ = ["Catalog", "InvalidRecipe", "load_catalog"]
