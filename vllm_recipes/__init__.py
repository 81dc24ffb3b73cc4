"""The recipe data layer: what the site and the tool both read.

Owns: the pydantic schema (`schema`), the YAML source with line numbers (`yaml_source`), the
loader and its cross-file checks (`loader`, `checks*`, `check_problems`), vLLM's flags and
their types (`vllm_flags`, `flag_types`), published configurations (`configurations`),
NVIDIA Dynamo deployments (`deployments`), validated data (`validated`, and `catalogue`: the
validated tree as plain JSON, which the wheel carries and `make estimates` feeds AIConfigurator's
side, read with the standard library alone), performance estimates (`estimates`), guides (`guide`,
`guide_html`), recipe history (`history`), the JSON API's contract and schemas
(`api_contract`, `api_schemas`) and the errors of recipe data (`errors`).

May import: `builder` only. The mkdocs plugin (`site_plugins/`) and the `vllm-recipes` tool
(`vllm_recipes_cli/`) sit above it and import it; it imports neither.
"""

from __future__ import annotations

from typing import Any

from .errors import InvalidRecipe

__all__ = ["Catalog", "InvalidRecipe", "load_catalog"]


def __getattr__(name: str) -> Any:
    """`Catalog` and `load_catalog` on first use: the command line answers from its cache
    without importing the schema (see vllm_recipes_cli/answer_cache.py)."""
    if name in ("Catalog", "load_catalog"):
        from . import loader

        return getattr(loader, name)
    raise AttributeError(name)
