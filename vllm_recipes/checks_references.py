"""Checks of the names a recipe uses: every hardware key, hardware id and strategy it names
exists (in `recipes/hardware.yaml`, `recipes/strategies/`), and no variant id is also a mode
id of one of its features.
"""

from __future__ import annotations

from typing import Any

from builder.commands.deploy_types import MAX_NODES
from builder.hardware_keys import ALL, split_count

from .check_problems import Problems
from .guide import Guide
from .schema import HardwareCatalog, Recipe, Strategy

__all__ = ["check_ids", "check_references", "hardware_keys"]


def hardware_keys(hardware: HardwareCatalog) -> set[str]:
    """Every key a hardware-keyed mapping may use: all, ids, brands, generations, arch:."""
    keys = {ALL} | set(hardware.brands) | set(hardware.generations) | set(hardware.hardware)
    keys |= {f"arch:{hw.compute_arch}" for hw in hardware.hardware.values()}
    return keys


def _where(where: tuple[Any, ...], names: Any, index: int, name: Any) -> tuple[Any, ...]:
    """A list entry is placed by its index, a mapping's by its key."""
    return (*where, index) if isinstance(names, list) else (*where, name)


class _Names:
    """What the recipe may name, and the problems of names that are not among them."""

    def __init__(self, hardware: HardwareCatalog, strategies: dict[str, Strategy],
                 problems: Problems) -> None:
        self.hardware = hardware
        self.strategies = strategies
        self.problems = problems
        self.keys = hardware_keys(hardware)

    def alias(self, name: Any) -> str | None:
        """The problem of naming an earlier node-shaped id (`hardware_aliases`) in a recipe:
        which GPU id to use instead, and how its count is said; None for any other name."""
        alias = self.hardware.hardware_aliases.get(name)
        if alias is None:
            return None
        return (f"{name!r} is an alias of {alias.hardware} × {alias.gpus}; name the GPU id "
                f"{alias.hardware!r} (its count: `tp`/`parallel_size`, the `gpus` selection, or "
                f"the key at a count, {alias.hardware}@{alias.gpus})")

    def counted(self, name: str) -> str | None:
        """The problem of a count-qualified key (`rtx_5090@2`): its id names a GPU of the
        registry (not an alias) and its count is a whole number of them one node holds (1 to
        the GPU's `max_gpus`, else its `gpu_count`), or whole nodes of hardware that joins
        multi-node deployments (up to `MAX_NODES`); None when it is sound."""
        hw_id, count = split_count(name)
        assert count is not None
        if hw_id in self.hardware.hardware_aliases:
            alias = self.hardware.hardware_aliases[hw_id]
            return (f"{hw_id!r} is an alias of {alias.hardware} × {alias.gpus}; name the GPU "
                    f"id at a count, {alias.hardware}@{alias.gpus}")
        hw = self.hardware.hardware.get(hw_id)
        if hw is None:
            return f"unknown hardware id {hw_id!r} in {name!r}"
        if not count.isdigit() or count.startswith("0"):
            return f"{name!r}: the GPU count after '@' is a whole number from 1, not {count!r}"
        gpus, most = int(count), hw.max_gpus or hw.gpu_count
        if gpus <= most:
            return None
        nodes = hw.scalable and gpus % hw.gpu_count == 0 and gpus // hw.gpu_count <= MAX_NODES
        if nodes:
            return None
        more = (f", or whole nodes of {hw.gpu_count} up to {MAX_NODES} nodes" if hw.scalable
                else "")
        return (f"{name!r}: {gpus} GPUs; one {hw.display_name} node holds 1 to {most}{more}")

    def need_keys(self, where: tuple[Any, ...], names: Any, counts: bool = True) -> None:
        """Hardware keys; with `counts`, hardware ids at a GPU count too (elsewhere the
        resolution reads no count: strategy support, prefill/decode pools, precision)."""
        for index, name in enumerate(names):
            if name in self.keys:
                continue
            counted = split_count(name)[1] is not None
            if counted and not counts:
                self.problems.add(_where(where, names, index, name),
                                  f"{name!r}: a GPU count is not read here (it is decided "
                                  "later); name the hardware without '@'")
                continue
            problem = self.counted(name) if counted else (
                self.alias(name)
                or f"unknown hardware key {name!r} (use all, a hardware id, a brand, "
                "a generation, arch:<compute_arch> from recipes/hardware.yaml, or a hardware "
                "id at a GPU count, <id>@<count>)")
            if problem:
                self.problems.add(_where(where, names, index, name), problem)

    def need_ids(self, where: tuple[Any, ...], names: Any, counts: bool = True) -> None:
        """Hardware ids, or (`counts`) hardware ids at a GPU count."""
        for index, name in enumerate(names):
            if name in self.hardware.hardware:
                continue
            problem = (self.counted(name) if counts and split_count(name)[1] is not None
                       else self.alias(name) or f"unknown hardware id {name!r}")
            if problem:
                self.problems.add(_where(where, names, index, name), problem)

    def need_strategies(self, where: tuple[Any, ...], names: Any) -> None:
        for index, name in enumerate(names):
            if name not in self.strategies:
                self.problems.add(_where(where, names, index, name),
                                  f"unknown strategy {name!r} (known: "
                                  f"{', '.join(self.strategies)})")


