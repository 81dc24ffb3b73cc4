"""The one error the builder raises for a selection it cannot honour."""

from __future__ import annotations

__all__ = ["SelectionError"]


class SelectionError(ValueError):
    """A selection key has a value that is unknown or cannot be picked now.

    ``key`` is the selection key to blame (``hardware``, ``spec_decoding``, ...) and
    ``reason`` a sentence for a person: the CLI prints it, the page shows it as a tooltip.
    """

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key
        self.reason = reason
