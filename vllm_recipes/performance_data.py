"""A recipe's performance as data: its estimates and the points measured for it.

- `recipes/performance/<org>/<repo>.json` (made by `make estimates`): JSON, validated by
  `schema.PerformanceEstimates`; each problem is `file: field: message` (JSON has no lines
  we track; a file that is not JSON is `file:line: message`). Beyond the schema: the file's
  `model` is the recipe's id, each cell names a hardware id of the catalog and a variant of
  the recipe.
- measured points: the vLLM rows of the performance table of the model's NVIDIA Dynamo
  deployments (`recipes/deployments/<org>/<repo>.yaml`, validated by `deployments.py`, which
  reports its problems): each row's layout ("Aggregated (2 × TP4)": 2 replicas of TP 4; a
  disaggregated row has no single-server layout) and its workload ("64K input, 400 output")
  read from its words. A row whose words say neither is left out.

`recipes/performance/coverage.json` says why a variant has no estimate on a hardware, and
why the measured points have none beside them; the builder shows those words.

`load_performance` gives `schema.RecipePerformance` (None when there is nothing), which the
loader puts on the recipe, and the builder reads as `recipe["performance"]`
(`builder/performance/`).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .errors import InvalidRecipe
from .schema import HardwareCatalog, MeasuredPoint, PerformanceEstimates, Recipe, RecipePerformance
from .validated import validate
from .yaml_source import Located, YamlFile, read_text, read_yaml

__all__ = ["ESTIMATES_DIR", "MAX_ESTIMATE_BYTES", "coverage_path", "deployments_path",
           "estimates_path", "load_performance", "measured_points"]

ESTIMATES_DIR = "performance"
"""Folder of the estimate files inside the recipe tree."""
MAX_ESTIMATE_BYTES = 4 << 20
"""The largest estimate file read (a model on every GPU it fits, three workloads)."""
_REPLICAS = re.compile(r"\((?:(\d+) × )?TP(\d+)\)")
_DISAGGREGATED = re.compile(r"(\d+) prefill, (\d+) decode; TP(\d+) each")
_WORKLOAD = re.compile(r"(\d+)K input, (\d+) output")


def estimates_path(root: Path, recipe_path: Path) -> Path:
    """`recipes/performance/<org>/<repo>.json` of the recipe at `recipe_path`."""
    return root / ESTIMATES_DIR / recipe_path.parent.name / f"{recipe_path.stem}.json"


def deployments_path(root: Path, recipe_path: Path) -> Path:
    return root / "deployments" / recipe_path.parent.name / recipe_path.name


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.parent))
    except ValueError:
        return str(path)


def _estimates(path: Path, root: Path, recipe: Recipe, hardware: HardwareCatalog,
               problems: list[Located]) -> PerformanceEstimates | None:
    display = _display(path, root)
    try:
        text = read_text(path, display, MAX_ESTIMATE_BYTES)
    except InvalidRecipe as error:
        problems.append(Located("", None, "", str(error)))
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        problems.append(Located(display, error.lineno, "", f"not JSON: {error.msg}"))
        return None
    source = YamlFile(path, display, data)
    estimates, found = validate(PerformanceEstimates, source)
    # JSON has no lines we track: `file: field: message`
    problems += [Located(p.display, None, p.loc, p.message) for p in found]
    if estimates is None:
        return None
    wanted = recipe.model.model_id
    if estimates.model != wanted:
        problems.append(Located(display, None, "model", f"{estimates.model!r} is not the "
                                                         f"recipe's id ({wanted!r})"))
    for number, cell in enumerate(estimates.cells):
        if cell.hardware not in hardware.hardware:
            problems.append(Located(display, None, f"cells[{number}].hardware",
                                    f"unknown hardware id {cell.hardware!r}"))
        if cell.variant not in recipe.variants:
            problems.append(Located(display, None, f"cells[{number}].variant", (
                f"no variant {cell.variant!r} in the recipe; variants: "
                f"{', '.join(recipe.variants)}")))
    return estimates


def _layout(row: dict[str, Any]) -> tuple[int | None, int | None, int | None]:
    """(GPUs, TP, replicas) a measured row's layout words say (None where they do not)."""
    words = str(row.get("recipe", ""))
    split = _DISAGGREGATED.search(words)
    if split:
        prefill, decode, tp = (int(g) for g in split.groups())
        return (prefill + decode) * tp, None, None
    found = _REPLICAS.search(words)
    if found is None:
        return None, None, None
    replicas, tp = int(found.group(1) or 1), int(found.group(2))
    return replicas * tp, tp, replicas


