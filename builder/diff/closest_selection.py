"""The builder selection closest to a published configuration, and the diff that shows how close.

Hardware: the system's own hardware when the recipe offers it; else the hardware of the same
generation (then brand) the recipe offers, nearest in GPU count and memory; else the stand-in
the configuration data names for systems our catalog lacks. SGLang configurations are not
joined (the builder makes vLLM commands only).

Distance of a selection: every engine role of the configuration (serve, prefill, decode) is
diffed (`command_diff.diff_commands`) against the builder's command of the same role — `serve`
also matches a multi-node `head` — and the distances are summed; an engine role that only one
side has adds `MISSING_ROLE`, so the layout (one server, or prefill and decode pools) is
matched before any flag.

Claims: a configuration's `recipe_claims.kept` names the recipe settings it says it kept. In
the joined diff, each of those that today's recipe sets otherwise (or not at all) is
`recipe_changed` (`command_diff.mark_kept`): shown apart from what the configuration changed on
purpose. Marking does not change the distance, so it does not change which selection is chosen.

Search: start from the hardware alone (the builder's defaults there), then repeatedly make the
one change of a selection key (variant, strategy, a feature, frontend, KV connector, KV
offload; never hardware, nodes or install) that lowers the distance most, until none does.
Only the builder's own `choices` are tried and only selections `build` accepts count; on equal
distances the earlier candidate (closer to the defaults) stays. The published query is the
shortest set of keys that resolves to the same selection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from ..commands.build import Builder, render_commands
from ..commands.selection import resolve
from ..diff_result import STATUSES, summarize
from ..errors import SelectionError
from ..types import Command, Data, Result
from ..views.widget import (
    CONNECTOR_LABELS,
    FRONTEND_LABELS,
    INSTALL_LABELS,
    OFFLOAD_LABELS,
    ROW_LABELS,
)
from ..vocabulary import feature_label
from .command_diff import (
    CommandDiff,
    ParsedCommand,
    claim_key,
    diff_commands,
    mark_kept,
    parse_argv,
)

__all__ = ["ENGINE_ROLES", "Join", "RoleDiff", "describe_query", "join_configuration",
           "join_hardware"]

ENGINE_ROLES = ("serve", "prefill", "decode")
MISSING_ROLE = 100.0
FIXED = ("hardware", "nodes", "install")
BUILDER_ROLE = {"serve": ("serve", "head"), "prefill": ("prefill",), "decode": ("decode",)}


class RoleDiff(TypedDict):
    role: str
    label: str
    """The configuration's label of the role."""
    against: str | None
    """The builder command's label it is compared with; None when the builder has none."""
    diff: CommandDiff | None


class Join(TypedDict):
    hardware: str
    hardware_match: str
    """"exact", "nearest" (the recipe lacks the system's hardware) or "stand_in"."""
    note: str
    """Why the hardware is not the system's own; empty when it is."""
    query: dict[str, str]
    """The builder page's URL keys for the selection."""
    selection: dict[str, str]
    summary: str
    """The builder's one-line summary of the selection."""
    choices: str
    """The pills picked beyond the hardware, in words ("FP8 (0909), Text only on")."""
    roles: list[RoleDiff]
    distance: float
    counts: dict[str, int]
    diff_summary: str
    recipe_changed: list[str]
    """The kept claims (as the data writes them) that today's recipe sets otherwise: the
    recipe changed since the configuration was built."""


def _offered(catalog: Data, recipe: Data, hw_id: str) -> bool:
    try:
        resolve(catalog, recipe, {"hardware": hw_id})
    except SelectionError:
        return False
    return True


def join_hardware(catalog: Data, recipe: Data, system: Mapping[str, Any]
                  ) -> tuple[str, str, str] | None:
    """(hardware id, match, note) for a configuration's system; None when nothing fits."""
    hw_id = system.get("hardware")
    name = system["display_name"]
    hardware = catalog["hardware"]
    if hw_id is not None:
        if _offered(catalog, recipe, hw_id):
            return hw_id, "exact", ""
        own = hardware[hw_id]
        for level in ("generation", "brand"):
            near = [h for h, spec in hardware.items()
                    if spec[level] == own[level] and h != hw_id
                    and _offered(catalog, recipe, h)]
            near.sort(key=lambda h: (abs(hardware[h]["gpu_count"] - own["gpu_count"]),
                                     abs(hardware[h]["memory_gb"] - own["memory_gb"])))
            if near:
                other = hardware[near[0]]["display_name"]
                return near[0], "nearest", (
                    f"this recipe has no {own['display_name']} commands; compared with "
                    f"{other}, the nearest hardware it offers")
        return None
    stand_in = system.get("stand_in")
    if stand_in is not None and _offered(catalog, recipe, stand_in):
        other = hardware[stand_in]["display_name"]
        return stand_in, "stand_in", (
            f"{name} is not in our hardware catalog; {other} stands in for it")
    return None


def _engines(configuration: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], ParsedCommand]]:
    found = []
    for role in configuration["roles"]:
        if role["role"] in ENGINE_ROLES:
            command = role["command"]
            parsed = parse_argv(command["argv"], command.get("env", {}))
            parsed["image"] = (command.get("docker") or {}).get("image")
            found.append((role, parsed))
    return found


def _builder_commands(commands: list[Command], image: str | None
                      ) -> list[tuple[str, str, ParsedCommand]]:
    found = []
    for command in commands:
        if command["argv"][:2] == ["vllm", "serve"]:
            parsed = parse_argv(command["argv"], command["env"])
            parsed["image"] = image
            found.append((command["role"], command["label"], parsed))
    return found


