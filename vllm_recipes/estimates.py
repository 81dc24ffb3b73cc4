"""`make estimates`: NVIDIA AIConfigurator's performance estimates for every cell it can
model (`builder.performance.cells`), written as data under recipes/performance/.

Two steps, two environments:

1. `python -m vllm_recipes.estimates catalogue OUT` (the project's environment): the
   validated recipe tree as the builder takes it (`catalogue.write_packaged`);
2. `python -m vllm_recipes.estimates run OUT` (AIConfigurator's environment, `make aic-env`;
   this module imports no pydantic there, only the standard library, `builder` and
   AIConfigurator): for each recipe, the cells it has, AIConfigurator's aggregated-serving
   estimate (`InferenceSession.run_agg`, the path of `aiconfigurator cli estimate`) of each
   at every concurrency of the ladder, written to `recipes/performance/<org>/<repo>.json`
   as each recipe is done; then `coverage.json` and `COVERAGE.md`.

A cell already in the data with the same inputs and the same AIConfigurator release is kept
as it is, so a run after a recipe change only estimates what changed.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
import warnings
from importlib import metadata
from pathlib import Path
from typing import Any

from builder.performance.cells import (
    CONCURRENCY,
    DEFAULT_WORKLOAD,
    INPUT_KEYS,
    WORKLOADS,
    aic_checkpoint,
    cell_key,
    estimate_cells,
)

__all__ = ["BACKEND", "COVERAGE_JSON", "COVERAGE_MD", "PERFORMANCE", "dump_json", "file_of",
           "label", "main", "tool_name"]

ROOT = Path(__file__).resolve().parent.parent
PERFORMANCE = ROOT / "recipes" / "performance"
COVERAGE_JSON = "coverage.json"
COVERAGE_MD = "COVERAGE.md"
BACKEND = "vllm"
LAYOUT_KEYS = ("variant", "hardware", "system", "checkpoint", "strategy", "gpus", "tp", "pp",
               "dp", "ep", "kv_cache_dtype")
"""A cell without its workload: one AIConfigurator session serves every workload of it."""
FORMATS = {"bfloat16": "bf16", "float16": "fp16"}
ARCHITECTURES = {
    # recipe id: the `architectures` entry of its checkpoints' config.json, for the recipes
    # whose measured points want an estimate but whose checkpoint AIConfigurator ships no
    # config of: it reads a config.json of any other checkpoint only when it maps that
    # architecture to one of its models (`ARCHITECTURE_TO_MODEL_FAMILY`), so this decides
    # whether the measured layouts can be estimated at all. V4.1-Flash: its config.json
    # ("architectures": ["DeepseekV41ForCausalLM"], model_type deepseek_v41; the 1017 weights
    # share it, per its recipe page) and vLLM 0.33.0's model registry, which serves it with
    # its own model (vllm/models/deepseek_v41), not V4's.
    "deepseek-ai/DeepSeek-V4.1-Flash": "DeepseekV41ForCausalLM",
}


def tool_name(version: str) -> str:
    return f"AIConfigurator {version}"


def label(version: str, database_version: str) -> str:
    """The words shown with every estimate."""
    kernels = ".".join(database_version.split(".")[:2])
    return (f"estimated by NVIDIA AIConfigurator {version} from vLLM {kernels} kernel "
            "timings; not a measurement of this command")


def file_of(folder: Path, hf_id: str) -> Path:
    return folder / f"{hf_id}.json"


def dump_json(data: Any) -> str:
    """The data files' form: 1-space indent, sorted keys, a newline at the end."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _sig(value: float) -> float:
    """`value` to 3 significant digits."""
    return float(f"{float(value):.3g}")


# ------------------------------------------------------------------ AIConfigurator side