def measured_points(table: dict[str, Any], display: str) -> list[MeasuredPoint]:
    """The vLLM rows of a deployments file's `performance` table as measured points."""
    workload = str(table.get("workload", ""))
    tokens = _WORKLOAD.search(workload)
    if tokens is None:
        return []
    isl, osl = int(tokens.group(1)) * 1024, int(tokens.group(2))
    points = []
    for row in table.get("rows", []):
        if row.get("framework") != "vllm":
            continue
        gpus, tp, dp = _layout(row)
        try:
            points.append(MeasuredPoint(
                hardware=row["gpu"], gpus=gpus, tp=tp, dp=dp, layout=row["recipe"],
                workload=workload, isl=isl, osl=osl, concurrency=row["concurrency"],
                tokens_per_s_per_gpu=row["output_tok_s_per_gpu"],
                tokens_per_s_per_user=row["user_tok_s_p50"], ttft_ms=row["ttft_p50_ms"],
                source=(f"measured with NVIDIA Dynamo ({row['topology']}, {row['recipe']}), "
                        f"p50 figures from {display}")))
        except (KeyError, ValidationError):  # deployments.py reports a broken row
            continue
    return points


def _measured(path: Path, root: Path) -> list[MeasuredPoint]:
    if not path.is_file():
        return []
    try:
        source = read_yaml(path, _display(path, root))
    except InvalidRecipe:  # deployments.py reports it
        return []
    table = source.data.get("performance") if isinstance(source.data, dict) else None
    return measured_points(table, source.display) if isinstance(table, dict) else []


def coverage_path(root: Path) -> Path:
    """`recipes/performance/coverage.json`: what has an estimate, and why not (made by
    `make estimates`, held to the data by its staleness test)."""
    return root / ESTIMATES_DIR / "coverage.json"


@lru_cache(maxsize=4)
def _coverage_file(path: str, stamp: tuple[int, int]) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):  # its staleness test reports a broken file
        return {}
    return data if isinstance(data, dict) else {}


def _coverage(root: Path, hf_id: str) -> tuple[dict[str, dict[str, str]], str | None]:
    """(variant -> hardware id -> why no estimate, why the measured points have none)."""
    path = coverage_path(root)
    try:
        info = path.stat()
    except OSError:
        return {}, None
    data = _coverage_file(str(path), (info.st_mtime_ns, info.st_size))
    supported = (data.get("supported") or {}).get(hf_id) or {}
    missing = {vid: {hw: why for hw, why in by_hw.items() if isinstance(why, str)}
               for vid, by_hw in supported.items() if isinstance(by_hw, dict)}
    note = ((data.get("measured") or {}).get(hf_id) or {}).get("estimate")
    return {vid: found for vid, found in missing.items() if found}, (
        note if isinstance(note, str) else None)


def load_performance(root: Path, recipe_path: Path, recipe: Recipe, hardware: HardwareCatalog,
                     problems: list[Located]) -> RecipePerformance | None:
    """The recipe's estimates, measured points and why some have none (None when it has
    none of these; problems of its estimate file added to `problems`)."""
    path = estimates_path(root, recipe_path)
    estimates = (_estimates(path, root, recipe, hardware, problems) if path.is_file()
                 else None)
    measured = _measured(deployments_path(root, recipe_path), root)
    missing, note = _coverage(root, recipe.model.model_id)
    missing = {vid: by_hw for vid, by_hw in missing.items() if vid in recipe.variants}
    if estimates is None and not measured and not missing:
        return None
    return RecipePerformance(estimates=estimates, measured=measured, missing=missing,
                             measured_note=note if measured else None)
