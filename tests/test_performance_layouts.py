"""Issue 34: the parallel layouts estimates are made for (`builder.performance.layouts`):
every tensor-parallel split of the selection's GPUs that the fit rule holds, the rendered
one first; one layout for the other single-node strategies; none across nodes. And the
cells `make estimates` estimates (`builder.performance.cells`)."""

from __future__ import annotations

from builder import resolve
from builder.performance.cells import WORKLOADS, Coverage, estimate_cells
from builder.performance.layouts import Layout, candidate_layouts, default_layout
from tests.recipes_data import builder_catalog, builder_recipe

QWEN_235B = "Qwen/Qwen3-235B-A22B-Instruct-2507"


def layouts(hf_id: str, **query: str) -> tuple[Layout, ...]:
    recipe = builder_recipe(hf_id)
    return candidate_layouts(builder_catalog(), recipe, resolve(builder_catalog(), recipe, query))


def test_a_small_dense_model_on_one_gpu_has_one_layout() -> None:
    assert layouts("Qwen/Qwen3-8B", hardware="h200") == (Layout(1, 1, 1, 1, 1),)


def test_every_split_of_the_gpus_asked_for_the_rendered_one_first() -> None:
    # Qwen3-8B (32 heads, 8 KV heads, ~16 GB BF16) fits one H200: the builder renders 8
    # replicas of TP1; TP8, TP4 x 2 and TP2 x 4 are the other splits of 8 GPUs.
    found = layouts("Qwen/Qwen3-8B", hardware="h200", gpus="8")
    assert [(x.tp, x.dp) for x in found] == [(1, 8), (8, 1), (4, 2), (2, 4)]
    assert {x.gpus for x in found} == {8}
    assert {x.ep for x in found} == {1}


def test_a_split_that_does_not_hold_the_weights_is_left_out() -> None:
    # Qwen3-235B BF16: 470 GB of weights. One H200 gives vLLM 141 x 0.9 = 126.9 GB: four
    # hold 117.5 GB each plus 2 GB runtime, two (235 GB each) do not.
    found = layouts(QWEN_235B, hardware="h200")
    assert [x.label for x in found] == ["TP8", "TP4 × DP2"]


def test_expert_parallel_strategies_spread_the_experts_over_every_gpu() -> None:
    assert layouts(QWEN_235B, hardware="h200", strategy="single_node_tep") == (
        Layout(gpus=8, tp=8, pp=1, dp=1, ep=8),)
    dep = layouts(QWEN_235B, hardware="h200", strategy="single_node_dep")
    assert dep == (Layout(gpus=8, tp=1, pp=1, dp=8, ep=8),)
    assert dep[0].moe_tp == 1


def test_experts_split_by_tensor_parallelism_without_expert_parallel() -> None:
    found = layouts("Qwen/Qwen3-30B-A3B", hardware="h200", gpus="4")
    assert {x.ep for x in found} == {1}
    assert {x.moe_tp for x in found} == {4}


def test_no_layout_across_nodes() -> None:
    recipe = builder_recipe("deepseek-ai/DeepSeek-V4.1-Flash")
    catalog = builder_catalog()
    multi = [sid for sid, s in catalog["strategies"].items()
             if s["deploy_type"] in ("multi_node", "pd_cluster")]
    tried = 0
    for sid in multi:
        try:
            selection = resolve(catalog, recipe, {"hardware": "h200", "strategy": sid})
        except Exception:
            continue
        tried += 1
        assert candidate_layouts(catalog, recipe, selection) == ()
        assert default_layout(catalog, recipe, selection) is None
    assert tried


# ---------------------------------------------------------------- the cells estimated

KNOWN = {m.lower(): m for m in ("Qwen/Qwen3-8B", "Qwen/Qwen3-30B-A3B",
                                "meta-llama/Meta-Llama-3.1-8B")}


def cells(hf_id: str) -> Coverage:
    return estimate_cells(builder_catalog(), builder_recipe(hf_id), KNOWN, "AIConfigurator X")


def test_cells_are_the_hardware_with_an_aiconfigurator_system_times_the_workloads() -> None:
    found = cells("Qwen/Qwen3-8B")
    catalog = builder_catalog()
    hardware = {c["hardware"] for c in found.cells}
    assert hardware and all(catalog["hardware"][h].get("aiconfigurator_system")
                            for h in hardware)
    assert {c["system"] for c in found.cells if c["hardware"] == "h200"} == {"h200_sxm"}
    layouts = {(c["hardware"], c["gpus"], c["tp"], c["dp"]) for c in found.cells}
    for layout in layouts:
        assert sorted(c["workload"] for c in found.cells
                      if (c["hardware"], c["gpus"], c["tp"], c["dp"]) == layout) == sorted(
            WORKLOADS)
    # every GPU count of the `gpus` row (1 to 8 H200s), each with its layouts: 8 GPUs as
    # TP 8, TP 4 x 2 replicas, TP 2 x 4, TP 1 x 8 (Qwen3-8B's 32 heads split 8 ways)
    assert {g for h, g, _, _ in layouts if h == "h200"} == set(range(1, 9))
    assert {(t, d) for h, g, t, d in layouts if (h, g) == ("h200", 8)} == {
        (8, 1), (4, 2), (2, 4), (1, 8)}
    # MI300X and L4 are offered but have no AIConfigurator system: a reason, no cell
    assert "MI300X" in found.why_not["default"]["mi300x"]
    assert "no vLLM performance data" in found.why_not["default"]["l4"]


def test_a_variant_that_does_not_fit_the_default_count_starts_at_the_fewest_gpus_that_hold_it(
) -> None:
    # Qwen3-30B-A3B BF16 (61 GB) does not fit one L40S (48 GB x 0.9): two do, as TP 2 only.
    l40s = [c for c in cells("Qwen/Qwen3-30B-A3B").cells if c["hardware"] == "l40s"]
    assert min(c["gpus"] for c in l40s) == 2
    assert {(c["tp"], c["dp"]) for c in l40s if c["gpus"] == 2} == {(2, 1)}


def test_a_checkpoint_aiconfigurator_does_not_ship_has_no_cell() -> None:
    found = cells("Qwen/Qwen3-32B")
    assert not found.cells
    assert "does not model this checkpoint" in found.why_not["default"]["h200"]


def test_a_base_model_config_stands_for_its_instruct_fine_tune() -> None:
    found = cells("meta-llama/Llama-3.1-8B-Instruct")
    assert {c["checkpoint"] for c in found.cells} == {"meta-llama/Meta-Llama-3.1-8B"}


def test_a_workload_longer_than_the_context_the_command_serves_is_left_out() -> None:
    # Llama 3.1 8B on one 24 GB Arc Pro B60: the fit rule caps the context below the 9,216
    # tokens of the long-prompt and reasoning workloads (8K + 1K), not the chat one's 2K.
    b60 = [c for c in cells("meta-llama/Llama-3.1-8B-Instruct").cells
           if c["hardware"] == "arc_pro_b60" and c["gpus"] == 1]
    assert [c["workload"] for c in b60] == ["chat"]
    assert builder_recipe("meta-llama/Llama-3.1-8B-Instruct")["facts"]["config"][
        "max_position_embeddings"] > 9216
