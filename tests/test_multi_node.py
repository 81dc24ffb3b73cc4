"""Multi-node strategies: node ranges, availability, head/worker commands, goldens.

Goldens: Kimi-K2 (1,240 GB, two 8×H100 nodes at least) with TP per node × PP and with
multi-node DEP, on 2 and 4 nodes. Checked against vLLM's multi-node recipes (TP/PP over the
multiprocessing launcher: `--nnodes/--node-rank/--master-addr`, `--headless` workers; DP:
`--data-parallel-size-local/-address/-rpc-port/-start-rank`) and the flag list of vLLM 0.33.0.
"""

from __future__ import annotations

import copy
import json
import re

import pytest

from builder import SelectionError, build, resolve
from builder.commands.selection import node_range, strategy_reason
from builder.views.widget import page_state
from tests.golden import assert_golden
from tests.layout_checks import layout_problems, value
from tests.recipes_data import (
    builder_catalog,
    builder_recipe,
    hf_ids,
    kept_builder,
    resolving,
)

KIMI = "moonshotai/Kimi-K2-Instruct"
V4 = "deepseek-ai/DeepSeek-V4-Flash"
REFERENCE = "tests/data/reference-deepseek-v4-flash.json"
MULTI = ["multi_node_tp", "multi_node_tep", "multi_node_dep", "multi_node_tp_dp",
         "multi_node_tp_pp"]


def _build(hf_id: str, **query: str) -> dict:
    return build(builder_catalog(), builder_recipe(hf_id), query)


def test_h200_alternatives_are_the_reference_ones() -> None:
    from tests.recipes_data import ROOT

    reference = json.loads((ROOT / REFERENCE).read_text())["recommended_command"]
    catalog, recipe = builder_catalog(), builder_recipe(V4)
    available = {sid for sid in catalog["strategies"]
                 if strategy_reason(catalog, recipe, "h200", "default", sid) is None}
    assert available - {reference["strategy"]} == set(reference["alternatives"])


@pytest.mark.parametrize("sid", ["multi_node_tp", "multi_node_tep", "multi_node_tp_pp"])
def test_oversize_only_strategies_say_why_on_h200(sid: str) -> None:
    reason = strategy_reason(builder_catalog(), builder_recipe(V4), "h200", "default", sid)
    assert reason is not None and "fits on one H200 node" in reason


def test_tp_dp_of_a_moe_model_spreads_the_experts() -> None:
    recipe = {**builder_recipe(KIMI), "strategies": ["single_node_tp", "multi_node_tp_dp"]}
    result = build(builder_catalog(), recipe,
                   {"hardware": "h200", "strategy": "multi_node_tp_dp", "nodes": "2"})
    head = result["commands"][0]["argv"]
    assert (value(head, "--tensor-parallel-size"), value(head, "--data-parallel-size")) == (
        "8", "2")
    assert "--enable-expert-parallel" in head
    assert not layout_problems(result)


@pytest.mark.parametrize("sid", ["multi_node_tp", "multi_node_tep"])
def test_tensor_parallel_across_nodes_takes_a_power_of_two(sid: str) -> None:
    with pytest.raises(SelectionError) as error:
        _build(KIMI, hardware="h100", strategy=sid, nodes="3")
    assert error.value.key == "nodes"
    assert "power-of-two node count" in error.value.reason


def test_single_node_is_unavailable_when_the_model_does_not_fit() -> None:
    reason = strategy_reason(builder_catalog(), builder_recipe(KIMI), "h100", "default",
                             "single_node_tp")
    # Kimi K2 has memory facts: the fit rule's numbers (1T parameters in FP8)
    assert reason is not None and "1,000.0 GB" in reason and "multi-node" in reason


def test_node_minimum_comes_from_memory() -> None:
    catalog = builder_catalog()
    recipe = copy.deepcopy(builder_recipe(KIMI))
    recipe["variants"]["default"]["vram_minimum_gb"] = 2000  # 2000 / 640 GB -> 4 nodes
    sel = {"hardware": "h100", "variant": "default", "strategy": "multi_node_tp_pp"}
    assert node_range(catalog, recipe, sel) == (4, 16)
    assert resolve(catalog, recipe, sel)["nodes"] == "4"
    with pytest.raises(SelectionError) as error:
        resolve(catalog, recipe, {**sel, "nodes": "3"})
    assert error.value.key == "nodes"
    assert error.value.reason == (
        "FP8 (block) needs 2000 GB: at least 4 H100 nodes (640 GB each)")
    result = build(catalog, recipe, {**sel, "nodes": "4"})
    assert set(result["unavailable"]["nodes"]) == {"1", "2", "3"}


def test_single_node_strategies_run_on_one_node() -> None:
    with pytest.raises(SelectionError) as error:
        _build(V4, strategy="single_node_tp", nodes="2")
    assert error.value.reason == "Tensor Parallel here runs on 1 node"


def test_multi_node_defaults_to_two_nodes_when_the_model_fits_one() -> None:
    result = _build(V4, hardware="h200", strategy="multi_node_dep")
    assert result["selection"]["nodes"] == "2"
    assert "1" in result["unavailable"]["nodes"]