def _compare(commands: list[Command], image: str | None,
             engines: list[tuple[Mapping[str, Any], ParsedCommand]], kept: list[str] | None = None
             ) -> tuple[float, list[RoleDiff]]:
    ours = _builder_commands(commands, image)
    used: set[int] = set()
    total = 0.0
    roles: list[RoleDiff] = []
    for role, theirs in engines:
        wanted = BUILDER_ROLE[role["role"]]
        index = next((i for i, (r, _, _) in enumerate(ours) if r in wanted and i not in used),
                     None)
        if index is None:
            total += MISSING_ROLE
            roles.append({"role": role["role"], "label": role["label"], "against": None,
                          "diff": None})
            continue
        used.add(index)
        diff = diff_commands(ours[index][2], theirs)
        if kept:
            diff = mark_kept(diff, kept)
        total += diff["distance"]
        roles.append({"role": role["role"], "label": role["label"],
                      "against": ours[index][1], "diff": diff})
    matched = {ours[i][0] for i in used}
    total += MISSING_ROLE * len({r for r, _, _ in ours if r not in matched})
    return total, roles


def describe_query(catalog: Data, recipe: Data, query: Mapping[str, str],
                   selection: Mapping[str, str] | None = None) -> str:
    """The keys of a query other than hardware, as the builder's pills name them
    ("FP8 (0909), Speculative decoding: DSpark, Text only, Python frontend")."""
    words = []
    features = recipe.get("features", {})
    labels = {"frontend": FRONTEND_LABELS, "pd_connector": CONNECTOR_LABELS,
              "kv_offload": OFFLOAD_LABELS, "install": INSTALL_LABELS}
    for key, value in query.items():
        if key == "hardware":
            continue
        if key == "variant":
            words.append(recipe["variants"][value].get("label") or value)
        elif key == "strategy":
            words.append(catalog["strategies"][value]["display_name"])
        elif key in features:
            feature = features[key]
            label = feature_label(key, feature)
            value = (selection or {}).get(key, value)
            mode = (feature.get("modes") or {}).get(value)
            words.append(f"{label}: {mode['label']}" if mode else (
                label if value == "on" else f"{label} {value}"))
        elif key == "frontend":
            words.append(f"{FRONTEND_LABELS.get(value, value)} frontend")
        elif key == "nodes":
            words.append(f"{value} nodes")
        else:
            words.append(f"{ROW_LABELS.get(key, key)}: {labels.get(key, {}).get(value, value)}")
    return ", ".join(words)


def _minimal(builder: Builder, explicit: dict[str, str]) -> dict[str, str]:
    target = builder.resolve(explicit)
    query = dict(explicit)
    for key in list(query):
        if key == "hardware":
            continue
        trial = {k: v for k, v in query.items() if k != key}
        try:
            if builder.resolve(trial) == target:
                query = trial
        except SelectionError:
            continue
    return query


def join_configuration(catalog: Data, recipe: Data, configuration: Mapping[str, Any],
                       system: Mapping[str, Any]) -> Join | None:
    """The closest selection for a vLLM configuration (see the module docstring); None for
    other frameworks or when the recipe offers no hardware near the system's."""
    if configuration["framework"] != "vllm":
        return None
    placed = join_hardware(catalog, recipe, system)
    if placed is None:
        return None
    hw_id, match, note = placed
    engines = _engines(configuration)
    builder = Builder(catalog, recipe)
    options = builder.choices
    keys = [k for k in options if k not in FIXED]
    scored: dict[tuple[tuple[str, str], ...], float] = {}

    def score(explicit: dict[str, str]) -> float | None:
        try:
            selection = builder.resolve(explicit)
        except SelectionError:
            return None
        signature = tuple(selection.items())
        if signature not in scored:
            commands = render_commands(catalog, recipe, selection)
            scored[signature] = _compare(commands, None, engines)[0]
        return scored[signature]

    explicit = {"hardware": hw_id}
    best = score(explicit)
    assert best is not None, "join_hardware() checked that the hardware resolves"
    while True:
        move: tuple[float, dict[str, str]] | None = None
        for key in keys:
            for value in options[key]:
                if explicit.get(key) == value:
                    continue
                trial = {**explicit, key: value}
                found = score(trial)
                threshold = move[0] if move else best
                if found is not None and found < threshold - 1e-9:
                    move = (found, trial)
        if move is None:
            break
        best, explicit = move
    result: Result = builder.build(explicit)
    kept = list((configuration.get("recipe_claims") or {}).get("kept", []))
    total, roles = _compare(result["commands"], result["docker_image"], engines, kept)
    counts = dict.fromkeys([*STATUSES, "deployment"], 0)
    other_model = False
    for role in roles:
        if role["diff"] is not None:
            for status, n in role["diff"]["counts"].items():
                counts[status] += n
            other_model = other_model or role["diff"]["model"]["status"] != "equal"
    query = dict(sorted(_minimal(builder, explicit).items(),
                        key=lambda kv: list(options).index(kv[0])))
    return {
        "hardware": hw_id,
        "hardware_match": match,
        "note": note,
        "query": query,
        "selection": result["selection"],
        "summary": result["summary"],
        "choices": describe_query(catalog, recipe, query, result["selection"]),
        "roles": roles,
        "distance": total,
        "counts": counts,
        "diff_summary": summarize(counts, other_model, "the configuration"),
        "recipe_changed": [claim for claim in kept
                           if claim_key(claim) in _recipe_changed_keys(roles)],
    }


def _recipe_changed_keys(roles: list[RoleDiff]) -> set[str]:
    found: set[str] = set()
    for role in roles:
        diff = role["diff"]
        if diff is None:
            continue
        for entry in diff["flags"]:
            for item in [entry, *entry["keys"]]:
                if item["status"] == "recipe_changed":
                    found.add(item["key"])
        found |= {f"${e['key']}" for e in diff["env"] if e["status"] == "recipe_changed"}
    return found
