"""Issue 34: the committed performance estimates (recipes/performance/, `make estimates`) are
current. Every cell the builder renders that AIConfigurator can model
(`builder.performance.cells`: every GPU count of the `gpus` row, its layouts, hardware with an
`aiconfigurator_system`, a checkpoint AIConfigurator ships per coverage.json) has an estimate
made by the pinned release (requirements-aiconfigurator.lock) from the same inputs, or the
reason AIConfigurator refused it; and no estimate is left for a cell the builder no longer
renders. Needs neither AIConfigurator nor its environment: the builder and the data only.
"""

from __future__ import annotations

import json
import re
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from builder.performance.cells import (
    CONCURRENCY,
    INPUT_KEYS,
    WORKLOADS,
    cell_key,
    estimate_cells,
)
from tests.recipes_data import ROOT, builder_catalog, builder_recipe, hf_ids
from vllm_recipes.estimates import COVERAGE_JSON, COVERAGE_MD, dump_json, label, tool_name

DATA = ROOT / "recipes" / "performance"
LOCK = ROOT / "requirements-aiconfigurator.lock"
REMEDY = "run `make estimates` (ONLY=<recipe regex> for a few recipes) and commit the data"


def pinned() -> dict[str, str]:
    """{"aiconfigurator": version, "aiconfigurator-core": version} of the lock."""
    text = LOCK.read_text(encoding="utf-8")
    return {name: version for name, version in
            re.findall(r"^(aiconfigurator(?:-core)?)==(\S+)$", text, flags=re.M)}


def estimate_files(folder: Path) -> dict[str, dict[str, Any]]:
    """hf_id → estimate file, for every file under `folder`."""
    return {str(p.relative_to(folder).with_suffix("")): json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(folder.rglob("*.json")) if p.name != COVERAGE_JSON}


@cache
def expected() -> dict[str, dict[tuple[Any, ...], dict[str, Any]]]:
    """hf_id → cell key → the inputs of every cell the builder renders today."""
    coverage = json.loads((DATA / COVERAGE_JSON).read_text(encoding="utf-8"))
    known = {m.lower(): m for m in coverage["models"]}
    tool = tool_name(pinned()["aiconfigurator"])
    result = {}
    for hf_id in hf_ids():
        cells = estimate_cells(builder_catalog(), builder_recipe(hf_id), known, tool).cells
        if cells:
            result[hf_id] = {cell_key(c): {k: c[k] for k in INPUT_KEYS} for c in cells}
    return result


def stale(folder: Path) -> tuple[list[str], list[str]]:
    """(cells without a current estimate, estimates of cells the builder does not render),
    as lines naming them, for the data under `folder`."""
    versions = pinned()
    coverage = json.loads((folder / COVERAGE_JSON).read_text(encoding="utf-8"))
    have: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {}
    if (coverage["tool"]["version"], coverage["tool"]["core_version"]) == (
            versions["aiconfigurator"], versions["aiconfigurator-core"]):
        for hf_id, cells in coverage["failed"].items():
            for cell in cells:
                have.setdefault(hf_id, {})[cell_key(cell)] = {k: cell[k] for k in INPUT_KEYS}
    extra = []
    for hf_id, data in estimate_files(folder).items():
        source = data["source"]
        current = (source["version"], source["core_version"]) == (
            versions["aiconfigurator"], versions["aiconfigurator-core"])
        for cell in data["cells"]:
            key = cell_key(cell)
            if key not in expected().get(hf_id, {}):
                extra.append(f"{hf_id} {key}")
            elif current and data["workloads"] == WORKLOADS:
                have.setdefault(hf_id, {})[key] = {k: cell[k] for k in INPUT_KEYS}
    missing = [f"{hf_id} {key}" for hf_id, cells in expected().items()
               for key, inputs in cells.items() if have.get(hf_id, {}).get(key) != inputs]
    return missing, extra