@pytest.mark.parametrize(("sid", "nodes"), [
    *((sid, n) for sid in ("multi_node_tp", "multi_node_tep") for n in (2, 4, 8)),
    *((sid, n) for sid in ("multi_node_tp_pp", "multi_node_dep") for n in (2, 3, 4, 8)),
])
def test_head_and_workers(sid: str, nodes: int) -> None:
    result = _build(KIMI, hardware="h100", strategy=sid, nodes=str(nodes))
    commands = result["commands"]
    assert [c["role"] for c in commands] == ["head"] + ["worker"] * (nodes - 1)
    assert [c["label"] for c in commands] == ["Node 0 (head)"] + [
        f"Node {r} (worker)" for r in range(1, nodes)]
    assert not layout_problems(result), layout_problems(result)
    head = commands[0]["argv"]
    if sid == "multi_node_tp_pp":
        assert (value(head, "--tensor-parallel-size"), value(head, "--pipeline-parallel-size")
                ) == ("8", str(nodes))
    elif sid == "multi_node_dep":
        assert value(head, "--data-parallel-size") == str(8 * nodes)
        assert value(head, "--data-parallel-size-local") == "8"
        assert value(head, "--data-parallel-address") == "$HEAD_IP"
        assert "--enable-expert-parallel" in head
    else:
        assert value(head, "--tensor-parallel-size") == str(8 * nodes)
        assert value(head, "--master-addr") == "$HEAD_IP"
    assert '"$HEAD_IP"' in commands[0]["text"]
    assert any("$HEAD_IP" in note["body"] for note in result["notes"])


def test_tp_dp_on_a_dense_model() -> None:
    recipe = {**builder_recipe("meta-llama/Llama-3.1-8B-Instruct"),
              "strategies": ["single_node_tp", "multi_node_tp_dp"]}
    result = build(builder_catalog(), recipe,
                   {"hardware": "h100", "strategy": "multi_node_tp_dp", "nodes": "3"})
    assert not layout_problems(result)
    head, worker = result["commands"][0]["argv"], result["commands"][2]["argv"]
    assert value(head, "--data-parallel-size") == "3"
    assert value(head, "--data-parallel-size-local") == "1"
    assert value(worker, "--data-parallel-start-rank") == "2"


def test_every_multi_node_rendering_is_consistent() -> None:
    catalog = builder_catalog()
    problems = []
    checked = 0
    for hf_id in hf_ids():
        # The recipe's kept Builder renders the commands of a fresh `build` (no pills read).
        recipe, kept = builder_recipe(hf_id), kept_builder(hf_id)
        for sid in sorted(MULTI):
            for base in resolving(hf_id, sid):
                low, _ = node_range(catalog, recipe, kept.resolver.run(base))
                for nodes in {low, low + 1}:
                    for install in ("pip", "docker"):
                        try:
                            result = kept.build({**base, "nodes": str(nodes),
                                                 "install": install}, unavailable=False)
                        except SelectionError:
                            continue
                        checked += 1
                        problems += [f"{hf_id} {base} {nodes}: {p}"
                                     for p in layout_problems(result)]
    assert checked > 0
    assert not problems, "\n".join(problems[:20])


def test_docker_workers_publish_no_port_and_use_the_host_network() -> None:
    result = _build(KIMI, hardware="h100", strategy="multi_node_dep", nodes="2",
                    install="docker")
    head, worker = (c["docker_argv"] for c in result["commands"])
    assert "-p" in head and "-p" not in worker
    assert head[head.index("--network") + 1] == "host" == worker[worker.index("--network") + 1]


def test_page_has_a_nodes_row_and_one_group_per_role() -> None:
    html = page_state(builder_catalog(), builder_recipe(KIMI),
                      {"hardware": "h100", "strategy": "multi_node_tp_pp", "nodes": "3"})["html"]
    assert 'data-row="nodes"' in html
    assert 'data-key="nodes" data-value="3" aria-pressed="true"' in html
    assert 'data-key="nodes" data-value="1"' not in html  # too few for the model: not offered
    # The command groups' Copy buttons (the file sections under them have their own).
    files = html.count('class="rb-copy" data-copy="file-')
    examples = html.count('aria-label="Copy: Try it:') + html.count('aria-label="Copy: Python:')
    assert html.count('class="rb-copy"') - files - examples == 3
    assert '<div class="rb-role" role="tabpanel" data-role="head" data-count="1">' in html
    assert '<div class="rb-role" role="tabpanel" data-role="worker" data-count="2">' in html
    # The tabs count commands (3 nodes: 1 head, 2 workers), not the HTML pieces of a group.
    tabs = re.findall(r'data-role-tab="(\w+)"[^>]*>[^<]*<small>(\d+)</small>', html)
    assert tabs == [("head", "1"), ("worker", "2")]
    single = page_state(builder_catalog(), builder_recipe(V4), {})["html"]
    assert 'data-row="nodes"' not in single and "rb-role-tabs" not in single


@pytest.mark.parametrize("sid,short", [("multi_node_tp_pp", "tp_pp"), ("multi_node_dep", "dep")])
@pytest.mark.parametrize("nodes", [2, 4])
def test_golden_kimi_h100(sid: str, short: str, nodes: int) -> None:
    result = _build(KIMI, hardware="h100", strategy=sid, nodes=str(nodes))
    assert_golden(f"kimi_k2_h100_{short}_{nodes}_nodes.txt",
                  f"# {result['summary']}\n\n{result['copy_text']}")
    docker = _build(KIMI, hardware="h100", strategy=sid, nodes=str(nodes), install="docker")
    assert_golden(f"kimi_k2_h100_{short}_{nodes}_nodes_docker.txt", docker["copy_text"])
