"""Building this repo's site with mkdocs, for the site tests."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


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
