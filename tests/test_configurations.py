"""Published serving configurations: the data, its checks, and the join to the builder.

The claims test reads what each configuration says it kept from the recipe and what it says it
changed (`recipe_claims`, typed in from the reference text) and checks the joined selection's
diff against both. These configurations were built from earlier revisions of the recipe: a
setting one says it kept, which today's recipe sets otherwise or not at all, must show as
"recipe changed since" (`RECIPE_CHANGED` lists exactly those, each with what changed); every
other kept setting must be equal, and every changed one must differ.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from builder import build
from builder.diff.closest_selection import join_configuration
from builder.diff.command_diff import diff_commands, mark_kept, parse_argv
from builder.diff.compare import compare
from builder.diff.published import role_text
from builder.views.diff import diff_html
from tests.recipes_data import RECIPES, builder_catalog, builder_recipe, catalog
from vllm_recipes.configurations import (
    ConfigurationSet,
    check_configurations,
    claim_key,
    configuration_json_schema,
    load_configurations,
    publish_set,
)
from vllm_recipes.errors import InvalidRecipe

DATA = RECIPES / "configurations" / "aa-agentperf-deepseek-v4.1-flash.yaml"
V41 = "deepseek-ai/DeepSeek-V4.1-Flash"


@cache
def published() -> dict[str, Any]:
    (found,) = load_configurations(catalog())
    return publish_set(found)


@cache
def joins() -> dict[str, Any]:
    data = published()
    recipe = builder_recipe(data["model"])
    return {c["id"]: join_configuration(builder_catalog(), recipe, c, data["systems"][c["system"]])
            for c in data["configurations"]}


def configuration(cid: str) -> dict[str, Any]:
    return next(c for c in published()["configurations"] if c["id"] == cid)


def diff_entries(join: dict[str, Any]) -> dict[str, dict]:
    """Every flag, JSON key and (as $NAME) environment variable of a join's role diffs."""
    found: dict[str, dict] = {}
    for role in join["roles"]:
        diff = role["diff"]
        for entry in diff["flags"]:
            found[entry["key"]] = entry
            found.update({key["key"]: key for key in entry["keys"]})
        found.update({f"${entry['key']}": entry for entry in diff["env"]})
    return found


# ----------------------------------------------------------------------------- the data


def test_twenty_configurations_from_two_submitters() -> None:
    configs = published()["configurations"]
    assert len(configs) == 20
    assert {c["submitter"] for c in configs} == {"NVIDIA", "Artificial Analysis"}
    assert [c["framework"] for c in configs].count("sglang") == 2
    assert sum(c["system"] == "mi355x_x8" for c in configs) == 3
    assert all(isinstance(datetime.date.fromisoformat(c["date"]), datetime.date)
               for c in configs)


def test_every_system_has_its_featured_picks() -> None:
    data = published()
    picks: dict[str, dict[str, list[str]]] = {}
    for c in data["configurations"]:
        for category in c["featured"]:
            picks.setdefault(c["system"], {}).setdefault(category, []).append(c["id"])
    assert set(picks) == set(data["systems"])
    for system, categories in picks.items():
        assert set(categories) == set(data["featured_categories"]), system
        assert all(len(ids) == 1 for ids in categories.values()), system
    assert picks["b300_x8"]["peak_throughput"] == picks["b300_x8"]["best_interactive"] == [
        "b300-vllm-tp2"]


def test_schema_file_is_current() -> None:
    committed = json.loads((RECIPES / "configurations" / "schema.json").read_text())
    assert committed == configuration_json_schema(), (
        "run: python -m vllm_recipes.configurations > recipes/configurations/schema.json")


def _write_variant(tmp_path: Path, old: str, new: str) -> list[str]:
    """Load a copy of the data with one text replaced; the error lines it gives."""
    tree = tmp_path / "recipes"
    (tree / "configurations").mkdir(parents=True)
    text = DATA.read_text(encoding="utf-8")
    assert old in text
    (tree / "configurations" / DATA.name).write_text(text.replace(old, new, 1))
    shutil.copy(RECIPES / "hardware.yaml", tree / "hardware.yaml")
    moved = dataclasses.replace(catalog(), root=tree)
    with pytest.raises(InvalidRecipe) as caught:
        load_configurations(moved)
    return str(caught.value).splitlines()