def check_references(recipe: Recipe, guide: Guide, hardware: HardwareCatalog,
                     strategies: dict[str, Strategy], problems: Problems) -> None:
    """Every hardware key, hardware id and strategy the recipe (and its guide's hardware
    notes) names exists."""
    r = recipe
    names = _Names(hardware, strategies, problems)
    names.need_keys(("hardware",), r.hardware)
    names.need_ids(("verified",), r.verified)
    if r.default_hardware is not None:
        names.need_ids(("default_hardware",), [r.default_hardware], counts=False)
    names.need_strategies(("strategies",), r.strategies or [])
    names.need_keys(("model", "docker_image"), r.model.docker_image)
    names.need_keys(("hardware_overrides",), r.hardware_overrides)
    for hw_id in r.hardware_notes:
        if hw_id in hardware.hardware:
            continue
        problem = (names.counted(hw_id) if split_count(hw_id)[1] is not None else
                   names.alias(hw_id) or f"a note for unknown hardware id {hw_id!r}")
        if problem:
            problems.in_guide(guide.lines.get(hw_id), "guide", problem)
    names.need_strategies(("strategy_hardware",), r.strategy_hardware)
    for sid, mapping in r.strategy_hardware.items():
        names.need_keys(("strategy_hardware", sid), mapping, counts=False)
    names.need_strategies(("strategy_overrides",), r.strategy_overrides)
    for sid, overrides in r.strategy_overrides.items():
        names.need_keys(("strategy_overrides", sid), overrides)
    for index, dep in enumerate(r.dependencies):
        names.need_keys(("dependencies", index, "hardware"), dep.hardware)
    for fid, feature in r.features.items():
        names.need_keys(("features", fid, "hardware"), feature.hardware)
        names.need_keys(("features", fid, "hardware_overrides"), feature.hardware_overrides)
        names.need_strategies(("features", fid, "strategies"), feature.strategies or [])
        if isinstance(feature.opt_in, list):
            names.need_keys(("features", fid, "opt_in"), feature.opt_in)
        for mid, mode in (feature.modes or {}).items():
            where = ("features", fid, "modes", mid)
            names.need_keys((*where, "hardware"), mode.hardware)
            names.need_keys((*where, "hardware_overrides"), mode.hardware_overrides)
    for vid, variant in r.variants.items():
        at = ("variants", vid)
        names.need_keys((*at, "hardware"), variant.hardware or [])
        names.need_keys((*at, "precision_hardware"), variant.precision_hardware or [],
                        counts=False)
        names.need_keys((*at, "tp"), variant.tp)
        names.need_keys((*at, "hardware_overrides"), variant.hardware_overrides)
        names.need_strategies((*at, "strategy_overrides"), variant.strategy_overrides)
        for sid, overrides in variant.strategy_overrides.items():
            names.need_keys((*at, "strategy_overrides", sid), overrides)
    names.need_keys(("pd",), r.pd, counts=False)
    for tid, task in (r.omni.tasks if r.omni else {}).items():
        names.need_keys(("omni", "tasks", tid, "hardware_overrides"), task.hardware_overrides)


def check_ids(recipe: Recipe, problems: Problems) -> None:
    """A variant id is not also a mode id of one of the recipe's features: in a URL,
    `variant=dspark` and `spec_decoding=dspark` would read as the same choice."""
    modes = {mode: fid for fid, feature in recipe.features.items()
             for mode in (feature.modes or {})}
    for variant_id in recipe.variants:
        if variant_id in modes:
            problems.add(("variants", variant_id),
                         f"the variant id is also a mode of features.{modes[variant_id]}; "
                         "give the variant another id")
