"""One way to keep answers: `Memo`, a dict of answers by key, where None is an answer too.
The resolver keeps every query-independent answer of a recipe in one (`resolver.py`)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["MISS", "Memo"]

T = TypeVar("T")
MISS = object()
"""A memo's miss (None is a kept answer: no reason)."""


class Memo(dict[Hashable, Any]):
    """Answers by key: `memo(key, compute, *args)` is `compute(*args)`, worked out the first
    time `key` is asked and kept. A key starts with the name of what it answers, so one memo
    holds every kind of answer. The lookups a page render makes thousands of times read it
    as the dict it is, in the same style, so their arguments are worked out on a miss only:

        found = memo.get(key, MISS)
        if found is MISS:
            found = memo[key] = compute(...)
    """

    def __call__(self, key: Hashable, compute: Callable[..., T], *args: Any) -> T:
        found = self.get(key, MISS)
        if found is MISS:
            found = self[key] = compute(*args)
        return found
