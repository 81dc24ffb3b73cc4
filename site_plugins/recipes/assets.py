"""Files the in-page builder loads: Pyodide's runtime, the builder's modules, a boot snapshot.

    assets/pyodide/{pyodide.mjs, pyodide.asm.mjs, pyodide.asm.wasm, python_stdlib.zip,
                    pyodide-lock.json}            the npm package `pyodide`, as installed
    assets/pyodide/{pyodide.mjs.js, pyodide.asm.mjs.js}
                                                  the two ES modules again, named .js: stock
                                                  nginx (Debian's mime.types) sends .mjs as
                                                  application/octet-stream, which browsers
                                                  refuse as a module; every host knows .js
    assets/builder/manifest.json                  {"files": [...], "sha256": "...",
                                                   "snapshot": "snapshot-<hash>.bin"}
    assets/builder/builder/<module>.py            every builder module
    assets/builder/snapshot-<hash>.bin            Pyodide's memory after start-up with every
                                                  builder module imported (pyodide_snapshot.mjs)
    <any of the above>.br, .gz                    precompressed copies, for hosts that serve
                                                  them (nginx gzip_static/brotli_static, `make
                                                  serve`); only where they save at least 10%

The snapshot's name carries a hash of the runtime, the builder's sources and the script that
made it, so a browser never boots a snapshot with a runtime it was not made from. Snapshots and
compressed copies are made once per content and kept in a cache directory (`.build/assets/`):
Brotli at its best setting takes about a minute for the 9.6 MB wasm file.
All are copied into the site by mkdocs (`File.generated(..., abs_src_path=...)`).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import brotli

import vllm_recipes

__all__ = [
    "PYODIDE_FILES",
    "WORKER_SCRIPT",
    "WORKER_VERSION",
    "MissingAsset",
    "builder_files",
    "compressed",
    "pyodide_files",
    "site_assets",
    "snapshot",
    "worker_sources",
    "worker_version",
]

PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
PYODIDE_ALIASES = {"pyodide.mjs.js": "pyodide.mjs", "pyodide.asm.mjs.js": "pyodide.asm.mjs"}
PYODIDE_DIR = "assets/pyodide"
BUILDER_DIR = "assets/builder"
SNAPSHOT_SCRIPT = Path(__file__).with_name("pyodide_snapshot.mjs")
SNAPSHOT_TIMEOUT_S = 300
MIN_SAVING = 0.10
"""A compressed copy is shipped only when it is at least this much smaller."""
MIN_SIZE = 1024
BEST_BROTLI_UP_TO = 4 << 20
"""Brotli quality 11 for files up to this size, 9 above (quality 11 on 30 MB takes minutes)."""


class MissingAsset(RuntimeError):
    """A file the site ships is not installed, or could not be made."""


def pyodide_files(pyodide_dir: Path) -> dict[str, Path]:
    """Site path → source file; MissingAsset names what to run when Pyodide is absent."""
    missing = [name for name in PYODIDE_FILES if not (pyodide_dir / name).is_file()]
    if missing:
        raise MissingAsset(
            f"{pyodide_dir}: Pyodide's runtime is missing ({', '.join(missing)}); run "
            "`make install` (npm ci installs the pinned `pyodide` package into node_modules/)"
        )
    files = {f"{PYODIDE_DIR}/{name}": pyodide_dir / name for name in PYODIDE_FILES}
    files.update({f"{PYODIDE_DIR}/{alias}": pyodide_dir / name
                  for alias, name in PYODIDE_ALIASES.items()})
    return files


def _modules(builder_dir: Path) -> dict[str, Path]:
    """`builder/<path>.py` → source file, for every module of the builder and its
    sub-packages (the page's Python imports them as one package)."""
    modules = dict(sorted(
        (f"builder/{path.relative_to(builder_dir).as_posix()}", path)
        for path in builder_dir.rglob("*.py") if "__pycache__" not in path.parts))
    if not modules:
        raise MissingAsset(f"{builder_dir}: no builder modules found")
    return modules


def _builder_digest(modules: dict[str, Path]) -> str:
    digest = hashlib.sha256()
    for name, module in modules.items():
        digest.update(name.encode() + b"\0" + module.read_bytes() + b"\0")
    return digest.hexdigest()


WORKER_SCRIPT = "javascripts/builder-worker.js"
"""The builder's worker, under docs/."""
WORKER_VERSION = "rb_worker_version"
"""The key of `config.extra` the templates read the worker's version from."""


def worker_sources(builder_dir: Path, docs_dir: Path, recipes_dir: Path) -> list[Path]:
    """What the builder's worker runs or reads, for `worker_version`: the builder, the worker
    script, the recipe tree, and the code that publishes the tree's JSON."""
    return [builder_dir, docs_dir / WORKER_SCRIPT, recipes_dir,
            Path(vllm_recipes.__file__).parent, Path(__file__).parent]


def worker_version(*sources: Path) -> str:
    """A short hash of everything the builder's worker runs or reads: tabs share a running
    worker only when all of it is the same (the shared worker's name carries it). `sources`:
    files, and directories whose files all count (the builder, the worker script, the recipe
    tree and the code that publishes its JSON)."""
    digest = hashlib.sha256()
    for source in sources:
        files = sorted(p for p in source.rglob("*") if p.is_file()) if source.is_dir() else [
            source]
        for path in files:
            if "__pycache__" in path.parts:
                continue
            digest.update(str(path.relative_to(source.parent)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def builder_files(builder_dir: Path, snapshot_name: str = "") -> tuple[dict[str, Path], str]:
    """(site path → source file, manifest JSON) for the builder's modules."""
    modules = _modules(builder_dir)
    manifest: dict[str, object] = {"files": list(modules), "sha256": _builder_digest(modules)}
    if snapshot_name:
        manifest["snapshot"] = snapshot_name
    files = {f"{BUILDER_DIR}/{name}": path for name, path in modules.items()}
    return files, json.dumps(manifest, indent=2) + "\n"


def _file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def snapshot(pyodide_dir: Path, builder_dir: Path, cache_dir: Path) -> Path:
    """Pyodide's boot snapshot with every builder module imported, made with Node (cached)."""
    key = hashlib.sha256()
    for part in (_file_digest(pyodide_dir / "pyodide.asm.wasm"),
                 _file_digest(pyodide_dir / "python_stdlib.zip"),
                 _builder_digest(_modules(builder_dir)),
                 _file_digest(SNAPSHOT_SCRIPT)):
        key.update(part.encode())
    out = cache_dir / f"snapshot-{key.hexdigest()[:16]}.bin"
    if out.is_file():
        return out
    node = shutil.which("node")
    if node is None:
        raise MissingAsset(
            "node: not found; the page's Pyodide snapshot is made with Node.js at build time "
            "(`make install` needs it too: apt-get install nodejs npm)"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    run = subprocess.run(
        [node, str(SNAPSHOT_SCRIPT), str(pyodide_dir), str(builder_dir), str(out)],
        capture_output=True, text=True, timeout=SNAPSHOT_TIMEOUT_S, check=False,
    )
    if run.returncode != 0 or not out.is_file():
        last = (run.stderr.strip().splitlines() or ["no output"])[-1]
        raise MissingAsset(f"{SNAPSHOT_SCRIPT.name}: the Pyodide snapshot failed: {last}")
    return out


def compressed(path: Path, cache_dir: Path) -> dict[str, Path]:
    """{".br": file, ".gz": file} for the compressed copies of `path` worth shipping."""
    size = path.stat().st_size
    if size < MIN_SIZE:
        return {}
    digest = _file_digest(path)
    out: dict[str, Path] = {}
    data: bytes | None = None
    for suffix in (".gz", ".br"):
        target = cache_dir / f"{digest}{suffix}"
        skip = cache_dir / f"{digest}{suffix}.skip"
        if skip.exists():
            continue
        if not target.is_file():
            if data is None:
                data = path.read_bytes()
            if suffix == ".gz":
                packed = gzip.compress(data, compresslevel=9, mtime=0)
            else:
                quality = 11 if size <= BEST_BROTLI_UP_TO else 9
                packed = brotli.compress(data, quality=quality, lgwin=24)
            if len(packed) > size * (1 - MIN_SAVING):
                _write_atomically(skip, b"")
                continue
            _write_atomically(target, packed)
        out[suffix] = target
    return out


def site_assets(pyodide_dir: Path, builder_dir: Path, cache_dir: Path) -> dict[str, Path | str]:
    """Every asset file of the page's builder: site path → source file (or text content)."""
    files: dict[str, Path | str] = dict(pyodide_files(pyodide_dir))
    made = snapshot(pyodide_dir, builder_dir, cache_dir / "snapshots")
    modules, manifest = builder_files(builder_dir, made.name)
    files.update(modules)
    files[f"{BUILDER_DIR}/{made.name}"] = made
    files[f"{BUILDER_DIR}/manifest.json"] = manifest
    for uri, source in list(files.items()):
        if isinstance(source, Path):
            for suffix, packed in compressed(source, cache_dir / "compressed").items():
                files[uri + suffix] = packed
    return files
