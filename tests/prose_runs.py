"""Fingerprints of other people's prose, so the "written in our own words" tests run on any
checkout without that prose next to it: a file under `tests/data/reference-runs/` holds one
hash per run of `RUN` consecutive words, sorted, and nothing else.

- one file per reference document (`../shared/reference/`), and `reference-documents.txt`,
  the runs of all of them together (the text files, and the guide and descriptions of the JSON);
- `public-catalogue.txt`: the prose of the public catalogue (github.com/vllm-project/recipes)
  at `PUBLIC_COMMIT`: the `guide` and every `description` and `performance_headline` of each
  `models/**/*.yaml`, and the older Markdown guides in its provider folders (`<Org>/*.md`).
  Only the fingerprints are kept, never the prose.

Regenerate them (only needed when a reference document changes, or to move to a newer public
commit) from a checkout that has `../shared/reference/`, naming a clone of the public repository
(a bare one will do) that holds `PUBLIC_COMMIT`:

    .venv/bin/python -m tests.prose_runs PUBLIC_GIT_DIR
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

RUN = 10
ROOT = Path(__file__).resolve().parents[1]
RUNS_DIR = ROOT / "tests" / "data" / "reference-runs"
REFERENCE_DIR = ROOT.parent / "shared" / "reference"
PUBLIC_COMMIT = "8959cf64189c71d36e11c6a30335f923f261b1f7"
"""The public catalogue's commit whose prose `public-catalogue.txt` fingerprints."""
PUBLIC_NOT_GUIDES = ("README.md", "AGENTS.md", "CLAUDE.md", "CONTRIBUTING.md")


URL = re.compile(r"https?://[^\s)>\]]+")
"""A web address: a citation (a fact), not prose, so its words are not counted."""


def words(text: str) -> list[str]:
    """Lower-case words of `text`, code spans, web addresses and numbers dropped."""
    return re.findall(r"[a-z]+", URL.sub(" ", re.sub(r"`[^`]*`", " ", text)).lower())


def prose_words(text: str) -> list[str]:
    """The words of a Markdown page outside code (fences, `spans`, command lines) and web
    addresses."""
    kept = []
    fenced = False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith((" ", "curl", "export", "--", "CUDA_", "{")):
            continue
        kept.append(URL.sub(" ", re.sub(r"`[^`]*`", " ", line)))
    return re.findall(r"[a-z]+", " ".join(kept).lower())


def fingerprint(run: tuple[str, ...] | list[str]) -> str:
    return hashlib.sha256(" ".join(run).encode()).hexdigest()[:16]


SHORT = 12
"""Hex digits kept of each run's hash in the large sets (`public-catalogue.txt`,
`reference-documents.txt`): 48 bits, so a chance match among ~10^6 runs is ~10^-8 per run."""


def short_fingerprint(run: tuple[str, ...] | list[str]) -> str:
    return fingerprint(run)[:SHORT]


def windows(seq: list[str], size: int = RUN) -> Iterator[list[str]]:
    for i in range(len(seq) - size + 1):
        yield seq[i:i + size]


def read(name: str) -> frozenset[str]:
    return frozenset((RUNS_DIR / f"{name}.txt").read_text(encoding="utf-8").split())


def copied_runs(text_words: list[str], reference: frozenset[str]) -> set[str]:
    """The runs of `text_words` whose fingerprint (full or short, as the set holds) is one of
    the reference's."""
    if not reference:
        return set()
    size = len(next(iter(reference)))
    return {" ".join(run) for run in windows(text_words) if fingerprint(run)[:size] in reference}


def strings_at(node: Any, keys: tuple[str, ...]) -> Iterator[str]:
    """Every string value under one of `keys`, anywhere in a YAML/JSON document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in keys and isinstance(value, str):
                yield value
            else:
                yield from strings_at(value, keys)
    elif isinstance(node, list):
        for item in node:
            yield from strings_at(item, keys)


def document_texts(doc: Any) -> Iterator[list[str]]:
    """The word sequences of a recipe document's prose: its guide (Markdown) and each
    description and headline (one sequence each, so no run spans two of them)."""
    for guide in strings_at(doc, ("guide",)):
        yield prose_words(guide)
    for text in strings_at(doc, ("description", "performance_headline")):
        yield words(text)


def reference_texts() -> Iterator[tuple[str, list[str]]]:
    """(file, words) for each reference document's prose."""
    for path in sorted(REFERENCE_DIR.iterdir()):
        if path.name == "README.md":
            continue
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            for seq in document_texts(json.loads(text)):
                yield path.name, seq
        else:
            yield path.name, prose_words(text)


def public_texts(git_dir: str) -> Iterator[tuple[str, list[str]]]:
    """(path, words) for the public catalogue's prose at `PUBLIC_COMMIT`."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", git_dir, *args], check=True, capture_output=True,
                              text=True).stdout

    for path in git("ls-tree", "-r", "--name-only", PUBLIC_COMMIT).splitlines():
        top, _, rest = path.partition("/")
        if path.startswith("models/") and path.endswith(".yaml"):
            doc = yaml.safe_load(git("show", f"{PUBLIC_COMMIT}:{path}"))
            for seq in document_texts(doc):
                yield path, seq
        elif (rest and "/" not in rest and path.endswith(".md") and not top.startswith(".")
              and rest not in PUBLIC_NOT_GUIDES and top[:1].isupper()):
            yield path, prose_words(git("show", f"{PUBLIC_COMMIT}:{path}"))


SOURCES: dict[str, tuple[str, Callable[[str], list[str]]]] = {
    "deepseek-v4.1-flash-recipe-page": ("deepseek-v4.1-flash-recipe-page.txt", prose_words),
    "dynamo-deepseek-v4.1-flash-deployments": ("dynamo-deepseek-v4.1-flash-deployments.txt",
                                               words),
}


def write(name: str, hashes: set[str]) -> None:
    (RUNS_DIR / f"{name}.txt").write_text("\n".join(sorted(hashes)) + "\n", encoding="utf-8")
    print(f"{name}: {len(hashes)} runs")


def main() -> None:
    RUNS_DIR.mkdir(parents=True, exist_ok=True)
    for name, (file, split) in SOURCES.items():
        seq = split((REFERENCE_DIR / file).read_text(encoding="utf-8"))
        write(name, {fingerprint(run) for run in windows(seq)})
    write("reference-documents", {short_fingerprint(run) for _, seq in reference_texts()
                                  for run in windows(seq)})
    if len(sys.argv) > 1:
        write("public-catalogue", {short_fingerprint(run) for _, seq in public_texts(sys.argv[1])
                                   for run in windows(seq)})


if __name__ == "__main__":
    main()
