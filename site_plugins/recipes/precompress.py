"""Compressed copies of every text file of the built site: `<file>.gz` and `<file>.br`
beside it, which `make serve` (site_plugins/serve.py) and nginx's `gzip_static` /
`brotli_static` send to browsers that accept them, so no host has to compress on the fly.

They are made after mkdocs has written its last file (`on_post_build`): pages, the theme's
assets, the search index and the sitemap exist only then. A copy newer than its file is kept,
so `make dev`'s rebuilds redo only what changed. Levels: gzip 6 and brotli 5, about as small
as the highest levels on this text (within 5%) at a tenth of the time; 166 MB of pages and
JSON take about 3 s on two cores. The Pyodide runtime has its own copies (`assets.py`).
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import brotli

__all__ = ["TEXT_SUFFIXES", "pack", "precompress_site"]

TEXT_SUFFIXES = frozenset({".html", ".css", ".js", ".mjs", ".json", ".xml", ".txt", ".md",
                           ".svg", ".map", ".webmanifest"})
COPIES = (".gz", ".br")
CHUNK = 256
"""Files per task handed to a worker."""


def pack(data: bytes) -> dict[str, bytes]:
    """{".gz": gzip, ".br": brotli} of `data` (deterministic: no time stamp in the gzip)."""
    return {".gz": gzip.compress(data, compresslevel=6, mtime=0),
            ".br": brotli.compress(data, quality=5)}


def _stale(root: Path) -> Iterator[str]:
    """Text files under `root` whose compressed copies are missing or older than they are."""
    for folder, _, names in os.walk(root):
        for name in names:
            if os.path.splitext(name)[1] not in TEXT_SUFFIXES:
                continue
            path = os.path.join(folder, name)
            mtime = os.stat(path).st_mtime_ns
            for suffix in COPIES:
                try:
                    if os.stat(path + suffix).st_mtime_ns < mtime:
                        break
                except FileNotFoundError:
                    break
            else:
                continue
            yield path


def _pack_files(paths: list[str]) -> int:
    for path in paths:
        with open(path, "rb") as source:
            data = source.read()
        for suffix, packed in pack(data).items():
            with open(path + suffix, "wb") as out:
                out.write(packed)
    return len(paths)


def precompress_site(root: Path, workers: int = 0) -> int:
    """Write the missing or stale `.gz`/`.br` copies under `root`; how many files it packed.
    `workers`: processes to use (0: one per core)."""
    stale = list(_stale(root))
    chunks = [stale[i:i + CHUNK] for i in range(0, len(stale), CHUNK)]
    if len(chunks) <= 1:
        return sum(_pack_files(chunk) for chunk in chunks)
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        return sum(pool.map(_pack_files, chunks))