class Estimator:
    """AIConfigurator's vLLM estimates, one session per layout (building it is the slow part,
    about a second; each concurrency then takes milliseconds)."""

    def __init__(self) -> None:
        warnings.simplefilter("ignore")
        logging.disable(logging.WARNING)
        from aiconfigurator.sdk import perf_database

        self.perf_database = perf_database
        self.version = metadata.version("aiconfigurator")
        self.core_version = metadata.version("aiconfigurator-core")

    def models(self) -> list[str]:
        """The checkpoints it models offline: its list of default models (each with a
        config.json it ships; for any other id it would download the config)."""
        from aiconfigurator_core.sdk.common import DefaultHFModels

        return sorted(DefaultHFModels)

    def architectures(self) -> list[str]:
        """The config.json architectures it models (any other config.json is refused:
        "The model's architecture ... is not supported")."""
        from aiconfigurator_core.sdk.common import ARCHITECTURE_TO_MODEL_FAMILY

        return sorted(ARCHITECTURE_TO_MODEL_FAMILY)

    def database_version(self, system: str) -> str | None:
        found = self.perf_database.get_latest_database_version(system=system, backend=BACKEND)
        return str(found) if found else None

    def session(self, cell: dict[str, Any]) -> Any:
        from aiconfigurator.sdk.backends.factory import get_backend
        from aiconfigurator.sdk.config import ModelConfig
        from aiconfigurator.sdk.config_builders import build_model_config
        from aiconfigurator.sdk.inference_session import InferenceSession
        from aiconfigurator.sdk.models import (
            check_is_moe,
            get_model,
            resolve_context_fmha_by_data,
            resolve_dsv4_moe_arch,
            resolve_nvfp4_for_system,
        )

        model, system = cell["checkpoint"], cell["system"]
        database = self.perf_database.get_database_view(
            system, BACKEND, self.database_version(system), allow_missing_data=False,
            database_mode="SILICON", transfer_policy=None)
        moe_tp = moe_ep = None
        if check_is_moe(model):
            moe_tp, moe_ep = ModelConfig(
                tp_size=cell["tp"], attention_dp_size=cell["dp"],
                moe_tp_size=cell["gpus"] // cell["ep"], moe_ep_size=cell["ep"],
            ).resolve_moe_parallelism()
        kv = None if cell["kv_cache_dtype"] == "auto" else (
            "fp8" if cell["kv_cache_dtype"].startswith("fp8") else cell["kv_cache_dtype"])
        config = build_model_config(cell["tp"], cell["pp"], cell["dp"], moe_tp, moe_ep,
                                    kvcache_quant_mode=kv)
        resolve_context_fmha_by_data(config, model, database, BACKEND, is_context_role=True)
        resolve_dsv4_moe_arch(config, model, system_name=system, backend_name=BACKEND)
        resolve_nvfp4_for_system(config, system, model, backend_name=BACKEND)
        return InferenceSession(get_model(model, config, BACKEND), database,
                                get_backend(BACKEND))

    def points(self, session: Any, dp: int, isl: int, osl: int
               ) -> tuple[list[dict[str, float]], dict[str, Any]]:
        """The ladder's points (until AIConfigurator says the weights or the KV cache no
        longer fit) and the formats it modelled."""
        from aiconfigurator.sdk.config import RuntimeConfig

        points: list[dict[str, float]] = []
        formats: dict[str, Any] = {}
        for concurrency in (c for c in CONCURRENCY if c % dp == 0):
            runtime = RuntimeConfig(isl=isl, osl=osl, batch_size=concurrency // dp,
                                    image_height=0, image_width=0, num_images_per_request=1,
                                    prefix=0, engine_step_backend=None)
            summary = session.run_agg(runtime, ctx_tokens=isl, max_seq_len=None,
                                      free_gpu_memory_fraction=None,
                                      decode_tokens_per_iteration=1)
            if summary.check_oom() or summary.check_kv_cache_oom():
                break
            row = summary.get_result_dict()
            if row is None:
                break
            formats = {"weights": FORMATS.get(str(row["gemm"]), str(row["gemm"])),
                       "kv_cache": FORMATS.get(str(row["kvcache"]), str(row["kvcache"]))}
            if row.get("moe_tp") is not None:
                formats["moe_weights"] = FORMATS.get(str(row["moe"]), str(row["moe"]))
            points.append({
                "concurrency": int(row["concurrency"]),
                "ttft_ms": _sig(row["ttft"]),
                "tpot_ms": _sig(row["tpot"]),
                "tokens_per_s_per_gpu": _sig(row["tokens/s/gpu"]),
                "tokens_per_s_per_user": _sig(row["tokens/s/user"]),
                "memory_gb": _sig(row["memory"]),
            })
        return points, formats


def _layouts(cells: list[dict[str, Any]]) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    grouped: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for cell in cells:
        grouped.setdefault(tuple(cell[k] for k in LAYOUT_KEYS), []).append(cell)
    return grouped


def _inputs(cell: dict[str, Any]) -> dict[str, Any]:
    return {k: cell[k] for k in INPUT_KEYS}


