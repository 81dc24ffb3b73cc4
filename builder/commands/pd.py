"""Prefill/decode disaggregation: a prefill pool, a decode pool and `vllm-router` in front.

Each pool is one vLLM server (over one or several nodes, see `multi_node.py`) with its own
layout (TP, TEP or DEP), port and KV-connector side-channel port; the KV cache goes from prefill
to decode over the selected connector (`pd_connector`: NIXL by default, Mooncake where the
recipe offers it). Pool settings come from the recipe's `pd` block, keyed by hardware; settings
of several matching keys merge, the more specific key winning field by field.

A pool's arguments, in order: the model's base arguments, the pool's parallel sizes, the
overrides and features (as for any server, so a feature is on in both pools), the `pd` block's
`extra_args`, the pool's own `extra_args`, `--port`, then `--kv-transfer-config`.

Prefill/decode is offered only on hardware a key of the recipe's `pd` block names: the layout
comes from the recipe, never from a builder default alone. Within it, unset fields default to
as many whole nodes per pool as the model needs, TEP for MoE and TP for dense models, ports
8000 / 8001, the router on 30000. Pools that name `devices` share one node (the
single-host layout): each gets the brand's visible-devices variable, the router talks to
`localhost`, and the side-channel ports are spaced by the prefill pool's data-parallel ranks
(vLLM adds the DP rank to the base port). Otherwise each pool's head is reached at
`$PREFILL_IP` / `$DECODE_IP` and NIXL's side channel listens on `$NODE_IP`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..arglist import ArgList
from ..hardware_keys import ranked
from ..types import Command, Data, Note, Origin
from ..vocabulary import COMPANIONS, CONNECTORS
from .compose import Context, builder_origin
from .multi_node import Placement, server_commands, size_args
from .router import router_command
from .summary import device_count, layout_text

__all__ = [
    "PD_CONNECTOR",
    "PdMerge",
    "connector_choices",
    "pd_node_count",
    "pd_pools",
    "pd_reason",
    "pd_settings",
    "render_pd",
]

PD_CONNECTOR = "pd_connector"
POOLS = ("prefill", "decode")
NAMES = {"prefill": "Prefill", "decode": "Decode"}
DEFAULT_PORTS = {"prefill": 8000, "decode": 8001}
ADDRESSES = {"prefill": "$PREFILL_IP", "decode": "$DECODE_IP"}
ROUTER_PORT = COMPANIONS["router"].port


@dataclass(frozen=True)
class PdMerge:
    """The recipe's `pd` settings merged for one hardware, and the key each field came from."""

    values: dict[str, Any]
    entries: list[tuple[str, Data]]
    """The `pd` entries naming the hardware, least specific first: (key, entry)."""

    @cached_property
    def where(self) -> dict[str, str]:
        """Field (`extra_args`, `prefill.extra_args`, ...) → the `pd` key that set it."""
        where: dict[str, str] = {}
        for key, entry in self.entries:
            for name, value in entry.items():
                if value is None:
                    continue
                if name in POOLS:
                    where.update({f"{name}.{k}": key for k, v in value.items() if v is not None})
                else:
                    where[name] = key
        return where

    def origin(self, ctx: Context, field: str, layer: str) -> Origin:
        return ctx.origin(f"pd.{self.where.get(field, '?')}.{field}", layer)


@dataclass(frozen=True)
class Pool:
    name: str
    placement: Placement
    port: int
    settings: Mapping[str, Any]


def pd_settings(recipe: Data, hw_id: str, hw: Data) -> PdMerge:
    """The recipe's `pd` settings for this hardware, merged least specific first."""
    merged: dict[str, Any] = {}
    entries = [(key, entry) for _, key, entry in ranked(recipe.get("pd") or {}, hw_id, hw)]
    for _, entry in entries:
        for name, value in entry.items():
            if value is None:
                continue  # absent (a fully-defaulted dump writes None)
            if name in POOLS:
                pool = {k: v for k, v in value.items() if v is not None}
                merged[name] = {**merged.get(name, {}), **pool}
            else:
                merged[name] = value
    return PdMerge(merged, entries)


