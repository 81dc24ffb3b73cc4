"""DeepSeek-V4-Flash: statements of the reference JSON (../shared/reference/
deepseek-v4-flash-recipe-api.json, copied to tests/data/) that an audit found our commands
broke (issue 15, points 4-6), each checked against what the builder renders or publishes.
The expected values come from the reference, not from the builder's output."""

from __future__ import annotations

import json
import re

import pytest

from builder import SelectionError, build
from tests.layout_checks import renderings
from tests.recipes_data import ROOT, builder_catalog, builder_recipe

HF_ID = "deepseek-ai/DeepSeek-V4-Flash"
REFERENCE = json.loads((ROOT / "tests/data/reference-deepseek-v4-flash.json").read_text())
SIZES = (("--tensor-parallel-size", "TP"), ("--data-parallel-size", "DP"),
         ("--pipeline-parallel-size", "PP"))


def run(**query: str) -> dict:
    return build(builder_catalog(), builder_recipe(HF_ID), query)


# ------------------------------------------------------------------ summaries (point 4)


def _argv_layout(argv: list[str]) -> set[str]:
    """The parallel sizes an argv sets, as summary words: {"TP8", "DP2", "EP"}; size 1 left out."""
    found = set()
    for flag, name in SIZES:
        if flag in argv and argv[argv.index(flag) + 1] != "1":
            found.add(f"{name}{argv[argv.index(flag) + 1]}")
    if "--enable-expert-parallel" in argv:
        found.add("EP")
    return found


def _text_layout(text: str) -> set[str]:
    """The parallel sizes a summary names; "TP1" is no tensor parallelism."""
    named = {w for w in re.findall(r"\b(?:TP|DP|PP)\d+\b", text) if not w.endswith("P1")}
    return named | ({"EP"} if re.search(r"\bEP\b", text) else set())


def _engines(result: dict) -> list[dict]:
    return [c for c in result["commands"]
            if c["argv"][:2] == ["vllm", "serve"] and "--omni" not in c["argv"]]


def test_ascend_910c_prefill_decode_summary_is_the_pools_argv() -> None:
    # Both pools run `--tensor-parallel-size 8 --data-parallel-size 2` with expert
    # parallelism (the reference's 910C arguments); the summary said "TP16 + EP".
    result = run(hardware="ascend_910c", strategy="pd_cluster")
    for command in _engines(result)[:2]:
        assert _argv_layout(command["argv"]) == {"TP8", "DP2", "EP"}
    assert "Prefill TP8 + DP2 + EP" in result["summary"]
    assert "Decode TP8 + DP2 + EP" in result["summary"]
    assert "TP16" not in result["summary"]


def test_every_summary_names_the_parallel_sizes_of_the_argv_it_describes() -> None:
    """Every recipe × variant × hardware × strategy: the summary's TP/DP/PP/EP words are the
    engine command's (per pool for prefill/decode)."""
    checked, wrong = 0, []
    for query, result in renderings(list(builder_catalog()["strategies"])):
        engines = _engines(result)
        if not engines:
            continue
        summary = result["summary"]
        if query["strategy"] == "pd_cluster":
            parts = {p.split(" ")[0]: p for p in summary.split(" · ")
                     if p.startswith(("Prefill ", "Decode "))}
            pairs = [(parts[role.title()], next(c for c in engines if c["role"] == role))
                     for role in ("prefill", "decode")]
        else:
            pairs = [(summary, engines[0])]
        for text, command in pairs:
            checked += 1
            if _text_layout(text) != _argv_layout(command["argv"]):
                wrong.append(f"{query}: {text!r} vs {sorted(_argv_layout(command['argv']))}")
    assert checked > 300
    assert not wrong, "\n".join(wrong[:20])


# ---------------------------------------------------------------- redhat_nvfp4 (point 5)


def test_redhat_nvfp4_has_no_hardware_list_in_the_reference() -> None:
    variant = REFERENCE["variants"]["redhat_nvfp4"]
    assert variant["precision"] == "nvfp4" and "supported_hardware" not in variant


@pytest.mark.parametrize("hardware", ["rtx_pro_6000_8x", "dgx_spark_gb10", "b200", "gb300"])
def test_redhat_nvfp4_runs_on_every_blackwell(hardware: str) -> None:
    # RTX PRO 6000 (sm120) and DGX Spark (sm121) are Blackwell; the reference restricts the
    # RedHat checkpoint to no architecture, and NVFP4 itself needs Blackwell.
    result = run(variant="redhat_nvfp4", hardware=hardware)
    assert result["selection"]["variant"] == "redhat_nvfp4"
    assert result["commands"][0]["argv"][2] == REFERENCE["variants"]["redhat_nvfp4"]["model_id"]


@pytest.mark.parametrize("hardware", ["h200", "mi300x", "ascend_910c"])
def test_redhat_nvfp4_is_refused_off_blackwell_with_the_reason(hardware: str) -> None:
    with pytest.raises(SelectionError) as caught:
        run(variant="redhat_nvfp4", hardware=hardware)
    assert caught.value.key == "hardware"
    assert "Blackwell" in caught.value.reason


# ------------------------------------------------------------------------ source (point 6)


def test_source_is_the_references() -> None:
    assert builder_recipe(HF_ID)["source"] == REFERENCE["source"]
