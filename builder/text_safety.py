"""Text from outside (a recipe, a server, a tool's output, a file name) made safe to show.

`printable(text, limit)` is what a terminal line or a page notice may carry of such text:
every character that does not print is written as its escape, as `repr` writes it (`\\x1b`
for ESC, `\\n`, `\\u202e` for a bidi override, `\\u200b` for a zero-width space, `\\udcff` for a
byte a file name could not decode), so no escape sequence reaches the terminal, no line is
forged and no text is reordered or hidden; then the result is cut to `limit` characters, the
last one an ellipsis. Only the first `limit` characters are looked at: a huge value costs no
more than a short one.
"""

from __future__ import annotations

from .errors import cut
from .errors import printable as escaped

__all__ = ["printable", "unprintable_ranges"]


def printable(text: str, limit: int) -> str:
    """`text` with control, format (bidi, zero-width), separator and unassigned characters
    escaped (`errors.printable`), at most `limit` characters long (`errors.cut`; see the
    module docstring)."""
    if limit <= 0:
        return ""
    shown = escaped(text[:limit + 1])
    return shown if len(shown) <= limit and len(text) <= limit else cut(shown, limit)


def unprintable_ranges() -> list[tuple[int, int]]:
    """The code points `printable` escapes, as (first, last) ranges in order: what a page
    that repeats outside text without Python applies (the home page's notice, by the module
    `site_plugins.recipes.printable_js` makes from these)."""
    ranges: list[tuple[int, int]] = []
    start = -1
    for code in range(0x110000):
        if not chr(code).isprintable():
            if start < 0:
                start = code
        elif start >= 0:
            ranges.append((start, code - 1))
            start = -1
    if start >= 0:
        ranges.append((start, 0x10FFFF))
    return ranges
