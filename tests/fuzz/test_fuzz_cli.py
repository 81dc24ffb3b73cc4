"""Fuzz (issue 24, point 9): command-line garbage. Every run exits 0, 1 or 2, never with a
traceback; a usage error (exit 2) is one line of at most 2 KB on standard error. Seeded and
bounded: `RUNS` command lines per seed, in this process, against the real tree (and, for the
subcommands that write or read other paths, throwaway ones)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from builder.vocabulary import SELECTION_KEYS
from tests.fuzz.hostile import ERROR_MAX, builder, cli, junk, model_ids, one_tree_key
from tests.recipes_data import RECIPES

RUNS = 300
FAILED: list[int] = []
"""Seeds that once failed (kept as cases of their own)."""
OPTIONS = ("--json", "--explain", "--list", "--dynamo", "--help", "-h", "--bogus", "--",
           "-", "--json=1", "--recipes")


def _model(rng: random.Random, ids: list[str]) -> str:
    model = rng.choice(ids)
    roll = rng.random()
    if roll < 0.15:
        return model.lower()
    if roll < 0.25:
        return model + rng.choice(("x", "/x", "-NVFP4", " ", "\x00"))
    if roll < 0.35:
        return junk(rng)
    return model


def _pair(rng: random.Random, hf_id: str) -> str:
    choices = builder(hf_id).choices
    roll = rng.random()
    if roll < 0.5:
        key = rng.choice(list(choices))
        return f"{key}={rng.choice(choices[key])}"
    if roll < 0.7:
        return f"{rng.choice((*SELECTION_KEYS, *choices))}={junk(rng)}"
    if roll < 0.8:
        return junk(rng)
    return f"{junk(rng)}={junk(rng)}"


def command_line(rng: random.Random, scratch: Path) -> list[str]:
    """A hostile `vllm-recipes` argv (`scratch`: a throwaway tree for `port` to write into)."""
    pages = model_ids()
    ids = [m for m, _, _ in pages]
    model, hf_id, _ = rng.choice(pages)
    model = _model(rng, ids) if rng.random() < 0.5 else model
    pairs = [_pair(rng, hf_id) for _ in range(rng.choice((0, 1, 2, 3, 5)))]
    extra = [rng.choice(OPTIONS) for _ in range(rng.choice((0, 0, 1, 2)))]
    roll = rng.random()
    if roll < 0.55:
        argv = [model, *pairs, *extra]
    elif roll < 0.7:
        command = junk(rng) if rng.random() < 0.3 else f"vllm serve {model} {junk(rng)}"
        argv = ["diff", model, *pairs, "--command", command, *extra[:1]]
    elif roll < 0.8:
        argv = ["check", rng.choice((str(scratch / "missing"), junk(rng) or "x",
                                     str(scratch)))]
    elif roll < 0.88:
        public = scratch / "public.yaml"
        public.write_text(rng.choice((
            "", "meta: {}\n", f"meta: {{title: x}}\nmodel: {{model_id: {junk(rng)!r}}}\n",
            "a: [\n", "\x00\x01", "model: 3\n")), encoding="utf-8", errors="replace")
        argv = ["port", str(public), "--recipes", str(scratch)]
    elif roll < 0.94:
        argv = ["upstream", rng.choice((str(scratch), junk(rng) or "x")), *extra[:1]]
    else:
        argv = [rng.choice(("schema", "--list", "--dynamo", "--help")), *extra]
    return argv


@pytest.fixture(autouse=True, scope="module")
def _tree_key() -> object:
    with one_tree_key():
        yield


@pytest.mark.parametrize("seed", [*FAILED, 240])
def test_command_line_garbage_exits_cleanly(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    scratch = tmp_path / "tree"
    scratch.mkdir()
    shutil.copy(RECIPES / "hardware.yaml", scratch / "hardware.yaml")
    failures = []
    codes = {0: 0, 1: 0, 2: 0}
    for case in range(RUNS):
        argv = command_line(rng, scratch)
        run = cli(*argv)
        shown = f"case {case}: vllm-recipes {' '.join(argv)!r:.200}"
        if "Traceback" in run.err or run.code not in codes:
            failures.append(f"{shown}: exit {run.code}: {run.err.strip()[-300:]}")
            continue
        codes[run.code] += 1
        if run.code == 2 and (len(run.err.strip().splitlines()) != 1
                              or len(run.err.encode()) > ERROR_MAX):
            failures.append(f"{shown}: a usage error of {len(run.err.splitlines())} lines, "
                            f"{len(run.err)} characters")
    assert not failures, "\n".join(failures[:20])
    assert codes[0] and codes[2], codes  # both answers and refusals were exercised
    assert not (scratch / "models").exists() or all(
        p.suffix in (".yaml", ".md") for p in (scratch / "models").rglob("*") if p.is_file())
