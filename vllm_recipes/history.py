"""When each file of the tree last changed, from the repository's own history.

One `git log` over the tree gives every file's newest commit date (the committer's, `YYYY-MM-DD`);
the sitemap dates a recipe's pages by it. Outside a git checkout (an unpacked source tarball)
the answer is empty and callers fall back to the recipe's own `date_updated`.

`changes` gives the commits themselves, file by file (the change feed's entries): each
commit's date and time, subject and hash, newest first, in the order `git log` gives them.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Change", "changes", "last_changed"]

_MARK = "@@date "


@dataclass(frozen=True)
class Change:
    """One commit's change to one file."""

    path: Path
    """The file, absolute."""
    date: str
    """The commit's committer date and time, ISO 8601 with its offset (RFC 3339)."""
    subject: str
    commit: str
    """The full hash."""


def changes(*folders: Path) -> list[Change]:
    """Every commit to every file under `folders` (of one checkout: the first folder's), file
    by file, newest commit first; empty outside a git checkout."""
    if not folders:
        return []
    try:
        top = subprocess.run(["git", "-C", str(folders[0]), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=30, check=True)
        base = Path(top.stdout.strip())
        log = subprocess.run(
            ["git", "-C", str(base), "-c", "core.quotepath=off", "log", "--no-renames",
             f"--format={_MARK}%H %cI %s", "--name-only", "--",
             *(str(f.resolve()) for f in folders)],
            capture_output=True, timeout=120, check=True)
    except (OSError, subprocess.SubprocessError):
        return []
    found: list[Change] = []
    commit = date = subject = ""
    for raw in log.stdout.decode("utf-8", "surrogateescape").splitlines():
        if raw.startswith(_MARK):
            commit, date, subject = [*raw[len(_MARK):].split(" ", 2), "", ""][:3]
        elif raw and commit:
            found.append(Change(base / raw, date, subject.strip(), commit))
    return found


def last_changed(*folders: Path) -> dict[Path, str]:
    """{absolute path: date (`YYYY-MM-DD`) of the newest commit that touched it} for the
    files under `folders` (of one checkout: the first folder's)."""
    dates: dict[Path, str] = {}
    for change in changes(*folders):  # newest first: the first date seen stays
        dates.setdefault(change.path, change.date[:10])
    return dates
