"""Every guide is in our own words: no run of 10 words is shared with the public catalogue's prose
(its guides and descriptions at the commit our recipes were ported from) or with a reference
document. Both are kept as fingerprints of their 10-word runs (tests/prose_runs.py says how they
are made, and from which public commit), never as text."""

from __future__ import annotations

from functools import cache

import pytest

from tests import prose_runs
from tests.recipes_data import RECIPES

GUIDES = sorted(RECIPES.glob("models/*/*.md"))
SOURCES = ("public-catalogue", "reference-documents")


@cache
def runs(name: str) -> frozenset[str]:
    return prose_runs.read(name)


def test_the_fingerprints_cover_the_public_catalogue_and_the_references() -> None:
    assert len(runs("public-catalogue")) > 50_000
    assert len(runs("reference-documents")) > 5_000
    assert len(GUIDES) >= 170


@pytest.mark.parametrize("source", SOURCES)
def test_the_fingerprints_are_short_hashes_of_ten_word_runs(source: str) -> None:
    assert {len(h) for h in runs(source)} == {prose_runs.SHORT}
    assert all(int(h, 16) >= 0 for h in runs(source))


def test_a_shared_run_is_caught_wherever_it_stands() -> None:
    # The check itself, on prose made up here: a set of fingerprints of one text finds a run
    # of it inside other words, across Markdown emphasis, code spans and links, and nothing
    # in a text that only shares shorter runs with it.
    theirs = ("The quick serving engine answers every request on the first try, even when "
              "the cluster is busy with other work.")
    reference = frozenset(prose_runs.short_fingerprint(run) for run in
                          prose_runs.windows(prose_runs.prose_words(theirs)))
    ours = ("Our text first. The **quick serving engine** answers every request on the first "
            "try (`--flag`), even when [the cluster](https://example.org/x) is busy. Ours.")
    shared = ["the", "quick", "serving", "engine", "answers", "every", "request", "on", "the",
              "first", "try", "even", "when", "the", "cluster", "is", "busy"]  # 8 runs of 10
    assert prose_runs.copied_runs(prose_runs.prose_words(ours), reference) == {
        " ".join(shared[i:i + 10]) for i in range(8)}
    nine = "The quick serving engine answers every request on the next line. Then ours."
    assert not prose_runs.copied_runs(prose_runs.prose_words(nine), reference)


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.relative_to(RECIPES).as_posix())
def test_each_guide_shares_no_ten_word_run(guide: object) -> None:
    assert hasattr(guide, "read_text")
    seq = prose_runs.prose_words(guide.read_text(encoding="utf-8"))  # type: ignore[attr-defined]
    copied = {source: sorted(prose_runs.copied_runs(seq, runs(source))) for source in SOURCES}
    assert not any(copied.values()), copied
