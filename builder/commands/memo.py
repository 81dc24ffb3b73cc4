"""One way to keep answers: `Memo`, a dict of answers by key, where None is an answer too.
The resolver keeps every query-independent answer of a recipe in one (`resolver.py`)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["Memo"]

T = TypeVar("T")
_MISS = object()


class Memo:
    """Answers by key: `memo(key, compute, *args)` is `compute(*args)`, worked out the first
    time `key` is asked and kept. A key starts with the name of what it answers, so one memo
    holds every kind of answer."""

    def __init__(self) -> None:
        self._kept: dict[Hashable, Any] = {}

    def __call__(self, key: Hashable, compute: Callable[..., T], *args: Any) -> T:
        found = self._kept.get(key, _MISS)
        if found is _MISS:
            found = self._kept[key] = compute(*args)
        return found

    def __len__(self) -> int:
        return len(self._kept)
