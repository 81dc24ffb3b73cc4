"""Files a command names exist where it runs (builder/commands/needed_files.py), and the checked
release is one entry (builder/vllm_release.py)."""

from __future__ import annotations

import json
import subprocess
import sys

from builder import build
from builder.commands.needed_files import CONTAINER_DIR
from builder.vllm_release import VLLM_VERSION
from tests.recipes_data import ROOT, builder_catalog, builder_recipe

GEMMA = "google/gemma-4-31B-it"
TEMPLATE = "examples/tool_chat_template_gemma4.jinja"


def _value(argv: list[str], option: str) -> str:
    return argv[argv.index(option) + 1]


def test_pip_fetches_vllms_chat_template_from_the_release_and_names_the_fetched_file() -> None:
    result = build(builder_catalog(), builder_recipe(GEMMA),
                   {"install": "pip", "tool_calling": "on"})
    command = result["commands"][0]
    assert _value(command["argv"], "--chat-template") == "tool_chat_template_gemma4.jinja"
    assert "--chat-template tool_chat_template_gemma4.jinja" in command["text"]
    steps = result["install"]["pip"]["dependencies"]
    fetch = [s for s in steps if "tool_chat_template_gemma4.jinja" in s["provides"]]
    assert [s["command"] for s in fetch] == [
        "curl -fsSLo tool_chat_template_gemma4.jinja https://raw.githubusercontent.com/"
        f"vllm-project/vllm/v{VLLM_VERSION}/{TEMPLATE}"]
    # The Docker form keeps the image's own path, which the image provides.
    assert _value(command["docker_argv"], "--chat-template") == TEMPLATE
    assert result["install"]["docker"]["provides"] == [TEMPLATE]
    assert not result["install"]["docker"]["dependencies"]


def test_no_template_no_fetch() -> None:
    result = build(builder_catalog(), builder_recipe(GEMMA),
                   {"install": "pip", "tool_calling": "off"})
    assert not any(s["provides"] for s in result["install"]["pip"]["dependencies"])


def test_a_plugin_file_is_fetched_for_both_methods_and_mounted_for_docker() -> None:
    result = build(builder_catalog(), builder_recipe("nvidia/NVIDIA-Nemotron-3-Nano-4B-BF16"),
                   {"reasoning": "on", "install": "docker"})
    command = result["commands"][0]
    name = "nano_v3_reasoning_parser.py"
    assert _value(command["argv"], "--reasoning-parser-plugin") == name
    assert _value(command["docker_argv"], "--reasoning-parser-plugin") == f"{CONTAINER_DIR}/{name}"
    assert f"$PWD/{name}:{CONTAINER_DIR}/{name}" in command["docker_argv"]
    assert f'-v "$PWD/{name}:{CONTAINER_DIR}/{name}"' in command["docker_text"]
    for method in ("pip", "docker"):
        (step,) = [s for s in result["install"][method]["dependencies"] if s["provides"]]
        assert step["command"].startswith(f"curl -fsSLo {name} https://huggingface.co/")


def test_the_release_is_one_entry_in_install_lines_images_and_json() -> None:
    result = build(builder_catalog(), builder_recipe(GEMMA), {"hardware": "mi300x"})
    assert result["vllm_version"] == VLLM_VERSION
    assert result["docker_image"] == f"vllm/vllm-openai-rocm:v{VLLM_VERSION}"
    assert f"vllm=={VLLM_VERSION}" in result["install"]["pip"]["command"]
    assert result["install"]["pip"]["checked_with"] == f"checked with vLLM {VLLM_VERSION}"
    nvidia = build(builder_catalog(), builder_recipe(GEMMA), {"hardware": "h200"})
    assert nvidia["docker_image"] == f"vllm/vllm-openai:v{VLLM_VERSION}"


def test_another_build_is_named_beside_the_release() -> None:
    result = build(builder_catalog(), builder_recipe("deepseek-ai/DeepSeek-V4-Flash"),
                   {"install": "docker"})
    image = result["docker_image"]
    assert image != f"vllm/vllm-openai:v{VLLM_VERSION}"
    assert result["install"]["docker"]["checked_with"] == (
        f"checked with vLLM {VLLM_VERSION} (its parser; this selection installs the image "
        f"{image}, which the command may need)")


def test_cli_prints_the_install_block_and_json_has_vllm_version() -> None:
    def run(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", GEMMA, *args], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout

    text = run("install=pip", "tool_calling=on")
    install, _, serve = text.partition("\n\n")
    assert "curl -fsSLo tool_chat_template_gemma4.jinja" in install
    assert "--chat-template tool_chat_template_gemma4.jinja" in serve
    docker = run("install=docker", "tool_calling=on")
    assert f"--chat-template {TEMPLATE}" in docker and "curl" not in docker
    assert json.loads(run("--json"))["recommended_command"]["vllm_version"] == VLLM_VERSION
