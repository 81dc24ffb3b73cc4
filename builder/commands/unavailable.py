"""Why each choice cannot be picked next to the explicit ones, in one pass over the options
(`unavailable`), each answered from the stage its key enters, never by resolving from
scratch: nodes, profile, KV connector, KV offload, frontend and install by their own rule alone (no
later stage depends on them); a feature by its own rule and its exclusive groups; hardware,
variant, strategy and task by the *prefix* they lead to (kept by the resolver per explicit
value of those keys), then only the explicit later keys checked on it.
`tests/test_unavailable_agrees.py` checks the pass against resolving each option on its own.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import SelectionError
from ..vocabulary import OFF, ON
from .kv_offload import KV_OFFLOAD
from .memo import MISS
from .omni_tasks import TASK
from .pd import PD_CONNECTOR
from .query import GPUS, PROFILE, node_range
from .reasons import (
    connector_reason,
    frontend_reason,
    gpus_nodes_reason,
    nodes_reason,
    selection_profile_reason,
)
from .resolver import Resolver
from .stages import LATER, PREFIX, exclusive_conflict

__all__ = ["unavailable"]


def unavailable(r: Resolver, explicit: Mapping[str, str],
                selection: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """For every key, the values that cannot be picked next to `explicit` (resolved to
    `selection`), each with the reason resolving it would fail with; in one pass over
    the options, each answered from the stage its key enters (see the module docstring).
    Kept in the resolver's memo per explicit choices and selection (a new copy each call).
    """
    key = ("unavailable", tuple(explicit.items()), tuple(selection.items()))
    found = r.memo.get(key, MISS)
    if found is MISS:
        found = r.memo[key] = _unavailable(r, explicit, selection)
    return {option: dict(values) for option, values in found.items()}


def _unavailable(r: Resolver, explicit: Mapping[str, str],
                 selection: Mapping[str, str]) -> dict[str, dict[str, str]]:
    result: dict[str, dict[str, str]] = {}
    sel = dict(selection)
    later = any(r.stage[key] >= LATER for key in explicit)
    refused = r.install_refusals(sel)
    span = node_range(r.catalog, r.recipe, sel)
    rules = {
        "nodes": lambda value: (gpus_nodes_reason(r.catalog, sel, explicit, int(value))
                                or nodes_reason(r.catalog, r.recipe, sel, int(value), span)),
        PD_CONNECTOR: lambda value: connector_reason(r.catalog, r.recipe, sel, value),
        KV_OFFLOAD: lambda value: r.offload_reason(sel, value),
        PROFILE: lambda value: selection_profile_reason(r.catalog, r.recipe, sel, value),
        "frontend": lambda value: frontend_reason(r.catalog, sel, value),
        "install": refused.get,
    }
    for key, values in r.choices.items():
        current = selection.get(key)
        rule = rules.get(key)
        for value in values:
            if value == current:
                continue
            if rule is not None:
                reason = rule(value)
            elif key in r.features:
                reason = _feature_option(r, explicit, sel, key, value)
            else:
                reason = _prefix_option(r, explicit, selection, later, key, value)
            if reason is not None:
                result.setdefault(key, {})[value] = reason
    return result


def _prefix_option(r: Resolver, explicit: Mapping[str, str], selection: Mapping[str, str],
                   later: bool, key: str, value: str) -> str | None:
    """Hardware, variant, strategy or task: the prefix it leads to, then the explicit
    later keys on it. A strategy or a task leaves the hardware stage as it is (and a
    task the strategy), so it is answered by its own rule."""
    wanted = {**explicit, key: value}
    if (key == "strategy" or key == TASK) and GPUS not in explicit:
        sel = {k: selection[k] for k in PREFIX if k in selection}
        sel[key] = value
        reason = (r.strategy_reason(sel["hardware"], sel["variant"], value,
                                    explicit.get(GPUS))
                  if key == "strategy" else r.task_reason(sel, value))
        if reason is not None:
            return reason
    elif not later:
        return r.prefix_reason(wanted)
    else:
        try:
            sel = r.prefix(wanted)
        except SelectionError as error:
            return error.reason
    return r.later_fails(wanted, key, sel) if later else None


def _feature_option(r: Resolver, explicit: Mapping[str, str], sel: dict[str, str], fid: str,
                    value: str) -> str | None:
    """A feature's value: its own rule, its exclusive groups, and (when they are
    explicit) the frontend and install stages after it, which may depend on features."""
    wanted = {**explicit, fid: value}
    if r.stage["frontend"] <= max(r.stage[key] for key in wanted):
        return r.later_fails(wanted, fid, sel)
    if value == OFF:
        return None
    reason = r.feature_reason(sel, fid)
    if reason is None and value != ON:
        reason = r.mode_reason(sel, fid, value)
    if reason is None:
        conflict = exclusive_conflict(r, wanted, fid)
        reason = conflict.reason if conflict else None
    return reason
