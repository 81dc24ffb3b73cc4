"""Count-qualified hardware keys (`rtx_5090@2`): a GPU at a count, more specific than its id,
matched only when the selection's `gpus` is that count; in a hardware list they offer the GPU
at that count. The node-shaped ids the three recipes keyed (rtx_4090_2x, rtx_5090_2x,
rtx_pro_6000_2x) are aliases of GPU × 2 since their migration to such keys."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from builder import Builder, SelectionError, build
from builder.hardware_keys import matching, most_specific, ranked
from tests.recipes_data import RECIPES, ROOT, builder_catalog, builder_recipe, small_tree

QWEN = "Qwen/Qwen3.8-27B"
MUSE = "meta-models/Muse-Glimmer-30B"
H3 = "MiniMaxAI/MiniMax-H3"
MIGRATED = [("rtx_5090_2x", "rtx_5090", QWEN), ("rtx_5090_2x", "rtx_5090", MUSE),
            ("rtx_4090_2x", "rtx_4090", H3), ("rtx_5090_2x", "rtx_5090", H3),
            ("rtx_pro_6000_2x", "rtx_pro_6000", H3)]


def hw(hw_id: str) -> dict[str, object]:
    return builder_catalog()["hardware"][hw_id]


def argv_of(hf_id: str, query: dict[str, str]) -> list[str]:
    return build(builder_catalog(), builder_recipe(hf_id), query)["commands"][0]["argv"]


# ----------------------------------------------------------------- matching


def test_a_count_key_names_its_gpu_only_at_that_count_and_wins_over_the_id() -> None:
    mapping = {"blackwell": "wide", "rtx_5090": "card", "rtx_5090@2": "pair"}
    gpu = hw("rtx_5090")
    assert most_specific(mapping, "rtx_5090", gpu, 2) == "pair"
    assert most_specific(mapping, "rtx_5090", gpu, 1) == "card"
    assert most_specific(mapping, "rtx_5090", gpu) == "card"
    assert most_specific({"blackwell": "wide", "rtx_5090@2": "pair"}, "rtx_5090", gpu, 1) == "wide"
    assert most_specific({"rtx_5090@2": "pair"}, "b200", hw("b200"), 2) is None
    assert [key for _, key, _ in ranked(mapping, "rtx_5090", gpu, 2)] == [
        "blackwell", "rtx_5090", "rtx_5090@2"]
    assert matching(["rtx_5090@2"], builder_catalog()["hardware"]) == ["rtx_5090"]


# -------------------------------------------------- the three migrated recipes


def test_the_node_shaped_ids_are_aliases_and_no_longer_hardware() -> None:
    catalog = builder_catalog()
    for alias, gpu, _ in MIGRATED:
        assert alias not in catalog["hardware"]
        assert catalog["hardware_aliases"][alias] == {"hardware": gpu, "gpus": 2}
    choices = Builder(catalog, builder_recipe(QWEN)).choices
    assert "rtx_5090_2x" not in choices["hardware"] and "rtx_5090" in choices["hardware"]
    assert "2" in choices["gpus"]


@pytest.mark.parametrize(("alias", "gpu", "hf_id"), MIGRATED)
def test_the_alias_answers_as_its_gpu_at_two(alias: str, gpu: str, hf_id: str) -> None:
    catalog, recipe = builder_catalog(), builder_recipe(hf_id)
    assert build(catalog, recipe, {"hardware": alias}) == \
        build(catalog, recipe, {"hardware": gpu, "gpus": "2"})


def test_qwen_nvfp4_on_one_and_two_rtx_5090s() -> None:
    """One card: the eager 32K command the recipe keys `rtx_5090@1`, also by default; two
    cards: TP 2 (`tp: {rtx_5090@2: 2}`) without it."""
    one = argv_of(QWEN, {"hardware": "rtx_5090", "variant": "nvfp4", "gpus": "1"})
    assert argv_of(QWEN, {"hardware": "rtx_5090", "variant": "nvfp4"}) == one
    assert "--enforce-eager" in one and one[one.index("--tensor-parallel-size") + 1] == "1"
    two = argv_of(QWEN, {"hardware": "rtx_5090", "variant": "nvfp4", "gpus": "2"})
    assert "--enforce-eager" not in two and "--max-model-len" not in two
    assert two[two.index("--tensor-parallel-size") + 1] == "2"


def test_a_variant_listed_at_a_count_defaults_to_it_and_refuses_the_others() -> None:
    """Muse's FP8 block lists `rtx_5090@2` only: two cards by default, one refused with the
    reason; the GPU alone still defaults to the checkpoint that fits one card."""
    catalog, recipe = builder_catalog(), builder_recipe(MUSE)
    fp8 = build(catalog, recipe, {"hardware": "rtx_5090", "variant": "fp8_block"})
    assert fp8["selection"]["gpus"] == "2"
    assert fp8["commands"] == build(catalog, recipe, {"hardware": "rtx_5090", "gpus": "2",
                                                      "variant": "fp8_block"})["commands"]
    with pytest.raises(SelectionError) as refused:
        build(catalog, recipe, {"hardware": "rtx_5090", "variant": "fp8_block", "gpus": "1"})
    assert refused.value.reason == "FP8 block is offered on 2× RTX 5090 only, not 1"
    alone = build(catalog, recipe, {"hardware": "rtx_5090"})
    assert (alone["selection"]["variant"], alone["selection"]["gpus"]) == ("nvfp4", "1")
    assert alone["unavailable"]["spec_decoding"]["on"] == "DFlash is not supported on RTX 5090"
    assert build(catalog, recipe, {"hardware": "rtx_5090", "gpus": "2"})["selection"][
        "variant"] == "fp8_block"
    picked = build(catalog, recipe, {"hardware": "rtx_5090", "variant": "fp8_block",
                                     "gpus": "2"})
    assert picked["unavailable"]["gpus"]["1"] == refused.value.reason
    assert "spec_decoding" not in picked["unavailable"]  # supported on two cards


def test_restricted_hardware_named_only_at_a_count_is_offered_at_that_count() -> None:
    """MiniMax-H3 names the RTX PRO 6000 (restricted) only as `rtx_pro_6000@2`."""
    catalog, recipe = builder_catalog(), builder_recipe(H3)
    result = build(catalog, recipe, {"hardware": "rtx_pro_6000"})
    assert result["selection"]["gpus"] == "2"
    assert result["summary"].startswith("2× RTX PRO 6000 · vLLM-Omni")
    with pytest.raises(SelectionError) as refused:
        build(catalog, recipe, {"hardware": "rtx_pro_6000", "gpus": "4"})
    assert (refused.value.key, refused.value.reason) == (
        "gpus", "BF16 is offered on 2× RTX PRO 6000 only, not 4")


# ------------------------------------------------------------------ check


def run_check(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", "check", str(tree)],
                          cwd=ROOT, capture_output=True, text=True, check=False)


def test_check_refuses_bad_count_keys_with_file_line_field_message(tmp_path: Path) -> None:
    text = (RECIPES / f"models/{QWEN}.yaml").read_text()
    old = "verified: [gb300, rtx_5090, rtx_5090@2, ascend_950pr]"
    new = "verified: [gb300, rtx_5090@3, rtx_5090@two, nosuch@2, rtx_5090_2x@2, h200@16]"
    assert old in text
    text = text.replace(old, new).replace("tp: {rtx_5090@2: 2}", "tp: {rtx_5090@0: 2}")
    text += "strategy_hardware:\n  single_node_tp: {rtx_5090@2: unsupported}\n"
    tree = small_tree(tmp_path, {QWEN: text})
    run = run_check(tree)
    assert run.returncode == 1
    lines = (tree / f"models/{QWEN}.yaml").read_text().splitlines()
    at = f"recipes/models/{QWEN}.yaml:{lines.index(new) + 1}: verified"
    tp = f"recipes/models/{QWEN}.yaml:{lines.index('    tp: {rtx_5090@0: 2}') + 1}"
    for expected in [
        f"{at}[1]: 'rtx_5090@3': 3 GPUs; one RTX 5090 node holds 1 to 2",
        f"{at}[2]: 'rtx_5090@two': the GPU count after '@' is a whole number from 1, not 'two'",
        f"{at}[3]: unknown hardware id 'nosuch' in 'nosuch@2'",
        f"{at}[4]: 'rtx_5090_2x' is an alias of rtx_5090 × 2; name the GPU id at a count, "
        "rtx_5090@2",
        f"{tp}: variants.nvfp4.tp.rtx_5090@0: 'rtx_5090@0': the GPU count after '@' is a whole "
        "number from 1, not '0'",
        f"recipes/models/{QWEN}.yaml:{len(lines)}: strategy_hardware.single_node_tp.rtx_5090@2: "
        "'rtx_5090@2': a GPU count is not read here (it is decided later); name the hardware "
        "without '@'",
    ]:
        assert expected in run.stdout, run.stdout
    assert "h200@16" not in run.stdout  # two whole 8-GPU nodes of a multi-node strategy


@pytest.mark.parametrize("hf_id", [QWEN, MUSE, H3])
def test_unavailable_at_each_count_is_what_resolving_each_option_says(hf_id: str) -> None:
    """tests/test_unavailable_agrees.py's check, on the selections a count key changes: each
    migrated GPU alone, at each count, and with each variant (a variant listed at a count
    pins it)."""
    from tests.test_unavailable_agrees import Agreement

    recipe = builder_recipe(hf_id)
    agreement = Agreement(builder_catalog(), recipe)
    queries = [{"hardware": gpu, **extra} for gpu in ("rtx_5090", "rtx_4090", "rtx_pro_6000")
               for extra in [{}, {"gpus": "1"}, {"gpus": "2"},
                             *({"variant": v} for v in recipe["variants"]),
                             *({"variant": v, "gpus": "2"} for v in recipe["variants"])]]
    assert sum(agreement.check(query) for query in queries) > 0
