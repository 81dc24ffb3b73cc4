"""Single-node layouts: one `vllm serve` on one node (TP, TEP, DEP)."""

from __future__ import annotations

from .compose import Context, serve_command
from .summary import device_count, layout_text, parallel_sizes
from .types import Command

__all__ = ["render_single_node", "single_node_summary"]


def render_single_node(ctx: Context) -> list[Command]:
    args = ctx.base_options()
    size, origin = ctx.parallel_size()
    args.set(origin, ctx.strategy["parallel_flag"], str(size))
    ctx.apply_overrides(args)
    ctx.apply_features(args)
    return [serve_command(ctx, "serve", args, port=ctx.port(args))]


def single_node_summary(ctx: Context, commands: list[Command]) -> str:
    argv = commands[0]["argv"]
    gpus = 1
    for size in parallel_sizes(argv).values():
        gpus *= size
    return (f"{device_count(gpus, ctx.hw)} · {ctx.strategy['short_label']} "
            f"({layout_text(argv)}) · {ctx.variant_label}")
