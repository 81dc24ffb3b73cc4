"""An environment (name → value) that remembers who set each variable, like `ArgList` does for
options: a variable set again keeps its first position and takes the later value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from .types import EnvSource, Origin

__all__ = ["EnvMap"]


class EnvMap:
    def __init__(self) -> None:
        self._vars: dict[str, tuple[str, Origin, list[dict[str, str]]]] = {}

    def set(self, name: str, value: str, origin: Origin) -> None:
        old = self._vars.get(name)
        # An Origin's values are strings; a checker reads `**origin` as objects.
        replaced = [] if old is None else [*old[2], {"value": old[0],
                                                     **cast("dict[str, str]", old[1])}]
        self._vars[name] = (value, origin, replaced)

    def update(self, mapping: Mapping[str, str], origin: Origin) -> None:
        for name, value in mapping.items():
            self.set(name, value, origin)

    def merge(self, other: EnvMap) -> None:
        """Set every variable of `other`, with its origin."""
        for name, (value, origin, _) in other._vars.items():
            self.set(name, value, origin)

    def __contains__(self, name: str) -> bool:
        return name in self._vars

    def copy(self) -> EnvMap:
        other = EnvMap()
        other._vars = {k: (v, o, list(r)) for k, (v, o, r) in self._vars.items()}
        return other

    def values(self) -> dict[str, str]:
        return {name: entry[0] for name, entry in self._vars.items()}

    def sources(self) -> dict[str, EnvSource]:
        return {
            name: {"value": value, **origin, "replaced": replaced}
            for name, (value, origin, replaced) in self._vars.items()
        }
