"""Workload profiles (the `profile` key, `vocabulary.PROFILES`): what each picks among the
estimated layouts of a selection's GPUs, at the default workload.

    balanced    the recipe's command as it is (nothing picked)
    latency     the layout fastest for one user (the most tokens/s per user at the lowest
                concurrency estimated), with `--max-num-seqs` the most users at which each
                still gets LATENCY_SHARE of that speed
    throughput  the layout and concurrency with the most tokens/s per GPU, with
                `--max-num-seqs` that concurrency per data-parallel replica

A profile tunes what the estimates model (`TUNES`): the layout and `--max-num-seqs`. It leaves
`--max-num-batched-tokens` as the command has it (`NOT_MODELLED` says why).

The layouts are the estimate cells of the selection's hardware, variant and GPU count (tensor
x data-parallel replicas on the same GPUs, one pipeline stage): the layouts the estimates were
made for (`builder.performance.layouts`). A profile other than balanced is unavailable, with
why, where no estimate covers the selection (a model or GPU without estimates, a strategy
other than single-node Tensor Parallel, a GPU count the estimates do not cover).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..vocabulary import PROFILES
from .estimates import (
    Cell,
    Point,
    cells_for,
    default_workload,
    estimates_of,
    layout_text,
    number,
)

__all__ = ["BALANCED", "LATENCY_SHARE", "NOT_MODELLED", "TUNES", "Pick", "pick",
           "profile_reason"]

BALANCED = next(iter(PROFILES))
"""The default profile: the recipe's command."""
LATENCY_SHARE = 0.8
"""The latency profile keeps each user at least this share of one user's speed."""
TUNES = ("tensor-parallel size × data-parallel replicas", "--max-num-seqs")
"""The settings a profile picks: the ones the estimates vary."""
NOT_MODELLED = {
    "--max-num-batched-tokens": (
        "not picked: AIConfigurator 0.12.0's vLLM estimate takes a budget of prompt tokens per "
        "scheduler step (its ctx_tokens; these estimates use its default, a whole prompt per "
        "step), not vLLM's budget of prompt and decode tokens together, and its own vLLM "
        "configurations set this flag by a rule (users + prompt + 1500 tokens), not from an "
        "estimate; the command keeps the recipe's value or vLLM's default"),
}
"""vLLM scheduler settings a profile leaves alone, and why."""


@dataclass(frozen=True)
class Pick:
    """What a profile picked: a layout, `--max-num-seqs` per replica, the estimated point."""

    profile: str
    tp: int
    dp: int
    max_num_seqs: int
    point: Point
    workload: str
    why: str
    """"latency profile: TP 1 × 1 replica, --max-num-seqs 8: 190 tokens/s per user at 8
    users, est."."""


def _layouts(recipe: Mapping[str, Any], hw_id: str, variant_id: str, strategy: str,
             gpus: int) -> tuple[str, list[Cell]]:
    estimates = estimates_of(recipe)
    if estimates is None:
        return "", []
    workload = default_workload(estimates)
    return workload, [cell for cell in cells_for(estimates, hw_id, variant_id, gpus=gpus,
                                                 workload=workload, strategy=strategy)
                      if cell["pp"] == 1 and cell["tp"] * cell["dp"] == gpus and cell["points"]]


def _by_concurrency(cell: Cell) -> list[Point]:
    return sorted(cell["points"], key=lambda p: p["concurrency"])


def _latency(cells: list[Cell]) -> tuple[Cell, Point]:
    cell = max(cells, key=lambda c: _by_concurrency(c)[0]["tokens_per_s_per_user"])
    points = _by_concurrency(cell)
    floor = points[0]["tokens_per_s_per_user"] * LATENCY_SHARE
    return cell, [p for p in points if p["tokens_per_s_per_user"] >= floor][-1]


def _throughput(cells: list[Cell]) -> tuple[Cell, Point]:
    return max(((cell, point) for cell in cells for point in cell["points"]),
               key=lambda found: found[1]["tokens_per_s_per_gpu"])


def pick(recipe: Mapping[str, Any], hw_id: str, variant_id: str, strategy: str, gpus: int,
         profile: str) -> Pick | None:
    """What `profile` picks on `gpus` GPUs of `hw_id` for `strategy` (see the module
    docstring); None for balanced, or where no estimate covers them."""
    if profile == BALANCED:
        return None
    workload, cells = _layouts(recipe, hw_id, variant_id, strategy, gpus)
    if not cells:
        return None
    cell, point = _latency(cells) if profile == "latency" else _throughput(cells)
    seqs = -(-point["concurrency"] // cell["dp"])
    goal = PROFILES[profile].goal
    value = point["tokens_per_s_per_user" if profile == "latency" else "tokens_per_s_per_gpu"]
    users = point["concurrency"]
    why = (f"{profile} profile: {layout_text(cell['tp'], cell['dp'])}, --max-num-seqs {seqs}"
           f"{' per replica' if cell['dp'] > 1 else ''}: {number(value)} {goal} at {users} "
           f"user{'s' if users != 1 else ''}, est.")
    return Pick(profile, cell["tp"], cell["dp"], seqs, point, workload, why)


def profile_reason(recipe: Mapping[str, Any], hw: Mapping[str, Any], hw_id: str,
                   variant_id: str, strategy: str, gpus: int | None, plain: bool,
                   profile: str) -> str | None:
    """Why `profile` cannot be picked for this selection (None when it can): `gpus` is the
    single-node selection's GPU count (None for other strategies), `plain` whether its
    strategy is single-node Tensor Parallel."""
    if profile == BALANCED:
        return None
    name = PROFILES[profile].label.lower()
    estimates = estimates_of(recipe)
    if estimates is None:
        return (f"no estimate for this model: the {name} profile picks among estimated "
                "layouts (recipes/performance/COVERAGE.md)")
    variant = recipe["variants"][variant_id]
    checkpoint = variant.get("label") or variant_id
    cells = cells_for(estimates, hw_id, variant_id)
    if not cells:
        why = ((recipe.get("performance") or {}).get("missing") or {}).get(
            variant_id, {}).get(hw_id)
        return f"no estimate for {checkpoint} on {hw['display_name']}" + (
            f": {why}" if why else "")
    if gpus is None or not plain:
        return (f"the {name} profile picks among single-node Tensor Parallel layouts; pick "
                "that strategy")
    if not _layouts(recipe, hw_id, variant_id, strategy, gpus)[1]:
        counts = sorted({cell["gpus"] for cell in cells})
        listed = " or ".join(str(count) for count in counts)
        return (f"no estimate for {gpus}× {hw['display_name']}: the estimates cover "
                f"gpus={listed}")
    return None
