"""Issue 34 (the view side): estimates read and validated by the loader, the `performance` of
every rendering (page, JSON, CLI), the `profile` key, measured points beside estimates, and the
per-model GPU comparison.

Estimates come from a hand-written file in the agreed format (tests/fixtures/performance/),
placed in a copy of the recipe tree, so that these tests do not follow the generated data.
"""

from __future__ import annotations

import copy
import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from builder import SelectionError, build, page_state
from builder.estimates.estimates import balanced_point
from builder.estimates.measured import error_line, estimate_errors
from builder.estimates.report import gpu_comparison, summary_line
from tests.recipes_data import RECIPES, builder_catalog, builder_recipe
from vllm_recipes.api_schemas import published
from vllm_recipes.errors import InvalidRecipe
from vllm_recipes.loader import load_for
from vllm_recipes.performance_data import measured_points
from vllm_recipes_cli.cli import main

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "performance" / "Qwen" / "Qwen3-8B.json"
QWEN = "Qwen/Qwen3-8B"
LABEL = ("estimated by NVIDIA AIConfigurator 0.12.0 from vLLM 0.24 kernel timings; not a "
         "measurement of this command")


def _estimates() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data


def _recipe(estimates: dict[str, Any] | None = None, measured: list[Any] | None = None
            ) -> dict[str, Any]:
    recipe = copy.deepcopy(builder_recipe(QWEN))
    recipe["performance"] = {"estimates": estimates if estimates is not None else _estimates(),
                             "measured": measured or []}
    return recipe


def _bare() -> dict[str, Any]:
    """Qwen3-8B without estimates (whatever recipes/performance/ holds)."""
    recipe = copy.deepcopy(builder_recipe(QWEN))
    recipe.pop("performance", None)
    return recipe


def _tree(tmp_path: Path, estimates: str | None) -> Path:
    """A copy of the tree with Qwen3-8B alone, and `estimates` as its estimate file."""
    root = tmp_path / "recipes"
    shutil.copytree(RECIPES / "strategies", root / "strategies")
    shutil.copy(RECIPES / "hardware.yaml", root / "hardware.yaml")
    for part, suffix in (("models", ".yaml"), ("models", ".md"), ("facts", ".yaml")):
        target = root / part / f"{QWEN}{suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(RECIPES / part / f"{QWEN}{suffix}", target)
    if estimates is not None:
        target = root / "performance" / f"{QWEN}.json"
        target.parent.mkdir(parents=True)
        target.write_text(estimates)
    return root


def _serve(result: dict[str, Any]) -> list[str]:
    return next(c for c in result["commands"] if c["role"] == "serve")["argv"]


