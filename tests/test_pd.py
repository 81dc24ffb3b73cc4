"""Prefill/decode disaggregation: pools, connectors, router, loader checks, goldens.

Goldens, checked by eye against the references:
- DeepSeek-V4.1-Flash on GB200, B200 and GB300, against the V4.1 page's "Prefill/Decode
  disaggregation" (1P1D, one tray and TP4 per role, NIXL, `--kernel-config` with autotune / JIT /
  CuTeDSL warmup off, `VLLM_DEEP_GEMM_WARMUP=skip`, `--max-num-seqs 32`, TP8 per role on 8-GPU
  nodes, DSpark in both pools when speculative decoding is on) and "GB300" (DEP4 prefill on one
  tray, DEP16 decode over four trays).
- DeepSeek-V4-Flash on H200 against the guide's "H200 Single-Node PD (Mooncake)" and
  "(Nixl)" sections: GPUs 0-3 / 4-7, ports 8000 / 8001, DP4 + EP pools, the same per-pool
  limits, env and mounts, the router with `--intra-node-data-parallel-size 4 --kv-connector`.
  One deliberate difference: the NIXL decode side channel is 5561, not the guide's 5558, because
  vLLM listens on base port + DP rank and the prefill pool's four ranks take 5557-5560.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builder import SelectionError, build
from builder.views.widget import page_state
from tests.golden import assert_golden
from tests.layout_checks import layout_problems, renderings, value
from tests.recipes_data import RECIPES, builder_catalog, builder_recipe
from vllm_recipes.errors import InvalidRecipe
from vllm_recipes.loader import load_catalog

V4 = "deepseek-ai/DeepSeek-V4-Flash"
V41 = "deepseek-ai/DeepSeek-V4.1-Flash"
WARMUP_OFF = ('{"enable_flashinfer_autotune":false,"enable_jit_warmup":false,'
              '"enable_cutedsl_warmup":false}')


def _build(hf_id: str, **query: str) -> dict:
    return build(builder_catalog(), builder_recipe(hf_id), {"strategy": "pd_cluster", **query})


def _by_role(result: dict, role: str) -> list[dict]:
    return [c for c in result["commands"] if c["role"] == role]


def test_every_pd_rendering_is_consistent() -> None:
    checked, problems = 0, []
    extras = [{"pd_connector": connector, "install": install}
              for connector in ("nixl", "mooncake") for install in ("pip", "docker")]
    for query, result in renderings(["pd_cluster"], extras):
        checked += 1
        problems += [f"{query}: {p}" for p in layout_problems(result)]
        roles = [c["role"] for c in result["commands"]]
        assert roles[-1] == "router" and roles.count("router") == 1
        assert set(roles) == {"prefill", "decode", "router"}
        ports = {c["role"]: c["port"] for c in result["commands"]
                 if "--headless" not in c["argv"]}
        router = _by_role(result, "router")[0]["argv"]
        assert value(router, "--prefill").endswith(f":{ports['prefill']}")
        assert value(router, "--decode").endswith(f":{ports['decode']}")
        assert value(router, "--kv-connector") == query["pd_connector"]
        side = {c["env"].get("VLLM_NIXL_SIDE_CHANNEL_PORT")
                or c["env"].get("VLLM_MOONCAKE_BOOTSTRAP_PORT")
                for c in result["commands"] if c["role"] != "router"}
        assert len(side) == 2, f"{query}: side-channel ports {side}"
    assert checked > 0
    assert not problems, "\n".join(problems[:20])


def test_v41_gb200_is_1p1d_tp4_over_nixl() -> None:
    result = _build(V41, hardware="gb200", variant="default")
    assert result["selection"]["nodes"] == "2"
    assert result["selection"]["pd_connector"] == "nixl"
    for role, port, side in (("prefill", "8000", "5557"), ("decode", "8001", "5558")):
        (command,) = _by_role(result, role)
        argv = command["argv"]
        assert value(argv, "--tensor-parallel-size") == "4"
        assert "--enable-expert-parallel" not in argv
        assert value(argv, "--kernel-config") == WARMUP_OFF
        assert value(argv, "--max-num-seqs") == "32"
        assert value(argv, "--port") == port
        assert value(argv, "--kv-transfer-config") == (
            '{"kv_connector":"NixlConnector","kv_role":"kv_both"}')
        assert command["env"]["VLLM_DEEP_GEMM_WARMUP"] == "skip"
        assert command["env"]["VLLM_NIXL_SIDE_CHANNEL_PORT"] == side
        assert command["env"]["VLLM_NIXL_SIDE_CHANNEL_HOST"] == "$NODE_IP"
    router = _by_role(result, "router")[0]
    assert router["argv"][:4] == ["vllm-router", "--policy", "round_robin",
                                  "--vllm-pd-disaggregation"]
    assert "--intra-node-data-parallel-size" not in router["argv"]
    assert router["docker_argv"] is None


def test_v41_spec_decoding_runs_in_both_pools() -> None:
    result = _build(V41, hardware="gb200", variant="default", spec_decoding="on")
    configs = {value(c["argv"], "--speculative-config") for c in result["commands"][:2]}
    assert len(configs) == 1 and '"method":"dspark"' in configs.pop()


def test_v41_eight_gpu_nodes_are_tp8() -> None:
    for hw in ("b200", "b300", "h200"):
        result = _build(V41, hardware=hw, variant="default")
        assert [value(c["argv"], "--tensor-parallel-size") for c in result["commands"][:2]] == [
            "8", "8"], hw
        # B300's own --max-num-seqs 256 gives way to the PD pools' 32.
        assert value(result["commands"][0]["argv"], "--max-num-seqs") == "32"


def test_v41_gb300_is_dep4_prefill_and_dep16_decode() -> None:
    result = _build(V41, hardware="gb300", variant="default")
    assert result["selection"]["nodes"] == "5"
    (prefill,) = _by_role(result, "prefill")
    decode = _by_role(result, "decode")
    assert value(prefill["argv"], "--data-parallel-size") == "4"
    assert "--data-parallel-address" not in prefill["argv"]
    assert len(decode) == 4
    assert value(decode[0]["argv"], "--data-parallel-size") == "16"
    assert [value(c["argv"], "--data-parallel-start-rank") for c in decode] == [
        None, "4", "8", "12"]
    assert all(value(c["argv"], "--data-parallel-address") == "$DECODE_IP" for c in decode)
    assert all("--enable-expert-parallel" in c["argv"] for c in [prefill, *decode])
    assert '"moe_backend":"deep_gemm_mega_moe"' in value(prefill["argv"], "--kernel-config")
    router = _by_role(result, "router")[0]["argv"]
    assert value(router, "--intra-node-data-parallel-size") == "4"


def test_v41_offers_nixl_only() -> None:
    with pytest.raises(SelectionError) as error:
        _build(V41, hardware="gb200", pd_connector="mooncake")
    assert error.value.key == "pd_connector"
    assert error.value.reason == (
        "this recipe offers NIXL for prefill/decode on GB200, not Mooncake")


def test_v4_h200_single_host_layout() -> None:
    for connector, env, ports in (
        ("nixl", "VLLM_NIXL_SIDE_CHANNEL_PORT", ("5557", "5561")),
        ("mooncake", "VLLM_MOONCAKE_BOOTSTRAP_PORT", ("8998", "9889")),
    ):
        result = _build(V4, hardware="h200", variant="fp8", pd_connector=connector,
                        install="docker")
        assert result["selection"]["nodes"] == "1"
        prefill, decode, router = result["commands"]
        assert prefill["env"]["CUDA_VISIBLE_DEVICES"] == "0,1,2,3"
        assert decode["env"]["CUDA_VISIBLE_DEVICES"] == "4,5,6,7"
        assert (prefill["env"][env], decode["env"][env]) == ports
        assert "VLLM_NIXL_SIDE_CHANNEL_HOST" not in prefill["env"]
        for command in (prefill, decode):
            assert value(command["argv"], "--data-parallel-size") == "4"
            assert "--enable-expert-parallel" in command["argv"]
            assert "--data-parallel-address" not in command["argv"]
            assert "/mnt/shared:/mnt/shared" in command["docker_argv"]
            assert "vllm/vllm-openai:v0.28.0" in command["docker_argv"]
        assert value(router["argv"], "--prefill") == "http://localhost:8000"
        assert value(router["argv"], "--host") == "127.0.0.1"
        assert value(router["argv"], "--intra-node-data-parallel-size") == "4"
        assert value(router["argv"], "--kv-connector") == connector


def test_nodes_of_a_pd_cluster_are_fixed() -> None:
    with pytest.raises(SelectionError) as error:
        _build(V41, hardware="gb200", nodes="3")
    assert error.value.reason == "Prefill/Decode Disaggregation here runs on 2 nodes"


def test_pools_must_hold_the_model() -> None:
    import copy

    recipe = copy.deepcopy(builder_recipe(V41))
    recipe["pd"]["nvidia"]["prefill"]["gpus_per_node"] = 2
    with pytest.raises(SelectionError) as error:
        build(builder_catalog(), recipe, {"strategy": "pd_cluster", "hardware": "h200"})
    assert error.value.key == "strategy"
    assert error.value.reason == (
        "MXFP4+MXFP8 (1017) needs 614 GB and the prefill pool (2× H200) has 282 GB")


def test_notes_name_the_router_package_and_the_variables() -> None:
    result = _build(V41, hardware="gb200")
    bodies = " ".join(n["body"] for n in result["notes"])
    assert "uv pip install vllm-router nixl" in bodies
    assert "$PREFILL_IP" in bodies and "$DECODE_IP" in bodies and "$NODE_IP" in bodies


def test_page_shows_a_connector_row_and_role_groups() -> None:
    state = page_state(builder_catalog(), builder_recipe(V4),
                       {"strategy": "pd_cluster", "variant": "fp8"})
    html = state["html"]
    assert not state["notice"]
    assert 'data-row="pd_connector"' in html
    assert 'data-key="pd_connector" data-value="mooncake"' in html
    for role in ("prefill", "decode", "router"):
        assert f'data-role-tab="{role}"' in html
    # One Copy per command (the request example under them has its own two: curl, Python).
    assert html.count('class="rb-copy"') - html.count('aria-label="Copy: Try it:') - html.count(
        'aria-label="Copy: Python:') == 3


def test_a_connector_without_prefill_decode_is_refused_on_cli_and_page() -> None:
    """Issue 10.4: a choice that does not apply is refused, not silently kept."""
    catalog, recipe = builder_catalog(), builder_recipe(V4)
    query = {"strategy": "single_node_tep", "pd_connector": "mooncake"}
    with pytest.raises(SelectionError) as refused:
        build(catalog, recipe, query)
    assert refused.value.key == "pd_connector"
    assert "does not split prefill and decode" in refused.value.reason
    state = page_state(catalog, recipe, query)
    assert state["explicit"] == {"strategy": "single_node_tep"}
    assert "pd_connector=mooncake (Mooncake is a prefill/decode KV connector" in state["notice"]
    cli = subprocess.run([sys.executable, "-m", "vllm_recipes_cli", V4, "strategy=single_node_tep",
                          "pd_connector=mooncake"], capture_output=True, text=True, check=False)
    assert cli.returncode == 2
    assert cli.stderr.strip() == f"pd_connector: {refused.value.reason}"


def test_a_key_given_twice_is_refused_on_cli_and_page() -> None:
    catalog, recipe = builder_catalog(), builder_recipe(V4)
    state = page_state(catalog, recipe, [["hardware", "h200"], ["variant", "fp8"],
                                         ["hardware", "b200"]])
    assert state["explicit"] == {"variant": "fp8"}
    assert "hardware=h200 (given twice)" in state["notice"]
    assert "hardware=b200 (given twice)" in state["notice"]
    cli = subprocess.run([sys.executable, "-m", "vllm_recipes_cli", V4, "hardware=h200",
                          "hardware=b200"], capture_output=True, text=True, check=False)
    assert cli.returncode == 2 and cli.stderr.strip() == "hardware: given twice"


# ------------------------------------------------------------------------------ loader


_LOADS: dict[str, Any] = {}
"""`load_catalog`'s memo over the module's copy of the tree (what `mkdocs serve` keeps between
loads): each load validates again only the recipe whose files changed, V4-Flash here."""


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the real recipe tree, made once for this module's loader tests."""
    root = tmp_path_factory.mktemp("pd") / "recipes"
    shutil.copytree(RECIPES, root)
    return root