def _same_release(data: dict[str, Any], estimator: Estimator) -> bool:
    source = data.get("source", {})
    return (source.get("version") == estimator.version
            and source.get("core_version") == estimator.core_version
            and data.get("workloads") == WORKLOADS)


def _previous(folder: Path, hf_id: str, estimator: Estimator, failed: dict[str, Any]
              ) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The cells already estimated for `hf_id` by this release (by key; with their inputs),
    and those that failed (in `failed`, from the coverage file)."""
    kept: dict[tuple[Any, ...], dict[str, Any]] = {}
    path = file_of(folder, hf_id)
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        if _same_release(data, estimator):
            kept = {cell_key(cell): cell for cell in data["cells"]}
    for cell in failed.get(hf_id, []):
        kept[cell_key(cell)] = {**cell, "why": _short(cell["why"])}
    return kept


def estimate_recipe(estimator: Estimator, catalog: dict[str, Any], recipe: dict[str, Any],
                    hf_id: str, known: dict[str, str], previous: dict[tuple[Any, ...], Any],
                    log: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Any]:
    """(estimated cells, failed cells with why, the coverage) of one recipe."""
    coverage = estimate_cells(catalog, recipe, known, tool_name(estimator.version))
    done: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    todo: list[dict[str, Any]] = []
    for cell in coverage.cells:
        old = previous.get(cell_key(cell))
        if old is not None and _inputs(old) == _inputs(cell):
            (failed if "why" in old else done).append(old)
        else:
            todo.append(cell)
    for cells in _layouts(todo).values():
        first = cells[0]
        started = time.monotonic()
        database = estimator.database_version(first["system"])
        try:
            session = estimator.session(first)
        except Exception as error:  # AIConfigurator's own refusal, kept as the reason
            why = f"{type(error).__name__}: {error}"
            failed += [{**cell, "why": _short(why)} for cell in cells]
            log(f"  {first['hardware']} {first['variant']} TP{first['tp']} DP{first['dp']}"
                f" EP{first['ep']}: {_short(why)}")
            continue
        for cell in cells:
            tokens = WORKLOADS[cell["workload"]]
            try:
                points, formats = estimator.points(session, cell["dp"], tokens["isl"],
                                                   tokens["osl"])
            except Exception as error:
                failed.append({**cell, "why": _short(f"{type(error).__name__}: {error}")})
                continue
            if not points:
                failed.append({**cell, "why": "AIConfigurator: the weights or the KV cache of "
                                              "one request per replica do not fit"})
                continue
            done.append({**cell, **formats, "database_version": database,
                         "label": label(estimator.version, str(database)), "points": points})
        log(f"  {first['hardware']} {first['variant']} TP{first['tp']} DP{first['dp']} "
            f"EP{first['ep']}: {len(cells)} workloads, {time.monotonic() - started:.1f} s")
    order = {cell_key(cell): i for i, cell in enumerate(coverage.cells)}
    done.sort(key=lambda cell: order[cell_key(cell)])
    failed.sort(key=lambda cell: order[cell_key(cell)])
    return done, failed, coverage


def _short(text: str) -> str:
    """One line of at most 300 characters, without this machine's paths."""
    text = re.sub(r"\S*/site-packages/", "", " ".join(text.split()))
    return text if len(text) <= 300 else text[:299] + "…"


def estimate_file(hf_id: str, estimator: Estimator, cells: list[dict[str, Any]]
                  ) -> dict[str, Any]:
    databases = sorted({cell["database_version"] for cell in cells})
    source: dict[str, Any] = {"tool": "aiconfigurator", "version": estimator.version,
                              "core_version": estimator.core_version, "backend": BACKEND}
    if len(databases) == 1:
        source["database_version"] = databases[0]
        source["label"] = label(estimator.version, databases[0])
    return {"model": hf_id, "source": source, "workloads": WORKLOADS,
            "default_workload": DEFAULT_WORKLOAD, "cells": cells}


# ------------------------------------------------------------------ coverage


def coverage_data(estimator: Estimator, known: list[str], systems: dict[str, str | None],
                  supported: dict[str, dict[str, dict[str, Any]]],
                  failed: dict[str, list[dict[str, Any]]], measured: dict[str, Any]
                  ) -> dict[str, Any]:
    return {
        "tool": {"tool": "aiconfigurator", "version": estimator.version,
                 "core_version": estimator.core_version, "backend": BACKEND},
        "models": known,
        "architectures": estimator.architectures(),
        "systems": {k: v for k, v in sorted(systems.items()) if v},
        "supported": supported,
        "failed": {k: v for k, v in failed.items() if v},
        "measured": measured,
    }


