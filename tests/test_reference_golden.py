"""Golden: the published DeepSeek-V4-Flash recommended command (H200) comes out exactly."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

from builder import build
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
        [sys.executable, "-m", "vllm_recipes", "deepseek-ai/DeepSeek-V4-Flash", "--json"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    command = json.loads(out)["commands"][0]
    assert command["argv"] == EXPECTED["argv"]
    assert command["docker_argv"] == _ours(EXPECTED["docker_argv"])


def test_cli_text_is_the_install_block_then_the_copy_text_and_round_trips() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "vllm_recipes", "deepseek-ai/DeepSeek-V4-Flash"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    install, _, commands = out.partition("\n\n")
    assert install.startswith("# Install (") and "; checked with vLLM " in install
    assert commands == _default_result()["copy_text"]
    lines = commands.splitlines()
    assert lines[0] == "export VLLM_USE_RUST_FRONTEND=1"
    # The shell removes backslash-newline (POSIX 2.2.1); shlex does not, so we do it here.
    assert shlex.split("\n".join(lines[1:]).replace("\\\n", "")) == EXPECTED["argv"]