def _tree_with(root: Path, pd_yaml: str) -> Path:
    """The tree with V4-Flash's `pd:` block replaced by `pd_yaml` (from the real file)."""
    text = (RECIPES / "models/deepseek-ai/DeepSeek-V4-Flash.yaml").read_text()
    start = text.index("\npd:\n")
    end = text.index("\nhardware_overrides:\n")
    (root / "models/deepseek-ai/DeepSeek-V4-Flash.yaml").write_text(
        text[:start] + "\n" + pd_yaml + text[end:])
    return root


@pytest.mark.parametrize("pd_yaml,message", [
    ("pd:\n  h201:\n    prefill: {nodes: 1}\n",
     "2: pd.h201: unknown hardware key 'h201'"),
    ("pd:\n  h200:\n    prefill: {devices: [0, 1, 2, 3]}\n    decode: {devices: [3, 4]}\n",
     "4: pd.h200.decode.devices: 3 is also a prefill device (pools merged for h200)"),
    ("pd:\n  h200:\n    prefill: {devices: [0, 1, 2, 3]}\n",
     "3: pd.h200.prefill.devices: only prefill names devices; name both pools' devices to share "
     "a node, or neither (pools merged for h200)"),
    ("pd:\n  gb200:\n    prefill: {devices: [4]}\n    decode: {devices: [0]}\n",
     "3: pd.gb200.prefill.devices: 4 does not exist on gb200 (4 GPUs) (pools merged for gb200)"),
    ("pd:\n  h200:\n    prefill: {devices: [0], port: 9000}\n"
     "    decode: {devices: [1], port: 9000}\n",
     "4: pd.h200.decode.port: both pools share a node and port 9000 (pools merged for h200)"),
    ("pd:\n  nvidia:\n    connectors:\n      nixl: {kv_transfer_config: {kv_role: kv_both}}\n",
     "4: pd.nvidia.connectors.nixl.kv_transfer_config: names no kv_connector"),
    ("pd:\n  h200:\n    prefill: {layout: pp}\n",
     "3: pd.h200.prefill.layout: Input should be 'tp', 'tep' or 'dep'"),
])
def test_loader_rejects_bad_pd_blocks(tree: Path, pd_yaml: str, message: str) -> None:
    """Each problem names the file, the line (counted from the `pd:` line) and the field."""
    root = _tree_with(tree, pd_yaml)
    text = (root / "models/deepseek-ai/DeepSeek-V4-Flash.yaml").read_text()
    first = text[: text.index("\npd:\n")].count("\n") + 2  # the line of `pd:`
    offset, rest = message.split(": ", 1)
    with pytest.raises(InvalidRecipe) as error:
        load_catalog(root, _LOADS)
    line = first + int(offset) - 1
    assert f"models/deepseek-ai/DeepSeek-V4-Flash.yaml:{line}: {rest}" in str(error.value)


