"""Hardware keys: how a key in a recipe (`all`, brand, generation, `arch:<arch>`, id, or an
id with a GPU count, `rtx_5090@2`) matches hardware.

The most specific key wins: all < brand < generation < arch < exact id < id@count. A
count-qualified key names its GPU only while the selection's GPU count (`gpus`) is that count:
the matching functions take the count (`gpus`, None when there is none yet) and never match
`id@N` without it. In a hardware *list* (a variant's `hardware`, `verified`), `id@N` offers
the GPU at that count (`builder.commands.offering`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

__all__ = [
    "ALL", "ARCH", "BRAND", "COUNT", "COUNT_MARK", "EVERY", "EXACT", "GENERATION", "counted",
    "matches", "matching", "most_specific", "names", "ranked", "specificity", "split_count",
]

T = TypeVar("T")

EVERY, BRAND, GENERATION, ARCH, EXACT, COUNT = -1, 0, 1, 2, 3, 4
ALL = "all"
"""The key that names every hardware."""
COUNT_MARK = "@"
"""Joins a hardware id and a GPU count in a key (`rtx_5090@2`)."""


def counted(hw_id: str, gpus: int) -> str:
    """The key naming `gpus` GPUs of `hw_id` (`rtx_5090@2`)."""
    return f"{hw_id}{COUNT_MARK}{gpus}"


def split_count(key: str) -> tuple[str, str | None]:
    """(`hw_id`, the count as written) of a count-qualified key; (key, None) for the others."""
    base, mark, count = key.partition(COUNT_MARK)
    return (base, count) if mark else (key, None)


def specificity(key: str, hw_id: str, hw: Mapping[str, Any], gpus: int | None = None
                ) -> int | None:
    """How specifically ``key`` names hardware ``hw_id`` at ``gpus`` GPUs; None when it does
    not name it."""
    return _rank(key, hw_id, "arch:" + hw["compute_arch"], hw["generation"], hw["brand"], gpus)


def _rank(key: str, hw_id: str, arch: str, generation: str, brand: str, gpus: int | None
          ) -> int | None:
    """`specificity`, given the hardware's `arch:` key, generation and brand."""
    if key == hw_id:
        return EXACT
    if key == arch:
        return ARCH
    if key == generation:
        return GENERATION
    if key == brand:
        return BRAND
    if key == ALL:
        return EVERY
    if gpus is not None and COUNT_MARK in key and key == counted(hw_id, gpus):
        return COUNT
    return None


def matches(key: str, hw_id: str, hw: Mapping[str, Any], gpus: int | None = None) -> bool:
    return specificity(key, hw_id, hw, gpus) is not None


def names(hw_id: str, hw: Mapping[str, Any], gpus: int | None = None) -> frozenset[str]:
    """Every key that names the hardware (`matches(key, …)` is `key in names(…)`)."""
    found = (hw_id, "arch:" + hw["compute_arch"], hw["generation"], hw["brand"], ALL)
    return frozenset(found if gpus is None else (*found, counted(hw_id, gpus)))


def matching(keys: list[str], hardware: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The hardware ids any of ``keys`` names, in catalog order (a count-qualified key names
    its GPU, at some count)."""
    keys = [split_count(k)[0] for k in keys]
    return [hw_id for hw_id, hw in hardware.items() if any(matches(k, hw_id, hw) for k in keys)]


def ranked(
    mapping: Mapping[str, T], hw_id: str, hw: Mapping[str, Any], gpus: int | None = None
) -> list[tuple[int, str, T]]:
    """(rank, key, value) of the entries of ``mapping`` whose key names the hardware at
    ``gpus`` GPUs, least specific first."""
    arch, generation, brand = "arch:" + hw["compute_arch"], hw["generation"], hw["brand"]
    found = []
    for key, value in mapping.items():
        rank = _rank(key, hw_id, arch, generation, brand, gpus)
        if rank is not None:
            found.append((rank, key, value))
    found.sort(key=lambda entry: entry[0])
    return found


def most_specific(mapping: Mapping[str, T], hw_id: str, hw: Mapping[str, Any],
                  gpus: int | None = None) -> T | None:
    """The value of the most specific key of ``mapping`` that names the hardware at ``gpus``
    GPUs (the last one `ranked` lists), in one pass (`specificity` inlined: this runs for
    every option of every pill row)."""
    if not mapping:
        return None
    arch, generation, brand = "arch:" + hw["compute_arch"], hw["generation"], hw["brand"]
    best, found = EVERY - 1, None
    for key, value in mapping.items():
        if key == hw_id:
            if gpus is None:
                return value  # nothing else is more specific, and a mapping holds a key once
            best, found = EXACT, value  # only the id at this count is more specific
            continue
        if key == arch:
            rank = ARCH
        elif key == generation:
            rank = GENERATION
        elif key == brand:
            rank = BRAND
        elif key == ALL:
            rank = EVERY
        elif gpus is not None and COUNT_MARK in key:
            if key == counted(hw_id, gpus):
                return value
            continue
        else:
            continue
        if rank >= best:
            best, found = rank, value
    return found