FILE = "recipes/configurations/aa-agentperf-deepseek-v4.1-flash.yaml"


@pytest.mark.parametrize(("old", "new", "error"), [
    ("date: 2026-10-15", "date: 2026-02-30",
     f"{FILE}: configurations.0.date: Input should be a valid date or datetime, "
     "day value is outside expected range"),
    ("system: vera_rubin_nvl72", "system: rubin_ultra",
     f"{FILE}: configurations.0.system: unknown system 'rubin_ultra' (systems: "
     "vera_rubin_nvl72, gb300_nvl72, b300_x8, gb200_nvl72, b200_x8, h200_x8, h100_x8, "
     "mi355x_x8)"),
    ("    gpus_used: 8\n", "    gpus_used: 9\n",
     f"{FILE}: configurations.0: gpus_used: 9, but the roles use 8"),
    ("hardware: b300}", "hardware: b301}",
     f"{FILE}: systems.b300_x8.hardware: unknown hardware id 'b301'"),
    ("    featured: [best_interactive]\n", "    featured: [peak_throughput]\n",
     f"{FILE}: configurations.1.featured: 'vera-rubin-nvl72-dynamo-2p-tp2-1d-dep4' is already "
     "the peak_throughput pick of vera_rubin_nvl72"),
    ("      draft_tokens: 6\n", "      draft_tokens: 5\n",
     f"{FILE}: configurations.0.roles.0.command: --speculative-config num_speculative_tokens is "
     "6, speculative_decoding says 5"),
    ("        - --kv-cache-dtype\n", "        - --kv-cache-dtypo\n",
     f"{FILE}: configurations.6.recipe_claims.kept: '--kv-cache-dtypo' is not set by the "
     "configuration's command"),
    ("    serving: aggregated\n", "    serving: disaggregated\n",
     f"{FILE}: configurations.2: serving: disaggregated exactly when there are "
     "prefill and decode roles"),
    ("    submitter: NVIDIA\n", "    submiter: NVIDIA\n",
     f"{FILE}: configurations.0.submitter: Field required"),
    ("    submitter: NVIDIA\n", "    submitter: NVIDIA\n    colour: blue\n",
     f"{FILE}: configurations.0.colour: unknown key (not in the schema; check the spelling)"),
    ("    submitter: NVIDIA\n", "    submitter: NVIDIA\n    submitter: AMD\n",
     f"{FILE}:51: column 5: duplicate key 'submitter'"),
])
def test_bad_data_is_one_line_per_problem(tmp_path: Path, old: str, new: str,
                                          error: str) -> None:
    lines = _write_variant(tmp_path, old, new)
    assert error in lines, lines


def test_a_tp_flag_that_contradicts_the_layout(tmp_path: Path) -> None:
    old = "        parallelism: {tp: 2}\n        command:\n          env:\n            VLLM_MXFP8"
    lines = _write_variant(tmp_path, old, old.replace("{tp: 2}", "{tp: 1, dp: 2}"))
    assert (f"{FILE}: configurations.0.roles.0.command: --tensor-parallel-size is 2, "
            "parallelism says 1") in lines


def test_the_model_must_be_a_recipe() -> None:
    data = ConfigurationSet.model_validate({**published(), "model": "nobody/Nothing"})
    assert check_configurations(data, catalog()) == ["model: 'nobody/Nothing' is not a recipe"]


# ----------------------------------------------------------------------------- the join


def test_every_vllm_configuration_is_joined_and_sglang_is_not() -> None:
    for c in published()["configurations"]:
        join = joins()[c["id"]]
        assert (join is None) == (c["framework"] == "sglang"), c["id"]


