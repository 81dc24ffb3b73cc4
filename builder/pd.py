"""Prefill/decode disaggregation: a prefill pool, a decode pool and `vllm-router` in front.

Each pool is one vLLM server (over one or several nodes, see `multi_node.py`) with its own
layout (TP, TEP or DEP), port and KV-connector side-channel port; the KV cache goes from prefill
to decode over the selected connector (`pd_connector`: NIXL by default, Mooncake where the
recipe offers it). Pool settings come from the recipe's `pd` block, keyed by hardware; settings
of several matching keys merge, the more specific key winning field by field.

A pool's arguments, in order: the model's base arguments, the pool's parallel sizes, the
overrides and features (as for any server, so a feature is on in both pools), the `pd` block's
`extra_args`, the pool's own `extra_args`, `--port`, then `--kv-transfer-config`.

Defaults: as many whole nodes per pool as the model needs, TEP for MoE and TP for dense
models, ports 8000 / 8001, the router on 30000. Pools that name `devices` share one node (the
single-host layout): each gets the brand's visible-devices variable, the router talks to
`localhost`, and the side-channel ports are spaced by the prefill pool's data-parallel ranks
(vLLM adds the DP rank to the base port). Otherwise each pool's head is reached at
`$PREFILL_IP` / `$DECODE_IP` and NIXL's side channel listens on `$NODE_IP`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .arglist import ArgList
from .compose import Context, tool_command
from .hardware_keys import ranked
from .multi_node import Placement, server_commands, size_args
from .types import Command, Data

__all__ = [
    "CONNECTORS",
    "PD_CONNECTOR",
    "connector_choices",
    "pd_pools",
    "pd_reason",
    "pd_settings",
    "pd_summary",
    "pd_volumes",
    "render_pd",
]

PD_CONNECTOR = "pd_connector"
POOLS = ("prefill", "decode")
NAMES = {"prefill": "Prefill", "decode": "Decode"}
DEFAULT_PORTS = {"prefill": 8000, "decode": 8001}
ADDRESSES = {"prefill": "$PREFILL_IP", "decode": "$DECODE_IP"}
ROUTER_PORT = 30000


@dataclass(frozen=True)
class Connector:
    label: str
    config: dict[str, Any]
    """The default `--kv-transfer-config` object."""
    port_env: str
    """The variable that sets the connector's per-server side-channel / bootstrap port."""
    ports: tuple[int, int]
    """Base ports of the prefill and the decode pool."""
    host_env: str | None = None
    """The variable that sets the address the side channel listens on (across hosts)."""


CONNECTORS: dict[str, Connector] = {
    "nixl": Connector(
        "NIXL", {"kv_connector": "NixlConnector", "kv_role": "kv_both"},
        "VLLM_NIXL_SIDE_CHANNEL_PORT", (5557, 5558), "VLLM_NIXL_SIDE_CHANNEL_HOST",
    ),
    "mooncake": Connector(
        "Mooncake", {"kv_connector": "MooncakeConnector", "kv_role": "kv_both"},
        "VLLM_MOONCAKE_BOOTSTRAP_PORT", (8998, 9889),
    ),
}


@dataclass(frozen=True)
class Pool:
    name: str
    placement: Placement
    port: int
    settings: Mapping[str, Any]


def pd_settings(recipe: Data, hw_id: str, hw: Data) -> dict[str, Any]:
    """The recipe's `pd` settings for this hardware, merged least specific first."""
    merged: dict[str, Any] = {}
    for _, entry in ranked(recipe.get("pd") or {}, hw_id, hw):
        for key, value in entry.items():
            if value is None:
                continue  # absent (a fully-defaulted dump writes None)
            if key in POOLS:
                pool = {k: v for k, v in value.items() if v is not None}
                merged[key] = {**merged.get(key, {}), **pool}
            else:
                merged[key] = value
    return merged


