"""When each file of the tree last changed, from the repository's own history.

One `git log` over the tree gives every file's newest commit date (the committer's, `YYYY-MM-DD`);
the sitemap dates a recipe's pages by it. Outside a git checkout (an unpacked source tarball)
the answer is empty and callers fall back to the recipe's own `date_updated`.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["last_changed"]

_MARK = "@@date "


def last_changed(*folders: Path) -> dict[Path, str]:
    """{absolute path: date of the newest commit that touched it} for the files under
    `folders` (of one checkout: the first folder's)."""
    if not folders:
        return {}
    try:
        top = subprocess.run(["git", "-C", str(folders[0]), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=30, check=True)
        base = Path(top.stdout.strip())
        log = subprocess.run(
            ["git", "-C", str(base), "-c", "core.quotepath=off", "log", "--no-renames",
             f"--format={_MARK}%cs", "--name-only", "--", *(str(f.resolve()) for f in folders)],
            capture_output=True, timeout=120, check=True)
    except (OSError, subprocess.SubprocessError):
        return {}
    dates: dict[Path, str] = {}
    date = ""
    for raw in log.stdout.decode("utf-8", "surrogateescape").splitlines():
        if raw.startswith(_MARK):
            date = raw[len(_MARK):].strip()
        elif raw and date:
            dates.setdefault(base / raw, date)  # newest first: the first date seen stays
    return dates
