"""The problems one recipe's checks find, in the order they find them.

A problem in the recipe's YAML is placed by its field path (the file's line comes from the
path); a problem in its guide names the guide's display path and a line of its own.
"""

from __future__ import annotations

from typing import Any

from .yaml_source import Located, YamlFile

__all__ = ["Problems"]


class Problems:
    """Collects the problems of one recipe and its guide."""

    def __init__(self, source: YamlFile, guide_display: str) -> None:
        self.source = source
        self.guide_display = guide_display
        self.found: list[Located] = []

    def add(self, loc: tuple[Any, ...] | str, message: str) -> None:
        """A problem at `loc`, a field path of the recipe's YAML."""
        self.found.append(self.source.problem(loc, message))

    def in_guide(self, line: int | None, loc: str, message: str) -> None:
        """A problem of the guide (its hardware notes included), at `line` when known."""
        self.found.append(Located(self.guide_display, line, loc, message))