def connector_choices(recipe: Data, hw_id: str, hw: Data) -> list[str]:
    """Connectors offered on this hardware, the default first."""
    return list(pd_settings(recipe, hw_id, hw).get("connectors") or {"nixl": {}})


def pd_pools(catalog: Data, recipe: Data, hw_id: str, variant_id: str) -> list[Pool]:
    """The prefill and decode pools for this hardware and variant."""
    hw = catalog["hardware"][hw_id]
    variant = recipe["variants"][variant_id]
    settings = pd_settings(recipe, hw_id, hw)
    default_layout = "tep" if recipe["model"]["architecture"] == "moe" else "tp"
    pools = []
    for name in POOLS:
        pool = settings.get(name, {})
        devices = pool.get("devices")
        gpus = len(devices) if devices else pool.get("gpus_per_node", hw["gpu_count"])
        nodes = pool.get("nodes") or max(
            1, math.ceil(variant["vram_minimum_gb"] / (gpus * hw["memory_gb"])))
        placement = Placement(
            pool.get("layout", default_layout), nodes, gpus, address=ADDRESSES[name],
            devices=tuple(devices) if devices else None,
        )
        pools.append(Pool(name, placement, pool.get("port", DEFAULT_PORTS[name]), pool))
    return pools


def shared_host(pools: list[Pool]) -> bool:
    """Both pools on one node (they name their devices)."""
    return all(p.placement.devices is not None for p in pools)


def pd_node_count(pools: list[Pool]) -> int:
    return 1 if shared_host(pools) else sum(p.placement.nodes for p in pools)


def pd_reason(catalog: Data, recipe: Data, hw_id: str, variant_id: str) -> str | None:
    """Why a pool cannot hold the variant on this hardware; None when both can."""
    hw = catalog["hardware"][hw_id]
    variant = recipe["variants"][variant_id]
    for pool in pd_pools(catalog, recipe, hw_id, variant_id):
        p = pool.placement
        if p.gpus > hw["gpu_count"]:
            return (f"the {pool.name} pool uses {p.gpus} GPUs per node; "
                    f"{hw['display_name']} has {hw['gpu_count']}")
        memory = p.nodes * p.gpus * hw["memory_gb"]
        if memory < variant["vram_minimum_gb"]:
            label = variant.get("label") or variant_id
            return (f"{label} needs {variant['vram_minimum_gb']} GB and the {pool.name} pool "
                    f"({p.nodes * p.gpus}× {hw['display_name']}) has {memory} GB")
    return None


def _side_ports(connector: Connector, pools: list[Pool]) -> dict[str, int]:
    first, second = connector.ports
    if shared_host(pools):
        # vLLM listens on base + DP rank: keep the decode pool's range clear of the prefill's.
        second = max(second, first + max(1, pools[0].placement.dp_local))
    return {"prefill": first, "decode": second}


def _transfer_config(ctx: Context, connector_id: str, settings: Mapping[str, Any]) -> str:
    custom = (settings.get("connectors") or {}).get(connector_id) or {}
    config = custom.get("kv_transfer_config") or CONNECTORS[connector_id].config
    return json.dumps(config, separators=(",", ":"))


def _label(pool: Pool, rank: int | None = None) -> str:
    name, p = NAMES[pool.name], pool.placement
    if p.nodes == 1:
        if p.devices is not None:
            return f"{name} (GPUs {_ranges(p.devices)}, port {pool.port})"
        return f"{name} (port {pool.port})"
    if not rank:
        return f"{name} node 0 of {p.nodes} (head, port {pool.port})"
    return f"{name} node {{rank}} of {p.nodes} (worker)"


def _ranges(devices: tuple[int, ...]) -> str:
    ordered = sorted(devices)
    if ordered == list(range(ordered[0], ordered[-1] + 1)) and len(ordered) > 1:
        return f"{ordered[0]}–{ordered[-1]}"
    return ",".join(map(str, devices))


