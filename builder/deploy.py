"""Deploy types, one object each: how a strategy of that type renders, sums itself up, mounts
volumes, counts nodes and refuses hardware. Strategies name their deploy type; nothing else
switches on it.

Node counts: 1 for single-node strategies; for multi-node strategies from the nodes the
variant needs (`vram_minimum_gb` over one node's `gpu_count × memory_gb`, at least 2) to
`MAX_NODES`, and a power of two where tensor parallelism spans every GPU (TP and TEP across
nodes: the size must divide the attention heads); for prefill/decode exactly the nodes its two
pools use; for KV-store strategies (one instance per node) 2 to `MAX_NODES`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .compose import Context
from .kv_store import kv_store_summary, kv_store_volumes, render_kv_store
from .multi_node import multi_node_summary, render_multi_node
from .omni import omni_summary, render_omni
from .pd import (
    PD_CONNECTOR,
    pd_node_count,
    pd_notes,
    pd_pools,
    pd_reason,
    pd_summary,
    pd_volumes,
    render_pd,
)
from .router import companion_notes
from .single_node import render_single_node, single_node_summary
from .types import Command, Data, Note
from .vocabulary import COMPANIONS, CONNECTORS

__all__ = ["DEPLOY_TYPES", "MAX_NODES", "DeployType", "deploy_type"]

MAX_NODES = 16
ROUTER_PACKAGE = COMPANIONS["router"].package
POWER_OF_TWO_LAYOUTS = ("tp", "tep")
"""Multi-node layouts whose tensor-parallel size spans every GPU: it must divide the model's
attention heads, so the node count is a power of two."""


def _one_node(catalog: Data, recipe: Data, sel: Mapping[str, str]) -> tuple[int, int]:
    return 1, 1


@dataclass(frozen=True)
class DeployType:
    name: str
    render: Callable[[Context], list[Command]]
    summary: Callable[[Context, list[Command]], str]
    nodes_row: bool = False
    """The user picks the node count (a Nodes row)."""
    host_network: bool = True
    """`docker run --network host` (the servers talk to other nodes)."""
    owns_kv_connector: bool = False
    """Sets its own `--kv-transfer-config` (so KV offload is not offered)."""
    volumes: Callable[[Context], list[str]] = lambda ctx: []
    packages: Callable[[Context], list[str]] = lambda ctx: []
    """Pip packages besides vLLM its commands need (the router, a KV connector)."""
    notes: Callable[[Context, list[Command]], list[Note]] = lambda ctx, commands: []
    """Notes on running its commands (start order, ...), given the rendered commands."""
    reason: Callable[[Data, Data, str, str], str | None] = lambda c, r, h, v: None
    """Why this deploy type cannot serve the variant on the hardware (beyond the strategy's
    own hardware rules)."""
    node_range: Callable[[Data, Data, Mapping[str, str]], tuple[int, int]] = _one_node
    """The node counts it can run on (see the module docstring)."""

    @property
    def one_node(self) -> bool:
        """Runs on one node whatever the selection (its `node_range` is the default)."""
        return self.node_range is _one_node


def _multi_node_range(catalog: Data, recipe: Data, sel: Mapping[str, str]) -> tuple[int, int]:
    hw = catalog["hardware"][sel["hardware"]]
    need = recipe["variants"][sel["variant"]]["vram_minimum_gb"]
    low = max(2, math.ceil(need / (hw["gpu_count"] * hw["memory_gb"])))
    if catalog["strategies"][sel["strategy"]]["layout"] in POWER_OF_TWO_LAYOUTS:
        low = 1 << (low - 1).bit_length()
    return low, MAX_NODES


def _pd_packages(ctx: Context) -> list[str]:
    return [ROUTER_PACKAGE, CONNECTORS[ctx.selection[PD_CONNECTOR]].package]


def _companion_packages(ctx: Context) -> list[str]:
    """The package of the strategy's companion process, if it names one."""
    companion = ctx.strategy.get("companion")
    return [COMPANIONS[companion["role"]].package] if companion else []


def _pd_range(catalog: Data, recipe: Data, sel: Mapping[str, str]) -> tuple[int, int]:
    total = pd_node_count(pd_pools(catalog, recipe, sel["hardware"], sel["variant"]))
    return total, total


DEPLOY_TYPES: dict[str, DeployType] = {
    d.name: d for d in (
        DeployType("single_node", render_single_node, single_node_summary, host_network=False,
                   packages=_companion_packages, notes=companion_notes),
        DeployType("multi_node", render_multi_node, multi_node_summary, nodes_row=True,
                   node_range=_multi_node_range),
        DeployType("pd_cluster", render_pd, pd_summary, owns_kv_connector=True,
                   volumes=pd_volumes, notes=pd_notes, reason=pd_reason, node_range=_pd_range,
                   packages=_pd_packages),
        DeployType("omni", render_omni, omni_summary, host_network=False),
        DeployType("kv_store", render_kv_store, kv_store_summary, nodes_row=True,
                   owns_kv_connector=True, volumes=kv_store_volumes,
                   packages=lambda ctx: [ROUTER_PACKAGE, CONNECTORS["mooncake"].package],
                   node_range=lambda c, r, s: (2, MAX_NODES)),
    )
}


def deploy_type(strategy: Data) -> DeployType:
    return DEPLOY_TYPES[strategy["deploy_type"]]
