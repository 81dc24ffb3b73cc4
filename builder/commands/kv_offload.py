"""KV cache offloading (the `kv_offload` selection key): off, host memory, or host memory with
a filesystem tier behind it.

`cpu` is vLLM's native offloading (`--kv-offloading-backend native --kv-offloading-size GiB`);
`fs` adds `TieringOffloadingSpec` with a filesystem secondary tier through the
`OffloadingConnector`'s `--kv-transfer-config`, and a fixed `PYTHONHASHSEED` so block hashes
(the file names) stay the same across restarts. Offered where the recipe's
`kv_offload_support` lists the tier; not with strategies that own the KV connector
(prefill/decode, KV store: see `deploy.py`) nor with those that say `kv_offload: false`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from ..types import Data, Origin
from ..vocabulary import OFF, OFFLOAD_TIERS

__all__ = ["KV_OFFLOAD", "offload_parts", "offload_reason", "offload_volumes"]

KV_OFFLOAD = "kv_offload"
DEFAULTS: dict[str, object] = {
    "cpu_gib": 64,
    "fs_root_dir": "/mnt/vllm-kv-cache",
    "fs_threads": 8,
    "blocks_per_chunk": 16,
}


def _settings(recipe: Data) -> dict[str, object]:
    given = recipe.get("kv_offload") or {}
    return {**DEFAULTS, **{k: v for k, v in given.items() if v is not None}}


def offload_reason(recipe: Data, strategy: Data, owns_connector: bool, tier: str) -> str | None:
    """Why `kv_offload=tier` cannot be picked with `strategy` (`owns_connector`: the strategy's
    deploy type sets its own KV connector)."""
    if tier == OFF:
        return None
    name = OFFLOAD_TIERS[tier].name
    support = (recipe.get("kv_offload_support") or {}).get(OFFLOAD_TIERS[tier].support_key)
    if support is None or support == "unsupported":
        return f"this recipe does not offer {name}"
    if owns_connector:
        return (f"{strategy['display_name']} sets its own KV connector; "
                f"{name} is for single- and multi-node strategies")
    if strategy.get("kv_offload") is False:
        return f"{strategy['display_name']} does not offer KV cache offloading"
    return None


def offload_parts(
    recipe: Data, selection: Mapping[str, str]
) -> tuple[list[str], dict[str, str], Origin]:
    """(args, env, origin) of the selected offload tier."""
    tier = selection.get(KV_OFFLOAD, OFF)
    sized = bool(recipe.get("kv_offload"))
    origin: Origin = {
        "file": recipe.get("file", "recipe") if sized else "builder/commands/kv_offload.py",
        "path": "kv_offload" if sized else f"the {tier} tier's defaults",
        "layer": f"kv_offload: {tier}",
    }
    if tier == OFF:
        return [], {}, origin
    settings = _settings(recipe)
    args = ["--kv-offloading-backend", "native", "--kv-offloading-size", str(settings["cpu_gib"])]
    if tier != "fs":
        return args, {}, origin
    threads = settings["fs_threads"]
    config = {
        "kv_connector": "OffloadingConnector",
        "kv_role": "kv_both",
        "kv_connector_extra_config": {
            "spec_name": "TieringOffloadingSpec",
            "blocks_per_chunk": settings["blocks_per_chunk"],
            "secondary_tiers": [{
                "type": "fs",
                "root_dir": settings["fs_root_dir"],
                "n_read_threads": threads,
                "n_write_threads": threads,
            }],
        },
    }
    args += ["--kv-transfer-config", json.dumps(config, separators=(",", ":"))]
    return args, {"PYTHONHASHSEED": "0"}, origin


def offload_volumes(recipe: Data, selection: Mapping[str, str]) -> list[str]:
    """`docker run -v` mounts the tier needs (the filesystem tier's directory)."""
    if selection.get(KV_OFFLOAD, OFF) != "fs":
        return []
    root = _settings(recipe)["fs_root_dir"]
    return [f"{root}:{root}"]