def test_every_cell_the_builder_renders_has_a_current_estimate() -> None:
    missing, extra = stale(DATA)
    assert not missing, (f"{len(missing)} cells have no estimate by AIConfigurator "
                         f"{pinned()['aiconfigurator']} from today's inputs; {REMEDY}. "
                         f"First: {missing[:10]}")
    assert not extra, (f"{len(extra)} estimates are of cells the builder no longer renders; "
                       f"{REMEDY}. First: {extra[:10]}")


def test_the_check_fails_on_a_missing_a_changed_and_a_left_over_cell(tmp_path: Path) -> None:
    folder = tmp_path / "performance"
    shutil.copytree(DATA, folder)
    path = folder / "Qwen" / "Qwen3-8B.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    dropped = data["cells"].pop(0)
    data["cells"][0]["kv_cache_dtype"] = "fp8"  # an input the command does not set
    data["cells"].append({**dropped, "hardware": "h20", "system": "h200_sxm"})
    path.write_text(dump_json(data), encoding="utf-8")
    missing, extra = stale(folder)
    assert len(missing) == 2
    assert any(f"'{dropped['hardware']}'" in line for line in missing)
    assert [line for line in extra if "'h20'" in line]


def test_a_new_release_makes_every_estimate_stale(tmp_path: Path) -> None:
    folder = tmp_path / "performance"
    shutil.copytree(DATA, folder)
    path = folder / "Qwen" / "Qwen3-8B.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["source"]["version"] = "0.11.0"
    path.write_text(dump_json(data), encoding="utf-8")
    missing, _ = stale(folder)
    assert len(missing) == len(data["cells"])


@pytest.mark.parametrize("hf_id", sorted(estimate_files(DATA)))
def test_an_estimate_file_has_the_agreed_form(hf_id: str) -> None:
    """PERF_SPEC's format: JSON with 1-space indent and sorted keys, the tool's versions and
    label, the workloads, and per cell a ladder of points rounded to 3 significant digits."""
    path = DATA / f"{hf_id}.json"
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert text == dump_json(data)
    assert data["model"] == hf_id
    assert data["workloads"] == WORKLOADS and data["default_workload"] in WORKLOADS
    source = data["source"]
    assert (source["tool"], source["backend"]) == ("aiconfigurator", "vllm")
    assert data["cells"]
    for cell in data["cells"]:
        assert cell["label"] == label(source["version"], cell["database_version"])
        assert "not a measurement" in cell["label"]
        assert cell["gpus"] == cell["tp"] * cell["pp"] * cell["dp"]
        ladder = [p["concurrency"] for p in cell["points"]]
        assert ladder == sorted(ladder) and ladder
        assert set(ladder) <= set(CONCURRENCY)
        assert all(c % cell["dp"] == 0 for c in ladder)
        for point in cell["points"]:
            for name in ("ttft_ms", "tpot_ms", "tokens_per_s_per_gpu", "tokens_per_s_per_user",
                         "memory_gb"):
                value = point[name]
                assert value > 0 and float(f"{value:.3g}") == value, (name, value)


def test_coverage_says_what_the_data_holds() -> None:
    """COVERAGE.md's counts are the data's, and coverage.json marks as estimated exactly the
    recipes that have a file. (A recipe added since the last run whose checkpoint
    AIConfigurator does not model needs no new run: it has no cell.)"""
    coverage = json.loads((DATA / COVERAGE_JSON).read_text(encoding="utf-8"))
    files = estimate_files(DATA)
    with_estimates = {h for h, variants in coverage["supported"].items()
                      if any(v is True for hw in variants.values() for v in hw.values())}
    assert with_estimates == set(files)
    cells = sum(len(data["cells"]) for data in files.values())
    points = sum(len(cell["points"]) for data in files.values() for cell in data["cells"])
    text = (DATA / COVERAGE_MD).read_text(encoding="utf-8")
    assert f"models (recipes) with estimates: {len(files)};" in text
    assert f"cells (× workload): {cells}; points (× concurrency): {points}" in text
