"""Measured beats estimated: each measured point beside the estimate of the same layout,
workload and concurrency, and the estimates' error against them.

A measured point has an estimate when the estimates hold a cell of its hardware, its layout
(tensor x data-parallel sizes, one pipeline stage) and a workload of its input and output
tokens (input within WORKLOAD_SLACK: "64K" is 64,000 or 65,536), with a point at its
concurrency. The error of an estimate is (estimated - measured) / measured of tokens/s per
GPU, in percent; `error_line` says how far the estimates were from the points they cover.
"""

from __future__ import annotations

from typing import TypedDict

from .estimates import Estimates, Measured, Point

__all__ = ["WORKLOAD_SLACK", "Comparison", "error_line", "estimate_errors"]

WORKLOAD_SLACK = 0.03
"""How far a workload's input tokens may be from a measured point's and be the same."""


class Comparison(TypedDict):
    measured: Measured
    estimate: Point | None
    """The estimate of the same layout, workload and concurrency (None: none held)."""
    error_pct: float | None
    """(estimated - measured) / measured tokens/s per GPU, in percent."""


def _same_workload(estimates: Estimates, name: str, point: Measured) -> bool:
    load = estimates["workloads"].get(name)
    return (load is not None and load["osl"] == point["osl"]
            and abs(load["isl"] - point["isl"]) <= WORKLOAD_SLACK * point["isl"])


def _estimate(estimates: Estimates, point: Measured) -> Point | None:
    if point["tp"] is None or point["dp"] is None:
        return None
    for cell in estimates["cells"]:
        if (cell["hardware"] == point["hardware"] and cell["tp"] == point["tp"]
                and cell["dp"] == point["dp"] and cell["pp"] == 1
                and _same_workload(estimates, cell["workload"], point)):
            found = [p for p in cell["points"] if p["concurrency"] == point["concurrency"]]
            if found:
                return found[0]
    return None


def estimate_errors(estimates: Estimates | None, measured: list[Measured]
                    ) -> list[Comparison]:
    """Every measured point, with the estimate of its layout, workload and concurrency and
    the estimate's error (None where no estimate is held)."""
    out: list[Comparison] = []
    for point in measured:
        found = _estimate(estimates, point) if estimates is not None else None
        error = None
        if found is not None:
            error = round(100 * (found["tokens_per_s_per_gpu"] - point["tokens_per_s_per_gpu"])
                          / point["tokens_per_s_per_gpu"], 1)
        out.append({"measured": point, "estimate": found, "error_pct": error})
    return out


def error_line(comparisons: list[Comparison]) -> str:
    """"estimates were within ±12% of the 3 measured points (tokens/s per GPU)", or what
    is missing."""
    errors = [c["error_pct"] for c in comparisons if c["error_pct"] is not None]
    total = len(comparisons)
    if not errors:
        return (f"no estimate of the layout and workload of the {total} measured point"
                f"{'s' if total != 1 else ''}: the estimates' error is unknown")
    worst = max(abs(e) for e in errors)
    line = (f"estimates were within ±{worst:.0f}% of the {len(errors)} measured point"
            f"{'s' if len(errors) != 1 else ''} (tokens/s per GPU)")
    if len(errors) < total:
        line += f"; {total - len(errors)} measured point{'s' if total - len(errors) != 1 else ''}"
        line += " have no estimate of their layout" if total - len(errors) != 1 else (
            " has no estimate of its layout")
    return line
