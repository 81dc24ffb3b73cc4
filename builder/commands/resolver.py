"""One recipe's resolution: the `Resolver` runs the stages of `stages.py` in order and keeps,
in one `Memo`, every answer that does not depend on the query (`answers.Answers`: each
variant's and strategy's reason per hardware, the hardware each variant runs on, ...; and
here the *prefix* of a resolution per explicit value of its keys), so the many queries of
one page render reuse them.

Flow: `run(explicit)` = `prefix(explicit)` (the hardware, strategy, task and GPUs stages,
kept per explicit hardware, variant, GPUs, strategy and task; after the hardware stage, a
GPU count the hardware list pins, `Answers.counted`, reads as asked for) + the later stages
(`LATER`), each filling `sel` or raising the SelectionError the page shows. `prefix_reason` is why a
prefix fails, without the GPUs stage when no GPUs are asked for (it cannot fail then);
`later_fails` runs the later stages on a kept prefix; both for the unavailable pass
(`unavailable.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import SelectionError
from .answers import Answers
from .kv_offload import KV_OFFLOAD
from .memo import MISS, kept
from .omni_tasks import TASK
from .pd import PD_CONNECTOR
from .query import GPUS, PROFILE
from .stages import CHOSEN, LATER, STAGES

__all__ = ["Resolver"]


class Resolver(Answers):
    """One recipe's resolution (see the module docstring). The catalog and recipe must not
    change while it is in use."""

    # ------------------------------------------------------------ resolution

    def prefix(self, explicit: Mapping[str, str]) -> dict[str, str]:
        """The hardware, variant, strategy, task and GPUs `explicit` resolves to (a new
        dict), or SelectionError. Kept in three steps: the hardware stage per explicit
        hardware, variant and GPUs; the strategy and task stages per explicit value of those
        and the strategy and task; the GPUs stage on top."""
        sel, error = self._kept_prefix(explicit)
        if error is not None:
            raise SelectionError(error.key, error.reason)
        return dict(sel)

    def _kept_prefix(self, explicit: Mapping[str, str]
                     ) -> tuple[dict[str, str], SelectionError | None]:
        get = explicit.get
        key = ("prefix", get("hardware"), get("variant"), get(GPUS), get("strategy"), get(TASK))
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = self._prefix(explicit, key[1:])
        return found

    def prefix_reason(self, explicit: Mapping[str, str]) -> str | None:
        """Why `prefix(explicit)` fails (None when it resolves). The GPUs stage fails only
        on GPUs asked for, so without them it is not run (the availability pass asks this
        of every hardware, variant, strategy and task)."""
        get = explicit.get
        _, error = (self._kept_prefix(explicit) if GPUS in explicit else self._chosen(
            explicit, (get("hardware"), get("variant"), None, get("strategy"), get(TASK))))
        return error.reason if error is not None else None

    def _prefix(self, explicit: Mapping[str, str], key: tuple[str | None, ...]
                ) -> tuple[dict[str, str], SelectionError | None]:
        sel, error = self._chosen(explicit, key)
        if error is not None:
            return sel, error
        return self._run_stages(self.counted(explicit, sel), dict(sel), None,
                                STAGES[CHOSEN:LATER])

    def _chosen(self, explicit: Mapping[str, str], key: tuple[str | None, ...]
                ) -> tuple[dict[str, str], SelectionError | None]:
        """The stages before the GPUs stage, kept per `key` (the explicit hardware, variant,
        GPUs, strategy and task)."""
        found = self.memo.get(("chosen", *key), MISS)
        if found is MISS:
            sel, error = kept(self.memo, ("hardware_stage", *key[:3]), self._run_stages,
                              explicit, {}, None, STAGES[:1])
            if error is None:
                sel, error = self._run_stages(self.counted(explicit, sel), dict(sel), None,
                                              STAGES[1:CHOSEN])
            found = self.memo[("chosen", *key)] = sel, error
        return found

    def _run_stages(self, explicit: Mapping[str, str], sel: dict[str, str], focus: str | None,
                    stages: tuple[Any, ...]) -> tuple[dict[str, str], SelectionError | None]:
        try:
            for _, stage in stages:
                stage(self, explicit, sel, focus)
        except SelectionError as error:
            return sel, error
        return sel, None

    def run(self, explicit: Mapping[str, str], focus: str | None = None) -> dict[str, str]:
        """The complete selection for `explicit` (already parsed), or SelectionError."""
        sel = self.prefix(explicit)
        for _, stage in STAGES[LATER:]:
            stage(self, explicit, sel, focus)
        return self.ordered(sel)

    def later_fails(self, explicit: Mapping[str, str], focus: str, sel: dict[str, str]
                    ) -> str | None:
        """Why the stages after the prefix cannot resolve `explicit` on top of `sel` (None
        when they can), kept per prefix, explicit later keys and focus. Only stages up to the
        last one an explicit key enters can fail, so the rest are not run."""
        later = tuple((k, v) for k, v in explicit.items() if self.stage[k] >= LATER)
        last = max(self.stage[k] for k in explicit)
        _, error = kept(self.memo, ("later", tuple(sel.items()), later, focus),
                        self._run_stages, explicit, dict(sel), focus, STAGES[LATER:last + 1])
        return error.reason if error is not None else None

    def ordered(self, sel: dict[str, str]) -> dict[str, str]:
        """`sel` in the order selections are shown (and written to URLs)."""
        keys = ["hardware", "variant", *([TASK] if TASK in sel else []), "strategy",
                *([GPUS] if GPUS in sel else []), "nodes", PROFILE,
                *([PD_CONNECTOR] if PD_CONNECTOR in sel else []),
                *([KV_OFFLOAD] if KV_OFFLOAD in sel else []), "frontend", "install",
                *self.features]
        return {key: sel[key] for key in keys}
