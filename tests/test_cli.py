"""`vllm-recipes`: exit codes, one-line errors, --list, variant ids, --json shape."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from builder.vocabulary import SELECTION_KEYS
from tests.recipes_data import ROOT
from vllm_recipes_cli.cli import main as cli_main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)


def run_here(*args: str) -> subprocess.CompletedProcess[str]:
    """`run`, through the CLI's `main` in this process (`python -m vllm_recipes_cli` is
    `sys.exit(main())`): for a test that asks many answers of one behaviour, whose real
    process start-up (~1 s each) another test of the behaviour keeps."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(list(args))
        except SystemExit as stop:  # argparse's usage errors
            code = stop.code if isinstance(stop.code, int) else 1
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def test_list_names_recipes_and_variant_ids() -> None:
    out = run("--list")
    assert out.returncode == 0
    ids = [line.split("\t")[0] for line in out.stdout.splitlines()]
    assert "deepseek-ai/DeepSeek-V4-Flash" in ids
    assert "nvidia/DeepSeek-V4-Flash-NVFP4" in ids
    assert "meta-llama/Llama-3.1-8B-Instruct" in ids


def test_json_has_every_documented_key() -> None:
    out = run("deepseek-ai/DeepSeek-V4-Flash", "hardware=mi355x", "--json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert document["api_version"] == 1 and document["hf_id"] == "deepseek-ai/DeepSeek-V4-Flash"
    result = document["recommended_command"]
    assert {"selection", "commands", "install_commands", "unavailable", "notes"} <= set(result)
    assert set(result["selection"]) == {"hardware", "variant", "strategy", "gpus", "nodes",
                                        "profile", "frontend",
                                        "install", "kv_offload", "tool_calling",
                                        "reasoning", "spec_decoding"}
    pd = json.loads(run("deepseek-ai/DeepSeek-V4-Flash", "hardware=h200", "variant=fp8",
                        "strategy=pd_cluster", "--json").stdout)["recommended_command"]
    assert pd["selection"]["pd_connector"] == "nixl"
    command = result["commands"][0]
    assert command["role"] == "serve"
    assert command["argv"][:3] == ["vllm", "serve", "deepseek-ai/DeepSeek-V4-Flash-0731"]
    assert {"env", "text", "docker_argv", "docker_text"} <= set(command)
    assert command["env"]["VLLM_ROCM_USE_AITER"] == "1"
    assert result["install_commands"]["pip"]["available"] is True


def test_variant_model_id_selects_the_variant() -> None:
    document = json.loads(run("nvidia/DeepSeek-V4-Flash-NVFP4", "--json").stdout)
    assert (document["hf_id"], document["recipe"], document["variant"]) == (
        "nvidia/DeepSeek-V4-Flash-NVFP4", "deepseek-ai/DeepSeek-V4-Flash", "nvfp4")
    result = document["recommended_command"]
    assert result["selection"]["variant"] == "nvfp4"
    assert result["commands"][0]["argv"][2] == "nvidia/DeepSeek-V4-Flash-NVFP4"
    # An NVFP4 checkpoint runs on Blackwell: the default hardware moves there.
    assert result["selection"]["hardware"] in {"b200", "gb200", "b300", "gb300"}


@pytest.mark.parametrize(
    ("args", "first_words"),
    [
        (["foo=1"], "foo: unknown key; valid keys: hardware, variant"),
        (["hardware=tpu"], "hardware: unknown value 'tpu'; valid values: h200, h100"),
        (["hardware=mi350x"], "hardware: this recipe is not offered on MI350X; it is offered on"),
        (["spec_decoding=eagle"], "spec_decoding: unknown value 'eagle'; valid values: off, on"),
        (["hardware"], "hardware: expected KEY=VALUE"),
        (["variant=fp8", "spec_decoding=dspark"], "spec_decoding: DSpark needs the"),
        (["hardware=h200", "hardware=b200"], "hardware: given twice"),
        (["strategy=single_node_tep", "hardware=dgx_station_gb300"],
         "strategy: Tensor + Expert Parallel needs at least 2 GPUs; DGX Station (GB300) has 1"),
        (["hardware=ascend_950pr_8x", "install=pip"],
         "install: this recipe offers no pip install on Ascend 950PR 8×; use Docker"),
    ],
)
def test_bad_or_unavailable_choices_exit_2_with_one_line(args: list[str], first_words: str
                                                         ) -> None:
    # (the process's exit code and its one line: test_unknown_model_exits_2 and the refusals
    # of test_list_json_and_list_is_alone run it as a user does)
    out = run_here("deepseek-ai/DeepSeek-V4-Flash", *args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(first_words), lines[0]


def test_unknown_model_exits_2() -> None:
    out = run("nobody/Nothing")
    assert out.returncode == 2
    assert "unknown model 'nobody/Nothing'" in out.stderr


def test_list_json_and_list_is_alone() -> None:
    out = run("--list", "--json")
    assert out.returncode == 0
    document = json.loads(out.stdout)
    assert document["api_version"] == 1 and document["count"] == len(document["models"])
    [row] = [r for r in document["models"] if r["hf_id"] == "nvidia/DeepSeek-V4-Flash-NVFP4"]
    assert (row["title"], row["recipe"], row["variant"], row["precisions"]) == (
        "DeepSeek-V4-Flash (NVFP4)", "deepseek-ai/DeepSeek-V4-Flash", "nvfp4", ["nvfp4"])
    assert "b200" in row["hardware"] and "h200" not in row["hardware"]  # Blackwell only
    assert "url" not in row and "json" not in row  # (the command line has no site)
    for args in (["--list", "deepseek-ai/DeepSeek-V4-Flash"], ["--list", "x", "hardware=h200"]):
        out = run(*args)
        assert out.returncode == 2 and out.stdout == ""
        assert len(out.stderr.strip().splitlines()) == 1


def test_explain_names_the_file_line_and_path_of_each_option() -> None:
    out = run("deepseek-ai/DeepSeek-V4.1-Flash", "hardware=mi355x", "--explain")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    at = lines.index("  --monokernel")
    recipe = ROOT / "recipes/models/deepseek-ai/DeepSeek-V4.1-Flash.yaml"
    line = next(i for i, text in enumerate(recipe.read_text().splitlines(), 1)
                if "--monokernel: true, --attention-config" in text)
    assert lines[at + 1] == (f"      ← recipes/models/deepseek-ai/DeepSeek-V4.1-Flash.yaml:{line} "
                             "hardware_overrides.mi355x.extra_args (override: mi355x)")


def test_json_carries_the_source_of_every_option() -> None:
    result = json.loads(run("deepseek-ai/DeepSeek-V4.1-Flash", "hardware=mi355x", "--json").stdout)
    serve = result["recommended_command"]["commands"][0]
    options = [token for source in serve["sources"]["args"] for token in source["option"]]
    assert options == serve["argv"][3:]
    parallel = next(s for s in serve["sources"]["args"]
                    if s["option"][0] == "--tensor-parallel-size")
    assert parallel["path"] == "strategy_overrides.single_node_tp.mi355x.parallel_size"
    assert parallel["replaced"] == []
    assert set(serve["sources"]["env"]) == set(serve["env"])


def test_check_a_clean_tree_and_a_broken_one(tmp_path: Path) -> None:
    out = run("check")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip().endswith("no problems")
    tree = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", tree)
    recipe = tree / "models/meta-llama/Llama-3.1-8B-Instruct.yaml"
    text = recipe.read_text()
    added = next(line for line in text.splitlines() if "date_added:" in line)
    recipe.write_text(text.replace(added, "  date_added: 2026-11-31"))
    out = run("check", str(tree))
    assert out.returncode == 1
    line = next(i for i, text in enumerate(recipe.read_text().splitlines(), 1)
                if "date_added" in text)
    assert out.stdout.splitlines() == [
        f"recipes/models/meta-llama/Llama-3.1-8B-Instruct.yaml:{line}: meta.date_added: "
        "'2026-11-31' is not a real calendar date (day is out of range for month)"]


def test_schema_subcommand_prints_the_committed_schema() -> None:
    out = run("schema")
    assert json.loads(out.stdout) == json.loads((ROOT / "recipes/schema.json").read_text())


def test_help_readme_and_api_page_name_every_selection_key() -> None:
    """The keys come from one registry (builder.vocabulary.SELECTION_KEYS)."""
    help_text = run("--help").stdout
    readme = (ROOT / "README.md").read_text()
    for key in SELECTION_KEYS:
        assert f"  {key} " in help_text, key
        assert f"`{key}`" in readme, key


def test_cached_answers_equal_fresh_ones_and_follow_edits(tmp_path: Path) -> None:
    """The CLI's cache of validated recipes (answer_cache.py) answers like the loader, and an
    edited recipe is read again."""
    tree = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", tree)
    cache = tmp_path / "cache"

    def answer(*args: str, cache_dir: str = str(cache)) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "vllm_recipes_cli", "--recipes", str(tree), *args], cwd=ROOT,
            capture_output=True, text=True, check=False,
            env={**os.environ, "VLLM_RECIPES_CACHE": cache_dir})
        assert out.returncode == 0, out.stderr
        return out.stdout

    query = ("nvidia/DeepSeek-V4-Flash-NVFP4", "hardware=gb200", "--json")
    fresh = answer(*query, cache_dir="off")
    assert not cache.exists()
    assert answer(*query) == fresh  # fills the cache
    assert len(list(cache.rglob("*.json"))) == 1
    assert answer(*query) == fresh  # answered from it
    path = tree / "models" / "deepseek-ai" / "DeepSeek-V4-Flash.yaml"
    text = path.read_text(encoding="utf-8")
    assert "--block-size: 256}" in text
    path.write_text(text.replace("--block-size: 256}", "--block-size: 128}", 1), encoding="utf-8")
    edited = answer(*query)
    assert edited != fresh and '"128"' in edited
    assert edited == answer(*query, cache_dir="off")


