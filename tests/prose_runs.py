"""Fingerprints of the reference documents' word runs, so the "written in our own words" tests
run on any checkout without the reference text next to it (`../shared/reference/`).

A file under `tests/data/reference-runs/` holds one hash per run of `RUN` consecutive words
of a reference document's prose, sorted. Regenerate them (only needed when a reference
document changes) from a checkout that has `../shared/reference/`:

    .venv/bin/python -m tests.prose_runs
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path

RUN = 10
ROOT = Path(__file__).resolve().parents[1]
RUNS_DIR = ROOT / "tests" / "data" / "reference-runs"
REFERENCE_DIR = ROOT.parent / "shared" / "reference"


def words(text: str) -> list[str]:
    """Lower-case words of `text`, code spans and numbers dropped."""
    return re.findall(r"[a-z]+", re.sub(r"`[^`]*`", " ", text).lower())


def prose_words(text: str) -> list[str]:
    """The words of a Markdown page outside code (fences, `spans`, command lines)."""
    kept = []
    fenced = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith((" ", "curl", "export", "--", "CUDA_", "{")):
            continue
        kept.append(re.sub(r"`[^`]*`", " ", line))
    return re.findall(r"[a-z]+", " ".join(kept).lower())


def fingerprint(run: tuple[str, ...] | list[str]) -> str:
    return hashlib.sha256(" ".join(run).encode()).hexdigest()[:16]


def windows(seq: list[str], size: int = RUN) -> Iterator[list[str]]:
    for i in range(len(seq) - size + 1):
        yield seq[i:i + size]


def read(name: str) -> frozenset[str]:
    return frozenset((RUNS_DIR / f"{name}.txt").read_text(encoding="utf-8").split())


def copied_runs(text_words: list[str], reference: frozenset[str]) -> set[str]:
    """The runs of `text_words` whose fingerprint is one of the reference's."""
    return {" ".join(run) for run in windows(text_words) if fingerprint(run) in reference}


SOURCES: dict[str, tuple[str, Callable[[str], list[str]]]] = {
    "deepseek-v4.1-flash-recipe-page": ("deepseek-v4.1-flash-recipe-page.txt", prose_words),
    "dynamo-deepseek-v4.1-flash-deployments": ("dynamo-deepseek-v4.1-flash-deployments.txt",
                                               words),
}


def main() -> None:
    RUNS_DIR.mkdir(parents=True, exist_ok=True)
    for name, (file, split) in SOURCES.items():
        seq = split((REFERENCE_DIR / file).read_text(encoding="utf-8"))
        hashes = sorted({fingerprint(run) for run in windows(seq)})
        (RUNS_DIR / f"{name}.txt").write_text("\n".join(hashes) + "\n", encoding="utf-8")
        print(f"{name}: {len(hashes)} runs")


if __name__ == "__main__":
    main()
