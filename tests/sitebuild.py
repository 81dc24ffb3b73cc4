"""Building this repo's site with mkdocs, for the site tests."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


BUILT_FOR = "http://127.0.0.1:8000/"
"""The SITE_URL of the session's one build of the real site (`built_site`, tests/conftest.py)."""


@dataclass(frozen=True)
class BuiltSite:
    root: Path
    """The built site directory."""
    log: str
    """Everything `mkdocs build` printed."""


def build(site_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of this repo into `site_dir`, with extra environment."""
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(site_dir)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
        capture_output=True,
        text=True,
        check=False,
    )


UNCHECKED = (
    "import sys, vllm_recipes.checks as checks\n"
    "checks.check_guide_markup = lambda *args: None\n"
    "from mkdocs.__main__ import cli\n"
    "cli(sys.argv[1:])\n"
)
"""`mkdocs` with the guide check (`vllm_recipes.guide_html`) switched off."""


def build_unchecked(site_dir: Path, *options: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of this repo as `build` does, with the guide check switched off:
    a hostile guide reaches the site as if `check` had been skipped (what the site's own
    sanitizing must then hold)."""
    return subprocess.run(
        [sys.executable, "-c", UNCHECKED, "build", "--strict", *options, "-d", str(site_dir)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env},
        capture_output=True,
        text=True,
        check=False,
    )
