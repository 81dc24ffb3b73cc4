"""Single-node layouts: one `vllm serve` on one node (TP, TEP, DEP)."""

from __future__ import annotations

from .compose import Context, serve_command
from .types import Command

__all__ = ["render_single_node"]


def render_single_node(ctx: Context) -> list[Command]:
    args = ctx.base_options()
    args.set(ctx.strategy["parallel_flag"], str(ctx.parallel_size()))
    ctx.apply_overrides(args)
    ctx.apply_features(args)
    return [serve_command(ctx, "serve", args, port=ctx.port(args))]