def connector_choices(recipe: Data, hw_id: str, hw: Data) -> list[str]:
    """Connectors offered on this hardware, the default first."""
    return list(pd_settings(recipe, hw_id, hw).values.get("connectors") or {"nixl": {}})


def pd_pools(catalog: Data, recipe: Data, hw_id: str, variant_id: str) -> list[Pool]:
    """The prefill and decode pools for this hardware and variant."""
    hw = catalog["hardware"][hw_id]
    variant = recipe["variants"][variant_id]
    settings = pd_settings(recipe, hw_id, hw).values
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
    """Why prefill/decode cannot serve the variant on this hardware; None when it can."""
    hw = catalog["hardware"][hw_id]
    if not ranked(recipe.get("pd") or {}, hw_id, hw):
        return f"this recipe gives no prefill/decode layout for {hw['display_name']}"
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
                    f"({device_count(p.nodes * p.gpus, hw)}) has {memory} GB")
    return None


def _side_ports(connector_id: str, pools: list[Pool]) -> dict[str, int]:
    first, second = CONNECTORS[connector_id].ports
    if shared_host(pools):
        # vLLM listens on base + DP rank: keep the decode pool's range clear of the prefill's.
        second = max(second, first + max(1, pools[0].placement.dp_local))
    return {"prefill": first, "decode": second}


def _transfer_config(ctx: Context, connector_id: str, merge: PdMerge) -> tuple[Any, Origin]:
    custom = (merge.values.get("connectors") or {}).get(connector_id) or {}
    if custom.get("kv_transfer_config"):
        return custom["kv_transfer_config"], ctx.origin(
            f"pd.{merge.where['connectors']}.connectors.{connector_id}.kv_transfer_config",
            f"pd: {connector_id}")
    return CONNECTORS[connector_id].config, builder_origin(
        "builder.vocabulary", f"CONNECTORS[{connector_id!r}].config", f"pd: {connector_id}")


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
    merge = pd_settings(ctx.recipe, ctx.hw_id, ctx.hw)
    settings = merge.values
    pools = pd_pools(ctx.catalog, ctx.recipe, ctx.hw_id, ctx.selection["variant"])
    connector_id = ctx.selection.get(PD_CONNECTOR, next(iter(CONNECTORS)))
    connector = CONNECTORS[connector_id]
    custom = (settings.get("connectors") or {}).get(connector_id) or {}
    side_ports = _side_ports(connector_id, pools)
    single = shared_host(pools)
    config, config_origin = _transfer_config(ctx, connector_id, merge)
    commands: list[Command] = []
    for pool in pools:
        placement = pool.placement
        layer = f"pd: {pool.name}"
        args = ctx.base_options()
        args.extend(size_args(placement), ctx.origin(
            f"pd.{merge.where.get(f'{pool.name}.layout', '?')}.{pool.name}", layer)
            if f"{pool.name}.layout" in merge.where or f"{pool.name}.nodes" in merge.where
            else builder_origin(__name__, "the pool's default layout", layer))
        if placement.layout in ("tep", "dep"):
            expert = f"{placement.layout.upper()} pools are expert-parallel"
            args.set(builder_origin(__name__, expert, layer), "--enable-expert-parallel")
        ctx.apply_overrides(args)
        ctx.apply_features(args)
        args.extend(settings.get("extra_args", []), merge.origin(ctx, "extra_args", "pd"))
        for flag in settings.get("remove_args", []):
            args.remove(flag)
        args.extend(pool.settings.get("extra_args", []),
                    merge.origin(ctx, f"{pool.name}.extra_args", layer))
        for flag in pool.settings.get("remove_args", []):
            args.remove(flag)
        port_origin = (merge.origin(ctx, f"{pool.name}.port", layer)
                       if f"{pool.name}.port" in merge.where
                       else builder_origin(__name__, f"the {pool.name} pool's default port", layer))
        args.set(port_origin, "--port", str(pool.port))
        args.set(config_origin, "--kv-transfer-config", config)
        env = ctx.env()
        env.update(settings.get("extra_env", {}), merge.origin(ctx, "extra_env", "pd"))
        env.update(custom.get("extra_env", {}), ctx.origin(
            f"pd.{merge.where.get('connectors', '?')}.connectors.{connector_id}.extra_env",
            f"pd: {connector_id}"))
        env.update(pool.settings.get("extra_env", {}),
                   merge.origin(ctx, f"{pool.name}.extra_env", layer))
        side = builder_origin(__name__, f"{connector.label}'s side channel", f"pd: {connector_id}")
        if connector.host_env and not single:
            env.set(connector.host_env, "$NODE_IP", side)
        env.set(connector.port_env, str(side_ports[pool.name]), side)
        commands += server_commands(
            ctx, args, placement,
            role=pool.name, worker_role=pool.name,
            label=_label(pool), worker_label=_label(pool, 1),
            env=env, port=pool.port,
        )
    commands.append(_router(ctx, pools, connector_id, merge))
    return commands


