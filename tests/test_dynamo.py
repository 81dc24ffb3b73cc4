"""NVIDIA Dynamo deployment targets: the data, the builder (selection, steps, comparison), the
widget HTML and the `--dynamo` command line.

Expected values are the reference's facts
(../shared/reference/dynamo-deepseek-v4.1-flash-deployments.txt), copied here by hand and
checked against it; none is computed by the code under test.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from builder.dynamo import targets as dynamo
from builder.errors import SelectionError
from builder.views.dynamo import page_state
from tests import prose_runs
from tests.htmltree import Node, parse
from tests.recipes_data import RECIPES, ROOT
from vllm_recipes.deployments import json_schema, load_deployments
from vllm_recipes.errors import InvalidRecipe

HF_ID = "deepseek-ai/DeepSeek-V4.1-Flash"
FILE = RECIPES / "deployments" / f"{HF_ID}.yaml"
DISPLAY = f"recipes/deployments/{HF_ID}.yaml"

# framework, gpu, topology → None (a target) or the reason it is refused (the reference's).
NO_SGLANG_H200 = "No SGLang recipe for H200. Select vLLM or GB200."
NO_SGLANG_B200 = "No SGLang recipe for B200. Select vLLM or GB200."
COMBINATIONS = {
    ("vllm", "gb200", "aggregated"): None,
    ("vllm", "gb200", "disaggregated"): None,
    ("vllm", "b200", "aggregated"): None,
    ("vllm", "b200", "disaggregated"): None,
    ("vllm", "h200", "aggregated"): None,
    ("vllm", "h200", "disaggregated"): None,
    ("sglang", "gb200", "aggregated"): None,
    ("sglang", "gb200", "disaggregated"): None,
    ("sglang", "b200", "aggregated"): NO_SGLANG_B200,
    ("sglang", "b200", "disaggregated"): NO_SGLANG_B200,
    ("sglang", "h200", "aggregated"): NO_SGLANG_H200,
    ("sglang", "h200", "disaggregated"): NO_SGLANG_H200,
}
# The reference's "Measured Performance" table, as printed there (framework, SKU, then the
# recipe, concurrency and the five measurements).
PERFORMANCE = [
    ("vLLM", "B200", "Aggregated (2 × TP4)", "168",
     "990.57", "54.69", "178.66", "3,068.28"),
    ("vLLM", "B200", "Disaggregated (1 prefill, 1 decode; TP4 each)", "184",
     "1,087.71", "82.12", "135.12", "90,076.83"),
    ("vLLM", "GB200", "Aggregated (2 × TP4)", "168",
     "953.08", "51.83", "286.75", "3,524.82"),
    ("vLLM", "GB200", "Disaggregated (1 prefill, 1 decode; TP4 each)", "168",
     "1,154.87", "80.85", "169.02", "57,116.54"),
    ("vLLM", "H200", "Aggregated (4 × TP4)", "80",
     "209.18", "51.32", "171.29", "6,368.76"),
    ("vLLM", "H200", "Disaggregated (1 prefill, 1 decode; TP4 each)", "64",
     "359.41", "50.63", "177.59", "35,043.23"),
]
MEASURES = ("output_tok_s_per_gpu", "user_tok_s_p50", "ttft_p50_ms", "ttft_p90_ms")
# Per target: the render command (vLLM) or the manifest apply (SGLang), and the port-forward,
# exactly as the reference prints them.
COMMANDS = {
    ("vllm", "gb200", "aggregated"): (
        'kustomize build recipes/deepseek-v4.1-flash/vllm/agg-gb200-agentic > '
        '"${CLUSTER_CONFIG}/recipe.yaml"',
        "dsv41-flash-vllm-gb200-agg-agentic-frontend"),
    ("vllm", "gb200", "disaggregated"): (
        'kustomize build recipes/deepseek-v4.1-flash/vllm/disagg-gb200-agentic > '
        '"${CLUSTER_CONFIG}/recipe.yaml"',
        "dsv41-flash-vllm-gb200-disagg-agentic-frontend"),
    ("vllm", "b200", "aggregated"): (
        'kustomize build recipes/deepseek-v4.1-flash/vllm/agg-b200-agentic > '
        '"${CLUSTER_CONFIG}/recipe.yaml"',
        "dsv41-flash-vllm-b200-agg-agentic-frontend"),
    ("vllm", "b200", "disaggregated"): (
        'kustomize build recipes/deepseek-v4.1-flash/vllm/disagg-b200-agentic > '
        '"${CLUSTER_CONFIG}/recipe.yaml"',
        "dsv41-flash-vllm-b200-disagg-agentic-frontend"),
    ("vllm", "h200", "aggregated"): (
        'kustomize build recipes/deepseek-v4.1-flash/vllm/agg-h200-agentic > '
        '"${CLUSTER_CONFIG}/recipe.yaml"',
        "dsv41-flash-vllm-h200-agg-agentic-frontend"),
    ("vllm", "h200", "disaggregated"): (
        'kustomize build recipes/deepseek-v4.1-flash/vllm/disagg-h200-agentic > '
        '"${CLUSTER_CONFIG}/recipe.yaml"',
        "dsv41-flash-vllm-h200-disagg-agentic-frontend"),
    ("sglang", "gb200", "aggregated"): (
        'kubectl apply -f recipes/deepseek-v4.1-flash/sglang/agg-gb200/deploy.yaml '
        '-n "${NAMESPACE}"',
        "deepseek-v41-flash-sglang-gb200-agg-frontend"),
    ("sglang", "gb200", "disaggregated"): (
        'kubectl apply -f recipes/deepseek-v4.1-flash/sglang/disagg-gb200/deploy-generic.yaml '
        '-n "${NAMESPACE}"',
        "deepseek-v41-flash-sglang-gb200-disagg-frontend"),
}
DRY_RUN_AND_APPLY = '''set -o pipefail
kustomize build --load-restrictor LoadRestrictionsNone "${CLUSTER_CONFIG}" | \\
  kubectl apply --dry-run=server -f - -n "${NAMESPACE}"
kustomize build --load-restrictor LoadRestrictionsNone "${CLUSTER_CONFIG}" | \\
  kubectl apply -f - -n "${NAMESPACE}"'''
SMOKE_TEST = '''curl -sS http://localhost:8000/v1/chat/completions \\
  -H 'Content-Type: application/json' \\
  -d '{"model":"deepseek-ai/DeepSeek-V4.1-Flash","messages":[{"role":"user","content":"Reply with exactly: READY"}],"temperature":0,"max_tokens":512}\''''  # noqa: E501


@cache
def data() -> dict[str, Any]:
    return load_deployments(RECIPES).published(HF_ID)


def selection(combo: tuple[str, str, str]) -> dict[str, str]:
    return dict(zip(dynamo.KEYS, combo, strict=True))


# ------------------------------------------------------------------------------ the data


def test_the_data_validates_and_names_an_existing_recipe() -> None:
    loaded = load_deployments(RECIPES)
    assert list(loaded.by_model) == [HF_ID]
    assert loaded.paths[HF_ID] == FILE
    assert (RECIPES / "models" / f"{HF_ID}.yaml").is_file()


def test_committed_schema_is_current_and_the_yaml_points_at_it() -> None:
    committed = json.loads((RECIPES / "deployments" / "schema.json").read_text("utf-8"))
    assert committed == json_schema(), (
        "recipes/deployments/schema.json is stale: run `make schema`")
    for path in (RECIPES / "deployments").glob("*/*.yaml"):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first == "# yaml-language-server: $schema=../schema.json", path


TEXT = FILE.read_text(encoding="utf-8")
B200_RULE = """  - framework: sglang
    gpu: b200
    reason: No SGLang recipe for B200. Select vLLM or GB200.
