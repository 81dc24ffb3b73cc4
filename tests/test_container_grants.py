"""Containers get the smallest grant that runs (issue 32, point 6): NVIDIA's `docker run` names
the devices its command uses (`--gpus '"device=0"'` for one H100, `all` only for the whole node)
and is never `--privileged`; Compose reserves the same devices; a layout across nodes names the
RDMA devices and capability instead of privileges; the TPU keeps the `--privileged` its vendor's
docs ask for; `HF_TOKEN` is passed through by name in Docker, Compose and Kubernetes."""

from __future__ import annotations

import copy
import shlex
from typing import Any

import pytest
import yaml

from builder import build
from builder.commands.docker import node_devices
from builder.deployment.files import deploy_files
from tests.deploy_checks import compose_problems
from tests.recipes_data import builder_catalog, builder_recipe, hf_ids

QWEN = "Qwen/Qwen3-8B"
FLASH = "deepseek-ai/DeepSeek-V4-Flash"
KIMI = "moonshotai/Kimi-K2-Instruct"
RDMA = ["--device", "/dev/infiniband", "--cap-add", "IPC_LOCK"]


def _result(hf_id: str, query: dict[str, str], recipe: dict[str, Any] | None = None
            ) -> dict[str, Any]:
    return build(builder_catalog(), recipe or builder_recipe(hf_id), {**query, "install": "docker"})


def _gpus(docker_argv: list[str]) -> str:
    return docker_argv[docker_argv.index("--gpus") + 1]


def _compose(hf_id: str, query: dict[str, str], recipe: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    recipe = recipe or builder_recipe(hf_id)
    result = _result(hf_id, query, recipe)
    entry = deploy_files(builder_catalog(), recipe, result)["compose"]
    assert entry["available"] and entry["text"] is not None, entry["reason"]
    assert compose_problems(entry["text"]) == [], entry["text"]
    service: dict[str, Any] = yaml.safe_load(entry["text"])["services"]["vllm"]
    return service


def test_one_h100_names_one_gpu_and_nothing_privileged() -> None:
    (serve,) = _result(QWEN, {"hardware": "h100"})["commands"]
    docker = serve["docker_argv"]
    assert _gpus(docker) == '"device=0"'
    assert "--privileged" not in docker and "--ipc=host" in docker
    assert "--gpus '\"device=0\"'" in serve["docker_text"]
    assert shlex.split(serve["docker_text"].replace("\\\n", "")) == docker


def test_a_command_on_part_of_a_node_names_those_gpus_in_docker_and_compose() -> None:
    recipe = copy.deepcopy(builder_recipe(QWEN))
    recipe["variants"]["default"]["tp"] = {"h100": 2}
    (serve,) = _result(QWEN, {"hardware": "h100"}, recipe)["commands"]
    assert node_devices(serve["argv"]) == 2
    assert _gpus(serve["docker_argv"]) == '"device=0,1"'
    service = _compose(QWEN, {"hardware": "h100"}, recipe)
    assert service["deploy"]["resources"]["reservations"]["devices"] == [
        {"driver": "nvidia", "device_ids": ["0", "1"], "capabilities": ["gpu"]}]
    assert "privileged" not in service


def test_the_whole_node_is_all_of_its_gpus() -> None:
    (serve,) = _result(FLASH, {})["commands"]  # TP8 on an 8-GPU H200
    assert _gpus(serve["docker_argv"]) == "all"
    assert not set(RDMA) & set(serve["docker_argv"])  # one node: no RDMA devices


def test_shared_node_pd_pools_get_their_own_gpus_numbered_inside() -> None:
    recipe = copy.deepcopy(builder_recipe(FLASH))
    recipe["pd"] = {"h200": {"prefill": {"layout": "dep", "devices": [0, 1, 2, 3]},
                             "decode": {"layout": "dep", "devices": [4, 5, 6, 7]}}}
    result = _result(FLASH, {"strategy": "pd_cluster", "hardware": "h200", "variant": "fp8"},
                     recipe)
    prefill, decode = [c for c in result["commands"] if c["argv"][:2] == ["vllm", "serve"]]
    assert prefill["env"]["CUDA_VISIBLE_DEVICES"] == "0,1,2,3"  # the pip form on the host
    assert _gpus(prefill["docker_argv"]) == '"device=0,1,2,3"'
    assert _gpus(decode["docker_argv"]) == '"device=4,5,6,7"'
    # inside the container the pool's GPUs are 0..3: the host's numbers would name others
    assert not any("CUDA_VISIBLE_DEVICES" in token for token in decode["docker_argv"])
    assert not set(RDMA) & set(decode["docker_argv"])  # one node


@pytest.mark.parametrize("strategy", ["multi_node_tp_pp", "multi_node_dep"])
def test_a_layout_across_nodes_names_its_rdma_devices_and_capability(strategy: str) -> None:
    result = _result(KIMI, {"hardware": "h100", "strategy": strategy, "nodes": "2"})
    for command in result["commands"]:
        docker = command["docker_argv"]
        assert _gpus(docker) == "all" and "--privileged" not in docker
        at = docker.index("--device")
        assert docker[at:at + 4] == RDMA


def test_hf_token_is_passed_by_name_never_by_value() -> None:
    for hf_id in (QWEN, FLASH):
        for command in _result(hf_id, {})["commands"]:
            docker = command["docker_argv"]
            at = docker.index("HF_TOKEN")
            assert docker[at - 1] == "-e"
            assert not any(token.startswith("HF_TOKEN=") for token in docker)


def test_vendor_required_grants_stay_where_their_docs_ask_for_them() -> None:
    (tpu,) = _result("google/gemma-4-26B-A4B-it", {"hardware": "trillium"})["commands"]
    assert "--privileged" in tpu["docker_argv"]
    (amd,) = _result(QWEN, {"hardware": "mi300x"})["commands"]
    assert "seccomp=unconfined" in amd["docker_argv"] and "--privileged" not in amd["docker_argv"]


def test_no_default_docker_form_outside_the_tpu_is_privileged() -> None:
    catalog = builder_catalog()
    for hf_id in hf_ids():
        result = build(catalog, builder_recipe(hf_id), {})
        brand = catalog["hardware"][result["selection"]["hardware"]]["brand"]
        for command in result["commands"]:
            docker = command.get("docker_argv") or []
            assert ("--privileged" in docker) == (brand == "google" and bool(docker)), hf_id
            if "--gpus" in docker:
                assert node_devices(command["argv"]) <= catalog["hardware"][
                    result["selection"]["hardware"]]["gpu_count"], hf_id


def test_a_kv_connector_over_rdma_names_the_rdma_devices_on_one_node_too() -> None:
    query = {"hardware": "h200", "variant": "fp8", "strategy": "pd_cluster"}
    mooncake = _result(FLASH, {**query, "pd_connector": "mooncake"})
    nixl = _result(FLASH, {**query, "pd_connector": "nixl"})
    assert mooncake["selection"]["nodes"] == nixl["selection"]["nodes"] == "1"
    for result, rdma in ((mooncake, True), (nixl, False)):
        for command in result["commands"]:
            if command["argv"][:2] == ["vllm", "serve"]:
                docker = command["docker_argv"]
                assert ("/dev/infiniband" in docker) == ("IPC_LOCK" in docker) == rdma
                assert "--privileged" not in docker
