"""Checks of what a recipe offers, read from the recipe as published (as the builder reads it):

- verified hardware is not marked unsupported; every variant runs somewhere; a variant does
  not list hardware its precision cannot run on (NVFP4/FP4 outside Blackwell) unless
  `precision_hardware` says so; the default hardware runs the default variant;
- a strategy granted in `strategy_hardware` is in `strategies`; prefill/decode is offered
  only where `pd` gives its layout;
- prefill/decode pools, merged per hardware, fit the hardware: devices that exist and do not
  overlap, distinct ports on a shared node, and a KV transfer config that names its connector.
"""

from __future__ import annotations

from typing import Any

from builder.commands.offering import precision_keys, variant_runs_on
from builder.commands.pd import pd_settings
from builder.commands.selection import recipe_strategies, strategy_reason
from builder.hardware_keys import matching

from .check_problems import Problems
from .schema import HardwareCatalog, Recipe, Strategy

__all__ = ["check_offering", "check_pd_pools", "check_strategies"]

Data = dict[str, Any]


def _key_name(hardware: HardwareCatalog, key: str) -> str:
    """A hardware key's display name (the key itself for `all` and `arch:` keys)."""
    for names in (hardware.hardware, hardware.generations, hardware.brands):
        if key in names:
            return names[key].display_name
    return key


def check_offering(recipe: Recipe, hardware: HardwareCatalog, catalog: Data, data: Data,
                   problems: Problems) -> None:
    """Verified hardware is offered, each variant runs somewhere and only where its
    precision runs, and the default hardware runs the default variant."""
    r = recipe
    published = catalog["hardware"]
    for index, hw_id in enumerate(r.verified):
        if r.hardware.get(hw_id) == "unsupported":
            problems.add(("verified", index), f"{hw_id!r} is verified but `hardware` marks it "
                                              "unsupported")
    for vid, variant in data["variants"].items():
        keys = precision_keys(variant)
        own = variant.get("hardware") or []
        if keys is not None and variant.get("precision_hardware") is None:
            for index, key in enumerate(own):
                named = matching([key], published)
                if named and not matching(keys, {h: published[h] for h in named}):
                    where = ", ".join(_key_name(hardware, k) for k in keys)
                    problems.add(("variants", vid, "hardware", index),
                                 f"{key!r}: {variant['precision'].upper()} weights run on "
                                 f"{where} only; set precision_hardware to offer them "
                                 "elsewhere")
        if not any(variant_runs_on(catalog, data, vid, h) for h in published):
            problems.add(("variants", vid), "this variant runs on no hardware (its `hardware`, "
                                            "its precision and the recipe's `hardware` exclude "
                                            "everything)")
    wanted = r.default_hardware
    if wanted and wanted in published and not variant_runs_on(catalog, data, "default",
                                                               wanted):
        problems.add(("default_hardware",), f"the default variant does not run on {wanted!r}")


def check_strategies(recipe: Recipe, strategies: dict[str, Strategy], catalog: Data,
                     data: Data, problems: Problems) -> None:
    """A strategy granted in `strategy_hardware` is offered; prefill/decode, when offered,
    has a `pd` layout on every hardware a variant runs on (or is refused there)."""
    r = recipe
    offered = recipe_strategies(catalog, data)
    for sid, mapping in r.strategy_hardware.items():
        if sid not in offered and any(v != "unsupported" for v in mapping.values()):
            problems.add(("strategy_hardware", sid), f"grants {sid} on some hardware, but "
                                                     f"`strategies` does not offer {sid}")
    if "pd_cluster" not in offered or "pd_cluster" not in strategies:
        return
    missing = []
    for hw_id in catalog["hardware"]:
        if any(variant_runs_on(catalog, data, vid, hw_id) for vid in data["variants"]):
            vid = next(v for v in data["variants"] if variant_runs_on(catalog, data, v, hw_id))
            reason = strategy_reason(catalog, data, hw_id, vid, "pd_cluster")
            if reason and "gives no prefill/decode layout" in reason:
                missing.append(hw_id)
    if missing:
        loc = ("strategies", offered.index("pd_cluster")) if r.strategies else ("strategies",)
        problems.add(loc, f"pd_cluster is offered but `pd` gives no layout for "
                          f"{', '.join(missing)} (add `pd` settings for them, or mark "
                          "pd_cluster unsupported there in strategy_hardware)")


def check_pd_pools(recipe: Recipe, catalog: Data, data: Data, problems: Problems) -> None:
    """Pools, merged per hardware as the builder merges them, must fit the hardware:
    devices that exist and do not overlap, distinct ports on a shared node, and a KV
    transfer config that names its connector."""
    for key, settings in recipe.pd.items():
        for cid, connector in (settings.connectors or {}).items():
            config = connector.kv_transfer_config
            if config is not None and "kv_connector" not in config:
                problems.add(("pd", key, "connectors", cid, "kv_transfer_config"),
                             "names no kv_connector")
    seen: set[tuple[tuple[Any, ...], str]] = set()
    for hw_id, hw in catalog["hardware"].items():
        for loc, message in _pool_problems(data, hw_id, hw):
            text = f"{message} (pools merged for {hw_id})"
            if (loc, message) not in seen:  # one report for all hardware a key covers
                seen.add((loc, message))
                problems.add(loc, text)


def _pool_problems(data: Data, hw_id: str, hw: Data) -> list[tuple[tuple[Any, ...], str]]:
    """(loc, message) of each way the pools merged for one hardware do not fit it."""
    merge = pd_settings(data, hw_id, hw)
    pools = {n: merge.values[n] for n in ("prefill", "decode") if n in merge.values}
    used: dict[int, str] = {}
    found: list[tuple[tuple[Any, ...], str]] = []
    for name, pool in pools.items():
        gpus = pool.get("gpus_per_node")
        where = ("pd", merge.where.get(f"{name}.gpus_per_node", "?"), name)
        if gpus is not None and gpus > hw["gpu_count"]:
            found.append(((*where, "gpus_per_node"),
                          f"{gpus} but {hw_id} has {hw['gpu_count']} GPUs"))
        devices_at = ("pd", merge.where.get(f"{name}.devices", "?"), name, "devices")
        for device in pool.get("devices") or []:
            if device >= hw["gpu_count"]:
                found.append((devices_at, f"{device} does not exist on {hw_id} "
                                          f"({hw['gpu_count']} GPUs)"))
            elif device in used:
                found.append((devices_at, f"{device} is also a {used[device]} device"))
            used[device] = name
    with_devices = [n for n, pool in pools.items() if pool.get("devices")]
    if len(with_devices) == 1:
        name = with_devices[0]
        found.append((("pd", merge.where[f"{name}.devices"], name, "devices"),
                      f"only {name} names devices; name both pools' devices to share a "
                      "node, or neither"))
    if len(with_devices) == 2:
        ports = [pools[n].get("port", d) for n, d in (("prefill", 8000), ("decode", 8001))]
        if ports[0] == ports[1]:
            found.append((("pd", merge.where.get("decode.port", "?"), "decode", "port"),
                          f"both pools share a node and port {ports[0]}"))
    return found
