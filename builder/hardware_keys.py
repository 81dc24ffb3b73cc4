"""Hardware keys: how a key in a recipe (brand, generation, `arch:<arch>`, id) matches hardware.

The most specific key wins: brand < generation < arch < exact id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

__all__ = [
    "ARCH", "BRAND", "EXACT", "GENERATION", "matches", "most_specific", "ranked", "specificity",
]

T = TypeVar("T")

BRAND, GENERATION, ARCH, EXACT = 0, 1, 2, 3


def specificity(key: str, hw_id: str, hw: Mapping[str, Any]) -> int | None:
    """How specifically ``key`` names hardware ``hw_id``; None when it does not name it."""
    if key == hw_id:
        return EXACT
    if key == "arch:" + hw["compute_arch"]:
        return ARCH
    if key == hw["generation"]:
        return GENERATION
    if key == hw["brand"]:
        return BRAND
    return None


def matches(key: str, hw_id: str, hw: Mapping[str, Any]) -> bool:
    return specificity(key, hw_id, hw) is not None


def ranked(mapping: Mapping[str, T], hw_id: str, hw: Mapping[str, Any]) -> list[tuple[int, T]]:
    """The entries of ``mapping`` whose key names the hardware, least specific first."""
    found = []
    for key, value in mapping.items():
        rank = specificity(key, hw_id, hw)
        if rank is not None:
            found.append((rank, value))
    found.sort(key=lambda pair: pair[0])
    return found


def most_specific(mapping: Mapping[str, T], hw_id: str, hw: Mapping[str, Any]) -> T | None:
    entries = ranked(mapping, hw_id, hw)
    return entries[-1][1] if entries else None
