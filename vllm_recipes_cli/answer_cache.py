"""A cache of validated recipe data for the command line.

Validating a recipe costs more than answering with it (pydantic's import alone is ~0.25 s), so
`vllm-recipes HF_ID` keeps, per model id (and `*` for the whole tree), the validated catalogue
it answered from (catalogue.py's JSON: the builder's input and the lines --explain names) in a
JSON file under the user's cache directory. An entry is used only
while nothing it could depend on has changed: its name holds a key made from the path, size and
modification time of every file of the recipe tree, of the data layer that validates it and
of this package. Any edit gives a new
key; entries of the same recipe tree under other keys are removed when a new one is written.
Nothing is written into the checkout.

    VLLM_RECIPES_CACHE=DIR   where entries go (default: $XDG_CACHE_HOME/vllm-recipes or
                             ~/.cache/vllm-recipes); VLLM_RECIPES_CACHE=off turns it off
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import vllm_recipes

__all__ = ["cache_dir", "read", "tree_key", "write"]

PACKAGES = (Path(__file__).resolve().parent, Path(vllm_recipes.__file__).resolve().parent)
"""The tool and the data layer: an edit of either can change what a tree validates to."""
OFF = "off"


def cache_dir() -> Path | None:
    """Where entries go; None when the cache is off."""
    given = os.environ.get("VLLM_RECIPES_CACHE")
    if given == OFF:
        return None
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vllm-recipes"


def _stats(root: Path) -> list[str]:
    rows = []
    for top in (root, *PACKAGES):
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = os.path.join(dirpath, name)
                stat = os.stat(path)
                rows.append(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}")
    return rows


def tree_key(root: Path) -> str:
    """A digest of every file of the recipe tree and of `PACKAGES` (path, size, mtime)."""
    digest = hashlib.sha256("\n".join(_stats(Path(root).resolve())).encode())
    return digest.hexdigest()[:24]


def _short(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _tree_dir(directory: Path, root: Path) -> Path:
    """One directory per recipe tree (a test's copy does not evict the checkout's entries)."""
    return directory / _short(str(Path(root).resolve()))


def _entry_path(directory: Path, key: str, model_id: str) -> Path:
    return directory / f"{key}-{_short(model_id)}.json"


def read(root: Path, model_id: str) -> tuple[str, dict[str, Any] | None]:
    """(the tree's key, the entry for `model_id` under it or None)."""
    key = tree_key(root)
    directory = cache_dir()
    if directory is None:
        return key, None
    try:
        text = _entry_path(_tree_dir(directory, root), key, model_id).read_text(encoding="utf-8")
        entry = json.loads(text)
    except (OSError, ValueError):
        return key, None
    return key, entry if isinstance(entry, dict) and entry.get("model_id") == model_id else None


def write(root: Path, key: str, model_id: str, entry: dict[str, Any]) -> None:
    """Store `entry` for `model_id` under `key` (atomically); drop the tree's entries under
    other keys. A cache that cannot be written is skipped silently: it only saves time."""
    base = cache_dir()
    if base is None:
        return
    directory = _tree_dir(base, root)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.glob("*.json"):
            if not old.name.startswith(key + "-"):
                old.unlink(missing_ok=True)
        handle, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({**entry, "model_id": model_id}, out, ensure_ascii=False)
        os.replace(tmp, _entry_path(directory, key, model_id))
    except OSError:
        return
