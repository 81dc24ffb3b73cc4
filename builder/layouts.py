"""Which function renders the commands of each strategy layout."""

from __future__ import annotations

from collections.abc import Callable

from .compose import Context
from .single_node import render_single_node
from .types import Command

__all__ = ["LAYOUTS", "layout_key"]

# Keyed by "<deploy_type>:<layout>" of a strategy.
LAYOUTS: dict[str, Callable[[Context], list[Command]]] = {
    "single_node:tp": render_single_node,
    "single_node:tep": render_single_node,
    "single_node:dep": render_single_node,
}


def layout_key(strategy: dict[str, str]) -> str:
    return f"{strategy['deploy_type']}:{strategy['layout']}"
