"""Issue 33.1: T4 and V100 as vLLM 0.33.0 treats them (`builder/commands/legacy_gpus.py`).

A T4 (compute capability 7.5) runs vLLM 0.33.0 without BF16: every command there says
`--dtype half`, and what vLLM refuses there (MXFP4, an FP8 KV cache, float16 for Gemma 3) is
refused with the reason. A V100 (7.0) runs no vLLM 0.33.0 at all: no page offers it, and
every selection of it is one line and exit 2 in the CLI, and the same text in a page's
notice. Before this change `t4` and `v100` were unknown values. vLLM's own parser checks the
T4 commands with every other published command (tests/vllm_parser/test_published_commands.py
renders every hardware).
"""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from builder import SelectionError, build, resolve
from builder.commands.query import choices
from builder.views.widget import page_state
from tests.recipes_data import ROOT, builder_catalog, builder_recipe, hf_ids
from tests.test_detect import run as detect_run
from tests.test_render_matrix import _feature_queries

V100_REASON = ("vLLM 0.33.0 does not run on {name} (compute capability 7.0): its CUDA kernels "
               "start at 7.5 (T4 and newer)")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)


@cache
def t4_commands() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """Every `vllm serve` argv rendered on one T4: (hf_id, variant, argv), over every variant,
    strategy and feature query of every recipe (what does not run there is refused)."""
    catalog = builder_catalog()
    found = []
    for hf_id in hf_ids():
        recipe = builder_recipe(hf_id)
        for variant in recipe["variants"]:
            for strategy in catalog["strategies"]:
                for features in _feature_queries(recipe):
                    query = {"hardware": "t4", "variant": variant, "strategy": strategy,
                             **features}
                    try:
                        result = build(catalog, recipe, resolve(catalog, recipe, query))
                    except SelectionError:
                        continue
                    found += [(hf_id, variant, tuple(c["argv"])) for c in result["commands"]
                              if c["argv"][:2] == ["vllm", "serve"]]
    return tuple(found)


