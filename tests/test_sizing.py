"""Issue 33: sized for the GPUs people have. The memory arithmetic of `builder.sizing` from
the facts files, the fit rule's choices on the issue's examples (through the CLI, as a user
types them), and the `fit` every rendering carries."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from builder import build
from builder.sizing import Gpu, kv_bytes_per_token, plan, sequence_bytes, weights_bytes
from tests.recipes_data import ROOT, builder_catalog, builder_recipe


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)


def facts(hf_id: str) -> dict:
    return builder_recipe(hf_id)["facts"]


def flag(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


# ---------------------------------------------------------------- the arithmetic, by hand


def test_kv_per_token_of_full_attention_is_layers_heads_and_head_dim() -> None:
    config = facts("meta-llama/Llama-3.1-70B-Instruct")["config"]
    # 80 layers x (K and V) x 8 KV heads x 128 x 2 bytes (BF16)
    assert kv_bytes_per_token(config) == 80 * 2 * 8 * 128 * 2 == 327_680
    assert kv_bytes_per_token(config, tp=8) == 80 * 2 * 1 * 128 * 2  # one KV head per GPU
    assert kv_bytes_per_token(config, tp=16) == 80 * 2 * 1 * 128 * 2  # replicated past 8
    assert kv_bytes_per_token(config, kv_bytes=1) == 327_680 / 2  # an FP8 KV cache


def test_mla_keeps_one_latent_per_layer_on_every_gpu() -> None:
    config = facts("moonshotai/Kimi-K2-Instruct")["config"]
    assert kv_bytes_per_token(config) == 61 * (512 + 64) * 2 == 70_272
    assert kv_bytes_per_token(config, tp=8) == 70_272


def test_sparse_attention_adds_the_indexer_key_to_the_latent() -> None:
    # GLM-5 (config.json): 78 MLA layers of 512 + 64 values, and a 128-wide FP8 indexer key
    # with one 4-byte scale: 78 x (576 x 2 + 132) = 100,152 bytes a token in BF16, on any TP.
    config = {"num_hidden_layers": 78, "num_attention_heads": 64, "num_key_value_heads": 64,
              "head_dim": 96, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
              "index_head_dim": 128}
    assert kv_bytes_per_token(config, 1) == kv_bytes_per_token(config, 8) == 100_152
    assert kv_bytes_per_token(config, 8, 1.0) == 78 * (576 + 132)  # FP8 KV: the latent halves


def test_sliding_window_layers_stop_at_the_window() -> None:
    config = facts("openai/gpt-oss-20b")["config"]
    full = 12 * 2 * 8 * 64 * 2  # the 12 full-attention layers
    assert kv_bytes_per_token(config) == full
    assert sequence_bytes(config, 100) == full * 100 + 12 * 2 * 8 * 64 * 2 * 100
    assert sequence_bytes(config, 10_000) == full * 10_000 + 12 * 2 * 8 * 64 * 2 * 128


def test_linear_attention_layers_add_a_constant_state_split_over_tp() -> None:
    config = facts("Qwen/Qwen3-Coder-Next")["config"]
    per_token = 12 * 2 * 2 * 256 * 2  # 12 gated-attention layers, 2 KV heads of 256
    assert kv_bytes_per_token(config) == per_token
    assert sequence_bytes(config, 1000, tp=2) == (12 * 2 * 1 * 256 * 2 * 1000
                                                  + 36 * 1_097_728 / 2)


def test_weights_are_the_stated_size_else_parameters_times_the_precision() -> None:
    qwen = facts("Qwen/Qwen3-8B")
    assert weights_bytes(qwen, "bf16") == pytest.approx(16.4e9)  # weights_gb.default
    llama = facts("meta-llama/Llama-3.1-70B-Instruct")
    assert weights_bytes(llama, "bf16") == 7.06e10 * 2
    assert weights_bytes(llama, "fp8", "fp8") == 7.06e10
    assert weights_bytes(llama, "nvfp4", "x") == 7.06e10 * (0.5 + 1 / 16)
    assert weights_bytes(llama, "gguf", "x") is None


def test_the_fit_rule_picks_the_fewest_gpus_that_hold_weights_and_full_context() -> None:
    seed = facts("ByteDance-Seed/Seed-OSS-36B-Instruct")
    weights = weights_bytes(seed, "bf16")
    assert weights is not None
    h200 = Gpu("H200", 141, 8)
    found = plan(seed, weights, h200, 8)
    assert found is not None and found.tp == 2 and not found.capped
    # One H200: 72.3 GB of weights + 2 GB leave 52.6 GB of the 126.9 GB, short of the
    # 137 GB one 512K-token sequence takes (64 x 2 x 8 x 128 x 2 bytes = 256 KiB a token).
    one = plan(seed, weights, h200, 1)
    assert one is not None and one.capped and one.full_context_gpus == 2
    assert one.max_model_len * 262_144 <= 141e9 * 0.9 - weights - 2e9
    assert (one.max_model_len + 1024) * 262_144 > 141e9 * 0.9 - weights - 2e9


# ---------------------------------------------------------------- the examples


def test_qwen3_8b_on_one_l40s_is_a_1_gpu_command_with_its_fit() -> None:
    out = cli("Qwen/Qwen3-8B", "hardware=l40s")
    assert out.returncode == 0, out.stderr
    assert "--tensor-parallel-size 1" in out.stdout
    assert "--max-model-len" not in out.stdout
    assert "weights 16.4 GB per GPU · KV cache room 24.8 GB" in out.stderr


def test_qwen3_8b_on_an_rtx_4090_caps_the_context_and_says_why() -> None:
    out = cli("Qwen/Qwen3-8B", "hardware=rtx_4090", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)["recommended_command"]
    argv = result["commands"][0]["argv"]
    # 24 GB x 0.9 - 16.4 GB - 2 GB = 3.2 GB; / 147,456 bytes a token = 21,701 tokens
    assert flag(argv, "--max-model-len") == "21504"
    assert "context capped at 21,504 of 40,960 to fit 1× RTX 4090; 2 GPUs give the full " \
           "context" in result["fit"]["line"]


def test_h100_gpus_2_uses_both() -> None:
    out = cli("Qwen/Qwen3-8B", "hardware=h100", "gpus=2", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)["recommended_command"]
    argv = result["commands"][0]["argv"]
    tp, dp = int(flag(argv, "--tensor-parallel-size") or 1), int(
        flag(argv, "--data-parallel-size") or 1)
    assert tp * dp == 2
    assert result["selection"]["gpus"] == 2 and result["summary"].startswith("2× H100")


def test_llama_70b_on_an_l4_exits_2_with_the_numbers_and_the_smallest_count() -> None:
    out = cli("meta-llama/Llama-3.1-70B-Instruct", "hardware=l4")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1
    assert "141.2 GB" in out.stderr and "21.6 GB (24 GB x 0.9)" in out.stderr
    assert "gpus=8" in out.stderr and "variant=fp8" in out.stderr


@pytest.mark.parametrize("hf_id", ["Qwen/Qwen3-Coder-Next",
                                   "ByteDance-Seed/Seed-OSS-36B-Instruct"])
def test_recipes_without_a_tp_use_two_h200s(hf_id: str) -> None:
    result = build(builder_catalog(), builder_recipe(hf_id), {"hardware": "h200"})
    argv = result["commands"][0]["argv"]
    assert flag(argv, "--tensor-parallel-size") == "2"
    assert "--max-model-len" not in argv and "--data-parallel-size" not in argv
    assert result["selection"]["gpus"] == "2"


@pytest.mark.parametrize("value", ["0", "999", "abc"])
def test_a_bad_gpu_count_is_one_line_and_exit_2(value: str) -> None:
    out = cli("Qwen/Qwen3-8B", f"gpus={value}")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(f"gpus: unknown value '{value}'")
    assert out.stderr.count("\n") == 1


def test_more_gpus_than_the_node_holds_is_refused() -> None:
    out = cli("Qwen/Qwen3-8B", "hardware=rtx_4090", "gpus=4")
    assert out.returncode == 2
    assert out.stderr == "gpus: one RTX 4090 node holds at most 2 GPUs\n"


def test_nvfp4_on_an_a100_is_refused_with_the_reason() -> None:
    out = cli("meta-llama/Llama-3.3-70B-Instruct", "variant=nvfp4", "hardware=a100_40gb")
    assert out.returncode == 2
    assert "runs on Blackwell only" in out.stderr


def test_a_recipe_without_facts_says_so_and_has_no_fit() -> None:
    # DeepSeek-V4-Flash: its compressed sparse attention needs keys the facts spec lacks
    # (recipes/facts/MISSING.md), so it has no facts file
    assert not (ROOT / "recipes" / "facts" / "deepseek-ai" / "DeepSeek-V4-Flash.yaml").exists()
    out = cli("deepseek-ai/DeepSeek-V4-Flash", "--explain")
    assert out.returncode == 0
    assert "# no fit estimate" in out.stdout
    result = json.loads(
        cli("deepseek-ai/DeepSeek-V4-Flash", "--json").stdout)["recommended_command"]
    assert result["fit"] is None


def test_every_rendering_of_a_model_with_facts_has_fit() -> None:
    result = json.loads(cli("Qwen/Qwen3-8B", "hardware=l40s", "--json").stdout)
    fit = result["recommended_command"]["fit"]
    assert fit["weights_per_gpu_gb"] == 16.4 and fit["max_model_len"] == 40960
    assert fit["facts_file"] == "recipes/facts/Qwen/Qwen3-8B.yaml"
    assert fit["facts"]["config"]["num_hidden_layers"] == 36
    explain = cli("Qwen/Qwen3-8B", "hardware=l40s", "--explain").stdout
    assert "KV per token: 36 full-attention layers x 2 x 8 KV heads per GPU x 128 x 2 bytes " \
           "= 147,456 bytes per GPU" in explain


def test_llama_405b_offers_only_the_nodes_that_help() -> None:
    """16 H100 nodes (TP 128) was offered; 2 hold the weights and the full context, and
    tensor parallelism over more than twice that only adds communication."""
    result = build(builder_catalog(), builder_recipe("meta-llama/Llama-3.1-405B-Instruct"),
                   {"hardware": "h100", "strategy": "multi_node_tp"})
    assert result["selection"]["nodes"] == "2"
    assert "4" not in result["unavailable"].get("nodes", {})
    for nodes in ("8", "16"):
        assert result["unavailable"]["nodes"][nodes] == (
            "2 nodes already hold BF16 with its full context; past 4, more do not help "
            "Multi-Node Tensor Parallel (a data-parallel strategy adds replicas)")


LLAMA_405B = "meta-llama/Llama-3.1-405B-Instruct"


def test_gpus_across_nodes_under_a_multi_node_strategy_are_whole_nodes() -> None:
    """Issue 33 point 2: `gpus` is valid across nodes where the strategy is multi-node
    (it was "sizes itself by nodes; gpus= is for single-node strategies")."""
    catalog, recipe = builder_catalog(), builder_recipe(LLAMA_405B)
    query = {"hardware": "h100", "strategy": "multi_node_tp"}
    for gpus, nodes in (("16", "2"), ("32", "4")):
        result = build(catalog, recipe, {**query, "gpus": gpus})
        assert result["selection"]["nodes"] == nodes
        by_nodes = build(catalog, recipe, {**query, "nodes": nodes})
        assert (result["selection"], result["commands"]) == (by_nodes["selection"],
                                                              by_nodes["commands"])


@pytest.mark.parametrize(("gpus", "reason"), [
    ("12", "runs on whole H100 nodes of 8 GPUs"),
    ("24", "gpus=24 spans 3 nodes: Multi-Node Tensor Parallel spans every GPU with one "
           "tensor-parallel group"),
    ("64", "gpus=64 spans 8 nodes: 2 nodes already hold BF16 with its full context"),
])
def test_gpus_across_nodes_that_the_strategy_cannot_use_are_refused(gpus: str,
                                                                    reason: str) -> None:
    out = cli(LLAMA_405B, "hardware=h100", "variant=default", "strategy=multi_node_tp",
              f"gpus={gpus}")
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1
    assert reason in out.stderr


def test_gpus_and_nodes_that_disagree_are_refused_and_the_row_says_why() -> None:
    out = cli(LLAMA_405B, "hardware=h100", "strategy=multi_node_tp", "gpus=16", "nodes=4")
    assert out.returncode == 2
    assert out.stderr == ("nodes: gpus=16 spans 2 nodes of 8 GPUs; pick nodes=2 or leave "
                          "gpus= out\n")
    result = build(builder_catalog(), builder_recipe(LLAMA_405B),
                   {"hardware": "h100", "strategy": "multi_node_tp", "gpus": "16"})
    assert result["unavailable"]["nodes"]["4"].startswith("gpus=16 spans 2 nodes")


def test_a_dense_model_is_told_why_expert_strategies_are_out() -> None:
    result = build(builder_catalog(), builder_recipe("Qwen/Qwen3-8B"), {})
    assert result["unavailable"]["strategy"]["single_node_tep"] == (
        "a dense model has no experts to shard: Tensor + Expert Parallel is for MoE models")


def test_check_refuses_a_recipe_tp_that_cannot_fit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A hand-set `tp` of 1 H100 for Qwen3-Coder-Next's 80 GB of FP8 weights: `check` says
    why, with the arithmetic."""
    import shutil

    tree = tmp_path / "recipes"
    shutil.copytree(ROOT / "recipes", tree)
    path = tree / "models/Qwen/Qwen3-Coder-Next.yaml"
    text = path.read_text(encoding="utf-8")
    assert "    tp: {h100: 2}\n" in text
    path.write_text(text.replace("    tp: {h100: 2}\n", "    tp: {h100: 1}\n"), encoding="utf-8")
    out = cli("check", str(tree))
    assert out.returncode != 0
    assert ("variants.fp8.tp.h100: 1× H100: by the fit rule, FP8 does not fit 1× H100: its "
            "weights take 80.0 GB") in out.stdout + out.stderr


