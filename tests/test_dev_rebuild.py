"""`make dev` (`mkdocs serve --dirty`) keeps work between builds (site_plugins/recipes/memo.py):
validated recipes, rendered outputs, staged files, compiled templates. After an edit of one
recipe, the rebuilt site must be what a clean build of the edited tree gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.bench_build import subset_tree
from tests.recipes_data import ROOT
from tests.sitebuild import build

pytestmark = pytest.mark.site

EDITED = "deepseek-ai/DeepSeek-V4-Flash"
OTHER = "meta-llama/Llama-3.1-8B-Instruct"

# Two builds in one process with one plugin instance, as `mkdocs serve --dirty` runs them.
SERVE_TWICE = r"""
import os, sys
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config

def main():
    site, recipe = sys.argv[1], Path(sys.argv[2])
    first = load_config("mkdocs.yml", site_dir=site)
    first.plugins.on_startup(command="serve", dirty=True)
    build(first, dirty=True)
    text = recipe.read_text().replace("--block-size: 256}", "--block-size: 128}", 1)
    edited = text.replace("  description: >-", "  description: >-\n    Edited card text.", 1)
    recipe.write_text(edited)
    again = load_config("mkdocs.yml", site_dir=site)
    again.plugins = first.plugins
    build(again, dirty=True)
    first.plugins.on_shutdown()

if __name__ == "__main__":
    main()
"""


def _json(site: Path, hf_id: str) -> dict:
    return json.loads((site / f"{hf_id}.json").read_text(encoding="utf-8"))


def test_a_dirty_rebuild_after_an_edit_matches_a_clean_build(tmp_path: Path) -> None:
    # Three builds: a tree of two providers' recipes keeps them short (the whole catalogue
    # took 90 s here); the memo's rules do not depend on how many recipes there are.
    tree = tmp_path / "recipes"
    tree.mkdir()
    assert subset_tree(tree, {"deepseek-ai", "meta-llama"}) > 10
    recipe = tree / "models" / f"{EDITED}.yaml"
    assert "--block-size: 256}" in recipe.read_text(encoding="utf-8")
    script = tmp_path / "serve_twice.py"
    script.write_text(SERVE_TWICE, encoding="utf-8")
    served = tmp_path / "served"
    run = subprocess.run(
        [sys.executable, str(script), str(served), str(recipe)], cwd=ROOT, text=True,
        capture_output=True, check=False,
        env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1", "RECIPES_DIR": str(tree)})
    assert run.returncode == 0, run.stderr[-3000:]
    clean = tmp_path / "clean"
    assert build(clean, RECIPES_DIR=str(tree)).returncode == 0
    # The edit reached the rebuilt site ...
    edited = _json(served, EDITED)["recommended_command"]["argv"]
    assert edited[edited.index("--block-size") + 1] == "128"
    # ... and every generated JSON file and Markdown twin is what a clean build writes.
    names = sorted(p.relative_to(clean) for p in clean.rglob("*")
                   if p.suffix in {".json", ".md", ".txt"} and p.parts[-2:][0] != "search")
    assert len(names) > 300
    differ = [str(n) for n in names
              if (served / n).read_bytes() != (clean / n).read_bytes()]
    assert not differ, differ[:10]
    # The home page's card shows the edited description.
    home = (served / "index.html").read_text(encoding="utf-8")
    assert "Edited card text." in home
    assert home == (clean / "index.html").read_text(encoding="utf-8")
    # The model pages' commands too (their HTML carries the prerendered widget).
    for hf_id in (EDITED, OTHER):
        ours = (served / hf_id / "index.html").read_text(encoding="utf-8")
        theirs = (clean / hf_id / "index.html").read_text(encoding="utf-8")
        assert ours.count("--block-size") == theirs.count("--block-size")
        assert ("--block-size 128" in ours) == ("--block-size 128" in theirs)