def unmodelled_architecture(hf_id: str, architectures: list[str], version: str
                            ) -> str | None:
    """Why AIConfigurator cannot estimate `hf_id` from its config.json either (None when
    its architecture is one it models, or not known to `ARCHITECTURES`)."""
    architecture = ARCHITECTURES.get(hf_id)
    if architecture is None or architecture in architectures:
        return None
    return (f"{tool_name(version)} does not model its architecture: its config.json declares "
            f"{architecture}, which is not among the {len(architectures)} architectures "
            "AIConfigurator reads a config.json of (a config.json of any other is refused)")


def measured_points(data: dict[str, Any], known: dict[str, str], version: str,
                    architectures: list[str]) -> dict[str, Any]:
    """Per model, the measured figures we hold (NVIDIA Dynamo's measured table, the serving
    configurations) and why AIConfigurator gives no estimate of the same layouts."""
    found: dict[str, Any] = {}
    for hf_id, deployment in data.get("dynamo", {}).items():
        rows = (deployment.get("performance") or {}).get("rows") or []
        if rows:
            found.setdefault(hf_id, {"sources": []})["sources"].append(
                {"source": f"recipes/deployments/{hf_id}.yaml", "measured_points": len(rows),
                 "workload": deployment["performance"].get("workload")})
    for configurations in data.get("configurations", []):
        hf_id = configurations["model"]
        found.setdefault(hf_id, {"sources": []})["sources"].append(
            {"source": f"recipes/configurations/ ({configurations['source']['name']})",
             "measured_points": 0,
             "workload": f"{len(configurations['configurations'])} configurations, no "
                         "results stated"})
    for hf_id, entry in found.items():
        recipe = data["recipes"].get(hf_id)
        unknown = recipe is None or all(
            aic_checkpoint(recipe, vid, known) is None for vid in recipe["variants"])
        architecture = unmodelled_architecture(hf_id, architectures, version)
        entry["estimate"] = (
            f"none: {architecture}, so it cannot estimate the measured layouts"
            if unknown and architecture else
            f"none: {tool_name(version)} does not model this checkpoint (it ships no config "
            "of it), so it cannot estimate the measured layouts" if unknown else
            "none: the measured rows are NVIDIA Dynamo deployments with speculative decoding, "
            "which this generator does not ask AIConfigurator for")
    return dict(sorted(found.items()))


def counts(folder: Path) -> dict[str, Any]:
    """Models, checkpoints, GPUs, layouts, cells and points the data holds."""
    models, checkpoints, gpus, layouts, cells, points = set(), set(), set(), set(), 0, 0
    for path in sorted(folder.rglob("*.json")):
        if path.name == COVERAGE_JSON:
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        for cell in data["cells"]:
            models.add(data["model"])
            checkpoints.add(cell["checkpoint"])
            gpus.add(cell["hardware"])
            layouts.add((data["model"], *(cell[k] for k in LAYOUT_KEYS)))
            cells += 1
            points += len(cell["points"])
    return {"models": len(models), "checkpoints": len(checkpoints), "gpus": sorted(gpus),
            "layouts": len(layouts), "cells": cells, "points": points}


