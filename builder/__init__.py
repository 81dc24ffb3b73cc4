"""vLLM Recipes command builder: a recipe and a selection in, commands out.

Pure standard library, no I/O and no globals: the same files run in CPython (site build, CLI,
tests) and in the browser under Pyodide. Recipe and catalog data arrive as plain dicts, exactly
as the site's JSON endpoints publish them.

The names below are the builder's public face; the sub-packages (`commands`, `diff`,
`dynamo`, `views`, `deployment`) and the shared top-level modules are public too, module by
module (CONTRIBUTING.md's package map). A name that starts with `_` is the builder's own.
"""

from .commands.build import Builder, build, render
from .commands.selection import choices, parse_query, resolve, unavailable
from .errors import SelectionError
from .views.widget import page_state

__all__ = ["Builder", "SelectionError", "build", "choices", "page_state", "parse_query",
           "render", "resolve", "unavailable"]
