"""The vLLM release every command is checked with, and what follows from it.

`VLLM_VERSION` is the one entry: the pip and Docker install lines of `recipes/hardware.yaml`
name it through `{vllm_version}` (the loader fills it in), the page shows it beside the command
("checked with vLLM 0.33.0"), `--json` and every JSON endpoint publish it as `vllm_version`,
the tests run every published command through this release's own `vllm serve` parser
(`requirements-parser.lock`), and a file of vLLM's source tree that a pip install lacks
(`examples/tool_chat_template_*.jinja`) is fetched from this release's tag. Bumping it is this
one edit plus `make` (which rebuilds the parser environment and the flag list).
"""

from __future__ import annotations

__all__ = ["PLACEHOLDER", "SOURCE_TREE_DIRS", "VLLM_VERSION", "checked_note", "fill",
           "source_url"]

VLLM_VERSION = "0.33.0"
"""The vLLM release the commands are checked with (and install, unless a recipe needs another
build)."""

PLACEHOLDER = "{vllm_version}"
"""How `recipes/hardware.yaml` writes the release in install lines and image tags."""

SOURCE_TREE_DIRS = ("examples/",)
"""Directories of vLLM's source tree that a command may name a file of (relative to where it
starts). The `vllm/vllm-openai` images keep the tree's `examples/` in their working directory;
a pip install has no source tree, so its install block fetches the file from the release tag."""

REPOSITORY = "https://raw.githubusercontent.com/vllm-project/vllm"


def fill(text: str) -> str:
    """`text` with `{vllm_version}` replaced by the release."""
    return text.replace(PLACEHOLDER, VLLM_VERSION)


def source_url(path: str) -> str:
    """Where `path` of vLLM's source tree is, at the release's tag."""
    return f"{REPOSITORY}/v{VLLM_VERSION}/{path}"


def checked_note(build: str | None) -> str:
    """The line beside a command: the release its options were checked with, and, when the
    selection installs another build (a nightly, a model-specific image), that it may need it."""
    line = f"checked with vLLM {VLLM_VERSION}"
    if build:
        line += (f" (its parser; this selection installs {build}, which the command may need)")
    return line