def coverage_text(coverage: dict[str, Any], total: dict[str, Any]) -> str:
    tool = coverage["tool"]
    lines = [
        "# Performance estimates: coverage",
        "",
        "Generated by `make estimates` (vllm_recipes/estimates.py); do not edit. Which cells "
        "exist: builder/performance/cells.py.",
        "",
        f"NVIDIA AIConfigurator {tool['version']} (aiconfigurator-core {tool['core_version']}),"
        f" backend `{tool['backend']}`, aggregated serving, concurrency ladder "
        f"{', '.join(map(str, CONCURRENCY))} (requests in flight on the whole layout); "
        "workloads " + ", ".join(f"{k} {v['isl']}/{v['osl']}" for k, v in WORKLOADS.items())
        + " tokens in/out; every GPU count of one node the builder renders a command for "
        "(the `gpus` row) and every tensor-parallel × data-parallel layout of it, so that a "
        "workload profile can pick at any count.",
        "",
        f"- models (recipes) with estimates: {total['models']}; checkpoints: "
        f"{total['checkpoints']}",
        f"- GPUs: {len(total['gpus'])} ({', '.join(total['gpus'])})",
        f"- layouts (recipe × variant × GPU × parallel layout): {total['layouts']}; cells "
        f"(× workload): {total['cells']}; points (× concurrency): {total['points']}",
        "- AIConfigurator systems and their vLLM database: " + ", ".join(
            f"{k} {v}" for k, v in coverage["systems"].items()),
        f"- AIConfigurator ships configs of {len(coverage['models'])} checkpoints; a variant "
        "whose checkpoint is not among them has no estimate.",
        "",
        "AIConfigurator is asked in its SILICON database mode: a cell whose kernels NVIDIA did "
        "not measure for that GPU is refused (listed at the end), not extrapolated.",
        "",
        "Not modelled: speculative decoding (MTP, EAGLE: AIConfigurator is asked without it), "
        "prefix caching, multi-node and prefill/decode strategies, the non-default strategies "
        "(TEP, DEP) of a selection, `--max-num-batched-tokens` (AIConfigurator's per-step "
        "prompt budget is left at its default, a whole prompt per step).",
        "",
        "## No estimate",
        "",
        "One line per recipe whose variants have no estimate anywhere, then per (recipe, "
        "variant, hardware) that has none while the variant has some elsewhere.",
        "",
    ]
    unknown: list[str] = []
    for hf_id, variants in coverage["supported"].items():
        if not any(why is True for hw in variants.values() for why in hw.values()):
            groups = _grouped({hw: why for hw_map in variants.values()
                               for hw, why in hw_map.items()})
            if not groups:
                continue
            if len(groups) == 1:
                unknown.append(f"- {hf_id}: {groups[0][1]}")
            else:
                unknown.append(f"- {hf_id}: " + "; ".join(
                    f"on {', '.join(hws)}: {why}" for hws, why in groups))
            continue
        for vid, hw_map in variants.items():
            for hws, why in _grouped({h: w for h, w in hw_map.items() if w is not True}):
                unknown.append(f"- {hf_id} ({vid}) on {', '.join(hws)}: {why}")
    lines += unknown
    lines += ["", "## Measured points", "",
              "Figures measured on real runs take precedence over estimates; for each we would "
              "also estimate the same layout and workload, to report the estimates' error.", ""]
    for hf_id, entry in coverage["measured"].items():
        for source in entry["sources"]:
            lines.append(f"- {hf_id}: {source['measured_points']} measured points in "
                         f"{source['source']} ({source['workload']})")
        lines.append(f"  - estimates of them: {entry['estimate']}")
    failed = [(hf_id, cell) for hf_id, cells in coverage["failed"].items() for cell in cells]
    if failed:
        lines += ["", "## AIConfigurator refused", ""]
        layouts: dict[str, list[str]] = {}
        for hf_id, c in failed:
            layouts.setdefault(f"{hf_id} ({c['variant']}) on {c['hardware']} TP{c['tp']} "
                               f"DP{c['dp']} EP{c['ep']}\0{c['why']}", []).append(c["workload"])
        for text, workloads in layouts.items():
            where, why = text.split("\0")
            lines.append(f"- {where}, {', '.join(workloads)}: {why}")
    return "\n".join(lines) + "\n"


_NO_DATA = re.compile(r"^(.* has no vLLM performance data for) the .*$")


def _grouped(reasons: dict[str, str]) -> list[tuple[list[str], str]]:
    """(hardware ids, why) with one entry per reason, "no data for the H100 PCIe" and "... for
    the L4" counting as one ("no data for these")."""
    groups: dict[str, list[str]] = {}
    for hw, why in reasons.items():
        match = _NO_DATA.match(why)
        groups.setdefault(f"{match.group(1)} these GPUs" if match else why, []).append(hw)
    return [(hws, reasons[hws[0]] if len(hws) == 1 else why) for why, hws in groups.items()]


# ------------------------------------------------------------------ the run


