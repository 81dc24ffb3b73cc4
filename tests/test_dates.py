"""A recipe's `meta.date_added` is a model's date, cited on its line (issues 35.3 and 36.3).

- A recipe ported from the public catalogue (github.com/vllm-project/recipes, `upstream:`)
  carries the date the model joined that catalogue: its public file's `meta.date_added` (or, when
  the file gives none, the date of the commit that added it). The public files are not part of
  this repository: `tests/data/public-catalogue-dates.tsv` holds their dates as read (path, commit
  read, date, where the date is), so the check runs on a fresh clone.
- Any other recipe carries the model's release date, cited with `# release: <source>`.

The page's "Newest" order and "New" badge read `date_added` (site_plugins/recipes/browse.py), so
a port date here would show an old model as the newest (BAAI/bge-m3 did, dated 2026-12-01).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
import yaml

from tests.recipes_data import ROOT

MODELS = ROOT / "recipes" / "models"
DATES = ROOT / "tests" / "data" / "public-catalogue-dates.tsv"
LINE = re.compile(r"^  date_added: (?P<date>\S+?)(?:\s+#\s*(?P<note>.*))?$", re.M)
RECIPES = sorted(MODELS.glob("*/*.yaml"))


@cache
def public_dates() -> dict[str, tuple[str, str, str]]:
    """Public path → (commit read, date, where the date is)."""
    rows: dict[str, tuple[str, str, str]] = {}
    for line in DATES.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        path, commit, date, how = line.split("\t")
        assert path not in rows, f"{path} twice in {DATES.name}"
        rows[path] = (commit, date, how)
    return rows


def date_line(path: Path) -> tuple[str, str]:
    """The recipe's `date_added` value (as written) and the comment on its line."""
    found = LINE.search(path.read_text(encoding="utf-8"))
    assert found, f"{path}: no `  date_added:` line under meta"
    return found["date"].strip("'\""), (found["note"] or "").strip()


def recipe_id(path: Path) -> str:
    return path.relative_to(MODELS).with_suffix("").as_posix()


@pytest.mark.parametrize("path", RECIPES, ids=recipe_id)
def test_date_added_is_the_public_date_or_the_release_cited(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    date, note = date_line(path)
    assert date == str(data["meta"]["date_added"])
    upstream = data.get("upstream")
    if upstream is None:
        assert note.startswith("release: "), (
            f"{path.name}: a recipe beyond the public catalogue cites the model's release "
            f"(`# release: <source>`), got {note!r}")
        assert len(note) > len("release: ") + 10, f"{path.name}: the release needs a source"
        return
    public_path = upstream["path"]
    assert public_path in public_dates(), (
        f"{path.name}: no public date for {public_path} in {DATES.name}: read it from the public "
        "file (meta.date_added) and add a row")
    commit, public, how = public_dates()[public_path]
    assert date == public, (
        f"{path.name}: date_added {date} is not the public catalogue's {public} "
        f"({public_path}@{commit[:7]}, {how})")
    assert note.startswith(f"public catalogue: {public_path}"), (
        f"{path.name}: cite the public file on the date_added line, got {note!r}")
    assert commit[:7] in note, f"{path.name}: the citation names the commit read ({commit[:7]})"


def test_the_dates_of_the_issues_reproductions() -> None:
    """Issue 35: two MiMo-V2.6 recipes carried our port date where the public says 2026-09-22;
    issue 36: BAAI/bge-m3 (released 2024-01-30) showed as the newest model, dated by our port."""
    for name in ("MiMo-V2.6-Pro-RL", "MiMo-V2.6-Flash-RL"):
        assert date_line(MODELS / "XiaomiMiMo" / f"{name}.yaml")[0] == "2026-09-22"
    newest = max(RECIPES, key=lambda p: (date_line(p)[0], recipe_id(p)))
    assert recipe_id(newest) != "BAAI/bge-m3"
    assert date_line(MODELS / "BAAI" / "bge-m3.yaml")[0] == "2024-01-30"