def test_every_recipe_has_facts_or_a_line_saying_why_not() -> None:
    """recipes/facts/: a facts file, or one line in MISSING.md with the reason, per recipe."""
    facts_dir = ROOT / "recipes" / "facts"
    with_facts = {str(p.relative_to(facts_dir).with_suffix("")) for p in facts_dir.rglob("*.yaml")}
    lines = [line[2:] for line in (facts_dir / "MISSING.md").read_text(encoding="utf-8")
             .splitlines() if line.startswith("- ")]
    missing = [line.split(":", 1)[0] for line in lines]
    assert all(":" in line and line.split(":", 1)[1].strip() for line in lines)
    assert len(missing) == len(set(missing))
    recipes = {str(p.relative_to(ROOT / "recipes" / "models").with_suffix(""))
               for p in (ROOT / "recipes" / "models").rglob("*.yaml")}
    assert with_facts | set(missing) == recipes
    assert not with_facts & set(missing)


# ------------------------------------------------- variants of another model size (33.3/4)


def test_a_variant_of_another_size_is_not_sized_with_the_default_facts() -> None:
    """`variant=300b` of ERNIE-4.5-21B-A3B is ERNIE-4.5-300B-A47B: it was sized as the 21B
    model (TP 1, "weights 42 GB per GPU"); its facts file does not cover it, so it has no
    estimate, says so, and is sized as a recipe without facts (the whole node)."""
    out = cli("baidu/ERNIE-4.5-21B-A3B-PT", "variant=300b")
    assert out.returncode == 0
    assert "42.0 GB" not in out.stderr
    assert flag(out.stdout.replace("\\\n", "").split(), "--tensor-parallel-size") == "8"
    assert "no fit estimate for variant 300b" in out.stderr
    assert "ERNIE-4.5-300B-A47B-PT is another model" in out.stderr
    result = json.loads(cli("baidu/ERNIE-4.5-21B-A3B-PT", "variant=300b", "--json")
                        .stdout)["recommended_command"]
    assert result["fit"] is None
    assert [n["title"] for n in result["notes"]].count("No fit estimate") == 1
    assert "# no fit estimate for variant 300b" in cli(
        "baidu/ERNIE-4.5-21B-A3B-PT", "variant=300b", "--explain").stdout
    # the default variant keeps its estimate and no such note
    default = json.loads(cli("baidu/ERNIE-4.5-21B-A3B-PT", "--json").stdout)["recommended_command"]
    assert default["fit"]["facts"]["parameters"] == 21e9
    assert "No fit estimate" not in [n["title"] for n in default["notes"]]


