"""Files the in-page builder loads: Pyodide's runtime and the builder's own Python modules.

    assets/pyodide/{pyodide.mjs, pyodide.asm.mjs, pyodide.asm.wasm, python_stdlib.zip,
                    pyodide-lock.json}
    assets/builder/manifest.json           {"files": ["builder/api.py", ...], "sha256": "..."}
    assets/builder/builder/<module>.py     every builder module

They are copied from disk by mkdocs (`File.generated(..., abs_src_path=...)`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

__all__ = ["PYODIDE_FILES", "MissingAsset", "builder_files", "pyodide_files"]

PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
PYODIDE_DIR = "assets/pyodide"
BUILDER_DIR = "assets/builder"


class MissingAsset(RuntimeError):
    """A file the site ships is not installed."""


def pyodide_files(pyodide_dir: Path) -> dict[str, Path]:
    """Site path → source file; MissingAsset names what to run when Pyodide is absent."""
    missing = [name for name in PYODIDE_FILES if not (pyodide_dir / name).is_file()]
    if missing:
        raise MissingAsset(
            f"{pyodide_dir}: Pyodide's runtime is missing ({', '.join(missing)}); run "
            "`make install` (npm ci installs the pinned `pyodide` package into node_modules/)"
        )
    return {f"{PYODIDE_DIR}/{name}": pyodide_dir / name for name in PYODIDE_FILES}


def builder_files(builder_dir: Path) -> tuple[dict[str, Path], str]:
    """(site path → source file, manifest JSON) for the builder's modules."""
    modules = sorted(builder_dir.glob("*.py"))
    if not modules:
        raise MissingAsset(f"{builder_dir}: no builder modules found")
    digest = hashlib.sha256()
    names = []
    for module in modules:
        name = f"builder/{module.name}"
        names.append(name)
        digest.update(name.encode() + b"\0" + module.read_bytes() + b"\0")
    manifest = json.dumps({"files": names, "sha256": digest.hexdigest()}, indent=2) + "\n"
    return {f"{BUILDER_DIR}/{name}": path for name, path in zip(names, modules, strict=True)}, (
        manifest
    )
