"""The answers a recipe's resolution asks again and again, each kept in one `Memo` the first
time (`Answers`, the base of `resolver.Resolver`): the hardware's names, each variant's
reason and default hardware, each strategy's reason per hardware (its hardware half per
hardware and strategy, `reasons.strategy_hardware_reason`), the fit rule's per prefix (on one
kept `Context`, whose plan also gives the command's size), each feature's, mode's, task's
and install method's reason. None of them depends on the query.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..hardware_keys import names
from ..types import Data
from ..vocabulary import OFF
from .compose import Context
from .count_answers import CountAnswers
from .deploy_types import context, deploy_type
from .install import install_refusals
from .kv_offload import offload_reason
from .memo import MISS, Memo, kept
from .offering import counted_ids, default_hardware, narrowing, variant_hardware, variant_reason
from .omni import task_reason
from .omni_tasks import TASK, task_ids
from .query import GPUS, choices, offered_hardware, recipe_strategies
from .reasons import (
    feature_reason,
    fit_reason,
    mode_reason,
    strategy_hardware_reason,
    strategy_variant_reason,
)
from .stages import stage_index

__all__ = ["Answers"]


class Answers(CountAnswers):
    """One recipe's kept answers (see the module docstring). The catalog and recipe must not
    change while it is in use."""

    def __init__(self, catalog: Data, recipe: Data) -> None:
        self.catalog = catalog
        self.recipe = recipe
        self.features: dict[str, Any] = recipe.get("features", {})
        self.has_facts = bool(recipe.get("facts"))
        self.memo: Memo = {}
        self.offered = offered_hardware(catalog, recipe)
        self._offered = set(self.offered)
        self.strategies = recipe_strategies(catalog, recipe)
        self._strategy_set = frozenset(self.strategies)
        self.tasks = task_ids(recipe)
        """A vLLM-Omni recipe's tasks, in order (none for the others)."""
        self.choices = choices(catalog, recipe, self.offered)
        self.counted_ids = counted_ids(recipe)
        self.stage = stage_index(self.features)
        """Selection key → the index in `STAGES` of the stage it enters."""

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
                self.names(hw_id), kept(self.memo, ("narrowing", variant_id), narrowing,
                                        self.recipe["variants"][variant_id]))
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
            found = self.memo[key] = (self.strategy_hardware_reason(hw_id, sid) or
                                      strategy_variant_reason(
                                          self.catalog, self.recipe, hw_id, variant_id, sid,
                                          int(gpus) if gpus else None,
                                          lambda: self.fit_reason(hw_id, variant_id, sid, gpus)))
        return found

    def strategy_fails(self, hw_id: str, variant_id: str, sid: str, gpus: str | None
                       ) -> bool:
        """Whether `strategy_reason` has a reason, kept per the same key: the fit rule is
        asked only whether the variant fits, not why not (its sentence, with the nearest
        ways out, costs more than the rule), unless that is kept already."""
        found = self.memo.get(("strategy", hw_id, variant_id, sid, gpus), MISS)
        if found is not MISS:
            return found is not None
        key = ("strategy_fails", hw_id, variant_id, sid, gpus)
        fails = self.memo.get(key, MISS)
        if fails is MISS:
            fails = self.memo[key] = (self.strategy_hardware_reason(hw_id, sid) is not None
                                      or strategy_variant_reason(
                                          self.catalog, self.recipe, hw_id, variant_id, sid,
                                          int(gpus) if gpus else None,
                                          lambda: self._fit_check(hw_id, variant_id, sid, gpus)
                                      ) is not None)
        return bool(fails)

    def _fit_check(self, hw_id: str, variant_id: str, sid: str, gpus: str | None
                   ) -> str | None:
        """`fit_reason`, or `fit.UNFIT` in place of its sentence when that is not kept."""
        found = self.memo.get(("fit", hw_id, variant_id, sid, gpus), MISS)
        if found is not MISS:
            return found
        key = ("fit_check", hw_id, variant_id, sid, gpus)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = fit_reason(
                self.catalog, self.recipe, hw_id, variant_id, sid, int(gpus) if gpus else None,
                self.context(hw_id, variant_id, sid, gpus) if self.has_facts else None,
                explain=False)
        return found

    def strategy_hardware_reason(self, hw_id: str, sid: str) -> str | None:
        """`strategy_hardware_reason` (the half of `strategy_reason` no variant changes),
        kept per hardware and strategy."""
        key = ("strategy_hardware", hw_id, sid)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = strategy_hardware_reason(
                self.catalog, self.recipe, hw_id, sid, self._strategy_set)
        return found

    def fit_reason(self, hw_id: str, variant_id: str, sid: str, gpus: str | None = None
                   ) -> str | None:
        """`fit_reason`, kept per hardware, variant, strategy and GPUs asked for (on the
        kept `context`)."""
        key = ("fit", hw_id, variant_id, sid, gpus)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = fit_reason(
                self.catalog, self.recipe, hw_id, variant_id, sid, int(gpus) if gpus else None,
                self.context(hw_id, variant_id, sid, gpus) if self.has_facts else None)
        return found

    def context(self, hw_id: str, variant_id: str, sid: str, gpus: str | None) -> Context:
        """The `Context` of the prefix (hardware, variant, strategy, GPUs asked for), kept:
        the fit rule's plan and the command's parallel size are worked out on it once."""
        key = ("context", hw_id, variant_id, sid, gpus)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = context(self.catalog, self.recipe, {
                "hardware": hw_id, "variant": variant_id, "strategy": sid,
                **({GPUS: gpus} if gpus else {})})
        return found

    def first_strategy(self, hw_id: str, variant_id: str, gpus: str | None = None
                       ) -> str | None:
        """The recipe's most preferred strategy that serves the variant on the hardware."""
        key = ("first_strategy", hw_id, variant_id, gpus)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = self._first_strategy(hw_id, variant_id, gpus)
        return found

    def _first_strategy(self, hw_id: str, variant_id: str, gpus: str | None) -> str | None:
        hardware_reason = self.strategy_hardware_reason
        for sid in self.strategies:
            if (hardware_reason(hw_id, sid) is None
                    and not self.strategy_fails(hw_id, variant_id, sid, gpus)):
                return sid
        return None

    def feature_reason(self, sel: Mapping[str, str], fid: str) -> str | None:
        """`feature_reason`, kept per hardware, variant, strategy, GPUs and feature."""
        key = ("feature", sel["hardware"], sel["variant"], sel["strategy"], sel.get(GPUS), fid)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = feature_reason(self.catalog, self.recipe, sel, fid)
        return found

    def mode_reason(self, sel: Mapping[str, str], fid: str, mode_id: str) -> str | None:
        """`mode_reason`, kept per hardware, variant, GPUs, feature and mode."""
        key = ("mode", sel["hardware"], sel["variant"], sel.get(GPUS), fid, mode_id)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = mode_reason(self.catalog, self.recipe, sel, fid, mode_id)
        return found

    def install_refusals(self, sel: Mapping[str, str]) -> dict[str, str]:
        """`install_refusals` for `sel`, kept per what the overrides it reads depend on: the
        hardware, variant, strategy, GPUs and features."""
        key = ("install", sel["hardware"], sel["variant"], sel["strategy"], sel.get(GPUS),
               *(sel.get(fid, OFF) for fid in self.features))
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = install_refusals(context(self.catalog, self.recipe, sel))
        return found

    def task_reason(self, sel: Mapping[str, str], task_id: str) -> str | None:
        key = ("task", sel["hardware"], sel["variant"], sel.get(GPUS), task_id)
        found = self.memo.get(key, MISS)
        if found is MISS:
            found = self.memo[key] = task_reason(
                context(self.catalog, self.recipe, {**sel, TASK: task_id}))
        return found

    def offload_reason(self, sel: Mapping[str, str], tier: str) -> str | None:
        strategy = self.catalog["strategies"][sel["strategy"]]
        return offload_reason(self.recipe, strategy, deploy_type(strategy).owns_kv_connector,
                              tier)