def test_a_variant_with_its_own_facts_is_sized_by_them() -> None:
    """translategemma-27b-it's 4B variants were sized as 27B (54.9 GB of weights); their own
    facts (Gemma 3 4B, 4.3e9 parameters) give 8.6 GB and the 4B model's layers."""
    for variant in ("small_4b", "small_4b_original"):
        result = json.loads(cli("google/translategemma-27b-it", f"variant={variant}",
                                "hardware=l4", "--json").stdout)["recommended_command"]
        fit = result["fit"]
        assert fit["weights_gb"] == round(4299915632 * 2 / 1e9, 2)
        assert fit["facts"]["config"]["num_hidden_layers"] == 34
        assert "variants" not in fit["facts"] and "not_covered" not in fit["facts"]
        assert result["selection"]["gpus"] == 1
    default = json.loads(cli("google/translategemma-27b-it", "hardware=h100", "--json")
                         .stdout)["recommended_command"]["fit"]
    assert default["facts"]["config"]["num_hidden_layers"] == 62


def test_checkpoint_facts_picks_the_variants_own_none_or_the_default() -> None:
    from builder.sizing import checkpoint_facts

    facts = {"config": {"num_hidden_layers": 2}, "parameters": 1e9, "weights_gb": {"big": 9.0},
             "variants": {"big": {"config": {"num_hidden_layers": 9}, "parameters": 9e9}},
             "not_covered": {"other": "another model"}, "same_architecture": ["fp8"]}
    assert checkpoint_facts(facts, "big") == {
        "config": {"num_hidden_layers": 9}, "parameters": 9e9, "weights_gb": {"big": 9.0}}
    assert checkpoint_facts(facts, "other") is None
    assert checkpoint_facts(facts, "fp8") == {
        "config": {"num_hidden_layers": 2}, "parameters": 1e9, "weights_gb": {"big": 9.0}}
    assert checkpoint_facts(None, "fp8") is None


