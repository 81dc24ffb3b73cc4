"""The `performance` of a rendering, and the per-model GPU comparison.

`performance_json` is what every rendering carries (the page, `--json`, the site's files):

    estimated   whether an estimate covers the command's layout
    line        "est. 4,119 tokens/s per GPU at 32 users, ..." (the balanced point of the
                default workload, or the profile's pick), or "no estimate ..." with why
    source      the estimate's source (tool, versions, the cell's database and the label its
                figures are shown with); None without an estimate
    workload    the default workload, its input and output tokens
    layout      the estimated layout (GPUs, TP, PP, DP, EP, formats) and `point` its figures
    curves      (full renderings) the layout's points for every workload
    profile     what a latency or throughput profile picked, and why; the settings it
                tunes (`tunes`) and the scheduler settings it leaves alone, with why
                (`not_modelled`)
    measured    the measured points on this hardware, each with its source and the estimate
                of the same layout, workload and concurrency beside it (`measured.py`)
    errors      the estimates' error against the measured points, in a line

Only a single-node command (one `vllm serve` on one node) has an estimate: the estimates are
of one server's layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .estimates import (
    Point,
    balanced_point,
    cell_for,
    default_workload,
    estimate_line,
    estimates_of,
    layout_text,
    measured_of,
    number,
)
from .measured import Comparison, error_line, estimate_errors
from .profiles import NOT_MODELLED, TUNES, Pick

__all__ = ["LAYOUT_KEYS", "comparison_line", "gpu_comparison", "no_estimate", "performance_json",
           "summary_line"]


LAYOUT_KEYS = ("gpus", "tp", "pp", "dp", "ep", "weights", "kv_cache", "checkpoint", "system",
               "strategy", "kv_cache_dtype")
"""What a rendering's `performance.layout` holds of its cell."""


def no_estimate(recipe: Mapping[str, Any], hw: Mapping[str, Any], hw_id: str,
                variant_id: str, why: str = "") -> str:
    """"no estimate for BF16 on MI355X: AIConfigurator models NVIDIA GPUs only" (`why`,
    else the reason we know)."""
    missing = (recipe.get("performance") or {}).get("missing") or {}
    reason = why or missing.get(variant_id, {}).get(hw_id) or (
        "no estimates for this model (recipes/performance/COVERAGE.md)"
        if estimates_of(recipe) is None else "")
    variant = recipe["variants"][variant_id]
    line = f"no estimate for {variant.get('label') or variant_id} on {hw['display_name']}"
    return f"{line}: {reason}" if reason else line


def _compared(comparisons: list[Comparison]) -> list[dict[str, Any]]:
    return [{**c["measured"], "estimate": c["estimate"], "error_pct": c["error_pct"]}
            for c in comparisons]


