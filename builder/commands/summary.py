"""Summaries are read from the argv they describe, never from what a layout meant to do."""

from __future__ import annotations

__all__ = ["device_count", "layout_text", "parallel_sizes"]

SIZE_FLAGS = (("--tensor-parallel-size", "TP"), ("--data-parallel-size", "DP"),
              ("--pipeline-parallel-size", "PP"))


def parallel_sizes(argv: list[str]) -> dict[str, int]:
    """TP/DP/PP sizes a `vllm serve` argv sets (1 when absent)."""
    sizes = {}
    for flag, name in SIZE_FLAGS:
        sizes[name] = int(argv[argv.index(flag) + 1]) if flag in argv else 1
    return sizes


def device_count(count: int | str, hw: dict[str, object]) -> str:
    """"8× H200": a count of the hardware's devices. A display name that already ends in
    its GPU count ("RTX PRO 6000 8×", a fixed box) loses that suffix, so the count is said
    once."""
    name = str(hw["display_name"])
    suffix = f" {hw['gpu_count']}×"
    if name.endswith(suffix):
        name = name[: -len(suffix)]
    return f"{count}× {name}"


def layout_text(argv: list[str]) -> str:
    """"TP8 + DP2 + EP", "TP4", "1 GPU"; expert parallelism from `--enable-expert-parallel`."""
    parts = [f"{name}{size}" for name, size in parallel_sizes(argv).items() if size > 1]
    if "--enable-expert-parallel" in argv:
        parts.append("EP")
    return " + ".join(parts) or "1 GPU"
