"""The answers about GPU counts a recipe's resolution asks (`CountAnswers`, a base of
`answers.Answers`): the count a count-qualified key of a hardware list (`rtx_5090@2`) makes a
variant's default, and why a variant is not offered at a count, each kept in the recipe's
`Memo`."""

from __future__ import annotations

from collections.abc import Mapping

from ..types import Data
from .memo import Memo, kept
from .offering import count_reason, gpu_counts
from .query import GPUS

__all__ = ["CountAnswers"]


class CountAnswers:
    """Count answers over the recipe's kept `memo` (set up by `answers.Answers`)."""

    catalog: Data
    recipe: Data
    memo: Memo
    counted_ids: frozenset[str]
    """The hardware ids a hardware list names at a GPU count (`offering.gpu_counts`)."""

    def pinned_gpus(self, variant_id: str, hw_id: str) -> str | None:
        """The GPU count a count-qualified key of a hardware list makes the variant's default
        on `hw_id` (`offering.gpu_counts`); None: the usual sizing."""
        if hw_id not in self.counted_ids:
            return None
        _, default = self._gpu_counts(variant_id, hw_id)
        return None if default is None else str(default)

    def _gpu_counts(self, variant_id: str, hw_id: str
                    ) -> tuple[frozenset[int] | None, int | None]:
        return kept(self.memo, ("gpu_counts", variant_id, hw_id), gpu_counts, self.recipe,
                    variant_id, hw_id, self.catalog["hardware"][hw_id])

    def count_reason(self, variant_id: str, hw_id: str, gpus: str) -> str | None:
        """`offering.count_reason`: why the variant is not offered at `gpus` GPUs here."""
        if hw_id not in self.counted_ids:
            return None
        allowed, _ = self._gpu_counts(variant_id, hw_id)
        return kept(self.memo, ("count", variant_id, hw_id, gpus), count_reason, self.catalog,
                    self.recipe, variant_id, hw_id, int(gpus), allowed)

    def counted(self, explicit: Mapping[str, str], sel: Mapping[str, str]
                ) -> Mapping[str, str]:
        """`explicit` with the GPU count the hardware stage's hardware and variant default to
        (`pinned_gpus`) when it asks for none: the later stages size for it."""
        if GPUS in explicit:
            return explicit
        pinned = self.pinned_gpus(sel["variant"], sel["hardware"])
        return explicit if pinned is None else {**explicit, GPUS: pinned}
