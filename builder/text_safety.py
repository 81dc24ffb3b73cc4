"""Outside text made safe to show: `printable(text, limit)` drops control characters (C0, DEL,
C1) and the invisible ones that reorder or hide text (bidi controls, zero-width characters,
line and paragraph separators), and cuts what is left at `limit` characters, ending with "…".
"""

from __future__ import annotations

import re

__all__ = ["printable"]

_UNSHOWABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]+")


def printable(text: str, limit: int) -> str:
    """`text` without control, bidi or zero-width characters, at most `limit` characters."""
    text = _UNSHOWABLE.sub("", text)
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
