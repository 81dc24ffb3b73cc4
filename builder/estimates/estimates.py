"""A model's performance estimates and measured points, as the loader hands them over, and
what one selection reads of them.

A recipe's `performance` (None when it has neither) is

    estimates   the JSON form of `recipes/performance/<org>/<repo>.json` (`Estimates`): the
                tool that made it (`source`), the workloads (input and output tokens), the
                default workload, and one cell per hardware x variant x strategy x layout
                (GPUs, tensor, pipeline, data and expert parallel sizes) x workload, each with
                the label its figures are shown with and a ladder of concurrencies (`points`)
    measured    points from real runs (`Measured`), each with its source
    missing     variant -> hardware id -> why it has no estimate (the coverage's word)
    measured_note  why the measured points have no estimate beside them, when none has

The estimate of a selection is the cell of its hardware, variant and the layout of its
command (tensor- x data-parallel sizes, one pipeline stage) at the default workload; the
point a reader is shown first is the balanced one (`balanced_point`): the most concurrent
users at which each still gets at least half the speed one user alone gets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

__all__ = ["BALANCED_SHARE", "Cell", "Estimates", "Measured", "Point",
           "Source", "Workload", "balanced_point", "cell_for", "cells_for", "default_workload",
           "estimate_line", "estimates_of", "layout_text", "measured_of", "number", "point_text"]

BALANCED_SHARE = 0.5
"""The balanced point keeps each user at least this share of one user's speed."""


class Source(TypedDict):
    tool: str
    version: str
    core_version: str
    backend: str
    database_version: NotRequired[str]
    label: NotRequired[str]
    """What every estimate is shown with, when every cell's label is the same."""


class Workload(TypedDict):
    isl: int
    """Input tokens per request."""
    osl: int
    """Output tokens per request."""


class Point(TypedDict):
    concurrency: int
    """Requests in flight at once, over all the layout's replicas."""
    ttft_ms: float
    tpot_ms: float
    tokens_per_s_per_gpu: float
    tokens_per_s_per_user: float
    memory_gb: float


class Cell(TypedDict):
    hardware: str
    system: str
    variant: str
    strategy: str
    checkpoint: str
    gpus: int
    tp: int
    pp: int
    dp: int
    ep: int
    weights: str
    kv_cache: str
    kv_cache_dtype: str
    moe_weights: NotRequired[str]
    database_version: str
    label: str
    """What this cell's figures are shown with ("estimated by NVIDIA AIConfigurator ...")."""
    workload: str
    points: list[Point]


class Estimates(TypedDict):
    model: str
    source: Source
    workloads: dict[str, Workload]
    default_workload: str
    cells: list[Cell]


class Measured(TypedDict):
    """A point measured on real hardware (`recipes/deployments/...`'s performance table)."""

    hardware: str
    gpus: int
    tp: int | None
    """None where the layout is not one `vllm serve` (prefill/decode disaggregated)."""
    dp: int | None
    layout: str
    """How the measured deployment was laid out, as its source says."""
    workload: str
    isl: int
    osl: int
    concurrency: int
    tokens_per_s_per_gpu: float
    tokens_per_s_per_user: float
    ttft_ms: float
    source: str
    """Who measured it and where the figures are held."""


def estimates_of(recipe: Mapping[str, Any]) -> Estimates | None:
    """The recipe's estimates (None when it has none)."""
    performance = recipe.get("performance") or {}
    estimates: Estimates | None = performance.get("estimates")
    return estimates


def measured_of(recipe: Mapping[str, Any]) -> list[Measured]:
    performance = recipe.get("performance") or {}
    return list(performance.get("measured") or [])


def default_workload(estimates: Estimates) -> str:
    return estimates["default_workload"]


def cells_for(estimates: Estimates, hw_id: str, variant_id: str, *, gpus: int | None = None,
              workload: str | None = None, strategy: str | None = None) -> list[Cell]:
    """The cells of a hardware and variant (of `gpus` GPUs, at `workload`, for `strategy`,
    when given), in the file's order."""
    return [cell for cell in estimates["cells"]
            if cell["hardware"] == hw_id and cell["variant"] == variant_id
            and (gpus is None or cell["gpus"] == gpus)
            and (workload is None or cell["workload"] == workload)
            and (strategy is None or cell["strategy"] == strategy)]


def cell_for(estimates: Estimates, hw_id: str, variant_id: str, strategy: str, tp: int,
             dp: int, workload: str | None = None) -> Cell | None:
    """The cell of one layout of `strategy` (`tp` x `dp` GPUs, one pipeline stage) at
    `workload` (the default workload when None)."""
    wanted = workload or default_workload(estimates)
    return next((cell for cell in cells_for(estimates, hw_id, variant_id, gpus=tp * dp,
                                            workload=wanted, strategy=strategy)
                 if cell["tp"] == tp and cell["dp"] == dp and cell["pp"] == 1), None)


def balanced_point(points: Sequence[Point]) -> Point:
    """The most users at which each still gets BALANCED_SHARE of one user's speed (the
    lowest concurrency's)."""
    ordered = sorted(points, key=lambda p: p["concurrency"])
    floor = ordered[0]["tokens_per_s_per_user"] * BALANCED_SHARE
    kept = [p for p in ordered if p["tokens_per_s_per_user"] >= floor]
    return kept[-1]


def number(value: float) -> str:
    """A figure as the page shows it: thousands separated, no decimals from 10 on."""
    return f"{value:,.0f}" if value >= 10 else f"{value:.3g}"


def point_text(point: Point) -> str:
    """"4,119 tokens/s per GPU at 32 users, 130 tokens/s per user, TTFT 89 ms"."""
    users = point["concurrency"]
    return (f"{number(point['tokens_per_s_per_gpu'])} tokens/s per GPU at {users} "
            f"user{'s' if users != 1 else ''}, {number(point['tokens_per_s_per_user'])} "
            f"tokens/s per user, TTFT {number(point['ttft_ms'])} ms")


def layout_text(tp: int, dp: int) -> str:
    """"TP 4 × 1 replica"."""
    return f"TP {tp} × {dp} replica{'s' if dp != 1 else ''}"


def workload_text(estimates: Estimates, name: str) -> str:
    """"chat 1K/1K"."""
    load = estimates["workloads"][name]
    return f"{name.replace('_', ' ')} {_tokens(load['isl'])}/{_tokens(load['osl'])}"


def _tokens(count: int) -> str:
    return f"{count // 1024}K" if count % 1024 == 0 else f"{count:,}"


def estimate_line(estimates: Estimates, point: Point, workload: str) -> str:
    """The line beside the fit line: "est. 4,119 tokens/s per GPU at 32 users, ... (chat
    1K/1K)"."""
    return f"est. {point_text(point)} ({workload_text(estimates, workload)})"
