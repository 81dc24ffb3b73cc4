"""The one error the builder raises for a selection it cannot honour, and how its messages
quote what they were given (the page, the JSON and the CLI show them)."""

from __future__ import annotations

__all__ = ["ITEM_MAX", "NOTICE_ITEMS", "QUOTE_MAX", "SelectionError", "cut", "dropped_item",
           "dropped_list", "printable", "quoted", "shown"]

QUOTE_MAX = 60
"""A message quotes at most this many characters of a key or value it was given."""


def cut(text: str, limit: int = QUOTE_MAX) -> str:
    """`text`, cut to `limit` characters (the last one an ellipsis) when longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def printable(text: str) -> str:
    """`text` with each character that does not print (a NUL, a line break, a bidi control)
    written as its escape (`\\x00`), as `repr` writes it: what a page or a terminal can show."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


NOTICE_ITEMS = 5
"""A page's notice lists at most this many dropped URL keys, then says how many more."""
ITEM_MAX = 300
"""The longest one item of a notice may be (its key and value are cut at QUOTE_MAX)."""


def dropped_item(key: str, value: str, reason: str) -> str:
    """One item of a page's notice, a URL key dropped with its reason (`key=value (why)`):
    printable, the key and value cut at QUOTE_MAX, also where the reason repeats them; the
    item cut at ITEM_MAX. Every widget's notice is made of these (a URL is anyone's text)."""
    for long in (key, value):
        if len(long) > QUOTE_MAX:
            reason = reason.replace(repr(long), quoted(long)).replace(long, cut(long))
    return cut(f"{shown(key)}={shown(value)} ({printable(reason)})", ITEM_MAX)


def dropped_list(items: list[str]) -> str:
    """The items of a notice: at most NOTICE_ITEMS of them, then how many more there were."""
    more = len(items) - NOTICE_ITEMS
    return "; ".join(items[:NOTICE_ITEMS]) + (f"; and {more} more" if more > 0 else "")


def shown(text: str, limit: int = QUOTE_MAX) -> str:
    """A given key or value in a message, unquoted: printable and cut to `limit`."""
    return cut(printable(text), limit)


def quoted(text: str, limit: int = QUOTE_MAX) -> str:
    """`repr` of `text` cut to `limit` characters: how a message names a value it was given."""
    return repr(cut(text, limit))


class SelectionError(ValueError):
    """A selection key has a value that is unknown or cannot be picked now.

    ``key`` is the selection key to blame (``hardware``, ``spec_decoding``, ...) and
    ``reason`` a sentence for a person: the CLI prints it, the page shows it as a tooltip.
    The message quotes at most QUOTE_MAX characters of the key.
    """

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{shown(key)}: {reason}")
        self.key = key
        self.reason = reason

    def __reduce__(self) -> tuple[type[SelectionError], tuple[str, str]]:
        """Picklable (a build's worker processes hand it back to the build)."""
        return (SelectionError, (self.key, self.reason))
