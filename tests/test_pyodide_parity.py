"""The browser runs builder/ under Pyodide: it must answer byte for byte what CPython answers.

Node runs the npm `pyodide` runtime the site ships (node_modules/pyodide), loads the very same
builder/*.py files, and renders page_state (result + widget HTML + notice) for a set of
selections over every recipe, with one Builder kept per recipe as the page's worker keeps it
(builder/bridge.py); CPython renders the same selections here, the same way. Data goes in as
the JSON the site publishes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from builder.commands.build import Builder
from builder.views.widget import page_state
from tests.pyodide_prelude import PYODIDE_PRELUDE
from tests.recipes_data import ROOT, builder_catalog, builder_recipe, hf_ids

NODE = shutil.which("node") or "/usr/bin/node"
COMPANION_CASE = "deepseek-ai/DeepSeek-R1 + single_node_dpa_tp"
PYODIDE = ROOT / "node_modules" / "pyodide" / "pyodide.mjs"

# Runs in Node from the repo root, so `import "pyodide"` resolves to node_modules/pyodide. One
# Node process (one Pyodide start) answers both tests' cases: the recipes' page states, then
# the Dynamo widget's.
SCRIPT = PYODIDE_PRELUDE + r"""
pyodide.FS.writeFile("/rb/input.json", readFileSync(inputPath, "utf8"));
const out = pyodide.runPython(`
import json, sys
sys.path.insert(0, "/rb")
from builder.commands.build import Builder
from builder.views.widget import page_state
from builder.views.dynamo import page_state as dynamo_state
with open("/rb/input.json", encoding="utf-8") as f:
    data = json.load(f)
builders = {}
def state(hf_id, query):
    recipe = data["recipes"][hf_id]
    if hf_id not in builders:
        builders[hf_id] = Builder(data["catalog"], recipe)
    return json.dumps(page_state(data["catalog"], recipe, query, builders[hf_id]),
                      ensure_ascii=False)
json.dumps({
    "recipes": [state(hf_id, query) for hf_id, query in data["cases"]],
    "dynamo": [json.dumps(dynamo_state(data["deployments"], query), ensure_ascii=False)
               for query in data["dynamo_cases"]],
})
`);
process.stdout.write(out);
"""


def _representatives(recipes: dict[str, dict]) -> set[str]:
    """Recipes that between them use every part of the format: prefill/decode, KV offload,
    feature modes, opt-in and exclusive features, Omni tasks, several variants."""
    chosen: set[str] = set()
    for marker in ("pd", "kv_offload_support", "omni", "exclusive_features", "dependencies"):
        chosen |= set(sorted(h for h, r in recipes.items() if r.get(marker))[:2])
    modes = sorted(h for h, r in recipes.items()
                   if any(f.get("modes") for f in r.get("features", {}).values()))
    chosen |= set(modes[:2])
    chosen |= set(sorted(recipes, key=lambda h: -len(recipes[h]["variants"]))[:2])
    return chosen


def _cases(catalog: dict, recipes: dict[str, dict]) -> list[tuple[str, dict[str, str]]]:
    """Every recipe's default page and variants; the whole matrix for the representatives."""
    cases: list[tuple[str, dict[str, str]]] = []
    full = _representatives(recipes)
    for hf_id, recipe in recipes.items():
        cases.append((hf_id, {}))
        cases += [(hf_id, {"variant": v}) for v in recipe["variants"]]
        cases.append((hf_id, {"hardware": "nope", "colour": "blue", "install": "pip"}))
        if hf_id not in full:
            continue
        cases += [(hf_id, {"hardware": hw}) for hw in catalog["hardware"]]
        cases += [(hf_id, {"strategy": s}) for s in catalog["strategies"]]
        cases += [(hf_id, {"install": "docker"}), (hf_id, {"frontend": "python"})]
        for fid, feature in recipe.get("features", {}).items():
            for value in ["on", "off", *(feature.get("modes") or {})]:
                cases.append((hf_id, {fid: value}))
                cases.append((hf_id, {"hardware": "mi355x", fid: value, "install": "docker"}))
        cases.append((hf_id, {"strategy": "multi_node_tp", "nodes": "2", "install": "docker"}))
    return cases


