"""The builder's public entry points: query in, commands out. Same code in CPython and Pyodide."""

from __future__ import annotations

import re
from collections.abc import Mapping

from .compose import Context
from .docker import docker_image, with_docker
from .install import install_choices
from .kv_offload import offload_volumes
from .kv_store import kv_store_summary, kv_store_volumes
from .layouts import LAYOUTS, layout_key
from .pd import CONNECTORS, PD_CONNECTOR, pd_summary, pd_volumes
from .selection import parse_query, resolve, unavailable
from .types import Command, Data, Note, Result

__all__ = ["build", "render", "render_commands"]

_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def build(catalog: Data, recipe: Data, query: Mapping[str, str]) -> Result:
    """Commands for `query` (URL keys, all optional); SelectionError for bad or unavailable keys."""
    explicit = parse_query(catalog, recipe, query)
    selection = resolve(catalog, recipe, explicit)
    return render(catalog, recipe, selection, explicit)


def render(
    catalog: Data,
    recipe: Data,
    selection: Mapping[str, str],
    explicit: Mapping[str, str] | None = None,
) -> Result:
    """Commands for a complete, resolved selection (see `selection.resolve`)."""
    ctx = Context(catalog, recipe, dict(selection))
    commands = _commands(ctx)
    install = install_choices(ctx)
    return {
        "hf_id": recipe["model"]["model_id"],
        "model_id": ctx.model_id,
        "selection": dict(selection),
        "summary": _summary(ctx, commands),
        "docker_image": docker_image(ctx),
        "commands": commands,
        "install": install,
        "unavailable": unavailable(catalog, recipe, explicit or {}, selection),
        "notes": _notes(ctx, commands),
        "copy_text": copy_text(commands, selection["install"]),
    }


def render_commands(catalog: Data, recipe: Data, selection: Mapping[str, str]) -> list[Command]:
    """Only the command blocks of a resolved selection: `render` without the summary, notes
    and the availability of every other choice (for callers that compare many selections)."""
    return _commands(Context(catalog, recipe, dict(selection)))


def _commands(ctx: Context) -> list[Command]:
    host_network = ctx.strategy["deploy_type"] != "single_node"
    volumes = _volumes(ctx)
    return [
        with_docker(ctx, command, host_network=host_network, volumes=volumes)
        for command in LAYOUTS[layout_key(ctx.strategy)](ctx)
    ]


def copy_text(commands: list[Command], install: str) -> str:
    """What the copy-all button copies: every block, headed by its label when there are several."""
    blocks = []
    for command in commands:
        body = command["docker_text"] if install == "docker" and command["docker_text"] else (
            command["shell"])
        blocks.append(f"# {command['label']}\n{body}" if len(commands) > 1 else body)
    return "\n\n".join(blocks) + "\n"


def _parallel(argv: list[str]) -> dict[str, int]:
    sizes = {}
    for flag, name in (("--tensor-parallel-size", "TP"), ("--data-parallel-size", "DP"),
                       ("--pipeline-parallel-size", "PP")):
        if flag in argv:
            sizes[name] = int(argv[argv.index(flag) + 1])
    return sizes


def _volumes(ctx: Context) -> list[str]:
    deploy = ctx.strategy["deploy_type"]
    volumes = offload_volumes(ctx.recipe, ctx.selection)
    if deploy == "pd_cluster":
        volumes += pd_volumes(ctx)
    elif deploy == "kv_store":
        volumes += kv_store_volumes(ctx)
    return volumes


def _summary(ctx: Context, commands: list[Command]) -> str:
    serve = next(c for c in commands if c["argv"][:2] == ["vllm", "serve"])
    deploy = ctx.strategy["deploy_type"]
    if deploy == "pd_cluster":
        return pd_summary(ctx)
    if deploy == "kv_store":
        return kv_store_summary(ctx, serve)
    sizes = _parallel(serve["argv"])
    gpus = 1
    for size in sizes.values():
        gpus *= size
    parts = [f"{name}{size}" for name, size in sizes.items() if size > 1]
    if "--enable-expert-parallel" in serve["argv"]:
        parts.append("EP")
    layout = " + ".join(parts) or "1 GPU"
    nodes = f"{ctx.nodes} nodes · " if ctx.nodes > 1 else ""
    variant = ctx.variant.get("label") or ctx.selection["variant"]
    return (
        f"{nodes}{gpus}× {ctx.hw['display_name']} · {ctx.strategy['short_label']} ({layout})"
        f" · {variant}"
    )


def _notes(ctx: Context, commands: list[Command]) -> list[Note]:
    notes: list[Note] = []
    hw_note = ctx.recipe.get("hardware_notes", {}).get(ctx.hw_id)
    if hw_note:
        notes.append({k: v for k, v in hw_note.items() if v is not None})  # type: ignore[misc]
    names: list[str] = []
    for command in commands:
        for token in [*command["argv"], *command["env"].values()]:
            names += [n for n in _VAR.findall(token) if n not in names and n not in command["env"]]
    if names:
        listed = ", ".join(f"${n}" for n in names)
        body = f"The commands refer to {listed}: export them on every node before running."
        if "NODE_IP" in names:
            body += " $NODE_IP is the address of the node the command runs on."
        notes.append({"title": "Set these shell variables first", "body": body})
    tools = {c["argv"][0] for c in commands}
    packages = []
    if "vllm-router" in tools:
        packages.append("vllm-router")
    if tools & {"mooncake_master", "mooncake_client"} or (
            ctx.strategy["deploy_type"] == "pd_cluster"
            and ctx.selection.get(PD_CONNECTOR) == "mooncake"):
        packages.append("mooncake-transfer-engine")
    elif ctx.strategy["deploy_type"] == "pd_cluster":
        packages.append("nixl")
    if packages:
        notes.append({
            "title": "Install the other pieces",
            "body": f"uv pip install {' '.join(packages)} — the router runs outside the vLLM "
                    "containers; install the KV connector's package in every vLLM environment "
                    "that lacks it.",
        })
    if ctx.strategy["deploy_type"] == "pd_cluster":
        label = CONNECTORS[ctx.selection.get(PD_CONNECTOR, "nixl")].label
        notes.append({
            "title": "Start order",
            "body": f"Start the prefill and decode servers (every node of each pool), wait "
                    f"until both answer /health, then start the router; clients talk to the "
                    f"router. KV cache moves from prefill to decode over {label}.",
        })
    return notes