def test_join_hardware_exact_nearest_and_stand_in() -> None:
    assert joins()["b300-vllm-tp2"]["hardware_match"] == "exact"
    h100 = joins()["h100-vllm-tp8"]
    assert (h100["hardware"], h100["hardware_match"]) == ("h200", "nearest")
    assert h100["note"] == ("this recipe has no H100 commands; compared with H200, the "
                            "nearest hardware it offers")
    rubin = joins()["vera-rubin-nvl72-dynamo-tp4"]
    assert (rubin["hardware"], rubin["hardware_match"]) == ("gb300", "stand_in")
    assert rubin["note"] == (
        "Vera Rubin NVL72 is not in our hardware catalog; GB300 stands in for it")


def test_disaggregated_configurations_join_prefill_decode() -> None:
    for cid in ("vera-rubin-nvl72-dynamo-2p-tp2-1d-dep4", "gb300-nvl72-dynamo-1p-tp2-1d-tp2"):
        join = joins()[cid]
        assert join["selection"]["strategy"] == "pd_cluster", cid
        assert [(r["role"], r["against"] is not None) for r in join["roles"]] == [
            ("prefill", True), ("decode", True)]


def test_the_builder_link_reproduces_the_joined_selection() -> None:
    for cid, join in joins().items():
        if join is None:
            continue
        result = build(builder_catalog(), builder_recipe(V41), join["query"])
        assert result["selection"] == join["selection"], cid
        assert join["query"]["hardware"] == join["hardware"]


def test_b300_tp2_example_from_the_issue() -> None:
    join = joins()["b300-vllm-tp2"]
    assert join["query"] == {"hardware": "b300", "variant": "fp8", "spec_decoding": "on",
                             "text_only": "on"}
    found = diff_entries(join)
    for key in ("--tensor-parallel-size", "--tool-call-parser", "--reasoning-parser",
                "--language-model-only", "--speculative-config",
                "--speculative-config.num_speculative_tokens",
                "--speculative-config.enable_adaptive_verification"):
        assert found[key]["status"] == "equal", key
    assert found["--speculative-config.num_speculative_tokens"]["command"] == "5"
    assert found["--speculative-config.enable_adaptive_verification"]["command"] == "true"
    assert found["--tensor-parallel-size"]["command"] == "2"


# Settings a configuration says it kept from the recipe that today's recipe sets otherwise or no
# longer sets (these configurations were built from earlier recipe revisions, with vLLM 0.31.0
# or ROCm nightlies of early October), with what the current recipe does instead. The recipe
# follows the current reference page; the diff shows these as "recipe changed since".
RECIPE_CHANGED = {
    ("b300-vllm-tp2", "--compilation-config"):
        "the B300 override keeps only --max-cudagraph-capture-size 8190 (no capture-size list)",
    ("b300-vllm-tp8", "--compilation-config"):
        "the B300 override keeps only --max-cudagraph-capture-size 8190 (no capture-size list)",
    **{(cid, claim): reason for cid in ("mi355x-vllm-tp2-256-seqs", "mi355x-vllm-tp2-64-seqs")
       for claim, reason in (
           ("--attention-config.indexer_sparse_logits",
            "the MI355X attention config sets indexer_kv_dtype only"),
           ("--block-size", "the MI355X override has no --block-size 128"),
           ("--no-swa-bounded-replay",
            "bounded replay is the ROCm default now; the recipe no longer passes the opt-out"))},
    ("mi355x-vllm-tp4", "--attention-config.indexer_sparse_logits"):
        "the MI355X attention config sets indexer_kv_dtype only",
    ("mi355x-vllm-tp4", "$VLLM_ROCM_MONO_DECODE"):
        "the mono decode layer moved from VLLM_ROCM_MONO_DECODE=1 to --monokernel",
    ("mi355x-vllm-tp4", "$VLLM_ROCM_QUICK_REDUCE_QUANTIZATION"):
        "the recipe sets no INT4 quick reduce",
}


def _claims(kind: str) -> list[Any]:
    cases = []
    for c in published()["configurations"]:
        if c["submitter"] != "Artificial Analysis" or c["framework"] != "vllm":
            continue
        for claim in c.get("recipe_claims", {}).get(kind, []):
            cases.append(pytest.param(c["id"], claim, id=f"{c['id']}:{claim}"))
    return cases


