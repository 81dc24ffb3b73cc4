"""Single-node layouts: one `vllm serve` on one node (TP, TEP, DEP, DPA+TP), and the
strategy's companion beside it when it names one (a router in front: see `router.py`).

The engine's options: the layers of `compose.py`, then the strategy's `remove_args` (so a
strategy that must not run expert parallelism drops it whatever the recipe's layers set).
"""

from __future__ import annotations

from ..arglist import ArgList
from ..types import Command
from ..vocabulary import COMPANIONS
from .compose import Context, builder_origin, serve_command
from .router import companion_command
from .summary import device_count, layout_text, parallel_sizes

__all__ = ["engine_args", "render_single_node", "single_node_summary"]


def render_single_node(ctx: Context) -> list[Command]:
    args = engine_args(ctx)
    port = ctx.port(args)
    companion = ctx.strategy.get("companion")
    if not companion:
        return [serve_command(ctx, "serve", args, port=port)]
    engine = serve_command(ctx, "serve", args, label=f"vLLM engine (port {port})", port=port)
    helper = companion_command(ctx, args, port)
    return [engine, helper] if companion.get("start", "after") == "after" else [helper, engine]


def engine_args(ctx: Context) -> ArgList:
    """The options of the engine's `vllm serve` (its layout among them: see
    `builder.performance.layouts`)."""
    args = ctx.base_options()
    size, origin = ctx.parallel_size()
    args.set(origin, ctx.strategy["parallel_flag"], str(size))
    replicas = ctx.replicas(size)
    if replicas > 1:
        args.set(builder_origin("builder.commands.fit", (
            f"the {ctx.gpus} GPUs asked for beyond one group of {size} serve as "
            f"{replicas} data-parallel replicas"), "parallel size"),
            "--data-parallel-size", str(replicas))
    ctx.apply_overrides(args)
    ctx.apply_features(args)
    plan = ctx.plan
    if plan is not None and plan.capped:
        args.set(builder_origin("builder.commands.fit", (
            f"fit rule: context capped at {plan.max_model_len:,} of {plan.context:,} to fit "
            f"{plan.tp}× {ctx.hw['display_name']}"), "fit"),
            "--max-model-len", str(plan.max_model_len))
    ctx.apply_strategy_removals(args)
    return args


def single_node_summary(ctx: Context, commands: list[Command]) -> str:
    argv = next(c for c in commands if c["role"] == "serve")["argv"]
    gpus = 1
    for size in parallel_sizes(argv).values():
        gpus *= size
    companion = ctx.strategy.get("companion")
    behind = f" + {COMPANIONS[companion['role']].label}" if companion else ""
    return (f"{device_count(gpus, ctx.hw)} · {ctx.strategy['short_label']} "
            f"({layout_text(argv)}){behind} · {ctx.variant_label}")