def _option(argv: tuple[str, ...], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


def test_every_t4_command_runs_in_float16() -> None:
    """No command on a T4 leaves vLLM a BF16 model dtype or KV cache, or an FP8 KV cache
    (vLLM's Triton attention keeps one from compute capability 8.9)."""
    commands = t4_commands()
    models = {hf_id for hf_id, _, _ in commands}
    # The small models of the catalogue run there (Qwen3-4B and smaller, Llama 3.2 1B/3B).
    assert {"Qwen/Qwen3-4B", "Qwen/Qwen3-1.7B", "meta-llama/Llama-3.2-3B-Instruct"} <= models
    assert len(models) >= 40, len(models)
    problems = []
    for hf_id, variant, argv in commands:
        kv = _option(argv, "--kv-cache-dtype")
        if _option(argv, "--dtype") not in {"half", "float16", "float32"}:
            problems.append(f"{hf_id} {variant}: --dtype {_option(argv, '--dtype')}")
        if "bfloat16" in argv or (kv or "").startswith("fp8"):
            problems.append(f"{hf_id} {variant}: {' '.join(argv)}")
    assert not problems, problems[:5]


def test_a_recipes_bfloat16_dtype_becomes_half_on_a_t4() -> None:
    """Jais-3 sets `--dtype bfloat16` for every GPU; on a T4 the rule replaces it."""
    catalog, recipe = builder_catalog(), builder_recipe("IFM/Jais-3-0.9B")
    assert _option(tuple(recipe["model"]["base_args"]), "--dtype") == "bfloat16"
    on_l4 = build(catalog, recipe, resolve(catalog, recipe, {"hardware": "l4"}))
    on_t4 = build(catalog, recipe, resolve(catalog, recipe, {"hardware": "t4"}))
    assert _option(tuple(on_l4["commands"][0]["argv"]), "--dtype") == "bfloat16"
    argv = tuple(on_t4["commands"][0]["argv"])
    assert _option(argv, "--dtype") == "half" and argv.count("--dtype") == 1
    source = next(s for s in on_t4["commands"][0]["sources"]["args"]
                  if s["option"][0] == "--dtype")
    assert source["file"] == "builder/commands/legacy_gpus.py" and "no BF16" in source["path"]
    assert [old["option"] for old in source["replaced"]] == [["--dtype", "bfloat16"]]


def test_qwen3_4b_fits_one_t4_with_its_context_capped() -> None:
    out = cli("Qwen/Qwen3-4B", "hardware=t4")
    assert out.returncode == 0, out.stderr
    assert "--tensor-parallel-size 1" in out.stdout and "--dtype half" in out.stdout
    assert "--max-model-len" in out.stdout
    fit = next(line for line in out.stderr.splitlines() if "per GPU" in line)
    assert "weights 8.0 GB per GPU" in fit
    assert "to fit 1× T4; 2 GPUs give the full context" in fit


def test_qwen3_8b_does_not_fit_one_t4() -> None:
    """16 GB × 0.9 = 14.4 GB for vLLM; the BF16 weights alone take 16.4 GB."""
    out = cli("Qwen/Qwen3-8B", "hardware=t4")
    assert out.returncode == 2 and out.stdout == ""
    (line,) = out.stderr.splitlines()
    assert line.startswith("hardware: BF16 does not fit 1× T4")
    assert "16.4 GB" in line and "14.4 GB (16 GB x 0.9)" in line
    assert "smallest that fits: gpus=2 (2× T4)" in line
    two = cli("Qwen/Qwen3-8B", "hardware=t4", "gpus=2")
    assert two.returncode == 0, two.stderr
    assert "--tensor-parallel-size 2" in two.stdout and "--dtype half" in two.stdout


@pytest.mark.parametrize(("hf_id", "query", "reason"), [
    ("openai/gpt-oss-20b", [], "no checkpoint of this recipe runs on T4: MXFP4: vLLM 0.33.0 "
     "runs MXFP4 checkpoints from compute capability 8.0; T4 has 7.5"),
    ("nvidia/NVIDIA-Nemotron-Nano-9B-v2", ["variant=fp8"], "FP8: vLLM 0.33.0 runs ModelOpt FP8 "
     "checkpoints from compute capability 8.0; T4 has 7.5; it runs on "),
    ("google/gemma-3-4b-it", [], "no checkpoint of this recipe runs on T4: T4 (compute "
     "capability 7.5) has no BF16 and vLLM 0.33.0 refuses float16 for model type gemma3 "
     "(numerical instability)"),
    ("microsoft/Phi-4-mini-instruct", ["variant=fp8"], "FP8 dynamic (Red Hat): "
     "--kv-cache-dtype fp8: vLLM 0.33.0's attention on T4 (Triton, compute capability 7.5) "
     "keeps an FP8 KV cache from 8.9 only; it runs on "),
])
def test_what_vllm_refuses_on_a_t4_says_why(hf_id: str, query: list[str], reason: str) -> None:
    out = cli(hf_id, "hardware=t4", *query)
    assert out.returncode == 2 and out.stdout == ""
    (line,) = out.stderr.splitlines()
    assert line.startswith("hardware: " + reason), line


def test_the_other_checkpoints_of_a_refused_recipe_still_run_on_a_t4() -> None:
    """Phi-4-mini's BF16 weights run where its FP8-KV checkpoint does not."""
    out = cli("microsoft/Phi-4-mini-instruct", "hardware=t4")
    assert out.returncode == 0, out.stderr
    assert "--dtype half" in out.stdout and "--kv-cache-dtype" not in out.stdout


@pytest.mark.parametrize(("hw_id", "name"), [("v100", "V100 32GB"), ("v100_16gb", "V100 16GB")])
def test_no_recipe_runs_on_a_v100(hw_id: str, name: str) -> None:
    catalog = builder_catalog()
    reason = V100_REASON.format(name=name)
    for hf_id in hf_ids():
        recipe = builder_recipe(hf_id)
        with pytest.raises(SelectionError) as refused:
            resolve(catalog, recipe, {"hardware": hw_id})
        assert refused.value.key == "hardware" and refused.value.reason == reason, hf_id
        assert hw_id not in choices(catalog, recipe)["hardware"], hf_id  # no pill
    out = cli("Qwen/Qwen3-8B", f"hardware={hw_id}")
    assert (out.returncode, out.stdout, out.stderr) == (2, "", f"hardware: {reason}\n")
    state = page_state(catalog, builder_recipe("Qwen/Qwen3-8B"), {"hardware": hw_id})
    assert state["notice"] == ("Ignored from the URL, showing defaults instead: "
                               f"hardware={hw_id} ({reason})")


def test_detect_finds_a_t4_and_a_v100(tmp_path: Path) -> None:
    t4 = detect_run(tmp_path, {"nvidia-smi": "nvidia-smi-1x-t4.txt"}, "Qwen/Qwen3-4B",
                    "--detect")
    assert t4.returncode == 0, t4.stderr
    assert "hardware=t4" in t4.stderr and "--dtype half" in t4.stdout
    v100 = detect_run(tmp_path, {"nvidia-smi": "nvidia-smi-8x-v100.txt"}, "Qwen/Qwen3-4B",
                      "--detect")
    assert v100.returncode == 2 and v100.stdout == ""
    assert v100.stderr.splitlines()[-1] == "hardware: " + V100_REASON.format(name="V100 32GB")
