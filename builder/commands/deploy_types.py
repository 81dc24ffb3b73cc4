"""Deploy types, one object each: how a strategy of that type renders, sums itself up, mounts
volumes, counts nodes and refuses hardware, and the facts the rest of the builder asks about it
(which rows the page shows, which recipes it is offered to, its frontend, the files it can be
written as). Strategies name their deploy type; nothing else switches on it
(`tests/test_architecture.py` fails on a `deploy_type ==` anywhere else).

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

from ..sizing import Gpu, checkpoint_facts, plan, weights_bytes
from ..types import Command, Data, Note
from ..vocabulary import COMPANIONS, CONNECTORS
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

__all__ = ["DEPLOY_TYPES", "MAX_NODES", "POWER_OF_TWO_LAYOUTS",
           "DeployType", "context", "deploy_type", "helpful_nodes", "strategies_where"]

MAX_NODES = 16
ROUTER_PACKAGE = COMPANIONS["router"].package
OMNI_FRONTEND = "python"
"""vLLM-Omni serves its routes (images, video, speech) from its own Python API server."""
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
    omni: bool = False
    """Serves a vLLM-Omni generation model (`vllm serve MODEL --omni`): offered to vLLM-Omni
    recipes only, and they only to it; one server whose memory is judged per task."""
    offered_by_default: bool = False
    """Offered to a recipe that lists no `strategies` (see `selection.recipe_strategies`)."""
    plain_layout: str | None = None
    """Its plainest layout (single-node TP): the one single-node-only tasks default to, whose
    parallel size fits the model to the node and which a variant's `tp` sizes set."""
    power_of_two_layouts: tuple[str, ...] = ()
    """Layouts whose tensor-parallel size spans every GPU of every node: the size must divide
    the attention heads, so the node count is a power of two."""
    picks_connector: bool = False
    """The selection picks a prefill/decode KV connector (the `pd_connector` key and row)."""
    frontend: str | None = None
    """The one frontend its servers run (None: the user picks)."""
    weights_on_one_node: bool = False
    """Its one server holds the whole model on one node's GPUs (a parallel size set for it must
    hold the weights; vLLM-Omni judges memory per task instead)."""
    companion: bool = False
    """A strategy of this type may start a companion process beside its engine (`companion`
    in a strategy file: a router in front of it)."""
    dynamo: bool = False
    """NVIDIA Dynamo deploys its layout on Kubernetes (see `builder.dynamo`): the tools point
    to a model's Dynamo targets where it has some."""
    file_refusal: Callable[[str, str, bool], str] | None = None
    """Why its commands cannot be written as one deployment file of format `fmt`, given the
    model id and whether NVIDIA Dynamo has a target for it (None: one server, possibly over
    several nodes, which the files can hold)."""

    @property
    def one_node(self) -> bool:
        """Runs on one node whatever the selection (its `node_range` is the default)."""
        return self.node_range is _one_node

    def is_plain(self, strategy: Data) -> bool:
        """`strategy` (of this deploy type) is the plain layout (see `plain_layout`)."""
        return self.plain_layout is not None and strategy["layout"] == self.plain_layout

    def power_of_two(self, strategy: Data) -> bool:
        """`strategy`'s node count must be a power of two (see `power_of_two_layouts`)."""
        return strategy["layout"] in self.power_of_two_layouts


def _multi_node_range(catalog: Data, recipe: Data, sel: Mapping[str, str]) -> tuple[int, int]:
    hw = catalog["hardware"][sel["hardware"]]
    need = recipe["variants"][sel["variant"]]["vram_minimum_gb"]
    low = max(2, math.ceil(need / (hw["gpu_count"] * hw["memory_gb"])))
    if deploy_type(catalog["strategies"][sel["strategy"]]).power_of_two(
            catalog["strategies"][sel["strategy"]]):
        low = 1 << (low - 1).bit_length()
    helpful = helpful_nodes(catalog, recipe, sel)
    return low, max(low, helpful) if helpful is not None else MAX_NODES


