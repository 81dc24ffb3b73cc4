"""DeepSeek-V4.1-Flash: every statement of the recipe page that implies a flag, an environment
variable, an image, a default or a restriction, checked against what the builder renders.

Each test is named `test_<page section>__<statement>`. The facts come from
../shared/reference/deepseek-v4.1-flash-recipe-page.txt, not from the builder's output.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from builder import SelectionError, build
from builder.vllm_release import VLLM_VERSION
from tests import prose_runs
from tests.recipes_data import builder_catalog, builder_recipe, catalog
from vllm_recipes.vllm_flags import check_serve_argv
from vllm_recipes_cli.cli import main as cli

HF_ID = "deepseek-ai/DeepSeek-V4.1-Flash"
MODEL_1017 = "deepseek-ai/DeepSeek-V4.1-Flash-1017"

NVIDIA = ["h200", "b200", "b300", "gb200", "gb300", "dgx_station_gb300"]
AMD = ["mi300x", "mi325x", "mi350x", "mi355x"]
BLACKWELL_NODES = ["b200", "b300", "gb200", "gb300"]
TP_JSON = {"backend": "FLASHINFER_MLA_SPARSE_DSV41", "indexer_kv_dtype": "mxfp4",
           "indexer_sparse_logits": True}
DEP_JSON = {**TP_JSON, "backend": "FLASHMLA_MEGA_ATTN_DSV41"}
DSPARK_MULTIPLES = [6, 12, 18, 24, 30, 36, 48, 60, 72, 96, 120, 144, 192, 240, 288, 384, 480,
                    576, 768, 1020, 1536, 2046, 3072, 4092]


def run(**query: str) -> dict[str, Any]:
    return build(builder_catalog(), builder_recipe(HF_ID), query)


def serve(**query: str) -> tuple[list[str], dict[str, str]]:
    command = run(**query)["commands"][0]
    assert command["argv"][:2] == ["vllm", "serve"]
    return command["argv"], command["env"]


def value(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


def json_value(argv: list[str], flag: str) -> dict[str, Any]:
    text = value(argv, flag)
    assert text is not None, f"{flag} missing from {argv}"
    return json.loads(text)


def refused(**query: str) -> SelectionError:
    with pytest.raises(SelectionError) as caught:
        run(**query)
    return caught.value


# ------------------------------------------------------------------------------- Checkpoints


def test_checkpoints__1017_is_the_default_variant() -> None:
    result = run()
    assert result["selection"]["variant"] == "default"
    assert result["model_id"] == MODEL_1017
    assert builder_recipe(HF_ID)["variants"]["default"]["label"] == "MXFP4+MXFP8 (1017)"


def test_checkpoints__fp8_0909_is_the_launch_repo_and_the_recipe_id_means_the_default() -> None:
    # The recipe's own id means the recipe at its default variant (1017); the 0909 checkpoint
    # is the repository's own weights, picked with variant=fp8.
    assert catalog().find(HF_ID) == (HF_ID, "default")
    assert catalog().find(MODEL_1017) == (HF_ID, "default")
    assert builder_recipe(HF_ID)["variants"]["fp8"]["label"] == "MXFP4+MXFP8 (0909)"
    assert run(variant="fp8")["model_id"] == HF_ID


@pytest.mark.parametrize("hardware", ["h200", "b300", "gb200", "dgx_station_gb300", "mi355x"])
def test_checkpoints__variant_row_only_swaps_the_model_id(hardware: str) -> None:
    new, new_env = serve(hardware=hardware)
    old, old_env = serve(hardware=hardware, variant="fp8")
    assert new[2] == MODEL_1017 and old[2] == HF_ID
    assert new[3:] == old[3:] and new_env == old_env


def test_checkpoints__tokenizer_mode_replaces_the_missing_chat_template() -> None:
    for hardware in NVIDIA + AMD:
        for variant in ("default", "fp8"):
            argv, _ = serve(hardware=hardware, variant=variant)
            assert value(argv, "--tokenizer-mode") == "deepseek_v41", (hardware, variant)


# ---------------------------------------------------------------------------- Context length


def test_context_length__one_million_tokens() -> None:
    assert builder_recipe(HF_ID)["model"]["context_length"] == 1_048_576


# ------------------------------------------------------------------------------------ Images


def test_images__encoder_parallel_runs_the_vit_data_parallel() -> None:
    argv, _ = serve(encoder_parallel="on")
    assert value(argv, "--mm-encoder-tp-mode") == "data"
    assert "--mm-encoder-tp-mode" not in serve()[0]


def test_images__encoder_parallel_is_mutually_exclusive_with_text_only() -> None:
    reason = run(text_only="on")["unavailable"]["encoder_parallel"]["on"]
    assert "text_only" in reason
    reason = run(encoder_parallel="on")["unavailable"]["text_only"]["on"]
    assert "encoder_parallel" in reason


# -------------------------------------------------------------- Reasoning and tool calling


def test_reasoning_and_tool_calling__parsers_are_on_by_default() -> None:
    argv, _ = serve()
    assert value(argv, "--tool-call-parser") == "deepseek_v41"
    assert "--enable-auto-tool-choice" in argv
    assert value(argv, "--reasoning-parser") == "deepseek_v41"


def test_reasoning_and_tool_calling__each_parser_can_be_turned_off() -> None:
    argv, _ = serve(tool_calling="off", reasoning="off")
    assert "--tool-call-parser" not in argv and "--enable-auto-tool-choice" not in argv
    assert "--reasoning-parser" not in argv
    assert value(argv, "--tokenizer-mode") == "deepseek_v41"


# ---------------------------------------------------------------------- Speculative decoding


def test_speculative_decoding__dspark_is_the_only_method_and_opt_in() -> None:
    feature = builder_recipe(HF_ID)["features"]["spec_decoding"]
    assert list(feature["modes"]) == ["dspark"]
    assert run()["selection"]["spec_decoding"] == "off"
    assert run(spec_decoding="on")["selection"]["spec_decoding"] == "dspark"


@pytest.mark.parametrize("hardware", NVIDIA)
def test_speculative_decoding__nvidia_drafts_five_tokens_with_adaptive_verification(
    hardware: str,
) -> None:
    spec = json_value(serve(hardware=hardware, spec_decoding="dspark")[0], "--speculative-config")
    assert spec == {"method": "dspark", "num_speculative_tokens": 5,
                    "draft_sample_method": "probabilistic", "rejection_sample_method": "block",
                    "enable_adaptive_verification": True}


@pytest.mark.parametrize("hardware", AMD)
def test_speculative_decoding__amd_refuses_adaptive_verification(hardware: str) -> None:
    spec = json_value(serve(hardware=hardware, spec_decoding="on")[0], "--speculative-config")
    assert spec["enable_adaptive_verification"] is False
    assert spec["method"] == "dspark" and spec["num_speculative_tokens"] == 5
    assert spec["rejection_sample_method"] == "block"


# ------------------------------------------------------------------------ Serving text-only


def test_serving_text_only__adds_language_model_only() -> None:
    assert "--language-model-only" in serve(text_only="on")[0]
    assert "--language-model-only" not in serve()[0]


def test_serving_text_only__the_cli_refuses_it_with_encoder_parallel(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = cli([MODEL_1017, "text_only=on", "encoder_parallel=on"])
    assert status == 2
    assert "mutually exclusive" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ Memory


def test_memory__614_gb_minimum_fits_a_gb200_tray_and_an_h200_node() -> None:
    for variant in builder_recipe(HF_ID)["variants"].values():
        assert variant["vram_minimum_gb"] == 614
    assert run(hardware="gb200")["selection"]["strategy"] == "single_node_tp"
    assert run(hardware="h200")["selection"]["strategy"] == "single_node_tp"


# ----------------------------------------------------------------------------- Prerequisites


def test_prerequisites__vllm_0_31_or_newer() -> None:
    recipe = builder_recipe(HF_ID)
    assert recipe["model"]["min_vllm_version"] == "0.31.0"
    for variant in recipe["variants"].values():
        assert variant.get("min_vllm_version", "0.31.0") == "0.31.0"


@pytest.mark.parametrize("hardware", AMD)
def test_prerequisites__amd_docker_uses_the_rocm_10_nightly(hardware: str) -> None:
    assert run(hardware=hardware)["docker_image"] == "vllm/vllm-openai-rocm:nightly-rocm100"


@pytest.mark.parametrize("hardware", ["mi355x", "mi325x"])
def test_prerequisites__mi355x_and_mi325x_install_only_with_docker(hardware: str) -> None:
    result = run(hardware=hardware)
    assert not result["install"]["pip"]["available"]
    assert result["install"]["pip"]["reason"]
    assert result["selection"]["install"] == "docker"
    assert refused(hardware=hardware, install="pip").key == "install"


@pytest.mark.parametrize("hardware", ["mi300x", "mi350x"])
def test_prerequisites__mi300x_and_mi350x_also_install_from_the_rocm_wheel(
    hardware: str,
) -> None:
    install = run(hardware=hardware, install="pip")["install"]
    assert install["pip"]["available"] and "rocm" in install["pip"]["command"]


def test_prerequisites__nvidia_uses_the_pip_wheel_or_the_release_image() -> None:
    result = run(hardware="h200")
    assert result["install"]["pip"]["available"]
    assert result["docker_image"] == f"vllm/vllm-openai:v{VLLM_VERSION}"


def test_prerequisites__rust_frontend_is_the_default_python_the_fallback() -> None:
    assert run()["selection"]["frontend"] == "rust"
    assert serve()[1]["VLLM_USE_RUST_FRONTEND"] == "1"
    assert "VLLM_USE_RUST_FRONTEND" not in serve(frontend="python")[1]


@pytest.mark.parametrize("hardware", NVIDIA + AMD)
def test_prerequisites__long_first_load_timeout(hardware: str) -> None:
    assert serve(hardware=hardware)[1]["VLLM_ENGINE_READY_TIMEOUT_S"] == "3600"


@pytest.mark.parametrize("hardware", AMD)
def test_prerequisites__amd_names_aiter_and_silences_its_log(hardware: str) -> None:
    argv, env = serve(hardware=hardware)
    assert value(argv, "--moe-backend") == "aiter"
    assert env["AITER_TRITON_LOG_LEVEL"] == "ERROR"


@pytest.mark.parametrize("hardware", ["mi355x", "mi350x"])
def test_prerequisites__amd_uses_breakable_cuda_graphs(hardware: str) -> None:
    assert serve(hardware=hardware)[1]["VLLM_USE_BREAKABLE_CUDAGRAPH"] == "1"


def test_prerequisites__mi355x_tp_inherits_vllm_scheduler_limits() -> None:
    argv, _ = serve(hardware="mi355x")
    for flag in ("--max-num-seqs", "--max-num-batched-tokens", "--max-cudagraph-capture-size"):
        assert flag not in argv


# ---------------------------------------------------------------------- MI355X Tensor Parallel


def test_mi355x_tensor_parallel__tp2_engram_offload_monokernel_mxfp4_indexer() -> None:
    argv, _ = serve(hardware="mi355x")
    assert value(argv, "--tensor-parallel-size") == "2"
    assert json_value(argv, "--engram-config") == {"cpu_offload": True}
    assert "--monokernel" in argv
    assert json_value(argv, "--attention-config")["indexer_kv_dtype"] == "mxfp4"


@pytest.mark.parametrize("features", [{}, {"spec_decoding": "on", "text_only": "on"}])
def test_mi355x_tensor_parallel__no_swa_bounded_replay_opt_out(features: dict[str, str]) -> None:
    for variant in ("default", "fp8"):
        argv, _ = serve(hardware="mi355x", variant=variant, **features)
        assert not any("swa-bounded-replay" in token for token in argv)


# ---------------------------------------------------------------------- MI300X Tensor Parallel


def test_mi300x_tensor_parallel__tp4_offload_full_decode_graphs_no_monokernel() -> None:
    argv, env = serve(hardware="mi300x")
    assert value(argv, "--tensor-parallel-size") == "4"
    assert json_value(argv, "--engram-config") == {"cpu_offload": True}
    assert json_value(argv, "--compilation-config") == {"cudagraph_mode": "FULL_DECODE_ONLY"}
    assert env["VLLM_USE_BREAKABLE_CUDAGRAPH"] == "0"
    assert "--monokernel" not in argv


def test_mi300x_tensor_parallel__tp2_is_never_rendered() -> None:
    for variant in ("default", "fp8"):
        for features in ({}, {"spec_decoding": "on"}, {"text_only": "on"}):
            argv, _ = serve(hardware="mi300x", variant=variant, **features)
            assert value(argv, "--tensor-parallel-size") == "4"


# ---------------------------------------------------------------------- MI325X Tensor Parallel


def test_mi325x_tensor_parallel__tp4_offload_monokernel_full_decode_graphs() -> None:
    argv, env = serve(hardware="mi325x")
    assert value(argv, "--tensor-parallel-size") == "4"
    assert json_value(argv, "--engram-config") == {"cpu_offload": True}
    assert "--monokernel" in argv
    assert json_value(argv, "--compilation-config") == {"cudagraph_mode": "FULL_DECODE_ONLY"}
    assert env["VLLM_USE_BREAKABLE_CUDAGRAPH"] == "0"


# ------------------------------------------------------------------------ H200 Tensor Parallel


def test_h200_tensor_parallel__tp4_with_engram_offload_and_no_scheduler_caps() -> None:
    argv, _ = serve(hardware="h200")
    assert value(argv, "--tensor-parallel-size") == "4"
    assert json_value(argv, "--engram-config") == {"cpu_offload": True}
    assert "--max-num-seqs" not in argv and "--max-num-batched-tokens" not in argv


# ------------------------------------------------------------------------ Blackwell TP and DEP


@pytest.mark.parametrize("hardware", BLACKWELL_NODES)
def test_blackwell_tp_and_dep__tp2_flashinfer_sparse_mla_with_offload(hardware: str) -> None:
    argv, _ = serve(hardware=hardware, strategy="single_node_tp")
    assert value(argv, "--tensor-parallel-size") == "2"
    assert json_value(argv, "--attention-config") == TP_JSON
    assert json_value(argv, "--engram-config") == {"cpu_offload": True}
    assert value(argv, "--kv-cache-dtype") == "fp8"
    assert value(argv, "--max-num-seqs") == ("256" if hardware == "b300" else "128")


@pytest.mark.parametrize(("hardware", "ranks"), [("gb200", "4"), ("gb300", "4"),
                                                  ("b200", "8"), ("b300", "8")])
def test_blackwell_tp_and_dep__dep_spans_the_tray_or_node(hardware: str, ranks: str) -> None:
    argv, _ = serve(hardware=hardware, strategy="single_node_dep")
    assert value(argv, "--data-parallel-size") == ranks
    assert "--tensor-parallel-size" not in argv
    assert "--enable-expert-parallel" in argv
    assert json_value(argv, "--attention-config") == DEP_JSON
    assert json_value(argv, "--kernel-config") == {"moe_backend": "deep_gemm_mega_moe"}
    # "B200, GB200 and GB300 add Engram CPU offload and otherwise inherit the shared
    # Blackwell settings" (B300 keeps its own scheduler limits instead).
    offload = {} if hardware == "b300" else {"cpu_offload": True}
    assert json_value(argv, "--engram-config") == {"embedding_across_dp": True, **offload}
    assert value(argv, "--kv-cache-dtype") == "fp8"
    assert value(argv, "--max-num-seqs") == ("256" if hardware == "b300" else "128")


@pytest.mark.parametrize("strategy", ["single_node_tp", "single_node_dep"])
def test_blackwell_tp_and_dep__b300_scheduler_limits(strategy: str) -> None:
    argv, _ = serve(hardware="b300", strategy=strategy)
    assert value(argv, "--max-cudagraph-capture-size") == "8190"
    assert value(argv, "--max-num-batched-tokens") == "8192"
    assert value(argv, "--max-num-seqs") == "256"


@pytest.mark.parametrize("hardware", ["h200", *AMD])
def test_blackwell_tp_and_dep__dep_is_blackwell_only(hardware: str) -> None:
    error = refused(hardware=hardware, strategy="single_node_dep")
    assert error.key == "strategy" and "Data + Expert Parallel" in error.reason


def test_blackwell_tp_and_dep__default_b200_keeps_the_shared_settings() -> None:
    argv, env = serve(hardware="b200")
    assert value(argv, "--max-num-seqs") == "128"
    assert "--kernel-config" not in argv and "VLLM_USE_V2_MODEL_RUNNER" not in env


# -------------------------------------------------------------- AgentX tuning on NVIDIA GPUs


def test_agentx_tuning_on_nvidia_gpus__b200_0909_tp2_is_the_c1_point() -> None:
    argv, env = serve(hardware="b200", variant="fp8", spec_decoding="on", text_only="on")
    assert value(argv, "--tensor-parallel-size") == "2"
    assert json_value(argv, "--kernel-config") == {"enable_flashinfer_autotune": True}
    assert value(argv, "--gpu-memory-utilization") == "0.97"
    assert env["VLLM_USE_V2_MODEL_RUNNER"] == "1"
    assert json_value(argv, "--engram-config") == {"cpu_offload": True, "use_thp": True}
    assert value(argv, "--max-num-seqs") == "8"
    assert value(argv, "--max-num-batched-tokens") == "4096"
    sizes = json_value(argv, "--compilation-config")["cudagraph_capture_sizes"]
    assert sizes == DSPARK_MULTIPLES and all(size % 6 == 0 for size in sizes)
    assert json_value(argv, "--attention-config") == TP_JSON


def test_agentx_tuning_on_nvidia_gpus__b200_0909_dep_is_the_dep2_c24_c32_point() -> None:
    argv, env = serve(hardware="b200", variant="fp8", strategy="single_node_dep",
                      spec_decoding="on", text_only="on")
    assert json_value(argv, "--attention-config") == TP_JSON
    assert json_value(argv, "--kernel-config") == {"enable_flashinfer_autotune": True,
                                                   "moe_backend": "deep_gemm_mega_moe"}
    assert json_value(argv, "--engram-config") == {"cpu_offload": True,
                                                   "embedding_across_dp": True}
    assert value(argv, "--max-num-seqs") == "32"
    assert value(argv, "--max-num-batched-tokens") == "4096"
    assert value(argv, "--max-cudagraph-capture-size") == "4096"
    assert value(argv, "--prefill-schedule-interval") == "64"
    assert value(argv, "--gpu-memory-utilization") == "0.97"
    assert env["VLLM_USE_V2_MODEL_RUNNER"] == "1"
    # The builder's DEP spans all eight GPUs; the guide says how to narrow it to DEP2.
    assert value(argv, "--data-parallel-size") == "8"


# ------------------------------------------------------------ DGX Station (GB300) Tensor Parallel


def test_dgx_station_gb300_tensor_parallel__single_gpu_with_host_offload() -> None:
    result = run(hardware="dgx_station_gb300")
    assert result["selection"]["strategy"] == "single_node_tp"
    argv = result["commands"][0]["argv"]
    assert value(argv, "--tensor-parallel-size") == "1"
    assert json_value(argv, "--engram-config") == {"cpu_offload": True}
    assert value(argv, "--cpu-offload-gb") == "60"
    assert value(argv, "--gpu-memory-utilization") == "0.97"
    assert result["docker_image"] == "vllm/vllm-openai:nightly-dee37d89"


def test_dgx_station_gb300_tensor_parallel__one_gpu_has_no_dep() -> None:
    error = refused(hardware="dgx_station_gb300", strategy="single_node_dep")
    assert "2 GPUs" in error.reason


# ----------------------------------------------------------------------- KV cache offloading


def test_kv_cache_offloading__cpu_and_filesystem_tiers_validated() -> None:
    support = builder_recipe(HF_ID)["kv_offload_support"]
    assert support == {"offloading_cpu": "verified", "offloading_fs": "verified"}


# --------------------------------------------------- hardware, defaults, flags (whole recipe)


def test_hardware__only_the_skus_the_page_names() -> None:
    listed = set(NVIDIA + AMD)
    hardware_names = builder_catalog()["hardware"]
    for hardware in hardware_names:
        if hardware in listed:
            assert run(hardware=hardware)["selection"]["hardware"] == hardware
        else:
            name = hardware_names[hardware]["display_name"]
            reason = refused(hardware=hardware).reason
            if hardware.startswith("v100"):  # no recipe runs there (builder/commands/legacy_gpus)
                assert reason.startswith(f"vLLM 0.33.0 does not run on {name}"), reason
                continue
            assert reason.startswith(f"this recipe is not offered on {name}; it is offered on")


def test_recommended__default_command_and_every_disabled_choice_says_why() -> None:
    result = run()
    selection = result["selection"]
    assert (selection["hardware"], selection["strategy"], selection["variant"]) == (
        "h200", "single_node_tp", "default")
    assert selection["frontend"] == "rust" and selection["install"] == "pip"
    assert selection["tool_calling"] == selection["reasoning"] == "on"
    assert selection["spec_decoding"] == selection["text_only"] == "off"
    assert selection["encoder_parallel"] == "off"
    for values in result["unavailable"].values():
        assert all(reason.strip() for reason in values.values())


def _feature_sets() -> list[dict[str, str]]:
    on = {"tool_calling": "on", "reasoning": "on", "spec_decoding": "on"}
    return [{}, {**on, "text_only": "on"}, {**on, "encoder_parallel": "on"}]


def test_every_command_passes_the_vllm_0_33_flag_check() -> None:
    problems = []
    for hardware in NVIDIA + AMD:
        for strategy in ("single_node_tp", "single_node_dep"):
            for variant in ("default", "fp8"):
                for features in _feature_sets():
                    query = dict(hardware=hardware, strategy=strategy, variant=variant,
                                 **features)
                    try:
                        argv, _ = serve(**query)
                    except SelectionError:
                        continue
                    problems += [f"{query}: {p}" for p in check_serve_argv(argv)]
    assert not problems, "\n".join(problems)


# -------------------------------------------------------------------------------- the guide


def _guide() -> str:
    return catalog().guides[HF_ID]


@pytest.mark.parametrize("fact", [
    # Reasoning and tool calling: effort mapping, "none", rejected tiers, the empty answer.
    "| low | 50 | 25 |", "| high | 75 | 50 |", "| xhigh | — | 75 |", "| max | 100 | 100 |",
    '"none"', '"minimal"', '"medium"', "effort 50", 'finish_reason: "length"',
    "DSML", "<tool_result>",
    # Images, context length, memory.
    "<|deepseek_image|>", "1024 tokens", "295,936 pixels", "1,048,576", "YaRN",
    "511 GB", "614",
    # Verifying, prerequisites.
    "**323**", "0.31.0", "vllm/vllm-openai-rocm:nightly-rocm100", "VLLM_USE_BREAKABLE_CUDAGRAPH",
    # Performance tuning and the benchmark notes.
    "--max-num-seqs", "--max-num-batched-tokens", "--max-cudagraph-capture-size",
    "--max-model-len", "vllm-router --policy consistent_hash", "InferenceX",
    "TieringOffloadingSpec",
])
def test_guide__keeps_the_facts_users_need(fact: str) -> None:
    assert fact in _guide()


def test_guide__is_written_in_our_own_words() -> None:
    """No run of 10 words of the page's prose appears in the guide (the page's runs are kept
    as fingerprints, see tests/prose_runs.py)."""
    reference = prose_runs.read("deepseek-v4.1-flash-recipe-page")
    assert len(reference) > 1000
    copied = prose_runs.copied_runs(prose_runs.prose_words(_guide()), reference)
    assert not copied, sorted(copied)


def test_agentx_tuning_on_nvidia_gpus__needs_speculative_decoding_and_text_only() -> None:
    # "pick B200 and the FP8 (0909) checkpoint, and tick Speculative decoding and Text only":
    # without both ticks the shared Blackwell settings apply.
    for ticks in ({}, {"spec_decoding": "on"}, {"text_only": "on"}):
        for strategy in ("single_node_tp", "single_node_dep"):
            argv, env = serve(hardware="b200", variant="fp8", strategy=strategy, **ticks)
            assert value(argv, "--max-num-seqs") == "128", (ticks, strategy)
            assert "VLLM_USE_V2_MODEL_RUNNER" not in env


# ----------------------------------------------------------- Prefill/decode disaggregation


@pytest.mark.parametrize("hardware", AMD)
def test_prefill_decode_disaggregation__amd_runs_the_pages_1p1d_tp_layout(hardware: str) -> None:
    """1P1D, TP per role (TP8 on 8-GPU nodes), --max-num-seqs 32, no expert parallelism in the
    pools; on ROCm the Engram offload is explicit; the NVIDIA-only warm-up and kernel settings
    are left out; DSpark keeps the AMD settings (issue 15, point 1)."""
    result = run(hardware=hardware, strategy="pd_cluster", spec_decoding="on")
    assert result["selection"]["nodes"] == "2"
    pools = [c for c in result["commands"] if c["role"] in ("prefill", "decode")]
    assert [c["role"] for c in pools] == ["prefill", "decode"]
    for command in pools:
        argv, env = command["argv"], command["env"]
        assert value(argv, "--tensor-parallel-size") == "8"
        assert "--enable-expert-parallel" not in argv and "--data-parallel-size" not in argv
        assert value(argv, "--max-num-seqs") == "32"
        assert json_value(argv, "--engram-config") == {"cpu_offload": True}
        assert "--kernel-config" not in argv and "VLLM_DEEP_GEMM_WARMUP" not in env
        spec = json_value(argv, "--speculative-config")
        assert spec["method"] == "dspark" and spec["enable_adaptive_verification"] is False
        assert value(argv, "--moe-backend") == "aiter"


def test_prefill_decode_disaggregation__no_layout_from_the_recipe_means_no_offer() -> None:
    """A strategy offered on a hardware takes its layout from the recipe: without the `pd`
    entry that covers AMD, prefill/decode is refused there with the reason, never rendered
    from the builder's generic pools."""
    recipe = copy.deepcopy(builder_recipe(HF_ID))
    del recipe["pd"]["amd"]
    with pytest.raises(SelectionError) as caught:
        build(builder_catalog(), recipe, {"hardware": "mi355x", "strategy": "pd_cluster"})
    assert caught.value.key == "strategy"
    assert caught.value.reason == "this recipe gives no prefill/decode layout for MI355X"
    # NVIDIA keeps its own layout.
    assert build(builder_catalog(), recipe, {"hardware": "gb200", "strategy": "pd_cluster"})


