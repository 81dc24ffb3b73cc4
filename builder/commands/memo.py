"""One way to keep answers: a `Memo` is a plain dict of answers by key, where None is an
answer too; a key starts with the name of what it answers, so one memo holds every kind of
answer. The resolver keeps every query-independent answer of a recipe in one (`resolver.py`).

Every lookup has the same shape, its arguments worked out on a miss only:

    found = memo.get(key, MISS)
    if found is MISS:
        found = memo[key] = compute(...)

`kept(memo, key, compute, *args)` is that shape as a call, for the lookups that are not hot.
(A plain dict, not a subclass: a subclass's `get` is measurably slower on the hot lookups.)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

__all__ = ["MISS", "Memo", "kept"]

T = TypeVar("T")
Memo = dict[Hashable, Any]
MISS = object()
"""A memo's miss (None is a kept answer: no reason)."""


def kept(memo: Memo, key: Hashable, compute: Callable[..., T], *args: Any) -> T:
    """`compute(*args)`, worked out the first time `key` is asked of `memo` and kept."""
    found = memo.get(key, MISS)
    if found is MISS:
        found = memo[key] = compute(*args)
    return found
