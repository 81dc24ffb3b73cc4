"""Servers that span several nodes: one `vllm serve` per node, the first one the head.

The same placement serves the multi-node strategies and each pool of a prefill/decode
cluster. Layouts (N nodes, G GPUs used on each):

- `tp` / `tep`: tensor parallel over every GPU, `--tensor-parallel-size N×G`;
- `tp_pp`: tensor parallel inside a node, pipeline parallel across nodes (`--tensor-parallel-size
  G --pipeline-parallel-size N`);
- `dep`: one data-parallel rank per GPU, `--data-parallel-size N×G`, experts over all of them;
- `tp_dp`: one data-parallel rank of TP G per node, `--data-parallel-size N` (MoE models add
  expert parallelism over all of them).

TP and PP across nodes use vLLM's multiprocessing launcher (`--nnodes`, `--node-rank`,
`--master-addr`); data parallelism uses `--data-parallel-size-local`, `--data-parallel-address`,
`--data-parallel-rpc-port` and, past the head, `--data-parallel-start-rank`. Every node but the
head runs `--headless` (no API server, so no `--port`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..arglist import ArgList
from ..env import EnvMap
from ..types import Command
from .compose import Context, builder_origin, serve_command
from .summary import device_count, layout_text

__all__ = ["DP_RPC_PORT", "RANK_FLAGS", "Placement", "multi_node_summary", "placement_args",
           "render_multi_node", "server_commands", "size_args"]

DP_RPC_PORT = 13345
HEAD_IP = "$HEAD_IP"
RANK_FLAGS = ("--node-rank", "--data-parallel-start-rank")
"""The options `placement_args` gives a value that is the node's rank times a step (1, or
the data-parallel ranks per node): the only words that differ between worker nodes, so one
template fills them in from the rank (a Kubernetes LeaderWorkerSet, `deploy_files.py`)."""


@dataclass(frozen=True)
class Placement:
    """How one vLLM server is laid out over nodes and GPUs."""

    layout: str
    """tp, tep, dep, tp_dp or tp_pp."""
    nodes: int
    gpus: int
    """GPUs used on each node."""
    address: str = HEAD_IP
    """How the other nodes reach the head (a shell variable)."""
    rpc_port: int = DP_RPC_PORT
    devices: tuple[int, ...] | None = None
    """Device ids on a shared node (sets the brand's visible-devices variable)."""

    @property
    def dp_local(self) -> int:
        """Data-parallel ranks on each node (0 without data parallelism)."""
        if self.layout == "dep":
            return self.gpus
        if self.layout == "tp_dp":
            return 1
        return 0


def size_args(placement: Placement) -> list[str]:
    """The parallel sizes of the server (the same on every node)."""
    n, g = placement.nodes, placement.gpus
    if placement.layout in ("tp", "tep"):
        return ["--tensor-parallel-size", str(n * g)]
    if placement.layout == "tp_pp":
        return ["--tensor-parallel-size", str(g), "--pipeline-parallel-size", str(n)]
    if placement.layout == "dep":
        return ["--data-parallel-size", str(n * g)]
    if placement.layout == "tp_dp":
        return ["--tensor-parallel-size", str(g), "--data-parallel-size", str(n)]
    raise ValueError(f"unknown layout {placement.layout!r}")


def placement_args(placement: Placement, rank: int) -> list[str]:
    """What tells node `rank` where it sits (nothing on a single node)."""
    if placement.nodes == 1:
        return []
    if placement.dp_local:
        args = [
            "--data-parallel-size-local", str(placement.dp_local),
            "--data-parallel-address", placement.address,
            "--data-parallel-rpc-port", str(placement.rpc_port),
        ]
        if rank:
            args += ["--data-parallel-start-rank", str(rank * placement.dp_local)]
    else:
        args = [
            "--nnodes", str(placement.nodes),
            "--node-rank", str(rank),
            "--master-addr", placement.address,
        ]
    return [*args, "--headless"] if rank else args


def server_commands(
    ctx: Context,
    args: ArgList,
    placement: Placement,
    *,
    role: str,
    worker_role: str,
    label: str,
    worker_label: str,
    env: EnvMap,
    port: int,
) -> list[Command]:
    """One command per node: the head with `args` and `--port`, the workers headless.

    `label` and `worker_label` are formatted with `{rank}`, `{nodes}` and `{port}`.
    """
    commands = []
    full_env = env.copy()
    if placement.devices is not None and ctx.brand.get("visible_devices_env"):
        full_env.set(ctx.brand["visible_devices_env"], ",".join(map(str, placement.devices)),
                     builder_origin(__name__, "the pool's devices on a shared node",
                                    "placement"))
    where = builder_origin(__name__, "where this node sits in the server", "placement")
    for rank in range(placement.nodes):
        node_args = args.copy()
        if rank:
            node_args.remove("--port")
        node_args.extend(placement_args(placement, rank), where)
        fields = {"rank": rank, "nodes": placement.nodes, "port": port}
        commands.append(serve_command(
            ctx,
            worker_role if rank else role,
            node_args,
            label=(worker_label if rank else label).format(**fields),
            port=None if rank else port,
            env=full_env,
        ))
    return commands


def render_multi_node(ctx: Context) -> list[Command]:
    """A multi-node strategy: the head on node 0, one headless worker per other node."""
    gpus, origin = ctx.parallel_size()
    placement = Placement(ctx.strategy["layout"], ctx.nodes, gpus)
    args = ctx.base_options()
    args.extend(size_args(placement), origin)
    if placement.layout == "tp_dp" and ctx.model["architecture"] == "moe":
        args.set(builder_origin(__name__, "TP×DP of a MoE model spreads the experts over "
                                "every rank", "placement"), "--enable-expert-parallel")
    ctx.apply_overrides(args)
    ctx.apply_features(args)
    ctx.apply_strategy_removals(args)
    return server_commands(
        ctx, args, placement,
        role="head", worker_role="worker",
        label="Node 0 (head)", worker_label="Node {rank} (worker)",
        env=ctx.env(), port=ctx.port(args),
    )


def multi_node_summary(ctx: Context, commands: list[Command]) -> str:
    argv = commands[0]["argv"]
    gpus = ctx.nodes * ctx.parallel_size()[0]
    return (f"{ctx.nodes} nodes · {device_count(gpus, ctx.hw)} · "
            f"{ctx.strategy['short_label']} ({layout_text(argv)}) · {ctx.variant_label}")