def _guide_section(heading: str) -> str:
    text = _guide()
    start = text.index(f"\n{heading}\n")
    end = text.find("\n#", start + len(heading) + 2)
    return text[start:end if end != -1 else None]


def _flags_named(text: str) -> set[str]:
    """Every flag written in backticks in `text`, brace forms expanded
    (`--data-parallel-{address,rpc-port}` is two flags)."""
    found = set()
    for span in re.findall(r"`([^`]+)`", text):
        for word in span.split():
            brace = re.fullmatch(r"(--[\w-]*)\{([\w,-]+)\}([\w-]*)", word)
            if brace:
                found |= {brace[1] + part + brace[3] for part in brace[2].split(",")}
            elif word.startswith("--"):
                found.add(word)
    return found


def _sentences(text: str, *words: str, negated: bool = False) -> str:
    """The sentences (and clauses after colons) of `text` that contain one of `words`; those
    that say "none of" / "nothing" only when `negated`."""
    parts = re.split(r"(?<=[.:;])\s+", " ".join(text.split()))
    return " ".join(p for p in parts if any(w in p.lower() for w in words)
                    and negated == any(n in p.lower() for n in ("none of", "nothing")))


def test_prefill_decode_disaggregation__gb300_prefill_split_agrees_with_the_commands() -> None:
    """The guide's way to run the GB300 prefill tray as two DEP2 engines names only flags the
    builder's prefill command has (and changes them from the values it has), adds only flags it
    lacks, and tells the user to drop nothing that is not there (issue 15, point 3)."""
    result = run(hardware="gb300", strategy="pd_cluster")
    by_role = {c["role"]: c for c in reversed(result["commands"])}  # each role's head
    prefill, decode, router = by_role["prefill"], by_role["decode"], by_role["router"]
    section = _guide_section("### Splitting the GB300 prefill tray")
    prose = section.split("```")[0] + section.split("```")[-1]

    dropped = _flags_named(_sentences(prose, "drop", "remove", "delete"))
    assert all(flag in prefill["argv"] for flag in dropped), (
        f"the guide drops {sorted(dropped)}, the prefill command has "
        f"{sorted(f for f in prefill['argv'] if f.startswith('--data-parallel'))}")
    lacking = _flags_named(_sentences(prose, "none of", negated=True))
    assert lacking == {"--data-parallel-address", "--data-parallel-start-rank",
                       "--data-parallel-rpc-port"}
    for flag in lacking:
        assert flag not in prefill["argv"], flag
        assert any(flag in c["argv"] for c in result["commands"] if c["role"] == "decode"), flag
    flat = " ".join(prose.split())
    changes = re.findall(r"change `(--[\w-]+) (\S+)` to `\1 (\S+)`", flat)
    assert changes == [("--data-parallel-size", "4", "2")]
    for flag, before, _ in changes:
        assert value(prefill["argv"], flag) == before
    added = re.findall(r"\badd `(--[\w-]+)", flat)
    assert added == ["--data-parallel-size-local"]
    assert not set(added) & set(prefill["argv"])

    # The code block: the first engine keeps the prefill command's ports, the second takes
    # ports the first engine's ranks and the tray's other commands leave free.
    block = section.split("```bash\n")[1].split("```")[0]
    engines = [dict(re.findall(r"(\w+)=(\S+)", line)) | {"port": value(line.split(), "--port")}
               for line in block.splitlines() if "vllm serve" in line]
    assert len(engines) == 2
    first, second = engines
    assert first["port"] == value(prefill["argv"], "--port")
    assert first["VLLM_NIXL_SIDE_CHANNEL_PORT"] == prefill["env"]["VLLM_NIXL_SIDE_CHANNEL_PORT"]
    assert int(second["VLLM_NIXL_SIDE_CHANNEL_PORT"]) >= int(
        first["VLLM_NIXL_SIDE_CHANNEL_PORT"]) + 2  # DP2: base port + rank 0 and 1
    assert second["port"] not in {value(c["argv"], "--port") for c in result["commands"]}
    gpus = [set(e["CUDA_VISIBLE_DEVICES"].split(",")) for e in engines]
    assert not gpus[0] & gpus[1] and len(gpus[0] | gpus[1]) == int(
        value(prefill["argv"], "--data-parallel-size") or 0)
    # The router flags the guide changes are the builder's router's.
    for flag in ("--prefill", "--intra-node-data-parallel-size"):
        assert flag in router["argv"] and f"`{flag}`" in prose, flag
    assert value(decode["argv"], "--data-parallel-size") == "16"