@pytest.mark.parametrize(("default", "variant", "other"), [
    ("baidu/ERNIE-4.5-21B-A3B-PT", "baidu/ERNIE-4.5-300B-A47B-PT", True),
    ("google/translategemma-27b-it", "google/translategemma-4b-it", True),
    ("Qwen/Qwen3Guard-Gen-8B", "Qwen/Qwen3Guard-Gen-0.6B", True),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mistralai/Mixtral-8x22B-Instruct-v0.1", True),
    ("Qwen/Qwen3-8B", "Qwen/Qwen3-8B-FP8", False),
    ("google/translategemma-27b-it", "Infomaniak-AI/vllm-translategemma-27b-it", False),
    ("zai-org/GLM-4.5", "zai-org/GLM-4.5-FP8", False),
    ("microsoft/Phi-4-mini-instruct", "RedHatAI/Phi-4-mini-instruct-FP8-dynamic", False),
    ("thinkingmachines/Inkling-NVFP4", "lightseekorg/Inkling-MXFP4", False),
    ("deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-R1-0528", None),
    ("microsoft/Phi-4-mini-instruct", "microsoft/Phi-4-mini-reasoning", None),
    ("Qwen/Qwen3-8B-4bit", "Qwen/Qwen3-Next", None),
])
def test_the_size_token_rule(default: str, variant: str, other: bool | None) -> None:
    from vllm_recipes.checks_facts import other_checkpoint

    assert other_checkpoint(default, variant) is other


