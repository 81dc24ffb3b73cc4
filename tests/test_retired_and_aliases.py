"""Retired recipes (`retired:`) and model id aliases (`aliases:`): one rule, on every surface.

A retired recipe keeps its page, which says why there is no command; its JSON says `retired`
with the reason; `--list` leaves it out; the CLI exits 2 with that reason. An alias (a renamed
model's old id) answers on the CLI, the page and the JSON with a notice naming the new id.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from builder import SelectionError, build
from tests.recipes_data import (
    RECIPES,
    ROOT,
    builder_catalog,
    builder_recipe,
    catalog,
    small_tree,
)
from tests.sitebuild import build as build_site

RETIRED = "pfnet/plamo-2-translate"


def cli(*args: str, recipes: Path = RECIPES) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", *args, "--recipes",
                           str(recipes)], cwd=ROOT, capture_output=True, text=True, check=False)


def with_alias(hf_id: str, alias: str) -> str:
    return (RECIPES / "models" / f"{hf_id}.yaml").read_text() + f"aliases: [{alias}]\n"


def test_the_builder_refuses_a_retired_recipe_with_its_reason() -> None:
    recipe = builder_recipe(RETIRED)
    with pytest.raises(SelectionError) as error:
        build(builder_catalog(), recipe, {})
    assert error.value.key == "hf_id"
    assert "retired" in error.value.reason
    assert recipe["retired"]["reason"] in error.value.reason


def test_the_cli_exits_2_with_the_reason_and_list_leaves_it_out() -> None:
    run = cli(RETIRED)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1
    assert "is retired: vLLM 0.27 removed support" in run.stderr
    listed = cli("--list")
    assert listed.returncode == 0
    ids = [line.split("\t")[0] for line in listed.stdout.splitlines()]
    assert RETIRED not in ids
    assert "pfnet/plamo-3-nict-31b-base" in ids  # the other recipe of its provider stays
    rows = {row["hf_id"]: row for row in json.loads(cli("--list", "--json").stdout)["models"]}
    assert rows[RETIRED]["hardware"] == []  # as /models.json: listed, with why, no command
    assert "vLLM 0.27 removed support" in rows[RETIRED]["retired"]["reason"]


def test_every_retired_recipe_gives_a_reason() -> None:
    retired = [h for h, r in catalog().recipes.items() if r.retired is not None]
    assert RETIRED in retired
    for hf_id in retired:
        assert catalog().recipes[hf_id].retired.reason.strip(), hf_id


def test_an_alias_answers_with_a_notice_that_names_the_new_id(tmp_path: Path) -> None:
    tree = small_tree(tmp_path, {"Qwen/Qwen3-8B": with_alias("Qwen/Qwen3-8B", "Old/Qwen-8B")})
    new = cli("Qwen/Qwen3-8B", "hardware=h100", recipes=tree)
    old = cli("Old/Qwen-8B", "hardware=h100", recipes=tree)
    assert new.returncode == old.returncode == 0, old.stderr
    assert old.stdout == new.stdout
    # the notice, then what the new id prints on stderr too (its fit and estimate lines)
    assert old.stderr == ("vllm-recipes: notice: Old/Qwen-8B is now Qwen/Qwen3-8B; showing "
                          "Qwen/Qwen3-8B\n" + new.stderr)
    assert "notice" not in new.stderr
    as_json = json.loads(cli("Old/Qwen-8B", "--json", recipes=tree).stdout)
    assert as_json["hf_id"] == "Qwen/Qwen3-8B"


def test_an_alias_that_names_another_model_fails_check(tmp_path: Path) -> None:
    tree = small_tree(tmp_path, {
        "Qwen/Qwen3-8B": with_alias("Qwen/Qwen3-8B", "Qwen/Qwen3-4B"),
        "Qwen/Qwen3-4B": (RECIPES / "models/Qwen/Qwen3-4B.yaml").read_text(),
    })
    run = subprocess.run([sys.executable, "-m", "vllm_recipes_cli", "check", str(tree)], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 1
    lines = (tree / "models/Qwen/Qwen3-8B.yaml").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if text.startswith("aliases:"))
    assert (f"recipes/models/Qwen/Qwen3-8B.yaml:{line}: aliases[0]: 'Qwen/Qwen3-4B' is already "
            "used by Qwen/Qwen3-4B") in run.stdout


def test_a_model_id_in_the_wrong_case_gets_a_suggestion() -> None:
    run = cli("qwen/qwen3-8b")
    assert run.returncode == 2
    assert run.stderr == ("vllm-recipes: hf_id: unknown model 'qwen/qwen3-8b'; did you mean "
                          "Qwen/Qwen3-8B?\n")


@pytest.mark.site
def test_the_site_keeps_a_retired_page_and_answers_at_an_alias(tmp_path: Path) -> None:
    tree = small_tree(tmp_path, {
        RETIRED: (RECIPES / "models" / f"{RETIRED}.yaml").read_text(),
        "Qwen/Qwen3-8B": with_alias("Qwen/Qwen3-8B", "Old/Qwen-8B"),
    })
    site = tmp_path / "site"
    run = build_site(site, RECIPES_DIR=str(tree))
    assert run.returncode == 0, run.stderr
    page = (site / RETIRED / "index.html").read_text()
    assert "this model is retired" in page
    assert "vLLM 0.27 removed support for the PLaMo 2 architecture" in page
    assert "vllm serve" not in page and 'id="rb-mount"' not in page
    document = json.loads((site / f"{RETIRED}.json").read_text())
    assert document["retired"]["reason"].startswith("vLLM 0.27 removed support")
    assert "recommended_command" not in document
    assert not (site / RETIRED / "hw").exists()
    models = {row["hf_id"]: row for row in json.loads((site / "models.json").read_text())["models"]}
    assert models[RETIRED]["retired"]["reason"].startswith("vLLM 0.27 removed support")
    assert models[RETIRED]["hardware"] == [] and models["Qwen/Qwen3-8B"]["retired"] is None
    home = (site / "index.html").read_text()
    assert "plamo-2-translate" not in home and "Qwen3-8B" in home
    alias = (site / "Old/Qwen-8B/index.html").read_text()
    assert "<code>Old/Qwen-8B</code> is now <code>Qwen/Qwen3-8B</code>" in alias
    assert 'id="rb-mount"' in alias and "vllm serve Qwen/Qwen3-8B" in alias
    alias_doc = json.loads((site / "Old/Qwen-8B.json").read_text())
    assert alias_doc["alias_of"] == "Qwen/Qwen3-8B"
    assert alias_doc["recipe_json"] == "../Qwen/Qwen3-8B.json"  # relative to the document


V4 = "deepseek-ai/DeepSeek-V4-Flash"


def test_an_earlier_variant_id_works_on_the_cli_and_names_the_new_id() -> None:
    old = cli(V4, "variant=dspark")
    new = cli(V4, "variant=preview_dspark")
    assert old.returncode == new.returncode == 0, old.stderr
    assert old.stdout == new.stdout
    assert "vllm serve deepseek-ai/DeepSeek-V4-Flash-DSpark" in old.stdout
    assert old.stderr == ("vllm-recipes: notice: variant=dspark is now variant=preview_dspark; "
                          "showing variant=preview_dspark\n" + new.stderr)
    assert "notice" not in new.stderr


def test_an_earlier_variant_id_on_the_page_is_read_as_the_new_one_with_a_notice() -> None:
    from builder.views.widget import page_state

    state = page_state(builder_catalog(), builder_recipe(V4), [["variant", "dspark"]])
    assert state["explicit"] == {"variant": "preview_dspark"}
    assert state["notice"] == "variant=dspark is now variant=preview_dspark; showing " \
                              "variant=preview_dspark"
    assert state["result"]["selection"]["variant"] == "preview_dspark"
    assert build(builder_catalog(), builder_recipe(V4), {"variant": "dspark"}) == \
        build(builder_catalog(), builder_recipe(V4), {"variant": "preview_dspark"})


def test_a_variant_alias_may_not_be_another_variant_id(tmp_path: Path) -> None:
    text = (RECIPES / f"models/{V4}.yaml").read_text().replace(
        "    aliases: [dspark]", "    aliases: [fp8]")
    tree = small_tree(tmp_path, {V4: text})
    run = subprocess.run([sys.executable, "-m", "vllm_recipes_cli", "check", str(tree)], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 1
    assert "variants.preview_dspark.aliases: 'fp8' is already the id of variant 'fp8'" in (
        run.stdout)


# Hardware aliases (`hardware_aliases` in recipes/hardware.yaml): an earlier node-shaped id is a
# GPU and a count, on every surface, with a notice; a recipe may not name one.

NODE_ALIAS, GPU, COUNT = "rtx_pro_5000_4x", "rtx_pro_5000", "4"
QWEN = "Qwen/Qwen3-8B"


def on_rtx_pro_5000(tmp_path: Path) -> Path:
    """A tree where Qwen3-8B also names the RTX PRO 5000 (restricted hardware is offered only
    by recipes that name it)."""
    text = (RECIPES / f"models/{QWEN}.yaml").read_text()
    assert "verified: [xeon6]\n" in text
    return small_tree(tmp_path, {QWEN: text.replace("verified: [xeon6]\n",
                                                    f"verified: [xeon6, {GPU}]\n")})


def test_the_hardware_aliases_name_gpus_of_the_registry_within_their_node() -> None:
    aliases = builder_catalog()["hardware_aliases"]
    assert aliases[NODE_ALIAS] == {"hardware": GPU, "gpus": int(COUNT)}
    for alias_id, alias in aliases.items():
        hw = builder_catalog()["hardware"][alias["hardware"]]
        assert alias_id not in builder_catalog()["hardware"]
        assert hw["gpu_count"] == 1 and alias["gpus"] <= hw["max_gpus"]


def test_a_node_shaped_id_on_the_cli_is_its_gpu_and_count_with_a_notice(tmp_path: Path) -> None:
    tree = on_rtx_pro_5000(tmp_path)
    old = cli(QWEN, f"hardware={NODE_ALIAS}", recipes=tree)
    new = cli(QWEN, f"hardware={GPU}", f"gpus={COUNT}", recipes=tree)
    one = cli(QWEN, f"hardware={GPU}", "gpus=1", recipes=tree)
    assert old.returncode == new.returncode == 0, old.stderr
    assert old.stdout == new.stdout != one.stdout
    assert old.stderr == (f"vllm-recipes: notice: hardware={NODE_ALIAS} is now hardware={GPU} "
                          f"gpus={COUNT}; showing hardware={GPU} gpus={COUNT}\n" + new.stderr)
    assert "notice" not in new.stderr
    # A count the user gives wins over the alias's.
    two = cli(QWEN, f"hardware={NODE_ALIAS}", "gpus=2", recipes=tree)
    assert two.stdout == cli(QWEN, f"hardware={GPU}", "gpus=2", recipes=tree).stdout
    assert f"showing hardware={GPU} gpus=2\n" in two.stderr
    as_json = json.loads(cli(QWEN, f"hardware={NODE_ALIAS}", "--json", recipes=tree).stdout)
    selection = as_json["recommended_command"]["selection"]
    assert (selection["hardware"], selection["gpus"]) == (GPU, int(COUNT))


def test_a_node_shaped_id_in_the_url_is_its_gpu_and_count_with_a_notice() -> None:
    from builder.views.widget import page_state

    catalog = builder_catalog()
    # Restricted hardware is offered by the recipes that name it.
    recipe = {**builder_recipe(QWEN), "verified": ["xeon6", GPU]}
    state = page_state(catalog, recipe, [["hardware", NODE_ALIAS]])
    said = (f"hardware={NODE_ALIAS} is now hardware={GPU} gpus={COUNT}; showing "
            f"hardware={GPU} gpus={COUNT}")
    assert state["notice"].startswith(said)
    assert (state["result"]["selection"]["hardware"],
            state["result"]["selection"]["gpus"]) == (GPU, COUNT)
    assert build(catalog, recipe, {"hardware": NODE_ALIAS}) == \
        build(catalog, recipe, {"hardware": GPU, "gpus": COUNT})


def test_a_recipe_that_names_a_hardware_alias_fails_check(tmp_path: Path) -> None:
    text = (RECIPES / f"models/{QWEN}.yaml").read_text().replace(
        "verified: [xeon6]\n", f"verified: [xeon6, {NODE_ALIAS}]\n")
    tree = small_tree(tmp_path, {QWEN: text})
    run = subprocess.run([sys.executable, "-m", "vllm_recipes_cli", "check", str(tree)], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 1
    lines = (tree / f"models/{QWEN}.yaml").read_text().splitlines()
    line = lines.index(f"verified: [xeon6, {NODE_ALIAS}]") + 1
    assert (f"recipes/models/{QWEN}.yaml:{line}: verified[1]: '{NODE_ALIAS}' is an alias of "
            f"{GPU} × {COUNT}; name the GPU id '{GPU}'") in run.stdout


def test_a_guide_note_for_a_hardware_alias_fails_check(tmp_path: Path) -> None:
    hf_id = "CohereLabs/North-Mini-Code-1.0"
    tree = small_tree(tmp_path, {hf_id: (RECIPES / f"models/{hf_id}.yaml").read_text()})
    guide = tree / f"models/{hf_id}.md"
    text = guide.read_text()
    assert "### rtx_5090:" in text
    guide.write_text(text.replace("### rtx_5090:", f"### {NODE_ALIAS}:"))
    run = subprocess.run([sys.executable, "-m", "vllm_recipes_cli", "check", str(tree)], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 1
    line = guide.read_text().splitlines().index(f"### {NODE_ALIAS}: FP8 over both cards") + 1
    assert (f"recipes/models/{hf_id}.md:{line}: guide: '{NODE_ALIAS}' is an alias of {GPU} × "
            f"{COUNT}; name the GPU id '{GPU}'") in run.stdout


def test_every_hardware_alias_answers_as_its_gpu_and_count_in_every_recipe() -> None:
    """The same answer (or the same refusal) for the alias as for its GPU and count, in every
    recipe that offers the GPU."""
    from builder import Builder

    catalog = builder_catalog()
    seen = 0
    for alias_id, alias in catalog["hardware_aliases"].items():
        for hf_id in catalog_ids():
            builder = Builder(catalog, builder_recipe(hf_id))
            if alias["hardware"] not in builder.choices["hardware"]:
                continue
            seen += 1
            answers = []
            for query in ({"hardware": alias_id},
                          {"hardware": alias["hardware"], "gpus": str(alias["gpus"])}):
                try:
                    answers.append(builder.build(query, unavailable=False))
                except SelectionError as error:
                    answers.append((error.key, error.reason))
            assert answers[0] == answers[1], (alias_id, hf_id)
    assert seen


def catalog_ids() -> list[str]:
    """The recipes that answer (not the retired ones)."""
    return [hf_id for hf_id in catalog().recipes if not builder_recipe(hf_id).get("retired")]


def test_a_recipe_size_on_a_single_gpu_makes_its_default_count() -> None:
    """North-Mini-Code's FP8 (39 GB, no memory facts) sets `tp: {rtx_5090: 2}`: on the RTX
    5090 it runs on two cards by default, as it did on the former `rtx_5090_2x`, and one card
    is refused."""
    catalog, recipe = builder_catalog(), builder_recipe("CohereLabs/North-Mini-Code-1.0")
    result = build(catalog, recipe, {"hardware": "rtx_5090"})
    assert (result["selection"]["variant"], result["selection"]["gpus"]) == ("fp8", "2")
    argv = result["commands"][0]["argv"]
    assert argv[argv.index("--tensor-parallel-size") + 1] == "2"
    asked = build(catalog, recipe, {"hardware": "rtx_5090", "gpus": "2"})
    assert (result["selection"], result["commands"]) == (asked["selection"], asked["commands"])
    with pytest.raises(SelectionError):
        build(catalog, recipe, {"hardware": "rtx_5090", "gpus": "1"})


def test_detect_names_four_cards_as_the_gpu_and_count_the_alias_means() -> None:
    """Four RTX PRO 6000 were `rtx_pro_6000_4x`; now an alias: --detect says the GPU and count
    it means (not the 8-card server node with 4 of them)."""
    from vllm_recipes_cli.detect import Found, match

    found = Found("nvidia-smi", "nvidia", ["NVIDIA RTX PRO 6000 Blackwell"] * 4, "97887 MiB")
    detection = match(builder_catalog(), found)
    assert (detection.hardware, detection.gpus) == ("rtx_pro_6000", 4)
    assert detection.line.endswith("hardware=rtx_pro_6000 gpus=4")


@pytest.mark.parametrize(("alias", "gpu", "hf_id"), [
    ("rtx_5090_2x", "rtx_5090", "Qwen/Qwen3.8-27B"),
    ("rtx_4090_2x", "rtx_4090", "MiniMaxAI/MiniMax-H3"),
    ("rtx_pro_6000_2x", "rtx_pro_6000", "MiniMaxAI/MiniMax-H3"),
])
def test_a_two_card_id_on_the_cli_and_in_the_url_is_its_gpu_at_two(alias: str, gpu: str,
                                                                    hf_id: str) -> None:
    """The node-shaped ids the recipes keyed until their `@2` migration: the CLI and the page
    read `hardware=<alias>` as the GPU × 2, with the same notice, and agree."""
    from builder.views.widget import page_state

    old = cli(hf_id, f"hardware={alias}", "--json")
    new = cli(hf_id, f"hardware={gpu}", "gpus=2", "--json")
    assert old.returncode == new.returncode == 0, old.stderr
    said = f"hardware={alias} is now hardware={gpu} gpus=2; showing hardware={gpu} gpus=2"
    assert old.stderr == f"vllm-recipes: notice: {said}\n" + new.stderr
    assert old.stdout == new.stdout
    cli_result = json.loads(old.stdout)["recommended_command"]
    assert (cli_result["selection"]["hardware"], cli_result["selection"]["gpus"]) == (gpu, 2)
    state = page_state(builder_catalog(), builder_recipe(hf_id), [["hardware", alias]])
    assert state["notice"].startswith(said)
    page = state["result"]
    assert (page["selection"]["hardware"], page["selection"]["gpus"]) == (gpu, "2")
    assert page["commands"][0]["argv"] == cli_result["commands"][0]["argv"]
