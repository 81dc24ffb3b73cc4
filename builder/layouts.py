"""Which function renders the commands of each strategy layout."""

from __future__ import annotations

from collections.abc import Callable

from .compose import Context
from .kv_store import render_kv_store
from .multi_node import render_multi_node
from .pd import render_pd
from .single_node import render_single_node
from .types import Command

__all__ = ["LAYOUTS", "layout_key"]

# Keyed by "<deploy_type>:<layout>" of a strategy.
LAYOUTS: dict[str, Callable[[Context], list[Command]]] = {
    "single_node:tp": render_single_node,
    "single_node:tep": render_single_node,
    "single_node:dep": render_single_node,
    "multi_node:tp": render_multi_node,
    "multi_node:tep": render_multi_node,
    "multi_node:dep": render_multi_node,
    "multi_node:tp_dp": render_multi_node,
    "multi_node:tp_pp": render_multi_node,
    "pd_cluster:pd": render_pd,
    "kv_store:kv_store_centralized": render_kv_store,
    "kv_store:kv_store_distributed": render_kv_store,
}


def layout_key(strategy: dict[str, str]) -> str:
    return f"{strategy['deploy_type']}:{strategy['layout']}"
