"""vLLM-Omni recipes: the `--omni` command, its install steps and the request example of each
task, against what vLLM-Omni documents (docs/serving/README.md of vllm-project/vllm-omni: the
routes each task kind is served on)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from functools import cache
from typing import Any

import pytest

from builder import SelectionError, build
from builder.commands.omni_tasks import omni_task
from builder.vllm_release import OMNI_VERSION, OMNI_VLLM_VERSION
from tests.recipes_data import ROOT, builder_catalog, builder_recipe, hf_ids
from vllm_recipes.vllm_flags import OMNI_FLAGS_FILE, serve_flags

# The routes vLLM-Omni's API server documents for each kind of generation.
ROUTES: dict[str, set[str]] = {
    "t2i": {"/v1/images/generations", "/v1/chat/completions"},
    "i2i": {"/v1/images/edits", "/v1/chat/completions"},
    "t2v": {"/v1/videos", "/v1/videos/sync"},
    "i2v": {"/v1/videos", "/v1/videos/sync"},
    "ti2v": {"/v1/videos", "/v1/videos/sync"},
    "tts": {"/v1/audio/speech"},
    "t2a": {"/v1/audio/generate", "/v1/audio/speech"},  # MOSS-SoundEffect: the speech route
}
URL = re.compile(r"https?://(?:localhost|127\.0\.0\.1):(\d+)(/v1/[\w/.-]*)")
"""A request to the server (other local URLs, e.g. a file server for media, are not)."""


@cache
def omni_ids() -> list[str]:
    return [hf_id for hf_id in hf_ids() if builder_recipe(hf_id).get("omni")]


def cli(*args: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-m", "vllm_recipes_cli", *args], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout)["recommended_command"]
    return result


def option(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


def test_qwen_image_json_gives_the_omni_command_install_steps_and_a_t2i_request() -> None:
    result = cli("Qwen/Qwen-Image", "--json")
    command = result["commands"][0]
    assert command["argv"][:3] == ["vllm", "serve", "Qwen/Qwen-Image"]
    assert command["argv"][-1] == "--omni"
    assert result["selection"]["task"] == "t2i"
    assert result["selection"]["strategy"] == "omni_server"
    pip = result["install_commands"]["pip"]
    # The install names the vLLM-Omni release its parser check used and the vLLM it runs on,
    # both pinned, and no later step takes vLLM back to another release (issue 35).
    assert pip["available"]
    assert f"vllm=={OMNI_VLLM_VERSION} vllm-omni=={OMNI_VERSION}" in pip["command"]
    assert pip["checked_with"] == (
        f"checked with vLLM-Omni {OMNI_VERSION} on vLLM {OMNI_VLLM_VERSION}")
    assert not any("vllm==" in step["command"] or "vllm-omni.git" in step["command"]
                   for step in pip["dependencies"])
    request = result["request"]
    assert request["label"] == "Text → Image"
    assert "http://localhost:8000/v1/images/generations" in request["text"]
    assert request["text"].rstrip().endswith("> output.png")


def test_a_recipe_without_omni_has_no_request() -> None:
    assert cli("meta-llama/Llama-3.1-8B-Instruct", "--json")["request"] is None


def test_there_are_the_25_generation_models() -> None:
    assert len(omni_ids()) == 25


@pytest.mark.parametrize("hf_id", omni_ids())
def test_every_task_request_targets_its_served_route_and_port(hf_id: str) -> None:
    catalog, recipe = builder_catalog(), builder_recipe(hf_id)
    checked = 0
    for task_id, task in recipe["omni"]["tasks"].items():
        for hardware in catalog["hardware"]:
            try:
                result = build(catalog, recipe, {"task": task_id, "hardware": hardware})
            except SelectionError:
                continue
            command, request = result["commands"][0], result["request"]
            assert request and request["label"], (task_id, hardware)
            lines = request["text"].splitlines()
            assert any(line.startswith("curl ") for line in lines), request["text"]
            urls = URL.findall(request["text"])
            assert urls, request["text"]
            port = int(option(command["argv"], "--port") or 8000)
            for url_port, route in urls:
                assert int(url_port) == port, (task_id, hardware, request["text"])
                assert route in ROUTES[task["kind"]], (task_id, route)
            checked += 1
    assert checked > 0


@cache
def _bash() -> str | None:
    return shutil.which("bash")


@pytest.mark.skipif(_bash() is None, reason="needs bash to parse the shell text")
def test_every_request_is_valid_shell() -> None:
    catalog = builder_catalog()
    texts = set()
    for hf_id in omni_ids():
        recipe = builder_recipe(hf_id)
        for task_id in recipe["omni"]["tasks"]:
            for hardware in catalog["hardware"]:
                try:
                    texts.add(build(catalog, recipe, {"task": task_id, "hardware": hardware})
                              ["request"]["text"])
                except SelectionError:
                    continue
    assert len(texts) > 25
    for text in texts:
        out = subprocess.run([_bash() or "bash", "-n"], input=text, capture_output=True,
                             text=True, check=False)
        assert out.returncode == 0, f"{out.stderr}\n{text}"


def test_a_task_serves_its_own_checkpoint_and_request() -> None:
    catalog, recipe = builder_catalog(), builder_recipe("Wan-AI/Wan2.2-T2V-A14B-Diffusers")
    served = {}
    for task in ("t2v", "i2v", "ti2v"):
        result = build(catalog, recipe, {"task": task})
        served[task] = (result["commands"][0]["argv"][2], result["request"]["text"])
    assert served["t2v"][0] == "Wan-AI/Wan2.2-T2V-A14B-Diffusers"
    assert served["i2v"][0] == "Wan-AI/Wan2.2-I2V-A14B-Diffusers"
    assert served["ti2v"][0] == "Wan-AI/Wan2.2-TI2V-5B-Diffusers"
    assert "input_reference=@" not in served["t2v"][1]
    assert "input_reference=@" in served["i2v"][1]


def test_a_task_adds_its_arguments() -> None:
    catalog, recipe = builder_catalog(), builder_recipe("Lightricks/LTX-2.5-Diffusers")
    pipelines = {
        task: option(build(catalog, recipe, {"task": task})["commands"][0]["argv"],
                     "--model-class-name")
        for task in recipe["omni"]["tasks"]
    }
    assert pipelines["full_one_stage_t2v"] == "LTX2Pipeline"
    assert pipelines["distilled_two_stage_i2v"] == "LTX2DistilledTwoStagePipeline"
    assert len(set(pipelines.values())) == 4


def test_a_task_hardware_override_adds_arguments_and_replaces_the_request() -> None:
    recipe = builder_recipe("MiniMaxAI/MiniMax-H3")
    hardware = builder_catalog()["hardware"]
    plain, key = omni_task(recipe, "ref_image", "b300", hardware["b300"])
    # Keyed `rtx_4090@2`: two RTX 4090s, not one.
    small, small_key = omni_task(recipe, "ref_image", "rtx_4090", hardware["rtx_4090"], 2)
    one, one_key = omni_task(recipe, "ref_image", "rtx_4090", hardware["rtx_4090"], 1)
    assert key is None and one_key is None and small_key == "rtx_4090@2"
    assert one == plain
    assert "--task-type" not in plain.get("extra_args", [])
    assert small["extra_args"][-2:] == ["--task-type", "ref2va"]
    assert small["request"]["curl"] != plain["request"]["curl"]


@pytest.mark.parametrize("strategy", ["single_node_tp", "multi_node_tp", "pd_cluster"])
def test_omni_recipes_refuse_other_strategies_with_a_reason(strategy: str) -> None:
    with pytest.raises(SelectionError) as refused:
        build(builder_catalog(), builder_recipe("Qwen/Qwen-Image"), {"strategy": strategy})
    assert "vLLM-Omni" in refused.value.reason


def _flags(data: Any) -> set[str]:
    """Every option named in a recipe's argument lists and mappings."""
    if isinstance(data, dict):
        return {k for k in data if isinstance(k, str) and k.startswith("--")} | {
            flag for value in data.values() for flag in _flags(value)}
    if isinstance(data, list):
        return {v for v in data if isinstance(v, str) and v.startswith("--")} | {
            flag for value in data for flag in _flags(value)}
    return set()


