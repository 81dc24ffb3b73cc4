"""Where the tests find vLLM's own parsers (`make parser-envs`): one place for every test that
runs them. The Makefile exports both variables; without them, the checkout's parser venvs."""

from __future__ import annotations

import os
from pathlib import Path

from builder.vllm_release import OMNI_VERSION, VLLM_VERSION
from tests.recipes_data import ROOT

CHECKER = Path(__file__).with_name("check_argv.py")
PYTHONS = {
    "vllm": os.environ.get("VLLM_PARSER_PYTHON")
    or str(ROOT / ".parser-venv" / f"vllm-{VLLM_VERSION}" / "bin" / "python"),
    "omni": os.environ.get("VLLM_OMNI_PARSER_PYTHON")
    or str(ROOT / ".parser-venv" / f"vllm-omni-{OMNI_VERSION}" / "bin" / "python"),
}
"""kind ("vllm", "omni") → the python of its parser environment."""
