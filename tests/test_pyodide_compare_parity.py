"""The compare box runs builder.diff.compare under Pyodide: byte for byte what CPython answers.

Node loads the npm `pyodide` runtime the site ships and the same builder/*.py files, then runs
compare_state for every published configuration's engine commands (as the catalogue shows them)
against its joined selection, and for garbage; CPython runs the same cases here.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from builder.diff.closest_selection import ENGINE_ROLES
from builder.diff.compare import compare_state
from builder.diff.published import role_text
from tests.pyodide_prelude import PYODIDE_PRELUDE
from tests.recipes_data import ROOT, builder_catalog, builder_recipe
from tests.test_configurations import joins, published
from tests.test_pyodide_parity import NODE, PYODIDE

SCRIPT = PYODIDE_PRELUDE + r"""
pyodide.FS.writeFile("/rb/input.json", readFileSync(inputPath, "utf8"));
const out = pyodide.runPython(`
import json, sys
sys.path.insert(0, "/rb")
from builder.diff.compare import compare_state
with open("/rb/input.json", encoding="utf-8") as f:
    data = json.load(f)
json.dumps([
    json.dumps(compare_state(data["catalog"], data["recipe"], query, text), ensure_ascii=False)
    for query, text in data["cases"]
])
`);
process.stdout.write(out);
"""


def _cases() -> list[tuple[dict[str, str], str]]:
    cases = []
    for config in published()["configurations"]:
        join = joins()[config["id"]]
        query = join["query"] if join else {}
        for role in config["roles"]:
            if role["role"] in ENGINE_ROLES:
                cases.append((query, role_text(role["command"])))
    cases += [({}, "vllm serve 'oops"), ({"hardware": "nope"}, "vllm serve x -tp 2"),
              ({}, "sglang serve --model-path x"), ({}, "vllm serve m " + "--x 1 " * 12_000)]
    return cases


def test_pyodide_compares_as_cpython_does(tmp_path: Path) -> None:
    assert PYODIDE.exists(), "node_modules/pyodide is missing: run `make install`"
    model = published()["model"]
    catalog = json.loads(json.dumps(builder_catalog()))
    recipe = json.loads(json.dumps(builder_recipe(model)))
    cases = _cases()
    assert len(cases) >= 20
    (tmp_path / "input.json").write_text(
        json.dumps({"catalog": catalog, "recipe": recipe, "cases": cases}), encoding="utf-8")
    run = subprocess.run(
        [NODE, "--input-type=module", "-", str(ROOT / "builder"), str(tmp_path / "input.json")],
        input=SCRIPT, capture_output=True, text=True, cwd=ROOT, timeout=180, check=False,
    )
    assert run.returncode == 0, run.stderr
    browser = json.loads(run.stdout)
    assert len(browser) == len(cases)
    mismatches = [
        f"{query} {text[:60]!r}"
        for (query, text), got in zip(cases, browser, strict=True)
        if got != json.dumps(compare_state(catalog, recipe, query, text), ensure_ascii=False)
    ]
    assert not mismatches, "Pyodide differs from CPython for:\n" + "\n".join(mismatches)