def render_pd(ctx: Context) -> list[Command]:
    settings = pd_settings(ctx.recipe, ctx.hw_id, ctx.hw)
    pools = pd_pools(ctx.catalog, ctx.recipe, ctx.hw_id, ctx.selection["variant"])
    connector_id = ctx.selection.get(PD_CONNECTOR, "nixl")
    connector = CONNECTORS[connector_id]
    custom = (settings.get("connectors") or {}).get(connector_id) or {}
    side_ports = _side_ports(connector, pools)
    single = shared_host(pools)
    commands: list[Command] = []
    for pool in pools:
        placement = pool.placement
        args = ctx.base_options()
        args.extend(size_args(placement))
        if placement.layout in ("tep", "dep"):
            args.set("--enable-expert-parallel")
        ctx.apply_overrides(args)
        ctx.apply_features(args)
        for source in (settings, pool.settings):
            args.extend(source.get("extra_args", []))
            for flag in source.get("remove_args", []):
                args.remove(flag)
        args.set("--port", str(pool.port))
        args.set("--kv-transfer-config", _transfer_config(ctx, connector_id, settings))
        env = ctx.env()
        env.update(settings.get("extra_env", {}))
        env.update(custom.get("extra_env", {}))
        env.update(pool.settings.get("extra_env", {}))
        if connector.host_env and not single:
            env[connector.host_env] = "$NODE_IP"
        env[connector.port_env] = str(side_ports[pool.name])
        commands += server_commands(
            ctx, args, placement,
            role=pool.name, worker_role=pool.name,
            label=_label(pool), worker_label=_label(pool, 1),
            env=env, port=pool.port,
        )
    commands.append(_router(ctx, pools, connector_id, settings))
    return commands


def _router(ctx: Context, pools: list[Pool], connector_id: str,
            settings: Mapping[str, Any]) -> Command:
    single = shared_host(pools)
    urls = {
        p.name: f"http://{'localhost' if single else ADDRESSES[p.name]}:{p.port}" for p in pools
    }
    args = ArgList()
    args.extend([
        "--policy", "round_robin",
        "--vllm-pd-disaggregation",
        "--prefill", urls["prefill"],
        "--decode", urls["decode"],
        "--host", "127.0.0.1" if single else "0.0.0.0",
        "--port", str(ROUTER_PORT),
    ])
    local_dp = [p.placement.dp_local for p in pools if p.placement.layout == "dep"]
    if local_dp:
        args.set("--intra-node-data-parallel-size", str(min(local_dp)))
    args.set("--kv-connector", connector_id)
    args.extend(settings.get("router_args", []))
    return tool_command("router", ["vllm-router", *args.tokens()],
                        label=f"Router (port {ROUTER_PORT})", port=ROUTER_PORT, head_len=3)


def pd_volumes(ctx: Context) -> list[str]:
    return list(pd_settings(ctx.recipe, ctx.hw_id, ctx.hw).get("docker_volumes", []))


def _pool_text(pool: Pool, hw_name: str) -> str:
    p = pool.placement
    sizes = size_args(p)
    parts = [f"{'TP' if f == '--tensor-parallel-size' else 'DP'}{v}"
             for f, v in zip(sizes[::2], sizes[1::2], strict=True)]
    if p.layout in ("tep", "dep"):
        parts.append("EP")
    where = f"{p.nodes}×{p.gpus}" if p.nodes > 1 else str(p.gpus)
    return f"{NAMES[pool.name]} {' + '.join(parts)} ({where}× {hw_name})"


def pd_summary(ctx: Context) -> str:
    pools = pd_pools(ctx.catalog, ctx.recipe, ctx.hw_id, ctx.selection["variant"])
    nodes = pd_node_count(pools)
    connector = CONNECTORS[ctx.selection.get(PD_CONNECTOR, "nixl")].label
    variant = ctx.variant.get("label") or ctx.selection["variant"]
    where = "1 node" if nodes == 1 else f"{nodes} nodes"
    pools_text = " · ".join(_pool_text(p, ctx.hw["display_name"]) for p in pools)
    return f"{where} · PD · {pools_text} · {connector} · {variant}"