"""
# (text replaced once in the real file, its replacement, text on the line the error names,
#  the message after `file:line: `). Several messages: one per line, each at that line.
BROKEN = [
    pytest.param("    layout: Two TP4 workers\n", "    layout: Two TP4 workers\n    layot: x\n",
                 "layot:", "targets[0].layot: unknown key (not in the schema; check the "
                 "spelling)", id="typo"),
    pytest.param("  - framework: vllm\n    gpu: gb200\n", "  - framework: vllm\n    gpu: a100\n",
                 "gpu: a100", "targets[0].gpu: unknown gpu 'a100' (known: gb200, b200, h200)",
                 id="unknown-gpu"),
    pytest.param("    topology: aggregated\n", "    topology: hybrid\n", "topology: hybrid",
                 "targets[0].topology: Input should be 'aggregated' or 'disaggregated'",
                 id="unknown-topology"),
    pytest.param("dsv41-flash-vllm-gb200-agg-agentic-frontend", "Frontend_Service",
                 "Frontend_Service", "targets[0].frontend_service: String should match "
                 "pattern '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'", id="service-name"),
    pytest.param(B200_RULE, "", "unavailable:",
                 "unavailable: sglang/b200/aggregated is neither a target nor covered by a "
                 "rule (add one with its reason)\n"
                 "unavailable: sglang/b200/disaggregated is neither a target nor covered by a "
                 "rule (add one with its reason)", id="uncovered-combination"),
    pytest.param(B200_RULE, B200_RULE + "  - framework: vllm\n    gpu: h200\n    reason: x\n",
                 "framework: vllm\n    gpu: h200\n    reason: x",
                 "unavailable[2]: covers vllm/h200/aggregated, which is targets[4]\n"
                 "unavailable[2]: covers vllm/h200/disaggregated, which is targets[5]",
                 id="rule-over-a-target"),
    pytest.param(B200_RULE, B200_RULE + "  - framework: sglang\n    gpu: h200\n"
                 "    topology: aggregated\n    reason: again\n",
                 "framework: sglang\n    gpu: h200\n    topology: aggregated",
                 "unavailable[2]: sglang/h200/aggregated is already covered by unavailable[0]",
                 id="rule-twice"),
    pytest.param("    topology: disaggregated\n", "    topology: aggregated\n",
                 "  - framework: vllm\n    gpu: gb200\n    topology: aggregated\n    gpus: 8\n"
                 "    layout: One", "targets[1]: same framework, gpu and topology as "
                 "targets[0]", id="duplicate-target"),
    pytest.param("    settings: blackwell_agg\n", "    settings: gb300_agg\n", "gb300_agg",
                 "targets[0].settings: unknown column 'gb300_agg' (known: blackwell_agg, "
                 "b200_disagg, gb200_disagg, h200_agg, h200_disagg)", id="settings-column"),
    pytest.param('        b200_disagg: "`deep_gemm_mega_moe`"\n', "", "      values:",
                 "settings.rows[0].values: no value for b200_disagg", id="settings-row"),
    pytest.param("    - framework: vllm\n      gpu: b200\n",
                 "    - framework: sglang\n      gpu: b200\n", "- framework: sglang\n      gpu",
                 "performance.rows[0]: sglang/b200/aggregated is not a target",
                 id="performance-row-target"),
    pytest.param("output_tok_s_per_gpu: 990.57", "output_tok_s_per_gpu: 0",
                 "output_tok_s_per_gpu: 0", "performance.rows[0].output_tok_s_per_gpu: Input "
                 "should be greater than 0", id="performance-value"),
    pytest.param("defaults:\n  framework: vllm\n  gpu: gb200",
                 "defaults:\n  framework: sglang\n  gpu: h200", "defaults:",
                 "defaults: sglang/h200/aggregated is not a target", id="defaults"),
    pytest.param(f"model_id: {HF_ID}", "model_id: deepseek-ai/DeepSeek-V4-Flash", "model_id:",
                 "model_id: 'deepseek-ai/DeepSeek-V4-Flash' must match the file path "
                 "('deepseek-ai/DeepSeek-V4.1-Flash')", id="model-id"),
    pytest.param("frontend_port: 8000\n", "frontend_port: 8000\nsummary: again\n",
                 "summary: again", "column 1: duplicate key 'summary'", id="duplicate-key"),
]


@pytest.mark.parametrize(("old", "new", "marker", "message"), BROKEN)
def test_broken_data_gives_file_line_field_message(
    tmp_path: Path, old: str, new: str, marker: str, message: str
) -> None:
    assert TEXT.count(old) >= 1
    text = TEXT.replace(old, new, 1)
    root = tmp_path / "recipes"
    (root / "deployments" / "deepseek-ai").mkdir(parents=True)
    (root / "models" / "deepseek-ai").mkdir(parents=True)
    (root / "models" / f"{HF_ID}.yaml").write_text("", encoding="utf-8")
    (root / "deployments" / f"{HF_ID}.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(InvalidRecipe) as error:
        load_deployments(root)
    line = text[:text.index(marker)].count("\n") + 1  # where the marker starts
    expected = "\n".join(f"{DISPLAY}:{line}: {m}" for m in message.split("\n"))
    assert str(error.value) == expected


def test_deployments_without_a_recipe_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "recipes"
    (root / "deployments" / "deepseek-ai").mkdir(parents=True)
    shutil.copy(FILE, root / "deployments" / f"{HF_ID}.yaml")
    with pytest.raises(InvalidRecipe) as error:
        load_deployments(root)
    assert str(error.value) == (
        f"{DISPLAY}:5: model_id: no recipe for '{HF_ID}' (expected models/{HF_ID}.yaml)")


# ----------------------------------------------------------------------- combinations


def test_twelve_combinations_eight_targets_four_refused_with_the_reference_reasons() -> None:
    rows = dynamo.combinations(data())
    got = {(r["framework"], r["gpu"], r["topology"]): r["reason"] for r in rows}
    assert got == COMBINATIONS
    assert [r["available"] for r in rows] == [reason is None for reason in got.values()]
    assert sum(r["available"] for r in rows) == 8


@pytest.mark.parametrize("combo", [c for c, reason in COMBINATIONS.items() if reason])
def test_a_refused_combination_raises_its_reason(combo: tuple[str, str, str]) -> None:
    with pytest.raises(SelectionError) as error:
        dynamo.build(data(), selection(combo))
    assert error.value.key == "gpu"
    assert error.value.reason == COMBINATIONS[combo]


def test_defaults_and_filling_in_what_is_not_given() -> None:
    assert dynamo.resolve(data(), {}) == {
        "framework": "vllm", "gpu": "gb200", "topology": "aggregated"}
    # A GPU alone keeps the default framework and topology.
    assert dynamo.resolve(data(), {"gpu": "h200"}) == {
        "framework": "vllm", "gpu": "h200", "topology": "aggregated"}
    assert dynamo.resolve(data(), {"framework": "sglang", "topology": "disaggregated"}) == {
        "framework": "sglang", "gpu": "gb200", "topology": "disaggregated"}


def test_choosing_sglang_disables_b200_and_h200_with_their_reasons() -> None:
    result = dynamo.build(data(), {"framework": "sglang"})
    assert result["unavailable"] == {"gpu": {"b200": NO_SGLANG_B200, "h200": NO_SGLANG_H200}}
    # ...and an explicit H200 disables SGLang with the same sentence.
    assert dynamo.build(data(), {"gpu": "h200"})["unavailable"] == {
        "framework": {"sglang": NO_SGLANG_H200}}
    assert dynamo.build(data(), {})["unavailable"] == {}


@pytest.mark.parametrize(("query", "key", "message"), [
    ({"hardware": "h200"}, "hardware", "unknown key; valid keys: framework, gpu, topology"),
    ({"gpu": "a100"}, "gpu", "unknown value 'a100'; valid values: gb200, b200, h200"),
])
def test_unknown_keys_and_values_are_refused(query: dict[str, str], key: str,
                                              message: str) -> None:
    with pytest.raises(SelectionError) as error:
        dynamo.build(data(), query)
    assert (error.value.key, error.value.reason) == (key, message)


# ------------------------------------------------------------------------------ steps


def _step(result: dynamo.DynamoResult, step_id: str) -> dynamo.Step:
    return next(s for s in result["steps"] if s["id"] == step_id)


@pytest.mark.parametrize("combo", list(COMMANDS))
def test_steps_carry_the_reference_commands(combo: tuple[str, str, str]) -> None:
    result = dynamo.build(data(), selection(combo))
    deploy, service = COMMANDS[combo]
    ids = [s["id"] for s in result["steps"]]
    namespace = _step(result, "namespace")["shell"].splitlines()
    assert namespace[0] == "export NAMESPACE=your-namespace"
    if combo[0] == "vllm":
        assert ids == ["namespace", "render", "dry_run", "apply", "port_forward", "smoke_test"]
        assert namespace[1] == "export CLUSTER_CONFIG=/path/to/your/filled-cluster-kustomization"
        assert _step(result, "render")["shell"] == deploy
        both = _step(result, "dry_run")["shell"] + "\n" + _step(result, "apply")["shell"]
        assert both == DRY_RUN_AND_APPLY
    else:
        assert ids == ["namespace", "apply", "port_forward", "smoke_test"]
        assert len(namespace) == 1
        assert _step(result, "apply")["shell"] == deploy
    assert _step(result, "port_forward")["shell"] == (
        f'kubectl port-forward svc/{service} 8000:8000 -n "${{NAMESPACE}}"')
    assert _step(result, "smoke_test")["shell"] == SMOKE_TEST
    # The CLI's text is every step's shell text, under comment lines.
    commands = [line for line in result["copy_text"].splitlines()
                if line and not line.startswith("#")]
    assert commands == "\n".join(s["shell"] for s in result["steps"]).splitlines()


def _our_prose() -> list[str]:
    """Every sentence we wrote: the data's prose fields and the builder's step and
    prerequisite texts (not facts such as layouts, reasons, paths or numbers)."""
    d = data()
    texts = [d["summary"], d["resources"].get("note", ""), d["performance"]["notes"],
             *d["settings"]["notes"], *(c.get("description", "") for c in d["topologies"].values())]
    texts += [p["text"] for p in d["prerequisites"]]
    for target in d["targets"]:
        texts += [*target.get("notes", []), target.get("smoke_test_note", "")]
    for combo, reason in COMBINATIONS.items():
        if reason is None:
            result = dynamo.build(d, selection(combo))
            texts += [s["text"] for s in result["steps"]]
            texts += [p["text"] for p in result["prerequisites"]]
    return texts


def test_our_prose_is_in_our_own_words() -> None:
    """No run of 10 words of the reference page's text appears in what we wrote (its runs are
    kept as fingerprints, see tests/prose_runs.py)."""
    reference = prose_runs.read("dynamo-deepseek-v4.1-flash-deployments")
    assert len(reference) > 500
    copied: set[str] = set()
    for text in _our_prose():
        copied |= prose_runs.copied_runs(prose_runs.words(text), reference)
    assert not copied, sorted(copied)


def test_the_sglang_disaggregated_smoke_test_warns_about_empty_answers() -> None:
    text = _step(dynamo.build(data(), {"framework": "sglang", "topology": "disaggregated"}),
                 "smoke_test")["text"]
    assert "content: null" in text and "cuMemImportFromShareableHandle failed: 400" in text
    assert "content: null" not in _step(dynamo.build(data(), {"framework": "sglang"}),
                                        "smoke_test")["text"]


def test_shell_text_gives_back_every_argv() -> None:
    for combo, reason in COMBINATIONS.items():
        if reason:
            continue
        for step in dynamo.build(data(), selection(combo))["steps"]:
            for command in step["commands"]:
                tokens = shlex.split(dynamo.shell_text(command).replace("\\\n", ""))
                expected: list[str] = []
                for index, argv in enumerate(command["pipeline"]):
                    expected += (["|"] if index else []) + argv
                if command["stdout"]:
                    expected += [">", command["stdout"]]
                assert tokens == expected


def test_shell_variables_expand_and_json_does_not() -> None:
    result = dynamo.build(data(), {"gpu": "h200", "topology": "disaggregated"})
    script = "\n".join([
        "CLUSTER_CONFIG=/c NAMESPACE=ns",
        "kustomize() { printf '%s\\n' \"$@\"; }",
        "kubectl() { printf '%s\\n' \"$@\"; }",
        "curl() { printf '%s\\n' \"$@\"; }",
        _step(result, "port_forward")["shell"],
        _step(result, "smoke_test")["shell"],
    ])
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[:5] == ["port-forward", "svc/dsv41-flash-vllm-h200-disagg-agentic-frontend",
                         "8000:8000", "-n", "ns"]
    body = json.loads(lines[-1])
    assert body == {"model": HF_ID, "temperature": 0, "max_tokens": 512,
                    "messages": [{"role": "user", "content": "Reply with exactly: READY"}]}


def test_prerequisites_follow_the_target() -> None:
    def texts(query: dict[str, str]) -> str:
        return " ".join(p["text"] for p in dynamo.build(data(), query)["prerequisites"])

    gb200 = texts({})
    assert "8 GB200 GPUs" in gb200 and "ARM64" in gb200
    assert "16 CPU cores and 128 GiB host memory" in gb200
    assert "Kustomize v5.8.1" in gb200 and "NVLink clique" in gb200
    h200_agg = texts({"gpu": "h200"})
    assert "16 H200 GPUs" in h200_agg and "AMD64" in h200_agg
    assert "4 CPU cores and 8 GiB host memory" in h200_agg
    assert "PCIDEVICE_RDMA_IB" not in h200_agg
    h200_disagg = texts({"gpu": "h200", "topology": "disaggregated"})
    assert "8 H200 GPUs" in h200_disagg and "PCIDEVICE_RDMA_IB_INFO" in h200_disagg
    sglang = texts({"framework": "sglang"})
    assert "Kustomize" not in sglang
    for text in (gb200, h200_agg, sglang):
        assert ("4 GPUs, 16 CPU cores, 512 GiB host memory, 64 GiB ephemeral storage, and a "
                "200 GiB shared-memory volume") in text
        assert "`shared-model-cache`" in text


def test_settings_column_of_a_target() -> None:
    settings = dynamo.build(data(), {"gpu": "b200", "topology": "disaggregated"})["settings"]
    assert settings is not None
    values = {row["label"]: row["value"] for row in settings["rows"]}
    assert settings["label"] == "B200 disaggregated"
    assert values["KV cache dtype"] == "Auto (`nvfp4_ds_mla`)"
    assert values["Max batched tokens"] == "32,768 P / runtime default D"
    assert values["Conditional disaggregation"] == "`isl_bounding`"
    h200 = dynamo.build(data(), {"gpu": "h200"})["settings"]
    assert h200 is not None
    assert {r["label"]: r["value"] for r in h200["rows"]}["MoE backend"] == (
        "`flashinfer_cutlass`")
    assert dynamo.build(data(), {"framework": "sglang"})["settings"] is None


# ------------------------------------------------------------------------ performance


def test_performance_rows_are_the_reference_numbers() -> None:
    rows = dynamo.performance(data())
    got = [(r["framework_label"], r["sku"], r["recipe"], r["concurrency"],
            *(r[m] for m in MEASURES)) for r in rows]  # type: ignore[literal-required]
    expected = [(fw, sku, recipe, int(conc), *(float(v.replace(",", "")) for v in values))
                for fw, sku, recipe, conc, *values in PERFORMANCE]
    assert got == expected
    assert {r["workload"] for r in rows} == {"Agentic (64K input, 400 output)"}


def test_the_widget_prints_the_numbers_as_the_reference_does() -> None:
    html = parse(page_state(data(), {})["html"])
    table = html.find("table", "dy-perf")
    shown = []
    for tr in table.find("tbody").find_all("tr"):
        recipe = str(tr.find("th").children[0]).strip()
        cells = [td.text for td in tr.find_all("td")]
        shown.append((cells[0], cells[1], recipe, *cells[2:]))
    assert shown == PERFORMANCE


def test_gb200_comparison_equals_the_reference() -> None:
    comparison = dynamo.comparison(data(), "vllm", "gb200")
    assert comparison is not None
    assert (comparison["output_change_pct"], comparison["user_change_pct"]) == (21, 56)
    assert (comparison["ttft_p90_from_s"], comparison["ttft_p90_to_s"]) == ("3.52", "57.12")
    sentence = comparison["sentence"]
    assert "disaggregated serving delivers 21% more output tok/s/GPU and 56% more P50 user "\
        "tok/s; TTFT P90 rises from 3.52 s to 57.12 s." in sentence
    assert sentence.startswith("On GB200 with vLLM (8 GPUs at concurrency 168 for both)")


def test_other_comparisons_say_less_when_it_is_less() -> None:
    h200 = dynamo.comparison(data(), "vllm", "h200")
    assert h200 is not None
    # 359.41 / 209.18 = 1.718; 50.63 / 51.32 = 0.9866.
    assert (h200["output_change_pct"], h200["user_change_pct"]) == (72, -1)
    assert "72% more output tok/s/GPU and 1% less P50 user tok/s" in h200["sentence"]
    assert "aggregated on 16 GPUs at concurrency 80, disaggregated on 8 at 64" in (
        h200["sentence"])
    b200 = dynamo.comparison(data(), "vllm", "b200")
    assert b200 is not None
    assert (b200["output_change_pct"], b200["user_change_pct"]) == (10, 50)
    assert (b200["ttft_p90_from_s"], b200["ttft_p90_to_s"]) == ("3.07", "90.08")
    assert dynamo.comparison(data(), "sglang", "gb200") is None


def test_recommended_target_is_gb200_disaggregated() -> None:
    assert dynamo.recommended(data()) == {
        "framework": "vllm", "gpu": "gb200", "topology": "disaggregated"}


def test_recommended_follows_the_numbers() -> None:
    changed = copy.deepcopy(data())
    changed["performance"]["rows"][0]["output_tok_s_per_gpu"] = 5000.0
    assert dynamo.recommended(changed) == {
        "framework": "vllm", "gpu": "b200", "topology": "aggregated"}


# ---------------------------------------------------------------------------- the widget


def _widget(query: dict[str, str]) -> Node:
    return parse(page_state(data(), query)["html"])


def _pills(html: Node, key: str) -> dict[str, dict[str, str | None]]:
    return {b.attrs["data-value"] or "": b.attrs
            for b in html.find_all("button", "dy-pill", data_key=key)}


def test_widget_pills_reasons_and_highlighted_row() -> None:
    html = _widget({"dynamo_framework": "sglang", "hardware": "h200", "variant": "x"})
    gpus = _pills(html, "dynamo_gpu")
    assert gpus["gb200"]["aria-pressed"] == "true"
    for gpu, reason in (("b200", NO_SGLANG_B200), ("h200", NO_SGLANG_H200)):
        assert gpus[gpu]["aria-disabled"] == "true"
        why = html.find("span", "dy-why", id=gpus[gpu]["aria-describedby"] or "")
        assert why.text.endswith(reason)
    assert html.find_all("tr", "dy-selected") == []
    html = _widget({"dynamo_gpu": "h200", "dynamo_topology": "disaggregated"})
    selected = html.find_all("tr", "dy-selected")
    assert [(r.attrs["data-gpu"], r.attrs["data-topology"]) for r in selected] == [
        ("h200", "disaggregated")]
    codes = [c.text for c in html.find_all("pre", "rb-code")]
    assert any(c.startswith("kustomize build recipes/deepseek-v4.1-flash/vllm/"
                            "disagg-h200-agentic ") for c in codes)
    assert "svc/dsv41-flash-vllm-h200-disagg-agentic-frontend" in "".join(codes)
    assert len(html.find_all("button", "rb-copy")) == 6


def test_page_state_keeps_its_own_keys_and_drops_bad_ones_with_a_notice() -> None:
    state = page_state(data(), {"hardware": "h200", "dynamo_framework": "sglang",
                                "dynamo_gpu": "h200", "dynamo_colour": "blue"})
    assert state["explicit"] == {"dynamo_framework": "sglang"}
    assert state["notice"] == (
        "Ignored from the URL, showing defaults instead: dynamo_colour=blue (unknown key; "
        "valid keys: framework, gpu, topology); dynamo_gpu=h200 (" + NO_SGLANG_H200 + ")")
    assert page_state(data(), {"strategy": "x"})["notice"] == ""


def test_every_data_string_is_escaped() -> None:
    hostile = copy.deepcopy(data())
    evil = '<script>alert(1)</script> "quoted" & <b>'
    hostile["summary"] = evil
    hostile["targets"][0]["layout"] = evil
    hostile["targets"][0]["notes"] = [f"`{evil}` and {evil}"]
    hostile["frameworks"]["sglang"]["label"] = evil
    hostile["unavailable"][0]["reason"] = evil
    hostile["performance"]["rows"][0]["recipe"] = evil
    hostile["settings"]["rows"][0]["values"]["blackwell_agg"] = f"`{evil}`"
    hostile["prerequisites"][2]["text"] = evil
    for query in ({}, {"dynamo_framework": "sglang"}, {"dynamo_gpu": "h200"}):
        html = page_state(hostile, query)["html"]
        assert "<script>" not in html and "<b>" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot; &amp; &lt;b&gt;" in html
    assert "<code>&lt;script&gt;" in page_state(hostile, {})["html"]


# ---------------------------------------------------------------------------------- CLI


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)


def test_cli_prints_the_steps() -> None:
    out = run(HF_ID, "--dynamo", "framework=vllm", "gpu=gb200", "topology=disaggregated")
    assert out.returncode == 0, out.stderr
    assert out.stdout == dynamo.build(
        data(), {"framework": "vllm", "gpu": "gb200", "topology": "disaggregated"})["copy_text"]
    assert out.stdout.startswith("# 1. Set the namespace\n")
    assert ('kustomize build recipes/deepseek-v4.1-flash/vllm/disagg-gb200-agentic > '
            '"${CLUSTER_CONFIG}/recipe.yaml"\n') in out.stdout
    assert re.search(r"^kubectl port-forward svc/dsv41-flash-vllm-gb200-disagg-agentic-frontend"
                     r" 8000:8000", out.stdout, re.M)


def test_cli_json() -> None:
    out = run(HF_ID, "--dynamo", "gpu=h200", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["selection"] == {"framework": "vllm", "gpu": "h200", "topology": "aggregated"}
    assert result["target"]["frontend_service"] == "dsv41-flash-vllm-h200-agg-agentic-frontend"
    assert result["comparison"]["output_change_pct"] == 72


@pytest.mark.parametrize(("args", "line"), [
    (["framework=sglang", "gpu=h200", "topology=disaggregated"], f"gpu: {NO_SGLANG_H200}"),
    (["framework=sglang", "gpu=b200"], f"gpu: {NO_SGLANG_B200}"),
    (["gpu=a100"], "gpu: unknown value 'a100'; valid values: gb200, b200, h200"),
    (["hardware=h200"], "hardware: unknown key; valid keys: framework, gpu, topology"),
    (["gpu"], "gpu: expected KEY=VALUE (for example gpu=h200)"),
])
def test_cli_refuses_with_exit_2_and_one_line(args: list[str], line: str) -> None:
    out = run(HF_ID, "--dynamo", *args)
    assert (out.returncode, out.stdout, out.stderr) == (2, "", line + "\n")


def test_cli_model_without_deployments() -> None:
    out = run("deepseek-ai/DeepSeek-V4-Flash", "--dynamo")
    assert out.returncode == 2
    assert out.stderr == ("hf_id: no NVIDIA Dynamo deployments for "
                          f"'deepseek-ai/DeepSeek-V4-Flash' (models with some: {HF_ID})\n")


def _queries() -> list[dict[str, str]]:
    values = dynamo.choices(data())
    queries = []
    for framework in [None, *values["framework"]]:
        for gpu in [None, *values["gpu"]]:
            for topology in [None, *values["topology"]]:
                picked = {"framework": framework, "gpu": gpu, "topology": topology}
                queries.append({k: v for k, v in picked.items() if v})
    return queries


def test_every_pill_does_what_it_shows() -> None:
    """From every reachable state: an enabled pill builds and keeps every explicit choice; a
    disabled one is refused with the reason the pill shows."""
    checked = 0
    for explicit in _queries():
        try:
            result = dynamo.build(data(), explicit)
        except SelectionError as error:
            # Refused only where the reference has no recipe, with its sentence.
            assert explicit.get("framework") == "sglang"
            assert error.reason == {"b200": NO_SGLANG_B200, "h200": NO_SGLANG_H200}[
                explicit["gpu"]]
            continue
        assert {k: result["selection"][k] for k in explicit} == explicit
        for key, values in dynamo.choices(data()).items():
            for value in values:
                clicked = {**explicit, key: value}
                reason = result["unavailable"].get(key, {}).get(value)
                if reason is None:
                    assert dynamo.build(data(), clicked)["selection"][key] == value
                else:
                    with pytest.raises(SelectionError, match=re.escape(reason)):
                        dynamo.build(data(), clicked)
                checked += 1
    assert checked > 100
