"""vLLM Recipes command builder: a recipe and a selection in, commands out.

Pure standard library, no I/O and no globals: the same files run in CPython (site build, CLI,
tests) and in the browser under Pyodide. Recipe and catalog data arrive as plain dicts, exactly
as the site's JSON endpoints publish them.
"""

from .commands.build import build, render
from .commands.selection import choices, parse_query, resolve, unavailable
from .errors import SelectionError

__all__ = ["SelectionError", "build", "choices", "parse_query", "render", "resolve", "unavailable"]
