"""builder/bridge.py in CPython: what the page's worker calls under Pyodide answers what the
site's build and the CLI compute, from the documents as the site publishes them (JSON text,
page-only keys included). tests/test_pyodide_parity.py runs the same modules under Pyodide."""

from __future__ import annotations

import json

import pytest

from builder.bridge import PAGE_ONLY, PageBridge, builder_input
from builder.diff.compare import compare_state
from builder.views.dynamo import page_state as dynamo_state
from builder.views.widget import page_state
from tests.recipes_data import builder_catalog, builder_recipe
from tests.test_dynamo import data as dynamo_data

CATALOG, QWEN, V4 = "/builder-catalog.json", "Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V4-Flash"


def _bridge(*hf_ids: str) -> PageBridge:
    bridge = PageBridge()
    bridge.load(CATALOG, json.dumps(builder_catalog()), False)
    for hf_id in hf_ids:
        document = {"hf_id": hf_id, "recommended_command": {"command": "vllm serve x"},
                    "guide": "# a guide", **builder_recipe(hf_id)}
        bridge.load(f"/{hf_id}.json", json.dumps(document), True)
    return bridge


def test_builder_input_drops_exactly_the_page_only_keys() -> None:
    recipe = builder_recipe(QWEN)
    assert not PAGE_ONLY & set(recipe)
    assert builder_input({**recipe, **dict.fromkeys(PAGE_ONLY, 1)}) == recipe


@pytest.mark.parametrize("pairs, base", [
    ([], {}),
    ([["hardware", "mi355x"], ["install", "docker"]], {}),
    ([["hardware", "nope"], ["colour", "blue"]], {}),
    ([["variant", "fp8"]], {"variant": "nvfp4"}),
])
def test_call_answers_what_page_state_answers(pairs: list[list[str]],
                                              base: dict[str, str]) -> None:
    hf_id = V4 if base else QWEN
    answer = json.loads(_bridge(hf_id).call(CATALOG, f"/{hf_id}.json", json.dumps(pairs),
                                            json.dumps(list(base.items()))))
    state = page_state(builder_catalog(), builder_recipe(hf_id), pairs, base=base)
    assert answer["html"] == state["html"]
    assert answer["explicit"] == state["explicit"]
    assert answer["notice"] == state["notice"]
    assert answer["foreign"] == state.get("foreign", {})
    assert answer["after"] and all(isinstance(query, list) for query in answer["after"])


def test_one_builder_per_recipe_answers_two_recipes_apart() -> None:
    bridge = _bridge(QWEN, V4)
    qwen = json.loads(bridge.call(CATALOG, f"/{QWEN}.json", "[]"))["html"]
    v4 = json.loads(bridge.call(CATALOG, f"/{V4}.json", "[]"))["html"]
    assert QWEN in qwen and V4 not in qwen and V4 in v4
    assert json.loads(bridge.call(CATALOG, f"/{QWEN}.json", "[]"))["html"] == qwen


def test_compare_answers_what_compare_state_answers() -> None:
    text = "vllm serve Qwen/Qwen3-8B --max-model-len 4096"
    answer = json.loads(_bridge(QWEN).compare(CATALOG, f"/{QWEN}.json", "[]", text))
    assert answer == json.loads(json.dumps(
        compare_state(builder_catalog(), builder_recipe(QWEN), [], text, {})))
    assert "--max-model-len" in answer["html"]


def test_dynamo_call_answers_what_the_dynamo_view_answers() -> None:
    bridge = PageBridge()
    url = "/deepseek-ai/DeepSeek-V4.1-Flash/deployments.json"
    bridge.load_deployments(url, json.dumps({"data": dynamo_data()}))
    query = {"dynamo_framework": "sglang"}
    answer = json.loads(bridge.dynamo_call(url, json.dumps(query)))
    state = dynamo_state(dynamo_data(), query)
    assert answer == {"html": state["html"], "explicit": state["explicit"],
                      "notice": state["notice"]}