def test_the_runs_on_filter_sizes_a_variant_by_its_own_checkpoint() -> None:
    """`fewest_gpus` (the home page's "runs on" filter, /models.json): ERNIE-4.5's 300b variant
    has no estimate (it counted as one H200 with the 21B model's facts); translategemma's 4B
    variant fits one L4, the 27B default does not."""
    from builder.commands.fewest import fewest_gpus

    catalog = builder_catalog()
    ernie = builder_recipe("baidu/ERNIE-4.5-21B-A3B-PT")
    assert fewest_gpus(catalog, ernie, "300b", "h200") is None
    assert fewest_gpus(catalog, ernie, "default", "h200") == 1
    gemma = builder_recipe("google/translategemma-27b-it")
    assert fewest_gpus(catalog, gemma, "small_4b", "l4") == 1
    assert fewest_gpus(catalog, gemma, "default", "l4") == 4


# ------------------------------------------- a TP the builder cannot check (no memory facts)

V4_FLASH = "deepseek-ai/DeepSeek-V4-Flash"
UNCHECKED_TP = ("TP {n}: vLLM needs the tensor-parallel size to divide the model's attention "
                "heads, and this model's head count is not in its memory facts "
                "(recipes/facts/MISSING.md says why), so only powers of two are offered: "
                "pick 1, 2, 4 or 8 GPUs")


def test_a_recipe_without_facts_refuses_a_tp_that_is_not_a_power_of_two_in_the_cli() -> None:
    """Issue 33: V4-Flash has no memory facts (no head count to check a TP against);
    `gpus=5` on H200 printed `--tensor-parallel-size 5`, which vLLM refuses at load."""
    out = cli(V4_FLASH, "hardware=h200", "gpus=5")
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr == f"gpus: {UNCHECKED_TP.format(n=5)}\n"


