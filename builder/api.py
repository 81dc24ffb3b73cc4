"""The builder's public entry points: query in, commands out. Same code in CPython and Pyodide."""

from __future__ import annotations

import re
from collections.abc import Mapping

from .compose import Context
from .deploy import deploy_type
from .docker import docker_image, with_docker
from .install import install_choices
from .kv_offload import offload_volumes
from .omni import omni_request
from .selection import _Resolver, parse_query
from .types import Command, Data, Note, Result

__all__ = ["build", "render", "render_commands"]

_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def build(catalog: Data, recipe: Data, query: Mapping[str, str]) -> Result:
    """Commands for `query` (URL keys, all optional); SelectionError for bad or unavailable keys."""
    explicit = parse_query(catalog, recipe, query)
    resolver = _Resolver(catalog, recipe)
    selection = resolver.run(explicit)
    return render(catalog, recipe, selection, resolver.unavailable(explicit, selection))


def render(
    catalog: Data,
    recipe: Data,
    selection: Mapping[str, str],
    unavailable: dict[str, dict[str, str]] | None = None,
) -> Result:
    """Commands for a complete, resolved selection (see `selection.resolve`), with the
    unavailable choices computed for it."""
    ctx = Context(catalog, recipe, dict(selection))
    deploy = deploy_type(ctx.strategy)
    volumes = [*offload_volumes(recipe, selection), *deploy.volumes(ctx)]
    commands = [
        with_docker(ctx, command, host_network=deploy.host_network, volumes=volumes)
        for command in deploy.render(ctx)
    ]
    return {
        "hf_id": recipe["model"]["model_id"],
        "model_id": ctx.model_id,
        "selection": dict(selection),
        "summary": deploy.summary(ctx, commands),
        "docker_image": docker_image(ctx),
        "commands": commands,
        "install": install_choices(ctx),
        "unavailable": unavailable or {},
        "notes": _notes(ctx, commands),
        "request": omni_request(ctx, commands[0]) if ctx.recipe.get("omni") else None,
        "copy_text": copy_text(commands, selection["install"]),
    }


def render_commands(catalog: Data, recipe: Data, selection: Mapping[str, str]) -> list[Command]:
    """The commands alone for a complete, resolved selection (no availability pass)."""
    return render(catalog, recipe, selection)["commands"]


def copy_text(commands: list[Command], install: str) -> str:
    """What the copy-all button copies: every block, headed by its label when there are several."""
    blocks = []
    for command in commands:
        body = command["docker_text"] if install == "docker" and command["docker_text"] else (
            command["shell"])
        blocks.append(f"# {command['label']}\n{body}" if len(commands) > 1 else body)
    return "\n\n".join(blocks) + "\n"


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
    deploy = deploy_type(ctx.strategy)
    packages = deploy.packages(ctx)
    if packages:
        notes.append({
            "title": "Install the other pieces",
            "body": f"uv pip install {' '.join(packages)} — the router runs outside the vLLM "
                    "containers; install the KV connector's package in every vLLM environment "
                    "that lacks it.",
        })
    notes += deploy.notes(ctx)
    return notes