def _recipe_input() -> tuple[dict, dict[str, dict], list[tuple[str, dict[str, str]]]]:
    """The catalog and recipes as the browser gets them (round-tripped through JSON text),
    and the page states asked of both sides."""
    catalog = json.loads(json.dumps(builder_catalog()))
    recipes = {hf_id: json.loads(json.dumps(builder_recipe(hf_id))) for hf_id in hf_ids()}
    cases = _cases(catalog, recipes)
    # A strategy with a companion process (the router in front of DP Attention + TP), which
    # no recipe of the tree offers yet: DeepSeek-R1 with it added.
    recipes[COMPANION_CASE] = {**recipes["deepseek-ai/DeepSeek-R1"], "strategies": [
        *recipes["deepseek-ai/DeepSeek-R1"]["strategies"], "single_node_dpa_tp"]}
    cases += [(COMPANION_CASE, {"strategy": "single_node_dpa_tp", **extra})
              for extra in ({}, {"install": "docker"}, {"hardware": "b200"})]
    return catalog, recipes, cases


def _dynamo_input() -> tuple[dict, list[dict[str, str]]]:
    """The Dynamo deployments as published, and every combination of the widget's keys."""
    from builder.dynamo.targets import choices
    from tests.test_dynamo import data

    deployments = json.loads(json.dumps(data()))
    values = choices(deployments)
    cases: list[dict[str, str]] = []
    for framework in [None, *values["framework"]]:
        for gpu in [None, *values["gpu"]]:
            for topology in [None, *values["topology"]]:
                picked = {"framework": framework, "gpu": gpu, "topology": topology}
                cases.append({f"dynamo_{k}": v for k, v in picked.items() if v})
    cases.append({"dynamo_gpu": "a100", "dynamo_colour": "blue", "hardware": "h200"})
    return deployments, cases


@cache
def _in_pyodide() -> subprocess.CompletedProcess[str]:
    """Both tests' cases answered under Pyodide by one Node process (a start of Pyodide
    costs seconds), once per test process; each test reads its part."""
    catalog, recipes, cases = _recipe_input()
    deployments, dynamo_cases = _dynamo_input()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "input.json"
        path.write_text(json.dumps({"catalog": catalog, "recipes": recipes, "cases": cases,
                                    "deployments": deployments,
                                    "dynamo_cases": dynamo_cases}), encoding="utf-8")
        return subprocess.run(
            [NODE, "--input-type=module", "-", str(ROOT / "builder"), str(path)],
            input=SCRIPT, capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
        )


def test_pyodide_renders_what_cpython_renders() -> None:
    assert PYODIDE.exists(), "node_modules/pyodide is missing: run `make install`"
    catalog, recipes, cases = _recipe_input()
    assert len(recipes) >= 2 and len(cases) >= 50
    run = _in_pyodide()
    assert run.returncode == 0, run.stderr
    browser = json.loads(run.stdout)["recipes"]
    assert len(browser) == len(cases)
    mismatches = []
    builders: dict[str, Builder] = {}
    for (hf_id, query), got in zip(cases, browser, strict=True):
        if hf_id not in builders:
            builders[hf_id] = Builder(catalog, recipes[hf_id])
        builder = builders[hf_id]
        expected = json.dumps(page_state(catalog, recipes[hf_id], query, builder),
                              ensure_ascii=False)
        if got != expected:
            mismatches.append(f"{hf_id} {query}")
    assert not mismatches, "Pyodide differs from CPython for:\n" + "\n".join(mismatches)


def test_pyodide_renders_the_dynamo_widget_as_cpython() -> None:
    from builder.views.dynamo import page_state as dynamo_state

    assert PYODIDE.exists(), "node_modules/pyodide is missing: run `make install`"
    deployments, cases = _dynamo_input()
    assert len(cases) == 3 * 4 * 3 + 1
    run = _in_pyodide()
    assert run.returncode == 0, run.stderr
    browser = json.loads(run.stdout)["dynamo"]
    expected = [json.dumps(dynamo_state(deployments, q), ensure_ascii=False) for q in cases]
    mismatches = [str(q) for q, got, want in zip(cases, browser, expected, strict=True)
                  if got != want]
    assert not mismatches, "Pyodide differs from CPython for:\n" + "\n".join(mismatches)
