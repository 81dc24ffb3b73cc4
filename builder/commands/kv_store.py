"""KV-store strategies: several vLLM instances share one Mooncake store, behind `vllm-router`.

One instance per node (`nodes` of them), each a single-node server with the strategy's
parallel flag, connected with vLLM's `MooncakeStoreConnector`. Node 0 also runs the Mooncake
master (and, centralized, the store process that owns the pool) and the router. Every node
writes the same `mooncake_config.json`, which the connector reads from `MOONCAKE_CONFIG_PATH`:

- centralized: one `mooncake_client` on node 0 holds the whole pool; the instances join in
  `standalone-store` mode and contribute no memory (`global_segment_size` 0);
- distributed: every instance contributes host memory per GPU (`embedded` mode), so the pool
  grows with the number of instances.

Node addresses are shell variables (`$NODE0_IP`, `$NODE1_IP`, ...); `PYTHONHASHSEED` is fixed
so every instance names blocks alike.
"""

from __future__ import annotations

import json
import math

from ..arglist import ArgList
from ..types import Command
from ..vocabulary import COMPANIONS
from .compose import Context, builder_origin, serve_command, tool_command
from .router import router_command
from .summary import device_count, layout_text, parallel_sizes

__all__ = ["CONFIG_PATH", "kv_store_summary", "kv_store_volumes", "render_kv_store"]

MASTER_PORT = 50051
STORE_PORT = 50052
CONFIG_PATH = "/tmp/mooncake_config.json"
STORE_CONNECTOR = {"kv_connector": "MooncakeStoreConnector", "kv_role": "kv_both"}
ROUTER_PORT = COMPANIONS["router"].port
CENTRAL_POOL = "512GB"
"""Host memory the centralized store process contributes."""
SEGMENT_PER_GPU = "32GB"
"""Host memory each GPU's rank contributes in the distributed store."""
LOCAL_BUFFER = "4GB"


def _address(node: int) -> str:
    return f"$NODE{node}_IP"


def _centralized(ctx: Context) -> bool:
    return ctx.strategy["layout"] == "kv_store_centralized"


def _config(ctx: Context) -> dict[str, object]:
    central = _centralized(ctx)
    return {
        "mode": "standalone-store" if central else "embedded",
        "metadata_server": "P2PHANDSHAKE",
        "master_server_address": f"{_address(0)}:{MASTER_PORT}",
        "global_segment_size": 0 if central else SEGMENT_PER_GPU,
        "local_buffer_size": LOCAL_BUFFER,
        "protocol": "rdma",
        "device_name": "",
    }


def render_kv_store(ctx: Context) -> list[Command]:
    commands = [tool_command(
        "master", ["mooncake_master", "--port", str(MASTER_PORT)],
        label="Node 0: Mooncake master", port=MASTER_PORT,
    )]
    body = json.dumps(_config(ctx), indent=2)
    script = f"cat > {CONFIG_PATH} <<EOF\n{body}\nEOF"
    commands.append(tool_command(
        "config", ["sh", "-c", script],
        label=f"Every node: write {CONFIG_PATH}", head_len=3,
    ))
    if _centralized(ctx):
        commands.append(tool_command(
            "store",
            ["mooncake_client",
             "--host", _address(0),
             "--port", str(STORE_PORT),
             "--global_segment_size", CENTRAL_POOL,
             "--master_server_address", f"{_address(0)}:{MASTER_PORT}",
             "--metadata_server", "P2PHANDSHAKE",
             "--protocol", "rdma"],
            label="Node 0: Mooncake store (holds the pool)", port=STORE_PORT,
        ))
    args = ctx.base_options()
    size, origin = ctx.parallel_size()
    args.set(origin, ctx.strategy["parallel_flag"], str(size))
    ctx.apply_overrides(args)
    ctx.apply_features(args)
    ctx.apply_strategy_removals(args)
    store = builder_origin(__name__, "every instance joins the Mooncake store", "kv store")
    args.set(store, "--kv-transfer-config", STORE_CONNECTOR)
    port = ctx.port(args)
    env = ctx.env()
    env.update({"MOONCAKE_CONFIG_PATH": CONFIG_PATH, "PYTHONHASHSEED": "0"}, store)
    for node in range(ctx.nodes):
        commands.append(serve_command(
            ctx, "serve", args, label=f"Node {node}: vLLM instance (port {port})",
            port=port, env=env,
        ))
    urls = [f"http://{_address(node)}:{port}" for node in range(ctx.nodes)]
    router = ArgList()
    router.extend(["--policy", "round_robin", "--worker-urls", *urls,
                   "--host", "0.0.0.0", "--port", str(ROUTER_PORT)],
                  builder_origin(__name__, "the router in front of the instances", "router"))
    commands.append(router_command(router, port=ROUTER_PORT,
                                   label=f"Node 0: router (port {ROUTER_PORT})"))
    return commands


def kv_store_summary(ctx: Context, commands: list[Command]) -> str:
    """Read from an instance's argv: its layout ("TP8 + DP2") and the GPUs it uses."""
    argv = next(c for c in commands if c["argv"][:2] == ["vllm", "serve"])["argv"]
    layout = layout_text(argv)
    engine = "vLLM" if layout == "1 GPU" else f"vLLM {layout}"
    gpus = math.prod(parallel_sizes(argv).values())
    kind = "centralized" if _centralized(ctx) else "distributed"
    return (f"{ctx.nodes} nodes · {ctx.strategy['short_label']} · {ctx.nodes}× {engine} "
            f"({device_count(gpus, ctx.hw)} each) + Mooncake {kind} store · "
            f"{ctx.variant_label}")


def kv_store_volumes(ctx: Context) -> list[str]:
    """The config file, mounted where `MOONCAKE_CONFIG_PATH` points inside the container."""
    return [f"{CONFIG_PATH}:{CONFIG_PATH}"]