def run(catalogue_path: Path, folder: Path, only: str | None = None) -> int:
    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    estimator = Estimator()
    data = json.loads(catalogue_path.read_text(encoding="utf-8"))
    catalog, recipes = data["catalog"], data["recipes"]
    known_list = estimator.models()
    known = {m.lower(): m for m in known_list}
    systems = {hw["aiconfigurator_system"]: estimator.database_version(
        hw["aiconfigurator_system"]) for hw in catalog["hardware"].values()
        if hw.get("aiconfigurator_system")}
    old_coverage: dict[str, Any] = {}
    if (folder / COVERAGE_JSON).is_file():
        old_coverage = json.loads((folder / COVERAGE_JSON).read_text(encoding="utf-8"))
    old_failed = (old_coverage.get("failed", {})
                  if old_coverage.get("tool", {}).get("version") == estimator.version else {})
    supported: dict[str, dict[str, dict[str, Any]]] = {}
    failed_all: dict[str, list[dict[str, Any]]] = {}
    started = time.monotonic()
    for hf_id, recipe in recipes.items():
        if recipe.get("retired") is not None:
            continue
        if only and not re.search(only, hf_id):
            supported[hf_id] = old_coverage.get("supported", {}).get(hf_id, {})
            failed_all[hf_id] = old_failed.get(hf_id, [])
            continue
        previous = _previous(folder, hf_id, estimator, old_failed)
        done, failed, coverage = estimate_recipe(estimator, catalog, recipe, hf_id, known,
                                                 previous, log)
        failed_all[hf_id] = failed
        supported[hf_id] = _supported(coverage, done, failed)
        path = file_of(folder, hf_id)
        if done:
            path.parent.mkdir(parents=True, exist_ok=True)
            text = dump_json(estimate_file(hf_id, estimator, done))
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
            log(f"{hf_id}: {len(done)} cells ({time.monotonic() - started:.0f} s so far)")
        elif path.is_file():
            path.unlink()
    for path in folder.rglob("*.json"):
        hf_id = str(path.relative_to(folder).with_suffix(""))
        if path.name != COVERAGE_JSON and hf_id not in supported:
            path.unlink()
    architectures = estimator.architectures()
    for hf_id, variants in supported.items():
        why = unmodelled_architecture(hf_id, architectures, estimator.version)
        for reasons in variants.values() if why else ():
            for hw, reason in reasons.items():
                if isinstance(reason, str) and "does not model this checkpoint" in reason:
                    reasons[hw] = why
    measured = measured_points(data, known, estimator.version, architectures)
    coverage = coverage_data(estimator, known_list, systems, supported, failed_all, measured)
    (folder / COVERAGE_JSON).write_text(dump_json(coverage), encoding="utf-8")
    (folder / COVERAGE_MD).write_text(coverage_text(coverage, counts(folder)), encoding="utf-8")
    log(f"done in {time.monotonic() - started:.0f} s")
    return 0


def _supported(coverage: Any, done: list[dict[str, Any]], failed: list[dict[str, Any]]
               ) -> dict[str, dict[str, Any]]:
    """variant → hardware → true (some estimate) or why not."""
    result: dict[str, dict[str, Any]] = {}
    for vid, reasons in coverage.why_not.items():
        for hw, why in reasons.items():
            result.setdefault(vid, {})[hw] = why
    estimated = {(c["variant"], c["hardware"]) for c in done}
    for cell in failed:
        if (cell["variant"], cell["hardware"]) not in estimated:
            result.setdefault(cell["variant"], {})[cell["hardware"]] = (
                f"AIConfigurator refused every layout: {cell['why']}")
    for vid, hw in sorted(estimated):
        result.setdefault(vid, {})[hw] = True
    return {vid: dict(sorted(hw.items())) for vid, hw in sorted(result.items())}


def _catalogue(target: Path) -> int:
    """The validated tree as the builder takes it, with the NVIDIA Dynamo deployments (their
    measured rows) and the serving configurations (recipes/configurations/)."""
    from .catalogue import from_loader
    from .configurations import load_configurations, publish_set
    from .deployments import load_deployments
    from .loader import load_catalog

    catalog = load_catalog(ROOT / "recipes")
    deployments = load_deployments(ROOT / "recipes")
    data = from_loader(catalog, {h: deployments.published(h)
                                 for h in deployments.by_model}).to_json()
    data["configurations"] = [publish_set(s) for s in load_configurations(catalog)]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")),
                      encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) == 2 and args[0] == "catalogue":
        return _catalogue(Path(args[1]))
    if len(args) in (2, 3) and args[0] == "run":
        os.environ.setdefault("AICONFIGURATOR_LOG_LEVEL", "ERROR")
        return run(Path(args[1]), PERFORMANCE, args[2] if len(args) == 3 else None)
    print("usage: python -m vllm_recipes.estimates catalogue OUT.json | run CATALOGUE.json "
          "[RECIPE-REGEX]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
