"""One recipe's resolution: the `Resolver` runs the stages of `stages.py` in order and keeps,
in one `Memo`, every answer that does not depend on the query (each variant's and strategy's
reason per hardware, the hardware each variant runs on, the *prefix* of a resolution per
explicit value of its keys), so the many queries of one page render reuse them.

Flow: `run(explicit)` = `prefix(explicit)` (the hardware, strategy and task stages, kept per
explicit hardware, variant, strategy and task) + the later stages (`LATER`), each filling
`sel` or raising the SelectionError the page shows. `later_fails` runs the later stages on a
kept prefix for the unavailable pass (`unavailable.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import SelectionError
from ..hardware_keys import names
from ..types import Data
from ..vocabulary import OFF
from .deploy_types import context, deploy_type
from .install import install_refusals
from .kv_offload import KV_OFFLOAD, offload_reason
from .memo import MISS, Memo, kept
from .offering import default_hardware, variant_hardware, variant_reason
from .omni import task_reason
from .omni_tasks import TASK, task_ids
from .pd import PD_CONNECTOR
from .query import GPUS, PROFILE, choices, offered_hardware, recipe_strategies
from .reasons import feature_reason, fit_reason, mode_reason, strategy_reason
from .stages import LATER, STAGES, stage_index

__all__ = ["Resolver"]


class Resolver:
    """One recipe's resolution (see the module docstring). The catalog and recipe must not
    change while it is in use."""

    def __init__(self, catalog: Data, recipe: Data) -> None:
        self.catalog = catalog
        self.recipe = recipe
        self.features: dict[str, Any] = recipe.get("features", {})
        self.memo: Memo = {}
        self.offered = offered_hardware(catalog, recipe)
        self._offered = set(self.offered)
        self.strategies = recipe_strategies(catalog, recipe)
        self._strategy_set = frozenset(self.strategies)
        self.tasks = task_ids(recipe)
        """A vLLM-Omni recipe's tasks, in order (none for the others)."""
        self.choices = choices(catalog, recipe, self.offered)
        self.stage = stage_index(self.features)
        """Selection key → the index in `STAGES` of the stage it enters."""

    # ------------------------------------------------------------ kept answers

    def names(self, hw_id: str) -> frozenset[str]:
        """`hardware_keys.names` of the hardware."""
        key = ("names", hw_id)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = names(hw_id, self.catalog["hardware"][hw_id])
        return found

    def variant_reason(self, variant_id: str, hw_id: str) -> str | None:
        key = ("variant", variant_id, hw_id)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = variant_reason(
                self.catalog, self.recipe, variant_id, hw_id, hw_id in self._offered,
                self.names(hw_id))
        return found

    def runs_on(self, variant_id: str) -> list[str]:
        """The offered hardware the variant runs on, in catalog order."""
        return kept(self.memo, ("runs_on", variant_id), variant_hardware, self.catalog,
                    self.recipe, variant_id, self.offered, self.names)

    def default_hardware(self, variant_id: str) -> str | None:
        return kept(self.memo, ("default_hardware", variant_id), default_hardware,
                    self.catalog, self.recipe, variant_id, self.runs_on(variant_id))

    def strategy_reason(self, hw_id: str, variant_id: str, sid: str,
                        gpus: str | None = None) -> str | None:
        """`strategy_reason`, kept per hardware, variant, strategy and GPUs asked for."""
        key = ("strategy", hw_id, variant_id, sid, gpus)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = strategy_reason(
                self.catalog, self.recipe, hw_id, variant_id, sid, self._strategy_set,
                int(gpus) if gpus else None)
        return found

    def fit_reason(self, hw_id: str, variant_id: str, sid: str, gpus: str | None = None
                   ) -> str | None:
        """`fit_reason`, kept per hardware, variant, strategy and GPUs asked for."""
        return kept(self.memo, ("fit", hw_id, variant_id, sid, gpus), fit_reason,
                    self.catalog, self.recipe, hw_id, variant_id, sid,
                    int(gpus) if gpus else None)

    def first_strategy(self, hw_id: str, variant_id: str, gpus: str | None = None
                       ) -> str | None:
        """The recipe's most preferred strategy that serves the variant on the hardware."""
        key = ("first_strategy", hw_id, variant_id, gpus)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = self._first_strategy(hw_id, variant_id, gpus)
        return found

    def _first_strategy(self, hw_id: str, variant_id: str, gpus: str | None) -> str | None:
        for sid in self.strategies:
            if self.strategy_reason(hw_id, variant_id, sid, gpus) is None:
                return sid
        return None

    def feature_reason(self, sel: Mapping[str, str], fid: str) -> str | None:
        """`feature_reason`, kept per hardware, variant, strategy and feature."""
        key = ("feature", sel["hardware"], sel["variant"], sel["strategy"], fid)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = feature_reason(self.catalog, self.recipe, sel, fid)
        return found

    def mode_reason(self, sel: Mapping[str, str], fid: str, mode_id: str) -> str | None:
        """`mode_reason`, kept per hardware, variant, feature and mode."""
        key = ("mode", sel["hardware"], sel["variant"], fid, mode_id)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = mode_reason(self.catalog, self.recipe, sel, fid, mode_id)
        return found

    def install_refusals(self, sel: Mapping[str, str]) -> dict[str, str]:
        """`install_refusals` for `sel`, kept per what the overrides it reads depend on: the
        hardware, variant, strategy and features."""
        key = ("install", sel["hardware"], sel["variant"], sel["strategy"],
               *(sel.get(fid, OFF) for fid in self.features))
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = install_refusals(context(self.catalog, self.recipe, sel))
        return found

    def task_reason(self, sel: Mapping[str, str], task_id: str) -> str | None:
        key = ("task", sel["hardware"], sel["variant"], task_id)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = task_reason(
                context(self.catalog, self.recipe, {**sel, TASK: task_id}))
        return found

    def offload_reason(self, sel: Mapping[str, str], tier: str) -> str | None:
        strategy = self.catalog["strategies"][sel["strategy"]]
        return offload_reason(self.recipe, strategy, deploy_type(strategy).owns_kv_connector,
                              tier)

    # ------------------------------------------------------------ resolution

    def prefix(self, explicit: Mapping[str, str]) -> dict[str, str]:
        """The hardware, variant, strategy and task `explicit` resolves to (a new dict), or
        SelectionError. The hardware stage is kept per explicit hardware and variant, the
        rest per explicit value of all four keys."""
        get = explicit.get
        key = ("prefix", get("hardware"), get("variant"), get(GPUS), get("strategy"), get(TASK))
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = self._prefix(explicit, key[1:])
        sel, error = found
        if error is not None:
            raise SelectionError(error.key, error.reason)
        return dict(sel)

    def _prefix(self, explicit: Mapping[str, str], key: tuple[str | None, ...]
                ) -> tuple[dict[str, str], SelectionError | None]:
        sel, error = kept(self.memo, ("prefix", *key[:3]), self._run_stages, explicit, {},
                          None, STAGES[:1])
        if error is not None:
            return sel, error
        return self._run_stages(explicit, dict(sel), None, STAGES[1:LATER])

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
