"""Hardware keys: how a key in a recipe (`all`, brand, generation, `arch:<arch>`, id) matches
hardware.

The most specific key wins: all < brand < generation < arch < exact id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

__all__ = [
    "ALL", "ARCH", "BRAND", "EVERY", "EXACT", "GENERATION", "matches", "matching", "most_specific",
    "names", "ranked", "specificity",
]

T = TypeVar("T")

EVERY, BRAND, GENERATION, ARCH, EXACT = -1, 0, 1, 2, 3
ALL = "all"
"""The key that names every hardware."""


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
    if key == ALL:
        return EVERY
    return None


def matches(key: str, hw_id: str, hw: Mapping[str, Any]) -> bool:
    return specificity(key, hw_id, hw) is not None


def names(hw_id: str, hw: Mapping[str, Any]) -> frozenset[str]:
    """Every key that names the hardware (`matches(key, …)` is `key in names(…)`)."""
    return frozenset((hw_id, "arch:" + hw["compute_arch"], hw["generation"], hw["brand"], ALL))


def matching(keys: list[str], hardware: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The hardware ids any of ``keys`` names, in catalog order."""
    return [hw_id for hw_id, hw in hardware.items() if any(matches(k, hw_id, hw) for k in keys)]


def ranked(
    mapping: Mapping[str, T], hw_id: str, hw: Mapping[str, Any]
) -> list[tuple[int, str, T]]:
    """(rank, key, value) of the entries of ``mapping`` whose key names the hardware, least
    specific first."""
    found = []
    for key, value in mapping.items():
        rank = specificity(key, hw_id, hw)
        if rank is not None:
            found.append((rank, key, value))
    found.sort(key=lambda entry: entry[0])
    return found


def most_specific(mapping: Mapping[str, T], hw_id: str, hw: Mapping[str, Any]) -> T | None:
    """The value of the most specific key of ``mapping`` that names the hardware (the last
    one `ranked` lists), in one pass (`specificity` inlined: this runs for every option of
    every pill row)."""
    if not mapping:
        return None
    arch, generation, brand = "arch:" + hw["compute_arch"], hw["generation"], hw["brand"]
    best, found = EVERY - 1, None
    for key, value in mapping.items():
        if key == hw_id:
            return value  # nothing is more specific, and a mapping holds a key once
        if key == arch:
            rank = ARCH
        elif key == generation:
            rank = GENERATION
        elif key == brand:
            rank = BRAND
        elif key == ALL:
            rank = EVERY
        else:
            continue
        if rank >= best:
            best, found = rank, value
    return found
