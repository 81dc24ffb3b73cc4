"""KV-store strategies (Mooncake master, config, store, instances, router) and the
`kv_offload` selection key.

Goldens checked against vLLM's MooncakeStoreConnector guide (master on 50051, a JSON config
read from MOONCAKE_CONFIG_PATH, `standalone-store` with an external `mooncake_client` owning
the pool vs `embedded` with every rank contributing, `--kv-transfer-config
{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}`) and, for offloading, the V4.1
page's "KV cache offloading" (native CPU offload; TieringOffloadingSpec with a filesystem
`root_dir`, eight read/write threads, PYTHONHASHSEED=0) and its `--kv-offloading-backend native
--kv-offloading-size` flags.
"""

from __future__ import annotations

import json
import shlex

import pytest

from builder import SelectionError, build
from builder.commands.kv_store import CONFIG_PATH
from builder.commands.selection import choices
from builder.views.widget import page_state
from tests.golden import assert_golden
from tests.layout_checks import layout_problems, renderings, value
from tests.recipes_data import builder_catalog, builder_recipe
from vllm_recipes.vllm_flags import check_serve_argv

V4 = "deepseek-ai/DeepSeek-V4-Flash"
V41 = "deepseek-ai/DeepSeek-V4.1-Flash"
STORES = ("kv_store_centralized_mooncake", "kv_store_distributed_mooncake")


def _build(hf_id: str, **query: str) -> dict:
    return build(builder_catalog(), builder_recipe(hf_id), query)


def _config(result: dict) -> dict:
    (command,) = [c for c in result["commands"] if c["role"] == "config"]
    script = command["argv"][2]
    body = script.split("<<EOF\n", 1)[1].rsplit("\nEOF", 1)[0]
    return json.loads(body)


@pytest.mark.parametrize("sid", STORES)
@pytest.mark.parametrize("nodes", [2, 3])
def test_roles_and_instances(sid: str, nodes: int) -> None:
    result = _build(V4, hardware="h200", strategy=sid, nodes=str(nodes))
    roles = [c["role"] for c in result["commands"]]
    central = sid.startswith("kv_store_centralized")
    assert roles == ["master", "config", *(["store"] if central else []),
                     *["serve"] * nodes, "router"]
    assert not layout_problems(result), layout_problems(result)
    config = _config(result)
    assert config["mode"] == ("standalone-store" if central else "embedded")
    assert config["master_server_address"] == "$NODE0_IP:50051"
    assert (config["global_segment_size"] == 0) is central
    for command in result["commands"]:
        if command["role"] == "serve":
            assert value(command["argv"], "--kv-transfer-config") == (
                '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}')
            assert command["env"]["MOONCAKE_CONFIG_PATH"] == CONFIG_PATH
            assert command["env"]["PYTHONHASHSEED"] == "0"
    router = result["commands"][-1]["argv"]
    urls = router[router.index("--worker-urls") + 1:router.index("--host")]
    assert urls == [f"http://$NODE{n}_IP:8000" for n in range(nodes)]
    assert result["selection"]["nodes"] == str(nodes)


def test_config_script_round_trips_and_expands_the_master_address() -> None:
    result = _build(V4, hardware="h200", strategy=STORES[1])
    (command,) = [c for c in result["commands"] if c["role"] == "config"]
    assert shlex.split(command["text"].replace("\\\n", "")) == command["argv"]
    assert command["argv"][:2] == ["sh", "-c"]
    assert f"cat > {CONFIG_PATH} <<EOF" in command["text"]  # unquoted: $NODE0_IP expands


def test_docker_mounts_the_config() -> None:
    result = _build(V4, hardware="h200", strategy=STORES[0], install="docker")
    for command in result["commands"]:
        if command["role"] == "serve":
            assert f"{CONFIG_PATH}:{CONFIG_PATH}" in command["docker_argv"]
        else:
            assert command["docker_argv"] is None


