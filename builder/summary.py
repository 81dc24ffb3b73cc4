"""Summaries are read from the argv they describe, never from what a layout meant to do."""

from __future__ import annotations

__all__ = ["layout_text", "parallel_sizes"]

SIZE_FLAGS = (("--tensor-parallel-size", "TP"), ("--data-parallel-size", "DP"),
              ("--pipeline-parallel-size", "PP"))


def parallel_sizes(argv: list[str]) -> dict[str, int]:
    """TP/DP/PP sizes a `vllm serve` argv sets (1 when absent)."""
    sizes = {}
    for flag, name in SIZE_FLAGS:
        sizes[name] = int(argv[argv.index(flag) + 1]) if flag in argv else 1
    return sizes


def layout_text(argv: list[str]) -> str:
    """"TP8 + DP2 + EP", "TP4", "1 GPU"; expert parallelism from `--enable-expert-parallel`."""
    parts = [f"{name}{size}" for name, size in parallel_sizes(argv).items() if size > 1]
    if "--enable-expert-parallel" in argv:
        parts.append("EP")
    return " + ".join(parts) or "1 GPU"