def _flag(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


# ------------------------------------------------------------------------- loading


def test_the_loader_hands_the_estimates_to_the_builder(tmp_path: Path) -> None:
    catalog = load_for(_tree(tmp_path, FIXTURE.read_text()), QWEN)
    recipe = catalog.builder_recipe(QWEN)
    assert recipe["performance"]["estimates"] == _estimates()
    assert recipe["performance"]["measured"] == []


def test_without_an_estimate_file_the_recipe_has_no_performance(tmp_path: Path) -> None:
    catalog = load_for(_tree(tmp_path, None), QWEN)
    assert "performance" not in catalog.builder_recipe(QWEN)


@pytest.mark.parametrize(("change", "expected"), [
    (lambda d: d["cells"][0].pop("tp"),
     "recipes/performance/Qwen/Qwen3-8B.json: cells[0].tp: Field required"),
    (lambda d: d["cells"][0].update(gpus=4),
     "recipes/performance/Qwen/Qwen3-8B.json: cells[0].gpus: 4 is not tp x pp x dp (1 x 1 x 1)"),
    (lambda d: d["cells"][0].update(hardware="h9000"),
     "recipes/performance/Qwen/Qwen3-8B.json: cells[0].hardware: unknown hardware id 'h9000'"),
    (lambda d: d["cells"][1].update(variant="fp8"),
     "recipes/performance/Qwen/Qwen3-8B.json: cells[1].variant: no variant 'fp8' in the "
     "recipe; variants: default"),
    (lambda d: d.update(default_workload="agentic"),
     "recipes/performance/Qwen/Qwen3-8B.json: default_workload: 'agentic' is not among the "
     "workloads (chat, long_prompt, reasoning)"),
    (lambda d: d["cells"][2].pop("label"),
     "recipes/performance/Qwen/Qwen3-8B.json: cells[2].label: Field required"),
    (lambda d: d["source"].update(extra="x"),
     "recipes/performance/Qwen/Qwen3-8B.json: source.extra: unknown key (not in the schema; "
     "check the spelling)"),
    (lambda d: d.update(model="Qwen/Qwen3-4B"),
     "recipes/performance/Qwen/Qwen3-8B.json: model: 'Qwen/Qwen3-4B' is not the recipe's id "
     "('Qwen/Qwen3-8B')"),
])
def test_a_broken_estimate_file_names_the_file_and_field(tmp_path: Path, change: Any,
                                                         expected: str) -> None:
    data = _estimates()
    change(data)
    with pytest.raises(InvalidRecipe) as error:
        load_for(_tree(tmp_path, json.dumps(data, indent=1)), QWEN)
    assert str(error.value) == expected


def test_a_file_that_is_not_json_names_its_line(tmp_path: Path) -> None:
    with pytest.raises(InvalidRecipe) as error:
        load_for(_tree(tmp_path, '{\n "model": "Qwen/Qwen3-8B",\n}\n'), QWEN)
    assert str(error.value) == ("recipes/performance/Qwen/Qwen3-8B.json:3: not JSON: Expecting "
                                "property name enclosed in double quotes")


# ------------------------------------------------------------------------- the builder


def test_balanced_keeps_the_command_byte_for_byte() -> None:
    catalog = builder_catalog()
    for query in ({}, {"hardware": "h200"}, {"hardware": "h200", "gpus": "2"},
                  {"hardware": "b200", "install": "docker"}, {"hardware": "mi355x"}):
        before = build(catalog, _bare(), query)
        after = build(catalog, _recipe(), {**query, "profile": "balanced"})
        assert after["commands"] == before["commands"]
        assert after["copy_text"] == before["copy_text"]


def test_latency_and_throughput_change_the_command_and_say_why() -> None:
    catalog, recipe = builder_catalog(), _recipe()
    balanced = _serve(build(catalog, recipe, {"hardware": "h200"}))
    assert _flag(balanced, "--max-num-seqs") is None
    latency = build(catalog, recipe, {"hardware": "h200", "profile": "latency"})
    throughput = build(catalog, recipe, {"hardware": "h200", "profile": "throughput"})
    # The fixture's one-GPU chat ladder: 211 tokens/s for one user; at 4 users each still gets
    # 189 (>= 80%), at 8 users 166 (< 80%). The most tokens/s per GPU: 4,990 at 256 users.
    assert _flag(_serve(latency), "--max-num-seqs") == "4"
    assert _flag(_serve(throughput), "--max-num-seqs") == "256"
    assert latency["performance"]["profile"]["why"] == (
        "latency profile: TP 1 × 1 replica, --max-num-seqs 4: 189 tokens/s per user at 4 "
        "users, est.")
    assert throughput["performance"]["profile"]["why"] == (
        "throughput profile: TP 1 × 1 replica, --max-num-seqs 256: 4,990 tokens/s per GPU at "
        "256 users, est.")
    source = next(s for s in _serve_sources(latency) if s["option"][0] == "--max-num-seqs")
    assert source["layer"] == "profile: latency"
    assert source["file"] == "builder/estimates/profiles.py"


def _serve_sources(result: dict[str, Any]) -> list[dict[str, Any]]:
    return next(c for c in result["commands"] if c["role"] == "serve")["sources"]["args"]


def test_a_profile_picks_tensor_or_data_parallel_on_the_same_gpus() -> None:
    catalog, recipe = builder_catalog(), _recipe()
    # Two H200s: the fixture holds TP 2 (330 tokens/s for one user) and TP 1 x 2 replicas.
    latency = _serve(build(catalog, recipe, {"hardware": "h200", "gpus": "2",
                                            "profile": "latency"}))
    throughput = _serve(build(catalog, recipe, {"hardware": "h200", "gpus": "2",
                                               "profile": "throughput"}))
    assert (_flag(latency, "--tensor-parallel-size"), _flag(latency, "--data-parallel-size")) \
        == ("2", None)
    assert (_flag(throughput, "--tensor-parallel-size"),
            _flag(throughput, "--data-parallel-size"), _flag(throughput, "--max-num-seqs")) \
        == ("1", "2", "128")


def test_without_estimates_a_profile_is_unavailable_with_why() -> None:
    catalog = builder_catalog()
    result = build(catalog, _bare(), {"hardware": "h200"})
    assert set(result["unavailable"]["profile"]) == {"latency", "throughput"}
    with pytest.raises(SelectionError) as error:
        build(catalog, _bare(), {"profile": "latency"})
    assert error.value.key == "profile"
    assert "no estimate for this model" in error.value.reason
    with pytest.raises(SelectionError) as error:
        build(catalog, _recipe(), {"hardware": "mi355x", "profile": "throughput"})
    assert error.value.reason == "no estimate for BF16 on MI355X"
    with pytest.raises(SelectionError) as error:
        build(catalog, _recipe(), {"hardware": "h200", "gpus": "4", "profile": "latency"})
    assert error.value.reason == "no estimate for 4× H200: the estimates cover gpus=1 or 2"


def test_a_rendering_carries_its_estimate_with_its_source() -> None:
    result = build(builder_catalog(), _recipe(), {"hardware": "h200"})
    performance = result["performance"]
    assert performance["estimated"] is True
    assert performance["source"]["label"] == LABEL
    assert performance["source"]["version"] == "0.12.0"
    assert performance["source"]["database_version"] == "0.24.0"
    # Each cell's own label (B200's kernel timings are another vLLM release's here).
    b200 = build(builder_catalog(), _recipe(), {"hardware": "b200"})["performance"]
    assert b200["source"]["label"].startswith("estimated by NVIDIA AIConfigurator 0.12.0 from "
                                              "vLLM 0.26 kernel timings")
    # Balanced: the most users that each keep half of one user's 211 tokens/s: 16 (134).
    assert performance["point"]["concurrency"] == 16
    assert performance["line"] == ("est. 2,140 tokens/s per GPU at 16 users, 134 tokens/s per "
                                   "user, TTFT 56 ms (chat 1K/1K)")
    assert set(performance["curves"]) == {"chat", "long_prompt", "reasoning"}
    assert LABEL in summary_line(performance)


def test_no_estimate_is_said_never_guessed() -> None:
    catalog = builder_catalog()
    recipe = _recipe()
    recipe["performance"]["missing"] = {"default": {"mi355x": "AMD GPU: AIConfigurator 0.12.0 "
                                                              "has no AMD system"}}
    amd = build(catalog, recipe, {"hardware": "mi355x"})["performance"]
    assert amd["estimated"] is False and amd["point"] is None and amd["source"] is None
    assert amd["line"] == ("no estimate for BF16 on MI355X: AMD GPU: AIConfigurator 0.12.0 has "
                           "no AMD system")
    with pytest.raises(SelectionError) as error:
        build(catalog, recipe, {"hardware": "mi355x", "profile": "latency"})
    assert error.value.reason == amd["line"]
    none = build(catalog, _bare(), {"hardware": "h100"})["performance"]
    assert none["line"].startswith("no estimate for BF16 on H100")
    assert none["source"] is None


def test_the_balanced_point_keeps_half_of_one_users_speed() -> None:
    points = [{"concurrency": c, "tokens_per_s_per_user": u, "tokens_per_s_per_gpu": c * u,
               "ttft_ms": 1.0, "tpot_ms": 1.0, "memory_gb": 1.0}
              for c, u in ((1, 100.0), (8, 60.0), (16, 50.0), (32, 49.0))]
    assert balanced_point(points)["concurrency"] == 16  # type: ignore[arg-type]


# ------------------------------------------------------------------------- measured


def test_measured_beats_estimated_and_the_error_is_computed() -> None:
    measured = measured_points({"workload": "Agentic (64K input, 400 output)", "rows": [
        {"framework": "vllm", "gpu": "h200", "topology": "aggregated",
         "recipe": "Aggregated (2 × TP1)", "concurrency": 16, "output_tok_s_per_gpu": 1000.0,
         "user_tok_s_p50": 100.0, "ttft_p50_ms": 200.0, "ttft_p90_ms": 400.0},
        {"framework": "vllm", "gpu": "h200", "topology": "disaggregated",
         "recipe": "Disaggregated (1 prefill, 1 decode; TP4 each)", "concurrency": 64,
         "output_tok_s_per_gpu": 300.0, "user_tok_s_p50": 50.0, "ttft_p50_ms": 170.0,
         "ttft_p90_ms": 900.0},
        {"framework": "sglang", "gpu": "h200", "topology": "aggregated",
         "recipe": "Aggregated (TP8)", "concurrency": 8, "output_tok_s_per_gpu": 10.0,
         "user_tok_s_p50": 1.0, "ttft_p50_ms": 1.0, "ttft_p90_ms": 1.0}]}, "deployments.yaml")
    assert [(m.gpus, m.tp, m.dp, m.isl, m.osl) for m in measured] == [
        (2, 1, 2, 65536, 400), (8, None, None, 65536, 400)]
    estimates = _estimates()
    estimates["workloads"]["agentic"] = {"isl": 65536, "osl": 400}
    estimates["cells"].append({**estimates["cells"][6], "workload": "agentic", "points": [
        {"concurrency": 16, "ttft_ms": 150.0, "tpot_ms": 9.0, "tokens_per_s_per_gpu": 1100.0,
         "tokens_per_s_per_user": 110.0, "memory_gb": 60.0}]})
    points = [m.model_dump() for m in measured]
    comparisons = estimate_errors(estimates, points)  # type: ignore[arg-type]
    assert [c["error_pct"] for c in comparisons] == [10.0, None]
    assert error_line(comparisons) == ("estimates were within ±10% of the 1 measured point "
                                       "(tokens/s per GPU); 1 measured point has no estimate "
                                       "of its layout")
    result = build(builder_catalog(), _recipe(estimates, points), {"hardware": "h200"})
    html = page_state(builder_catalog(), _recipe(estimates, points), {"hardware": "h200"})["html"]
    assert result["performance"]["measured"][0]["error_pct"] == 10.0
    assert html.index("<strong>measured</strong> 1,000 tokens/s per GPU") < html.index("est. ")


def test_the_v41_flash_dynamo_table_is_read_as_measured_points() -> None:
    recipe = builder_recipe("deepseek-ai/DeepSeek-V4.1-Flash")
    measured = recipe["performance"]["measured"]
    assert {(m["hardware"], m["tp"], m["dp"], m["concurrency"]) for m in measured
            if m["tp"]} == {("b200", 4, 2, 168), ("gb200", 4, 2, 168), ("h200", 4, 4, 80)}
    assert all("recipes/deployments/deepseek-ai/DeepSeek-V4.1-Flash.yaml" in m["source"]
               for m in measured)
    result = build(builder_catalog(), recipe, {"hardware": "b200"})
    assert [m["tokens_per_s_per_gpu"] for m in result["performance"]["measured"]] == [
        990.57, 1087.71]


# ------------------------------------------------------------------------- page, JSON, CLI


def test_the_page_shows_the_estimate_labelled_and_a_table_one_tap_away() -> None:
    html = page_state(builder_catalog(), _recipe(), {"hardware": "h200"})["html"]
    assert "est. 2,140 tokens/s per GPU at 16 users" in html
    assert LABEL in html
    table = html[html.index('<details class="rb-perf-more">'):]
    assert "<table" in table[:table.index("</details>")]
    assert html.index('class="rb-perf"') < html.index('class="rb-block"') or (
        html.index('class="rb-perf"') < html.index('class="rb-rows"'))
    amd = page_state(builder_catalog(), _recipe(), {"hardware": "mi355x"})["html"]
    assert '<p class="rb-perf">no estimate for BF16 on MI355X</p>' in amd
    assert "tokens/s" not in amd
    assert 'data-key="profile" data-value="latency" aria-pressed="false" tabindex="-1" ' \
           'aria-disabled="true"' in amd


def test_the_gpu_comparison_puts_the_most_tokens_per_gpu_first() -> None:
    catalog, recipe = builder_catalog(), _recipe()
    performances = {hw: build(catalog, recipe, {"hardware": hw})["performance"]
                    for hw in ("h200", "b200", "mi355x")}
    rows = gpu_comparison(catalog, recipe, performances)
    assert [r["hardware"] for r in rows] == ["b200", "h200"]  # MI355X: no estimate
    assert rows[0]["tokens_per_s_per_gpu"] > rows[1]["tokens_per_s_per_gpu"]



@cache
def cli_validator() -> jsonschema.protocols.Validator:
    """The `vllm-recipes --json` schema, checked once (`jsonschema.validate` checks the schema
    itself on every call)."""
    schema = published("cli")
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)

