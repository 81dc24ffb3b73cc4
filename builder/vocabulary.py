"""The builder's vocabularies, one registry each: selection keys, frontends, install methods,
prefill/decode KV connectors, KV offload tiers, command roles, precision rules.

Everything that lists these (the page's rows and labels, the CLI's help, the README and the
API page, the schema's reserved names) reads them from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "CONNECTORS",
    "FRONTENDS",
    "INSTALL_METHODS",
    "OFF",
    "OFFLOAD_TIERS",
    "ON",
    "PRECISION_HARDWARE",
    "ROLES",
    "SELECTION_KEYS",
    "Connector",
    "Frontend",
    "OffloadTier",
    "SelectionKey",
]

OFF, ON = "off", "on"


@dataclass(frozen=True)
class SelectionKey:
    name: str
    label: str
    """The row's label on the page."""
    help: str
    """One line for the CLI's help, the README and the API page."""


SELECTION_KEYS: dict[str, SelectionKey] = {
    key.name: key
    for key in (
        SelectionKey("hardware", "Hardware", "a hardware id (h200, b200, mi355x, ...)"),
        SelectionKey("variant", "Variant", "a checkpoint of the recipe (default, fp8, ...)"),
        SelectionKey("strategy", "Strategy", "a serving strategy (single_node_tp, ...)"),
        SelectionKey("nodes", "Nodes", "node count, for multi-node and KV-store strategies"),
        SelectionKey("pd_connector", "KV connector",
                     "nixl|mooncake: the KV connector of prefill/decode disaggregation"),
        SelectionKey("kv_offload", "KV offload",
                     "off|cpu|fs: KV cache offloading, where the recipe offers it"),
        SelectionKey("frontend", "Frontend", "rust|python: vLLM's OpenAI API frontend"),
        SelectionKey("install", "Install", "pip|docker: how vLLM is installed"),
    )
}
"""The builder's own selection keys; every feature id of a recipe is a key too (on, off or a
mode name)."""


@dataclass(frozen=True)
class Frontend:
    label: str
    env: dict[str, str]


FRONTENDS: dict[str, Frontend] = {
    "rust": Frontend("Rust", {"VLLM_USE_RUST_FRONTEND": "1"}),
    "python": Frontend("Python", {}),
}

INSTALL_METHODS: dict[str, str] = {"pip": "pip", "docker": "Docker"}
"""Install method → its label."""


@dataclass(frozen=True)
class Connector:
    label: str
    config: dict[str, Any]
    """The default `--kv-transfer-config` object."""
    port_env: str
    """The variable that sets the connector's per-server side-channel / bootstrap port."""
    ports: tuple[int, int]
    """Base ports of the prefill and the decode pool."""
    package: str
    """The pip package that provides it."""
    host_env: str | None = None
    """The variable that sets the address the side channel listens on (across hosts)."""


CONNECTORS: dict[str, Connector] = {
    "nixl": Connector(
        "NIXL", {"kv_connector": "NixlConnector", "kv_role": "kv_both"},
        "VLLM_NIXL_SIDE_CHANNEL_PORT", (5557, 5558), "nixl", "VLLM_NIXL_SIDE_CHANNEL_HOST",
    ),
    "mooncake": Connector(
        "Mooncake", {"kv_connector": "MooncakeConnector", "kv_role": "kv_both"},
        "VLLM_MOONCAKE_BOOTSTRAP_PORT", (8998, 9889), "mooncake-transfer-engine",
    ),
}
"""Prefill/decode KV connectors (the `pd_connector` key); the first is the default."""


@dataclass(frozen=True)
class OffloadTier:
    label: str
    """The pill's text."""
    name: str
    """The tier's name in sentences."""
    support_key: str
    """Its key in a recipe's `kv_offload_support`."""


OFFLOAD_TIERS: dict[str, OffloadTier] = {
    "cpu": OffloadTier("CPU", "CPU offload", "offloading_cpu"),
    "fs": OffloadTier("CPU + filesystem", "Filesystem offload", "offloading_fs"),
}
"""KV offload tiers (the `kv_offload` key, besides `off`)."""

ROLES: dict[str, str] = {
    "serve": "Serve",
    "head": "Head node",
    "worker": "Worker nodes",
    "prefill": "Prefill",
    "decode": "Decode",
    "router": "Router",
    "master": "Mooncake master",
    "config": "Store config",
    "store": "Mooncake store",
}
"""Command roles → the tab label of their blocks."""

PRECISION_HARDWARE: dict[str, str] = {"nvfp4": "blackwell", "fp4": "blackwell"}
"""Precisions that run on one hardware key only, unless a variant's `precision_hardware` says
otherwise: NVFP4 and FP4 weights need Blackwell's FP4 tensor cores."""