def performance_json(recipe: Mapping[str, Any], hw: Mapping[str, Any],
                     selection: Mapping[str, str], sizes: Mapping[str, int] | None,
                     chosen: Pick | None, *, full: bool = True) -> dict[str, Any]:
    """A rendering's `performance` (see the module docstring). `sizes`: the TP, DP and PP
    sizes of the command's one `vllm serve` on one node (None for other layouts); `chosen`:
    the profile's pick."""
    hw_id, variant_id = selection["hardware"], selection["variant"]
    estimates = estimates_of(recipe)
    measured = [m for m in measured_of(recipe) if m["hardware"] == hw_id]
    comparisons = estimate_errors(estimates, measured)
    errors = None
    if comparisons:
        note = (recipe.get("performance") or {}).get("measured_note")
        errors = (f"no estimate beside the measured points: {note.removeprefix('none: ')}"
                  if note and all(c["estimate"] is None for c in comparisons)
                  else error_line(comparisons))
    out: dict[str, Any] = {
        "estimated": False, "line": "", "source": None, "workload": None, "layout": None,
        "point": None, "profile": None, "measured": _compared(comparisons), "errors": errors,
    }
    if full:
        out["curves"] = None
    if estimates is not None:
        workload = default_workload(estimates)
        out["workload"] = {"name": workload, **estimates["workloads"][workload]}
    if estimates is None or sizes is None:
        why = "" if sizes is not None or estimates is None else (
            "the estimates are of one server on one node")
        out["line"] = no_estimate(recipe, hw, hw_id, variant_id, why)
        return out
    strategy = selection["strategy"]
    cell = (cell_for(estimates, hw_id, variant_id, strategy, sizes["TP"], sizes["DP"])
            if sizes["PP"] == 1 else None)
    if cell is None or not cell["points"]:
        layout = layout_text(sizes["TP"], sizes["DP"])
        out["line"] = no_estimate(recipe, hw, hw_id, variant_id,
                                  f"no estimate of {layout}" if cells_held(
                                      recipe, hw_id, variant_id) else "")
        return out
    point: Point = chosen.point if chosen is not None else balanced_point(cell["points"])
    out.update({
        "estimated": True,
        "source": {**estimates["source"], "database_version": cell["database_version"],
                   "label": cell["label"]},
        "line": estimate_line(estimates, point, cell["workload"]),
        "layout": {key: value for key, value in cell.items() if key in LAYOUT_KEYS},
        "point": point,
        "profile": ({"name": chosen.profile, "why": chosen.why,
                     "max_num_seqs": chosen.max_num_seqs, "tunes": list(TUNES),
                     "not_modelled": dict(NOT_MODELLED)} if chosen is not None else None),
    })
    if full:
        curves = {}
        for name, load in estimates["workloads"].items():
            found = cell_for(estimates, hw_id, variant_id, strategy, sizes["TP"], sizes["DP"],
                             name)
            if found is not None:
                curves[name] = {**load, "points": sorted(
                    found["points"], key=lambda p: p["concurrency"])}
        out["curves"] = curves
    return out


def cells_held(recipe: Mapping[str, Any], hw_id: str, variant_id: str) -> bool:
    estimates = estimates_of(recipe)
    return estimates is not None and any(
        c["hardware"] == hw_id and c["variant"] == variant_id for c in estimates["cells"])


def gpu_comparison(catalog: Mapping[str, Any], recipe: Mapping[str, Any],
                   performances: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Which GPU for this model: for each hardware whose default command has an estimate
    (`performances`: hardware id → that rendering's `performance`), its layout and balanced
    point at the default workload, most tokens/s per GPU first."""
    rows = []
    for hw_id, perf in performances.items():
        if not perf.get("estimated") or perf.get("profile"):
            continue
        layout, point = perf["layout"], perf["point"]
        rows.append({
            "hardware": hw_id,
            "display_name": catalog["hardware"][hw_id]["display_name"],
            "gpus": layout["gpus"], "tp": layout["tp"], "dp": layout["dp"],
            "concurrency": point["concurrency"],
            "tokens_per_s_per_gpu": point["tokens_per_s_per_gpu"],
            "tokens_per_s_per_user": point["tokens_per_s_per_user"],
            "ttft_ms": point["ttft_ms"],
            "label": perf["source"]["label"],
        })
    rows.sort(key=lambda r: (-r["tokens_per_s_per_gpu"], r["hardware"]))
    return rows


def comparison_line(row: Mapping[str, Any]) -> str:
    """"H200: 1× (TP 1 × 1 replica), 4,119 tokens/s per GPU, 130 tokens/s per user at 32
    users"."""
    return (f"{row['display_name']}: {row['gpus']}× ({layout_text(row['tp'], row['dp'])}), "
            f"{number(row['tokens_per_s_per_gpu'])} tokens/s per GPU, "
            f"{number(row['tokens_per_s_per_user'])} tokens/s per user at "
            f"{row['concurrency']} users")


def summary_line(performance: Mapping[str, Any]) -> str:
    """The performance in one line (the command line's stderr, the page's line beside the
    fit): the profile's why, the estimate with its source's label, the measured points; or
    "no estimate ..."."""
    parts = []
    if performance.get("profile"):
        parts.append(performance["profile"]["why"])
    parts.append(performance["line"])
    if performance.get("estimated"):
        parts.append(performance["source"]["label"])
    measured = performance.get("measured") or []
    if measured:
        parts.append(f"measured: {len(measured)} point{'s' if len(measured) != 1 else ''} on "
                     f"this hardware ({performance['errors']})")
    return " · ".join(parts)