# ------------------------------------------------------------------------------ goldens


@pytest.mark.parametrize("name,hf_id,query", [
    ("v41_pd_gb200.txt", V41, {"hardware": "gb200", "variant": "default"}),
    ("v41_pd_gb200_dspark.txt", V41,
     {"hardware": "gb200", "variant": "default", "spec_decoding": "on", "text_only": "on"}),
    ("v41_pd_b200.txt", V41, {"hardware": "b200", "variant": "default"}),
    ("v41_pd_gb300.txt", V41, {"hardware": "gb300", "variant": "default"}),
    ("v41_pd_gb300_docker.txt", V41, {"hardware": "gb300", "variant": "default",
                                      "install": "docker"}),
    ("v4_pd_h200_nixl_docker.txt", V4,
     {"hardware": "h200", "variant": "fp8", "frontend": "python", "install": "docker"}),
    ("v4_pd_h200_mooncake_docker.txt", V4,
     {"hardware": "h200", "variant": "fp8", "frontend": "python", "install": "docker",
      "pd_connector": "mooncake"}),
])
def test_golden(name: str, hf_id: str, query: dict[str, str]) -> None:
    result = _build(hf_id, **query)
    assert not layout_problems(result)
    assert_golden(name, f"# {result['summary']}\n\n{result['copy_text']}")


def test_shared_node_pools_use_the_brand_visible_devices_variable() -> None:
    import copy

    recipe = copy.deepcopy(builder_recipe(V4))
    recipe["pd"] = {"mi300x": {"prefill": {"layout": "dep", "devices": [0, 1, 2, 3]},
                               "decode": {"layout": "dep", "devices": [4, 5, 6, 7]}}}
    result = build(builder_catalog(), recipe, {"strategy": "pd_cluster", "hardware": "mi300x",
                                               "install": "docker"})
    prefill, decode, _ = result["commands"]
    assert prefill["env"]["HIP_VISIBLE_DEVICES"] == "0,1,2,3"
    assert decode["env"]["HIP_VISIBLE_DEVICES"] == "4,5,6,7"
    assert "CUDA_VISIBLE_DEVICES" not in prefill["env"]
    assert "/dev/kfd" in prefill["docker_argv"] and "--gpus" not in prefill["docker_argv"]
    assert not layout_problems(result)