def test_every_artificial_analysis_vllm_configuration_makes_claims() -> None:
    systems = {c["system"] for c in published()["configurations"]
               if c["submitter"] == "Artificial Analysis"}
    assert systems == {"b300_x8", "b200_x8", "h200_x8", "h100_x8", "mi355x_x8"}
    assert all(c.get("recipe_claims") for c in published()["configurations"]
               if c["submitter"] == "Artificial Analysis")
    assert len(_claims("kept")) >= 50 and len(_claims("changed")) >= 25


@pytest.mark.parametrize(("cid", "claim"), _claims("kept"))
def test_what_they_kept_is_equal_or_the_recipe_changed_since(cid: str, claim: str) -> None:
    entry = diff_entries(joins()[cid]).get(claim_key(claim))
    assert entry is not None, f"{claim} is not in the diff at all"
    if (cid, claim) in RECIPE_CHANGED:
        assert entry["status"] == "recipe_changed", (RECIPE_CHANGED[cid, claim], entry)
        assert entry["command"] is not None
    else:
        assert entry["status"] == "equal", entry


@pytest.mark.parametrize(("cid", "claim"), _claims("changed"))
def test_what_they_changed_shows_as_changed(cid: str, claim: str) -> None:
    entry = diff_entries(joins()[cid]).get(claim_key(claim))
    assert entry is not None, f"{claim} is not in the diff at all"
    assert entry["status"] in ("changed", "added", "removed"), entry


def test_recipe_changed_since_is_exactly_the_listed_claims() -> None:
    """No other entry of any join has the status, and each join lists its own in order."""
    found = set()
    for cid, join in joins().items():
        if join is None:
            continue
        for key, entry in diff_entries(join).items():
            if entry["status"] == "recipe_changed":
                found.add((cid, key))
        listed = [claim for (c, claim) in RECIPE_CHANGED if c == cid]
        kept = configuration(cid).get("recipe_claims", {}).get("kept", [])
        assert join["recipe_changed"] == [k for k in kept if k in listed], cid
    # A JSON key's parent flag is marked too when it is the only key that differs.
    parents = {(cid, "--attention-config") for cid in (
        "mi355x-vllm-tp2-256-seqs", "mi355x-vllm-tp2-64-seqs", "mi355x-vllm-tp4")}
    assert found == {(cid, claim_key(claim)) for cid, claim in RECIPE_CHANGED} | parents


def test_recipe_changed_since_counts_apart_in_the_summary() -> None:
    join = joins()["b300-vllm-tp2"]
    # --compilation-config is not in today's B300 recipe: before the claims were read it was
    # one of three "only in the configuration" (with --trust-remote-code and
    # --enable-prompt-tokens-details).
    assert join["counts"]["recipe_changed"] == 1
    assert join["counts"]["added"] == 2 and join["counts"]["changed"] == 0
    assert join["diff_summary"] == (
        "2 only in the configuration, 1 changed in the recipe since (+4 deployment-specific)")
    mi355x = joins()["mi355x-vllm-tp4"]
    # Two environment variables and the attention config's sparse-logits key.
    assert mi355x["counts"]["recipe_changed"] == 3
    assert "3 changed in the recipe since" in mi355x["diff_summary"]


def test_marking_keeps_the_distance_and_so_the_selection() -> None:
    data = published()
    checked = 0
    for cid, join in joins().items():
        if join is None or not join["recipe_changed"]:
            continue
        config = configuration(cid)
        unclaimed = join_configuration(
            builder_catalog(), builder_recipe(V41),
            {k: v for k, v in config.items() if k != "recipe_claims"},
            data["systems"][config["system"]])
        assert unclaimed is not None
        assert (unclaimed["query"], unclaimed["distance"]) == (join["query"], join["distance"])
        assert unclaimed["recipe_changed"] == [] and unclaimed["counts"]["recipe_changed"] == 0
        (role,) = join["roles"]
        (config_role,) = [r for r in config["roles"] if r["role"] == "serve"]
        ours = build(builder_catalog(), builder_recipe(V41), join["query"])["commands"][0]
        plain = diff_commands(parse_argv(ours["argv"], ours["env"]),
                              parse_argv(config_role["command"]["argv"],
                                         config_role["command"].get("env", {})))
        assert role["diff"]["distance"] == plain["distance"], cid
        checked += 1
    assert checked == 5


