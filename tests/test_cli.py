"""`vllm-recipes`: exit codes, one-line errors, --list, variant ids, --json shape."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.recipes_data import ROOT


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)


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
    result = json.loads(out.stdout)
    assert {"hf_id", "selection", "commands", "install", "unavailable", "notes"} <= set(result)
    assert set(result["selection"]) == {"hardware", "variant", "strategy", "nodes", "frontend",
                                        "install", "pd_connector", "kv_offload", "tool_calling",
                                        "reasoning", "spec_decoding"}
    command = result["commands"][0]
    assert command["role"] == "serve"
    assert command["argv"][:3] == ["vllm", "serve", "deepseek-ai/DeepSeek-V4-Flash-0731"]
    assert {"env", "text", "docker_argv", "docker_text"} <= set(command)
    assert command["env"]["VLLM_ROCM_USE_AITER"] == "1"
    assert result["install"]["pip"]["available"] is True


def test_variant_model_id_selects_the_variant() -> None:
    result = json.loads(run("nvidia/DeepSeek-V4-Flash-NVFP4", "--json").stdout)
    assert result["selection"]["variant"] == "nvfp4"
    assert result["commands"][0]["argv"][2] == "nvidia/DeepSeek-V4-Flash-NVFP4"
    # An NVFP4 checkpoint runs on Blackwell: the default hardware moves there.
    assert result["selection"]["hardware"] in {"b200", "gb200", "b300", "gb300"}


@pytest.mark.parametrize(
    ("args", "first_words"),
    [
        (["foo=1"], "foo: unknown key; valid keys: hardware, variant"),
        (["hardware=tpu"], "hardware: unknown value 'tpu'; valid values: h200, h100"),
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
    out = run("deepseek-ai/DeepSeek-V4-Flash", *args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(first_words), lines[0]


def test_unknown_model_exits_2() -> None:
    out = run("nobody/Nothing")
    assert out.returncode == 2
    assert "unknown model 'nobody/Nothing'" in out.stderr
