"""Golden files: the exact copy-all text of a rendering, checked by a person against
`../shared/reference/` before it was committed.

A golden test fails on any change. To accept a deliberate change, regenerate with
`UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_pd.py ...`, then read the diff against the
reference documents again before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["assert_golden"]

GOLDEN = Path(__file__).resolve().parent


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"{path.name} is missing: run with UPDATE_GOLDEN=1 and check it by eye"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{path.name} changed; if deliberate, UPDATE_GOLDEN=1 and re-check"
