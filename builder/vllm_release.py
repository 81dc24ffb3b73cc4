"""The vLLM release every command is checked with, and what follows from it.

`VLLM_VERSION` is the one entry: the pip and Docker install lines of `recipes/hardware.yaml`
name it through `{vllm_version}` (the loader fills it in), the page shows it beside the command
("checked with vLLM 0.33.0"), `--json` and every JSON endpoint publish it as `vllm_version`,
the tests run every published command through this release's own `vllm serve` parser
(`requirements-parser.lock`), and a file of vLLM's source tree that a pip install lacks
(`examples/tool_chat_template_*.jinja`) is fetched from this release's tag. Bumping it is this
one edit plus `make` (which rebuilds the parser environment and the flag list).

vLLM-Omni commands (`vllm serve MODEL --omni`) are checked with `OMNI_VERSION`'s own parser,
which runs on the vLLM release of the same minor (`OMNI_VLLM_VERSION`; vLLM-Omni warns on any
other): their pip install installs both, pinned (`omni_pip`), and their label names both.
"""

from __future__ import annotations

__all__ = ["OMNI_PLACEHOLDER", "OMNI_VERSION", "OMNI_VLLM_VERSION", "PLACEHOLDER",
           "SOURCE_TREE_DIRS", "VLLM_VERSION", "checked_note", "fill", "omni_pip", "source_url"]

VLLM_VERSION = "0.33.0"
"""The vLLM release the commands are checked with (and install, unless a recipe needs another
build)."""

PLACEHOLDER = "{vllm_version}"
"""How `recipes/hardware.yaml` writes the release in install lines and image tags."""

OMNI_VERSION = "0.30.0"
"""The vLLM-Omni release whose `vllm serve --omni` parser checks the vLLM-Omni commands
(`requirements-parser-omni.lock`) and which their pip install installs."""

OMNI_VLLM_VERSION = "0.30.0"
"""The vLLM release that vLLM-Omni `OMNI_VERSION` runs on (the same minor)."""

OMNI_PLACEHOLDER = "{vllm_omni_version}"
"""How a recipe's install step names `OMNI_VERSION` (`"vllm-omni[fa4]=={vllm_omni_version}"`)."""

SOURCE_TREE_DIRS = ("examples/",)
"""Directories of vLLM's source tree that a command may name a file of (relative to where it
starts). The `vllm/vllm-openai` images keep the tree's `examples/` in their working directory;
a pip install has no source tree, so its install block fetches the file from the release tag."""

REPOSITORY = "https://raw.githubusercontent.com/vllm-project/vllm"


def fill(text: str) -> str:
    """`text` with `{vllm_version}` and `{vllm_omni_version}` replaced by the releases."""
    return text.replace(PLACEHOLDER, VLLM_VERSION).replace(OMNI_PLACEHOLDER, OMNI_VERSION)


def source_url(path: str) -> str:
    """Where `path` of vLLM's source tree is, at the release's tag."""
    return f"{REPOSITORY}/v{VLLM_VERSION}/{path}"


def omni_pip(pip_install: str) -> str:
    """A brand's pip install turned into the vLLM-Omni one: the checked vLLM-Omni release and
    the vLLM release it runs on, both pinned, in place of the brand's pinned vLLM."""
    pinned = f"vllm=={VLLM_VERSION}"
    both = f"vllm=={OMNI_VLLM_VERSION} vllm-omni=={OMNI_VERSION}"
    if pinned in pip_install:
        return pip_install.replace(pinned, both)
    return f"{pip_install}\nuv pip install vllm-omni=={OMNI_VERSION}"


def checked_note(build: str | None, omni: bool = False) -> str:
    """The line beside a command: the release its options were checked with, and, when the
    selection installs another build (a nightly, a model-specific image), that it may need it."""
    line = (f"checked with vLLM-Omni {OMNI_VERSION} on vLLM {OMNI_VLLM_VERSION}" if omni
            else f"checked with vLLM {VLLM_VERSION}")
    if build:
        line += (f" (its parser; this selection installs {build}, which the command may need)")
    return line