def helpful_nodes(catalog: Data, recipe: Data, sel: Mapping[str, str]) -> int | None:
    """The most nodes tensor parallelism across nodes (TP, TEP) helps: twice the fewest whose
    GPUs hold the weights and one full-context sequence by the fit rule (`builder.sizing`);
    past them a node adds only communication and KV cache room, which a data-parallel layout
    gives as replicas. None without memory facts, for other layouts (data parallelism adds
    replicas; pipeline stages are bounded by the layers, more than MAX_NODES), or when no
    count up to MAX_NODES holds the full context."""
    strategy = catalog["strategies"][sel["strategy"]]
    facts = checkpoint_facts(recipe.get("facts"), sel["variant"])
    if not facts or not deploy_type(strategy).power_of_two(strategy):
        return None
    hw = catalog["hardware"][sel["hardware"]]
    weights = weights_bytes(facts, recipe["variants"][sel["variant"]]["precision"],
                            sel["variant"])
    if weights is None:
        return None
    nodes = 1
    while nodes <= MAX_NODES:
        gpus = nodes * hw["gpu_count"]
        found = plan(facts, weights, Gpu(hw["display_name"], hw["memory_gb"], gpus), gpus,
                     tp=gpus, context=facts["config"].get("max_position_embeddings")
                     or recipe["model"].get("context_length"))
        if found is not None and not found.capped:
            return min(2 * nodes, MAX_NODES)
        nodes *= 2
    return None


def _pd_packages(ctx: Context) -> list[str]:
    return [ROUTER_PACKAGE, CONNECTORS[ctx.selection[PD_CONNECTOR]].package]


def _companion_packages(ctx: Context) -> list[str]:
    """The package of the strategy's companion process, if it names one."""
    companion = ctx.strategy.get("companion")
    return [COMPANIONS[companion["role"]].package] if companion else []


def _pd_range(catalog: Data, recipe: Data, sel: Mapping[str, str]) -> tuple[int, int]:
    total = pd_node_count(pd_pools(catalog, recipe, sel["hardware"], sel["variant"]))
    return total, total


def _pd_file_refusal(fmt: str, hf_id: str, dynamo: bool) -> str:
    if fmt == "k8s":
        return ("prefill/decode disaggregation on Kubernetes is NVIDIA Dynamo's job: "
                + (f"see the Dynamo targets (vllm-recipes {hf_id} --dynamo)" if dynamo
                   else "this model has no Dynamo target in the catalogue yet"))
    return "prefill/decode disaggregation runs several servers and a router; use the commands"


def _kv_store_file_refusal(fmt: str, hf_id: str, dynamo: bool) -> str:
    return "a KV-store layout runs several kinds of servers; use the commands"


DEPLOY_TYPES: dict[str, DeployType] = {
    d.name: d for d in (
        DeployType("single_node", render_single_node, single_node_summary, host_network=False,
                   packages=_companion_packages, notes=companion_notes,
                   offered_by_default=True, plain_layout="tp", weights_on_one_node=True,
                   companion=True),
        DeployType("multi_node", render_multi_node, multi_node_summary, nodes_row=True,
                   node_range=_multi_node_range, offered_by_default=True,
                   power_of_two_layouts=POWER_OF_TWO_LAYOUTS),
        DeployType("pd_cluster", render_pd, pd_summary, owns_kv_connector=True,
                   volumes=pd_volumes, notes=pd_notes, reason=pd_reason, node_range=_pd_range,
                   packages=_pd_packages, picks_connector=True, dynamo=True,
                   file_refusal=_pd_file_refusal),
        DeployType("omni", render_omni, omni_summary, host_network=False, omni=True,
                   frontend=OMNI_FRONTEND),
        DeployType("kv_store", render_kv_store, kv_store_summary, nodes_row=True,
                   owns_kv_connector=True, volumes=kv_store_volumes,
                   packages=lambda ctx: [ROUTER_PACKAGE, CONNECTORS["mooncake"].package],
                   node_range=lambda c, r, s: (2, MAX_NODES),
                   file_refusal=_kv_store_file_refusal),
    )
}


def deploy_type(strategy: Data) -> DeployType:
    return DEPLOY_TYPES[strategy["deploy_type"]]


def strategies_where(strategies: Mapping[str, Data], test: Callable[[DeployType, Data], bool]
                     ) -> list[str]:
    """The ids of `strategies` (in their order) whose deploy type and strategy pass `test`."""
    return [sid for sid, strategy in strategies.items() if test(deploy_type(strategy), strategy)]


def context(catalog: Data, recipe: Data, selection: Mapping[str, str]) -> Context:
    """The `Context` of a resolved selection, told what its deploy type decides."""
    strategy = catalog["strategies"][selection["strategy"]]
    return Context(catalog, recipe, dict(selection),
                   auto_fit=deploy_type(strategy).is_plain(strategy))