def _router(ctx: Context, pools: list[Pool], connector_id: str, merge: PdMerge) -> Command:
    single = shared_host(pools)
    urls = {
        p.name: f"http://{'localhost' if single else ADDRESSES[p.name]}:{p.port}" for p in pools
    }
    origin = builder_origin(__name__, "the router in front of the pools", "router")
    args = ArgList()
    args.extend([
        "--policy", "round_robin",
        "--vllm-pd-disaggregation",
        "--prefill", urls["prefill"],
        "--decode", urls["decode"],
        "--host", "127.0.0.1" if single else "0.0.0.0",
        "--port", str(ROUTER_PORT),
    ], origin)
    local_dp = [p.placement.dp_local for p in pools if p.placement.layout == "dep"]
    if local_dp:
        args.set(origin, "--intra-node-data-parallel-size", str(min(local_dp)))
    args.set(origin, "--kv-connector", connector_id)
    args.extend(merge.values.get("router_args", []), merge.origin(ctx, "router_args", "router"))
    return router_command(args, port=ROUTER_PORT, label=f"Router (port {ROUTER_PORT})")


def pd_volumes(ctx: Context) -> list[str]:
    return list(pd_settings(ctx.recipe, ctx.hw_id, ctx.hw).values.get("docker_volumes", []))


def pd_summary(ctx: Context, commands: list[Command]) -> str:
    """The cluster in one line, each pool's layout read from its head command's argv."""
    pools = pd_pools(ctx.catalog, ctx.recipe, ctx.hw_id, ctx.selection["variant"])
    nodes = pd_node_count(pools)
    connector = CONNECTORS[ctx.selection.get(PD_CONNECTOR, next(iter(CONNECTORS)))].label
    where = "1 node" if nodes == 1 else f"{nodes} nodes"
    parts = []
    for pool in pools:
        head = next(c for c in commands if c["role"] == pool.name)
        p = pool.placement
        count = f"{p.nodes}×{p.gpus}" if p.nodes > 1 else str(p.gpus)
        parts.append(f"{NAMES[pool.name]} {layout_text(head['argv'])} "
                     f"({device_count(count, ctx.hw)})")
    return f"{where} · PD · {' · '.join(parts)} · {connector} · {ctx.variant_label}"


def pd_notes(ctx: Context, commands: list[Command]) -> list[Note]:
    connector = CONNECTORS[ctx.selection.get(PD_CONNECTOR, next(iter(CONNECTORS)))]
    return [{
        "title": "Start order",
        "body": f"Start the prefill and decode servers (every node of each pool), wait "
                f"until both answer /health, then start the router; clients talk to the "
                f"router. KV cache moves from prefill to decode over {connector.label}.",
    }]
