"""DP Attention + Tensor Parallel (`single_node_dpa_tp`): one engine with a data-parallel rank
per GPU and no expert parallelism, and a vLLM Router in front of it (the strategy's companion).

DeepSeek-R1 offers it (the public file at 02f0a7c; MoE, whose `base_args` turn expert
parallelism on: the strategy must take it off again); the tests add it to other recipes where
they need one more, and DeepSeek-V3 (MoE, same architecture) stays a recipe that does not.
The router's flags, the engine's port 8100 and the router's 8000 are the public catalogue's
strategy (strategies/single_node_dpa_tp.yaml at 36e1a4b).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from pydantic import ValidationError

from builder import SelectionError, build
from builder.commands.build import published
from builder.commands.selection import strategy_reason
from builder.views.widget import page_state
from tests.layout_checks import layout_problems, value
from tests.recipes_data import ROOT, builder_catalog, builder_recipe, catalog
from vllm_recipes.schema import Strategy

DPA = "single_node_dpa_tp"
R1 = "deepseek-ai/DeepSeek-R1"
V3 = "deepseek-ai/DeepSeek-V3"
V41 = "deepseek-ai/DeepSeek-V4.1-Flash"


def offering(hf_id: str) -> dict[str, Any]:
    """The recipe of `hf_id` with DPA+TP among its strategies (added where it is not)."""
    recipe = copy.deepcopy(builder_recipe(hf_id))
    if DPA not in recipe["strategies"]:
        recipe["strategies"] = [*recipe["strategies"], DPA]
    return recipe


def dpa(hf_id: str = R1, recipe: dict[str, Any] | None = None, **query: str) -> dict:
    return build(builder_catalog(), recipe or offering(hf_id), {"strategy": DPA, **query})


def by_role(result: dict, role: str) -> dict:
    (command,) = [c for c in result["commands"] if c["role"] == role]
    return command


def test_the_strategy_file_says_what_the_builder_needs() -> None:
    strategy = catalog().strategies[DPA]
    assert strategy.deploy_type == "single_node" and strategy.parallel_flag == (
        "--data-parallel-size")
    assert strategy.remove_args == ["--enable-expert-parallel"]
    assert strategy.kv_offload is False
    assert strategy.companion is not None and strategy.companion.role == "router"
    assert (strategy.companion.port, strategy.companion.start) == (8000, "after")


def test_the_engine_runs_a_dp_rank_per_gpu_without_expert_parallelism() -> None:
    assert "--enable-expert-parallel" in builder_recipe(R1)["model"]["base_args"]
    result = dpa(hardware="h200")
    assert [c["role"] for c in result["commands"]] == ["serve", "router"]
    engine = by_role(result, "serve")
    argv = engine["argv"]
    assert argv[:3] == ["vllm", "serve", "deepseek-ai/DeepSeek-R1"]
    assert value(argv, "--data-parallel-size") == "8"
    assert "--enable-expert-parallel" not in argv and "--tensor-parallel-size" not in argv
    assert value(argv, "--port") == "8100" and engine["port"] == 8100
    assert engine["label"] == "vLLM engine (port 8100)"
    assert result["summary"] == "8× H200 · DPA+TP (DP8) + vLLM Router · FP8"
    assert not layout_problems(result)  # vLLM's own parser accepts the engine's options


def test_the_router_addresses_every_rank_of_the_engine() -> None:
    router = by_role(dpa(hardware="h200"), "router")
    argv = router["argv"]
    assert argv[0] == "vllm-router"
    assert value(argv, "--worker-urls") == "http://localhost:8100"
    assert value(argv, "--intra-node-data-parallel-size") == "8"
    assert value(argv, "--policy") == "consistent_hash"
    assert value(argv, "--host") == "0.0.0.0"
    assert value(argv, "--worker-startup-timeout-secs") == "1800"
    assert value(argv, "--port") == "8000" and router["port"] == 8000
    assert router["label"] == "vLLM Router (port 8000)"
    assert router["shell"] == router["text"] and router["env"] == {}
    origins = {tuple(s["option"][:1]): (s["file"], s["path"]) for s in router["sources"]["args"]}
    assert origins[("--policy",)] == ("recipes/strategies/single_node_dpa_tp.yaml",
                                      "companion.args")
    assert origins[("--worker-urls",)][0] == "builder/commands/router.py"


def test_the_router_follows_the_engines_port_and_rank_count() -> None:
    """A recipe that moves the engine or narrows it: the router reads both from the engine."""
    recipe = offering(R1)
    recipe.pop("facts", None)  # the router's plumbing, not the fit rule (4 H200s hold no FP8 R1)
    recipe["strategy_overrides"] = {DPA: {"h200": {"parallel_size": 4,
                                                   "extra_args": ["--port", "9100"]}}}
    result = dpa(recipe=recipe, hardware="h200")
    engine, router = by_role(result, "serve"), by_role(result, "router")
    assert value(engine["argv"], "--data-parallel-size") == "4"
    assert engine["port"] == 9100
    assert value(router["argv"], "--worker-urls") == "http://localhost:9100"
    assert value(router["argv"], "--intra-node-data-parallel-size") == "4"
    assert value(router["argv"], "--port") == "8000"


def test_docker_runs_the_engine_in_a_container_and_the_router_beside_it() -> None:
    result = dpa(hardware="b200", install="docker")
    engine, router = by_role(result, "serve"), by_role(result, "router")
    docker = engine["docker_argv"]
    assert docker[:2] == ["docker", "run"]
    assert docker[docker.index("-p") + 1] == "8100:8100"
    assert "--network" not in docker
    assert router["docker_argv"] is None and router["docker_text"] is None
    text = result["copy_text"]
    assert text.index("# vLLM engine (port 8100)\ndocker run") < text.index(
        "# vLLM Router (port 8000)\nvllm-router")
    assert engine["docker_text"] in text and router["shell"] in text
    pip = dpa(hardware="b200")["copy_text"]
    assert "docker run" not in pip and router["shell"] in pip


def test_notes_give_the_install_line_and_the_start_order() -> None:
    notes = {n["title"]: n["body"] for n in dpa(hardware="h200")["notes"]}
    assert notes["Install the other pieces"].startswith("uv pip install vllm-router — ")
    assert "KV connector" not in notes["Install the other pieces"]
    order = notes["Start order"]
    assert order.index("engine (port 8100)") < order.index("start the vLLM Router")
    assert "port 8000" in order


def test_a_companion_started_before_comes_first() -> None:
    data = copy.deepcopy(builder_catalog())
    data["strategies"][DPA]["companion"]["start"] = "before"
    result = build(data, offering(R1), {"strategy": DPA, "hardware": "h200"})
    assert [c["role"] for c in result["commands"]] == ["router", "serve"]
    order = {n["title"]: n["body"] for n in result["notes"]}["Start order"]
    assert order.startswith("Start the vLLM Router first, then the engine (port 8100)")


def test_unavailable_reasons() -> None:
    data = builder_catalog()
    recipe = offering(R1)
    reason = strategy_reason
    assert reason(data, recipe, "dgx_station_gb300", "default", DPA) == (
        "DP Attention + Tensor Parallel needs at least 2 GPUs; DGX Station (GB300) has 1")
    assert reason(data, recipe, "ascend_910c", "default", DPA) == (
        "DP Attention + Tensor Parallel is for at most 8 GPUs; Ascend 910C (Atlas 800 A3) "
        "has 16")
    assert reason(data, recipe, "h200", "default", DPA) is None
    dense = next(h for h in catalog().recipes
                 if catalog().recipes[h].model.architecture == "dense"
                 and catalog().recipes[h].strategies)
    assert reason(data, offering(dense), "h200", "default", DPA) == (
        "DP Attention + Tensor Parallel is for MoE models only")
    # A recipe that does not list it does not offer it: the pill says so.
    assert DPA not in builder_recipe(V3)["strategies"]
    plain = build(data, builder_recipe(V3), {"hardware": "h200"})
    assert plain["unavailable"]["strategy"][DPA] == (
        "this recipe does not offer DP Attention + Tensor Parallel")
    with pytest.raises(SelectionError) as error:
        build(data, builder_recipe(V3), {"strategy": DPA})
    assert error.value.key == "strategy"


def test_kv_offload_is_not_offered_with_it() -> None:
    assert builder_recipe(V41).get("kv_offload_support")
    result = dpa(V41, hardware="h200")
    assert result["selection"]["kv_offload"] == "off"
    assert result["unavailable"]["kv_offload"]["cpu"] == (
        "DP Attention + Tensor Parallel does not offer KV cache offloading")
    with pytest.raises(SelectionError) as error:
        dpa(V41, hardware="h200", kv_offload="cpu")
    assert error.value.key == "kv_offload"
    # The same tier with another single-node strategy is fine.
    other = build(builder_catalog(), offering(V41),
                  {"strategy": "single_node_tp", "hardware": "h200", "kv_offload": "cpu"})
    assert "kv_offload" not in other["unavailable"]


def test_json_carries_both_commands() -> None:
    text = json.dumps(published(dpa(V41, hardware="gb200", install="docker")))
    result = json.loads(text)
    assert [c["role"] for c in result["commands"]] == ["serve", "router"]
    assert result["selection"]["strategy"] == DPA and result["selection"]["nodes"] == 1
    router = result["commands"][1]
    assert value(router["argv"], "--intra-node-data-parallel-size") == "4"  # a GB200 tray
    assert router["sources"]["args"]


def test_the_page_shows_the_engine_and_the_router() -> None:
    state = page_state(builder_catalog(), offering(R1), {"strategy": DPA, "hardware": "h200"})
    html = state["html"]
    assert 'data-role-tab="serve"' in html and 'data-role-tab="router"' in html
    assert "vLLM Router (port 8000)" in html and "--worker-urls http://localhost:8100" in html
    assert 'data-value="single_node_dpa_tp" aria-pressed="true"' in html


def test_the_command_line_prints_both() -> None:
    tree = ROOT / "recipes"
    assert DPA in builder_recipe(R1)["strategies"]  # the recipe lists it itself

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "vllm_recipes_cli", *args], cwd=ROOT, capture_output=True,
            text=True, check=False, env={**os.environ, "VLLM_RECIPES_CACHE": "off"})

    check = cli("check", str(tree))
    assert check.returncode == 0, check.stdout + check.stderr
    out = cli("--recipes", str(tree), R1, f"strategy={DPA}", "hardware=h200")
    assert out.returncode == 0, out.stderr
    assert "# vLLM engine (port 8100)\n" in out.stdout
    assert "# vLLM Router (port 8000)\nvllm-router" in out.stdout
    explain = cli("--recipes", str(tree), R1, f"strategy={DPA}", "--explain")
    assert explain.returncode == 0, explain.stderr
    assert "recipes/strategies/single_node_dpa_tp.yaml:" in explain.stdout
    assert "companion.args (strategy: single_node_dpa_tp)" in explain.stdout


BASE = {
    "name": "x", "deploy_type": "single_node", "layout": "dpa_tp", "display_name": "X",
    "short_label": "X", "orientation": "throughput", "description": "x",
    "hardware_match": {"min_gpus": 2}, "parallel_flag": "--data-parallel-size",
}
ROUTER = {"role": "router", "port": 8000, "description": "x"}


@pytest.mark.parametrize(("changes", "message"), [
    ({"companion": {**ROUTER, "args": ["--worker-urls", "http://x"]}},
     "--worker-urls is set by the builder"),
    ({"companion": {**ROUTER, "args": {"--port": 9}}}, "--port is set by the builder"),
    ({"companion": ROUTER}, "companion.port: 8000 is the engine's port too"),
    ({"vllm_args": ["--port", "8100"], "deploy_type": "multi_node", "companion": ROUTER},
     "only single-node strategies start a companion"),
    ({"vllm_args": ["--port", "8100"], "companion": {**ROUTER, "role": "lmcache"}},
     "companion.role"),
])
def test_a_bad_companion_is_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError) as error:
        Strategy.model_validate({**BASE, **changes})
    assert message in str(error.value)


def test_a_good_companion_is_accepted() -> None:
    strategy = Strategy.model_validate({**BASE, "vllm_args": ["--port", "8100"],
                                        "companion": {**ROUTER, "args": {"--policy": "random"}}})
    assert strategy.companion is not None and strategy.companion.args == ["--policy", "random"]