def test_every_kv_store_rendering_is_consistent() -> None:
    checked, problems = 0, []
    for query, result in renderings(STORES, [{"install": "docker"}]):
        checked += 1
        problems += [f"{query}: {p}" for p in layout_problems(result)]
    assert checked > 0
    assert not problems, "\n".join(problems[:20])


def test_kv_store_needs_an_instance_per_node_and_at_least_two() -> None:
    with pytest.raises(SelectionError) as error:
        _build(V4, hardware="h200", strategy=STORES[0], nodes="1")
    assert error.value.reason == "KV Store (Mooncake, centralized) here runs on 2 to 16 nodes"


def test_page_shows_nodes_for_kv_store() -> None:
    html = page_state(builder_catalog(), builder_recipe(V4),
                      {"hardware": "h200", "strategy": STORES[0], "nodes": "3"})["html"]
    assert 'data-row="nodes"' in html
    for role in ("master", "config", "store", "serve", "router"):
        assert f'data-role-tab="{role}"' in html


# --------------------------------------------------------------------------- KV offload


def test_offload_key_only_where_the_recipe_declares_it() -> None:
    catalog = builder_catalog()
    assert choices(catalog, builder_recipe(V41))["kv_offload"] == ["off", "cpu", "fs"]
    kimi = builder_recipe("moonshotai/Kimi-K2-Instruct")
    assert "kv_offload" not in choices(catalog, kimi)
    assert "kv_offload" not in _build("moonshotai/Kimi-K2-Instruct")["selection"]
    assert _build(V41)["selection"]["kv_offload"] == "off"


def test_cpu_offload() -> None:
    result = _build(V41, hardware="h200", strategy="single_node_tp", kv_offload="cpu")
    (command,) = result["commands"]
    argv = command["argv"]
    assert value(argv, "--kv-offloading-backend") == "native"
    assert value(argv, "--kv-offloading-size") == "64"
    assert "--kv-transfer-config" not in argv
    assert not check_serve_argv(argv)


def test_fs_offload() -> None:
    result = _build(V41, hardware="h200", strategy="single_node_tp", kv_offload="fs",
                    install="docker")
    (command,) = result["commands"]
    config = json.loads(value(command["argv"], "--kv-transfer-config"))
    assert config["kv_connector"] == "OffloadingConnector"
    extra = config["kv_connector_extra_config"]
    assert extra["spec_name"] == "TieringOffloadingSpec"
    assert extra["secondary_tiers"] == [{"type": "fs", "root_dir": "/mnt/vllm-kv-cache",
                                         "n_read_threads": 8, "n_write_threads": 8}]
    assert command["env"]["PYTHONHASHSEED"] == "0"
    assert "/mnt/vllm-kv-cache:/mnt/vllm-kv-cache" in command["docker_argv"]
    assert not check_serve_argv(command["argv"])
    assert_golden("v41_h200_tp_kv_offload_fs_docker.txt", result["copy_text"])


def test_offload_applies_to_every_node_of_a_multi_node_server() -> None:
    result = _build(V4, hardware="h200", strategy="multi_node_dep", kv_offload="cpu")
    assert all(value(c["argv"], "--kv-offloading-backend") == "native"
               for c in result["commands"])


@pytest.mark.parametrize("sid", ["pd_cluster", *STORES])
def test_offload_is_unavailable_where_the_strategy_owns_the_connector(sid: str) -> None:
    result = _build(V4, hardware="h200", strategy=sid)
    reasons = result["unavailable"]["kv_offload"]
    assert set(reasons) == {"cpu", "fs"}
    assert "sets its own KV connector" in reasons["cpu"]
    with pytest.raises(SelectionError) as error:
        _build(V4, hardware="h200", strategy=sid, kv_offload="fs")
    assert error.value.key in ("kv_offload", "strategy")


@pytest.mark.parametrize("sid", STORES)
def test_golden_kv_store(sid: str) -> None:
    result = _build(V4, hardware="h200", strategy=sid, variant="fp8", frontend="python")
    assert_golden(f"v4_h200_{sid}.txt", f"# {result['summary']}\n\n{result['copy_text']}")