def test_the_cli_json_has_performance_and_stderr_one_line(tmp_path: Path, capsys: Any) -> None:
    root = _tree(tmp_path, FIXTURE.read_text())
    assert main([QWEN, "hardware=h200", "--json", "--recipes", str(root)]) == 0
    document = json.loads(capsys.readouterr().out)
    cli_validator().validate(document)
    performance = document["recommended_command"]["performance"]
    assert performance["source"]["tool"] == "aiconfigurator"
    assert performance["source"]["version"] == "0.12.0"
    assert main([QWEN, "hardware=h200", "profile=latency", "--recipes", str(root)]) == 0
    out, err = capsys.readouterr()
    assert "--max-num-seqs 4" in out
    assert [line for line in err.splitlines() if "est." in line] == [
        "vllm-recipes: latency profile: TP 1 × 1 replica, --max-num-seqs 4: 189 tokens/s per "
        f"user at 4 users, est. · est. 755 tokens/s per GPU at 4 users, 189 tokens/s per user, "
        f"TTFT 48 ms (chat 1K/1K) · {LABEL}"]


def test_the_cli_refuses_a_profile_without_estimates_in_one_line(tmp_path: Path,
                                                                 capsys: Any) -> None:
    root = _tree(tmp_path, None)
    assert main([QWEN, "hardware=h200", "profile=throughput", "--recipes", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("profile: no estimate for this model")


def test_the_coverage_says_why_a_cell_has_no_estimate(tmp_path: Path) -> None:
    root = _tree(tmp_path, FIXTURE.read_text())
    (root / "performance" / "coverage.json").write_text(json.dumps({"supported": {QWEN: {
        "default": {"h200": True, "mi355x": "AMD GPU: no AIConfigurator system"}}}}))
    recipe = load_for(root, QWEN).builder_recipe(QWEN)
    assert recipe["performance"]["missing"] == {
        "default": {"mi355x": "AMD GPU: no AIConfigurator system"}}
    result = build(builder_catalog(), recipe, {"hardware": "mi355x"})
    assert result["performance"]["line"] == ("no estimate for BF16 on MI355X: AMD GPU: no "
                                             "AIConfigurator system")
    assert result["unavailable"]["profile"]["latency"] == result["performance"]["line"]


def test_the_acceptance_example_on_the_real_tree(capsys: Any) -> None:
    """`vllm-recipes Qwen/Qwen3-8B hardware=h200 --json`: an AIConfigurator estimate naming its
    versions (recipes/performance/Qwen/Qwen3-8B.json); latency and throughput change the
    command; MI355X has no estimate."""
    assert main([QWEN, "hardware=h200", "--json"]) == 0
    performance = json.loads(capsys.readouterr().out)["recommended_command"]["performance"]
    assert performance["estimated"] is True
    assert (performance["source"]["tool"], performance["source"]["version"],
            performance["source"]["core_version"]) == ("aiconfigurator", "0.12.0", "0.12.0")
    assert performance["source"]["database_version"]
    assert performance["line"].startswith("est. ")
    commands = {}
    for profile in ("balanced", "latency", "throughput"):
        assert main([QWEN, "hardware=h200", f"profile={profile}"]) == 0
        out, err = capsys.readouterr()
        commands[profile] = out
        assert (f"vllm-recipes: {profile} profile: " in err) == (profile != "balanced")
    assert len(set(commands.values())) == 3
    assert main([QWEN, "hardware=mi355x", "--json"]) == 0
    amd = json.loads(capsys.readouterr().out)["recommended_command"]["performance"]
    assert amd["estimated"] is False and amd["line"].startswith("no estimate for BF16 on MI355X")


def test_a_profile_picks_on_every_gpu_count_the_builder_renders(capsys: Any) -> None:
    """The estimates cover every GPU count of the `gpus` row, not only the default one: on
    2× H200 the latency and throughput profiles pick among TP 2 × 1 replica and TP 1 × 2
    replicas (recipes/performance/Qwen/Qwen3-8B.json), and say what they tune and what not."""
    commands = {}
    for profile in ("balanced", "latency", "throughput"):
        assert main([QWEN, "hardware=h200", "gpus=2", f"profile={profile}", "--json"]) == 0
        full = json.loads(capsys.readouterr().out)
        cli_validator().validate(full)
        document = full["recommended_command"]
        commands[profile] = document["command"]
        performance = document["performance"]
        assert performance["estimated"] is True
        assert performance["layout"]["gpus"] == 2
        if profile != "balanced":
            chosen = performance["profile"]
            assert chosen["why"].startswith(f"{profile} profile: TP ")
            assert chosen["tunes"] == ["tensor-parallel size × data-parallel replicas",
                                       "--max-num-seqs"]
            assert "ctx_tokens" in chosen["not_modelled"]["--max-num-batched-tokens"]
            assert "--max-num-batched-tokens" not in commands[profile]
    assert len(set(map(str, commands.values()))) == 3


def test_the_v41_page_says_why_its_measured_points_have_no_estimate() -> None:
    """Acceptance point 3 cannot be met with AIConfigurator 0.12.0 (V41_REPORT.md,
    tests/aiconfigurator/test_unmodelled_architecture.py): the page and the JSON say why."""
    recipe = builder_recipe("deepseek-ai/DeepSeek-V4.1-Flash")
    performance = build(builder_catalog(), recipe, {"hardware": "h200"})["performance"]
    assert performance["measured"] and not performance["estimated"]
    assert performance["errors"].startswith(
        "no estimate beside the measured points: AIConfigurator 0.12.0 does not model its "
        "architecture: its config.json declares DeepseekV41ForCausalLM")
    html = page_state(builder_catalog(), recipe, {"hardware": "h200"})["html"]
    assert "DeepseekV41ForCausalLM" in html