def test_a_recipe_without_facts_refuses_the_same_count_in_the_builder_and_page() -> None:
    from builder import SelectionError
    from builder.views.widget import page_state

    catalog, recipe = builder_catalog(), builder_recipe(V4_FLASH)
    with pytest.raises(SelectionError) as error:
        build(catalog, recipe, {"hardware": "h200", "gpus": "5"})
    assert (error.value.key, error.value.reason) == ("gpus", UNCHECKED_TP.format(n=5))
    # The gpus row: 3, 5, 6 and 7 are out with the reason; 1, 2, 4 and 8 are not.
    row = build(catalog, recipe, {"hardware": "h200"})["unavailable"]["gpus"]
    for n in (3, 5, 6, 7):
        assert row[str(n)] == UNCHECKED_TP.format(n=n)
    assert not {"1", "2", "4", "8"} & set(row)
    # The URL: defaults, and a notice that says why.
    state = page_state(catalog, recipe, {"hardware": "h200", "gpus": "5"})
    assert state["explicit"] == {"hardware": "h200"}
    assert UNCHECKED_TP.format(n=5) in state["notice"]
    assert state["result"]["selection"]["gpus"] == "8"


@pytest.mark.parametrize("gpus", ["2", "4"])
def test_a_recipe_without_facts_still_runs_a_power_of_two(gpus: str) -> None:
    result = build(builder_catalog(), builder_recipe(V4_FLASH), {"hardware": "h200",
                                                                  "gpus": gpus})
    assert flag(result["commands"][0]["argv"], "--tensor-parallel-size") == gpus


def test_a_data_parallel_layout_keeps_its_gpus_without_facts() -> None:
    """Data + Expert Parallel runs the 5 GPUs as data-parallel ranks (TP 1): vLLM does not
    need 5 to divide the heads, so the count stays offered."""
    result = build(builder_catalog(), builder_recipe(V4_FLASH),
                   {"hardware": "h200", "strategy": "single_node_dep", "gpus": "5"})
    argv = result["commands"][0]["argv"]
    assert flag(argv, "--data-parallel-size") == "5"
    assert flag(argv, "--tensor-parallel-size") in (None, "1")
    assert "5" not in result["unavailable"].get("gpus", {})


def test_a_recipe_with_facts_keeps_the_fit_rule_split() -> None:
    """Qwen3-32B has facts: its refusal of 3 L40S is the fit rule's, as before."""
    out = cli("Qwen/Qwen3-32B", "hardware=l40s", "gpus=3")
    assert out.returncode == 2
    assert out.stderr == ("gpus: 3 GPUs do not split into tensor-parallel groups of 2; pick a "
                          "multiple of 2\n")


MELLUM = "JetBrains/Mellum2-12B-A2.5B-Instruct"


def test_a_tp_and_ep_layout_with_facts_takes_only_sizes_the_heads_divide() -> None:
    """TP + EP sizes TP by the GPUs asked for, not by the fit rule: Mellum2 (32 attention
    heads, 4 KV heads in its facts) on 3 A100 40GB rendered `--tensor-parallel-size 3`,
    which vLLM refuses at load. The same refusal on the CLI, in the builder and in the row."""
    reason = ("TP 3: vLLM needs the tensor-parallel size to divide the model's 32 attention "
              "heads and 4 KV heads (recipes/facts/JetBrains/Mellum2-12B-A2.5B-Instruct.yaml): "
              "pick 1, 2, 4 or 8 GPUs")
    out = cli(MELLUM, "hardware=a100_40gb", "strategy=single_node_tep", "gpus=3")
    assert (out.returncode, out.stdout, out.stderr) == (2, "", f"gpus: {reason}\n")
    catalog, recipe = builder_catalog(), builder_recipe(MELLUM)
    query = {"hardware": "a100_40gb", "strategy": "single_node_tep"}
    row = build(catalog, recipe, query)["unavailable"]["gpus"]
    assert row["3"] == reason
    assert {"5", "6", "7"} <= set(row) and not {"1", "2", "4", "8"} & set(row)
    argv = build(catalog, recipe, {**query, "gpus": "4"})["commands"][0]["argv"]
    assert flag(argv, "--tensor-parallel-size") == "4"
