"""Golden: the published DeepSeek-V4-Flash recommended command (H200) comes out exactly.

The reference (tests/data/reference-deepseek-v4-flash.json) is API v0: it has no
`api_version`, its `command` leaves out the environment and indents by one space, and its
links are site-absolute. API v1 (issue 36) changes those three on purpose; every other fact
of the reference's `recommended_command` is checked unchanged."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from urllib.parse import urljoin

from builder import build
from site_plugins.recipes import api
from site_plugins.recipes.renderings import render_recipe
from tests.recipes_data import ROOT, builder_catalog, builder_recipe

REFERENCE = json.loads((ROOT / "tests/data/reference-deepseek-v4-flash.json").read_text())
EXPECTED = REFERENCE["recommended_command"]


# differs from the public catalogue: its `docker run` has `--privileged`, which vLLM's own
# Docker docs never ask for (`--gpus` and `--ipc=host` run the server; issue 32, recipes/
# hardware.yaml): ours drops it, and passes HF_TOKEN through by name (`-e HF_TOKEN`, never its
# value) for gated checkpoints. `--gpus all` stays: TP8 uses every GPU of the H200 node.
def _ours(docker_argv: list[str]) -> list[str]:
    """The reference's docker argv with the two differences above."""
    assert docker_argv.count("--privileged") == 1
    argv = [token for token in docker_argv if token != "--privileged"]
    at = argv.index("-e")
    return [*argv[:at], "-e", "HF_TOKEN", *argv[at:]]


def _ours_text(docker_text: str) -> str:
    """The reference's docker text with the same two differences."""
    assert docker_text.count(" --privileged --ipc=host") == 1
    text = docker_text.replace(" --privileged --ipc=host", " --ipc=host")
    return text.replace("\n -e ", "\n -e HF_TOKEN \\\n -e ", 1)


def _default_result() -> dict:
    return build(builder_catalog(), builder_recipe("deepseek-ai/DeepSeek-V4-Flash"), {})


def test_default_selection_is_the_reference_recommendation() -> None:
    selection = _default_result()["selection"]
    assert (selection["hardware"], selection["strategy"], selection["variant"]) == (
        EXPECTED["hardware"], EXPECTED["strategy"], EXPECTED["variant"])
    assert selection["nodes"] == str(EXPECTED["node_count"])


def test_argv_and_docker_argv_equal_the_reference() -> None:
    command = _default_result()["commands"][0]
    assert command["argv"] == EXPECTED["argv"]
    assert command["docker_argv"] == _ours(EXPECTED["docker_argv"])
    assert "--privileged" not in command["docker_argv"]
    assert command["env"] == EXPECTED["env"]
    assert _default_result()["docker_image"] == EXPECTED["docker_image"]


def test_shell_text_matches_the_reference_up_to_indentation() -> None:
    command = _default_result()["commands"][0]
    # The reference indents continuation lines by one space, we indent by two.
    assert command["text"].replace("\n  ", "\n ") == EXPECTED["command"]
    assert command["docker_text"].replace("\n  ", "\n ") == _ours_text(EXPECTED["docker_command"])


def test_cli_json_gives_the_reference_argv() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "vllm_recipes_cli", "deepseek-ai/DeepSeek-V4-Flash", "--json"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    document = json.loads(out)
    assert document["api_version"] == 1
    command = document["recommended_command"]["commands"][0]
    assert command["argv"] == EXPECTED["argv"]
    assert command["docker_argv"] == _ours(EXPECTED["docker_argv"])


V1_CHANGES = {
    "command": "the page's copy text: `export` lines of `env`, then the command (two-space "
               "indent)",
    "docker_command": "the page's copy text (two-space indent)",
    "alternatives": "links relative to the document",
    "by_hardware": "links relative to the document",
    "strategy_spec": "the strategy's description is in our own words (prose is not copied)",
    "docker_argv": "issue 32's container grant (`_ours`)",
}


def test_the_v1_document_keeps_every_reference_fact_but_the_v1_changes() -> None:
    catalog, recipe = builder_catalog(), builder_recipe("deepseek-ai/DeepSeek-V4-Flash")
    files = dict(api.recipe_endpoints(catalog, recipe, "", render_recipe(catalog, recipe), "/"))
    document = json.loads(files["deepseek-ai/DeepSeek-V4-Flash.json"])
    assert document["api_version"] == 1
    assert document["$schema"] == "../api/v1/schema/recipe.json"
    ours = document["recommended_command"]
    for key, value in EXPECTED.items():
        if key not in V1_CHANGES:
            assert ours[key] == value, key
    exports = "".join(f"export {k}={v}\n" for k, v in EXPECTED["env"].items())
    assert ours["command"] == exports + EXPECTED["command"].replace("\n ", "\n  ")
    assert ours["docker_command"] == _ours_text(EXPECTED["docker_command"]).replace("\n ", "\n  ")
    assert ours["docker_argv"] == _ours(EXPECTED["docker_argv"])
    for key in ("alternatives", "by_hardware"):  # the same files, named relative
        assert {k: urljoin("/deepseek-ai/DeepSeek-V4-Flash.json", v)
                for k, v in ours[key].items()} == EXPECTED[key]
    spec = EXPECTED["strategy_spec"]  # (ours adds `file` and `layout`)
    assert {k: ours["strategy_spec"][k] for k in spec if k != "description"} == {
        k: v for k, v in spec.items() if k != "description"}


def test_cli_text_is_the_install_block_then_the_copy_text_and_round_trips() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "vllm_recipes_cli", "deepseek-ai/DeepSeek-V4-Flash"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    install, _, commands = out.partition("\n\n")
    assert install.startswith("# Install (") and "; checked with vLLM " in install
    assert commands == _default_result()["copy_text"]
    lines = commands.splitlines()
    assert lines[0] == "export VLLM_USE_RUST_FRONTEND=1"
    # The shell removes backslash-newline (POSIX 2.2.1); shlex does not, so we do it here.
    assert shlex.split("\n".join(lines[1:]).replace("\\\n", "")) == EXPECTED["argv"]