def test_a_switch_that_turns_a_feature_off_says_so() -> None:
    """Issue 10.5: DeepSeek-V4-Flash's default has DSpark speculative decoding on; the FP8
    (Preview) checkpoint cannot run it, so picking it turns it off, with a note on the page
    and in --json. Asking for it off, or staying on the default, gives no such note."""
    from builder.views.widget import page_state
    from tests.recipes_data import builder_catalog, builder_recipe

    out = run("deepseek-ai/DeepSeek-V4-Flash", "variant=fp8", "--json")
    assert out.returncode == 0, out.stderr
    notes = json.loads(out.stdout)["recommended_command"]["notes"]
    assert notes[0]["title"] == "Spec decoding is off"
    assert ("DSpark needs the FP8 (0731) or FP4+FP8 (Preview) + DSpark checkpoint"
            in notes[0]["body"])
    state = page_state(builder_catalog(), builder_recipe("deepseek-ai/DeepSeek-V4-Flash"),
                       {"variant": "fp8"})
    assert "Spec decoding is off" in str(state["html"])
    for args in ((), ("variant=fp8", "spec_decoding=off")):
        quiet = json.loads(run_here("deepseek-ai/DeepSeek-V4-Flash", *args, "--json").stdout)
        notes = quiet["recommended_command"]["notes"]
        assert not [n for n in notes if n["title"].endswith(" is off")]


def test_the_cache_key_covers_the_data_layer_and_the_tool(tmp_path: Path) -> None:
    """Issue 37: the tool and the data layer are two packages; an edit of the schema or the
    loader changes what a tree validates to as much as an edit of the tool, so both key it."""
    import vllm_recipes.schema
    import vllm_recipes_cli.cli_common
    from vllm_recipes_cli import answer_cache

    (tmp_path / "hardware.yaml").write_text("hardware: {}\n")
    files = {row.split("\0")[0] for row in answer_cache._stats(tmp_path)}
    for module in (vllm_recipes.schema, vllm_recipes_cli.cli_common):
        assert str(Path(module.__file__ or "").resolve()) in files, module.__name__
    assert str((tmp_path / "hardware.yaml").resolve()) in files