def test_listed_vllm_omni_options_are_sourced_and_cover_the_recipes() -> None:
    """The list is vLLM-Omni's parser's own (`make flags`; tests/vllm_parser checks it is
    current): each option with its source, none of them vLLM's, every option a vLLM-Omni
    recipe uses among vLLM's and these."""
    listed: dict[str, dict[str, Any]] = json.loads(OMNI_FLAGS_FILE.read_text())["options"]
    for name, spec in listed.items():
        assert spec["source"].startswith("https://github.com/vllm-project/vllm-omni/"), name
        assert spec["takes_value"] == (spec["nargs"] != 0), name
        assert name not in serve_flags(), f"{name} is vLLM's own option"
    assert "--omni" in listed
    used = {flag for hf_id in omni_ids() for flag in _flags(builder_recipe(hf_id))}
    assert used - set(listed) - set(serve_flags()) == set()


# ------------------------------------------------------------------ memory and frontend


def test_a_task_is_offered_where_its_server_gpus_hold_it() -> None:
    """The GPUs a server runs on (`--num-gpus`, else its parallel degrees) hold the task's
    memory on that hardware, else the variant's."""
    catalog = builder_catalog()
    h3 = builder_recipe("MiniMaxAI/MiniMax-H3")
    # 2 × 24 GB hold the 48 GB single-DiT profile the task names for two of these cards
    # (`rtx_4090@2`, the count the recipe's `verified` names, so the default there).
    asked = build(catalog, h3, {"hardware": "rtx_4090", "gpus": "2"})
    argv = asked["commands"][0]["argv"]
    assert argv[argv.index("--num-gpus") + 1] == "2" and "--task-type" in argv
    assert build(catalog, h3, {"hardware": "rtx_4090"})["commands"] == asked["commands"]
    with pytest.raises(SelectionError) as one:
        build(catalog, h3, {"hardware": "rtx_4090", "gpus": "1"})
    assert "runs on 4 GPUs; gpus=1 gives 1 RTX 4090" in one.value.reason
    with pytest.raises(SelectionError) as refused:
        build(catalog, builder_recipe("IndexTeam/IndexTTS-2.5"), {"hardware": "h100"})
    assert refused.value.key == "hardware"
    assert refused.value.reason.endswith("needs 96 GB; one H100 GPU has 80 GB")
    ltx = builder_recipe("Lightricks/LTX-2.5-Diffusers")
    blocked = build(catalog, ltx, {"hardware": "h100"})["unavailable"]["task"]
    assert blocked["full_two_stage_t2v"] == (
        "Full two-stage T2V needs 114 GB; one H100 GPU has 80 GB")
    on_h200 = build(catalog, ltx, {"hardware": "h200"})["unavailable"].get("task", {})
    assert "full_two_stage_t2v" not in on_h200
    with pytest.raises(SelectionError) as refused:
        build(catalog, ltx, {"hardware": "h100", "task": "full_two_stage_t2v"})
    assert refused.value.key == "task"


@pytest.mark.parametrize("hf_id", ["Qwen/Qwen-Image", "MiniMaxAI/MiniMax-H3"])
def test_omni_servers_use_the_python_frontend(hf_id: str) -> None:
    catalog, recipe = builder_catalog(), builder_recipe(hf_id)
    result = build(catalog, recipe, {})
    assert result["selection"]["frontend"] == "python"
    assert "VLLM_USE_RUST_FRONTEND" not in result["commands"][0]["env"]
    assert "own Python API server" in result["unavailable"]["frontend"]["rust"]
    with pytest.raises(SelectionError) as refused:
        build(catalog, recipe, {"frontend": "rust"})
    assert refused.value.key == "frontend"