def test_mark_kept_on_json_keys_and_whole_objects() -> None:
    recipe = parse_argv(["vllm", "serve", "m", "--a-config", '{"x":1}', "--tp", "2"])
    command = parse_argv(["vllm", "serve", "m", "--a-config", '{"x":1,"y":2,"z":3}',
                          "--tp", "4", "--b-config", '{"p":1}', "--c", "1"], {"V": "1"})
    diff = diff_commands(recipe, command)
    # One of two differing keys kept: the flag stays changed, the key is marked.
    one = mark_kept(diff, ["--a-config.y", "--b-config.p", "$V", "--tp"])
    flags = {e["key"]: e for e in one["flags"]}
    assert flags["--a-config"]["status"] == "changed"
    assert {k["key"]: k["status"] for k in flags["--a-config"]["keys"]} == {
        "--a-config.x": "equal", "--a-config.y": "recipe_changed", "--a-config.z": "added"}
    # Every key of an object only the command sets, kept: the flag is marked.
    assert flags["--b-config"]["status"] == "recipe_changed"
    assert flags["--tp"]["status"] == "recipe_changed"
    assert flags["--c"]["status"] == "added"
    assert one["env"][0]["status"] == "recipe_changed"
    assert one["counts"] == {"changed": 1, "added": 1, "removed": 0, "recipe_changed": 3,
                             "equal": 0, "deployment": 0}
    assert one["summary"] == "1 changed, 1 only in the command, 3 changed in the recipe since"
    assert one["distance"] == diff["distance"]
    # Both differing keys kept: the flag is marked as a whole.
    both = mark_kept(diff, ["--a-config.y", "--a-config.z"])
    assert {e["key"]: e["status"] for e in both["flags"]}["--a-config"] == "recipe_changed"
    # Nothing kept: the diff is unchanged.
    assert mark_kept(diff, []) == diff


def test_the_diff_html_shows_recipe_changes_apart() -> None:
    diff = joins()["b300-vllm-tp2"]["roles"][0]["diff"]
    html = diff_html(diff, theirs="This configuration", phrase="the configuration")
    main, _, rest = html.partition('<div class="cdiff-drift"')
    assert 'data-key="--compilation-config"' not in main
    assert 'data-key="--trust-remote-code"' in main
    drift = rest.split("</div>")[0]
    assert 'data-key="--compilation-config"' in drift
    assert "The recipe changed since (1): the configuration says it kept this setting" in drift
    assert '<span class="cdiff-tag" data-status="recipe_changed">recipe changed since</span>' in (
        drift)


def test_pasting_a_catalogue_command_gives_the_joins_diff() -> None:
    """The catalogue's shell text of a command, pasted into the compare box (builder.diff.compare)
    with the join's selection, diffs as the join does. A paste carries no claims, so the box
    never says "recipe changed since"; with the configuration's kept claims applied, its diff
    is the join's."""
    checked = marked = 0
    for config in published()["configurations"]:
        join = joins()[config["id"]]
        if join is None or len(join["roles"]) != 1:
            continue
        (role,) = [r for r in config["roles"] if r["role"] == join["roles"][0]["role"]]
        pasted = compare(builder_catalog(), builder_recipe(V41), join["query"],
                         role_text(role["command"]))
        assert pasted["diff"]["counts"]["recipe_changed"] == 0
        kept = config.get("recipe_claims", {}).get("kept", [])
        assert mark_kept(pasted["diff"], kept) == join["roles"][0]["diff"], config["id"]
        if join["recipe_changed"]:
            assert pasted["diff"] != join["roles"][0]["diff"]
            marked += 1
        else:
            assert pasted["diff"] == join["roles"][0]["diff"], config["id"]
        checked += 1
    assert (checked, marked) == (15, 5)
