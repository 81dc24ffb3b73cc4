"""`vllm-router` commands: the one place that makes them, for every layout that puts a router
in front of vLLM servers (prefill/decode pools, KV-store instances, a strategy's companion).

A strategy's companion router (`companion` in its YAML, role `router`) sits on the same node
as the strategy's one engine: its arguments are the strategy's `companion.args`, then what the
builder reads from the engine command (`--worker-urls http://localhost:<engine port>`, and
`--intra-node-data-parallel-size` when the engine runs more than one data-parallel rank, so
the router addresses each rank), then `--port` from `companion.port`. The router runs on the
host, outside any vLLM container (pip package `COMPANIONS["router"].package`).
"""

from __future__ import annotations

from ..arglist import ArgList
from ..types import Command, Note
from ..vocabulary import COMPANIONS
from .compose import Context, builder_origin, tool_command

__all__ = ["ROUTER", "companion_command", "companion_notes", "router_command"]

ROUTER = "router"
"""The router's role (a key of `COMPANIONS` and of `ROLES`)."""


def router_command(args: ArgList, *, port: int, label: str) -> Command:
    """`vllm-router` with `args` (their origins kept for "Why each line?")."""
    command = tool_command(ROUTER, [COMPANIONS[ROUTER].program, *args.tokens()],
                           label=label, port=port, head_len=3)
    command["sources"]["args"] = args.sources()
    return command


def companion_command(ctx: Context, engine: ArgList, engine_port: int) -> Command:
    """The strategy's companion for the engine whose options are `engine` (see the module
    docstring)."""
    companion = ctx.strategy["companion"]
    role = companion["role"]
    if role != ROUTER:
        raise ValueError(f"unknown companion role {role!r}")
    args = ArgList()
    args.extend(companion.get("args", []), ctx.strategy_origin("companion.args"))
    derived = builder_origin(__name__, "the engine behind the router", ROUTER)
    args.set(derived, "--worker-urls", f"http://localhost:{engine_port}")
    ranks = engine.get("--data-parallel-size")
    if ranks and int(ranks[0]) > 1:
        args.set(builder_origin(__name__, "one worker per data-parallel rank of the engine",
                                ROUTER), "--intra-node-data-parallel-size", ranks[0])
    port = int(companion["port"])
    args.set(ctx.strategy_origin("companion.port"), "--port", str(port))
    return router_command(args, port=port, label=f"{COMPANIONS[role].label} (port {port})")


def companion_notes(ctx: Context, commands: list[Command]) -> list[Note]:
    """The start order of the engine and its companion, and what the companion does."""
    companion = ctx.strategy.get("companion")
    if not companion:
        return []
    kind = COMPANIONS[companion["role"]]
    engine = next(c for c in commands if c["role"] != companion["role"])
    if companion.get("start", "after") == "after":
        order = (f"Start the engine (port {engine['port']}); once it answers /health, start "
                 f"the {kind.label}")
    else:
        order = f"Start the {kind.label} first, then the engine (port {engine['port']})"
    return [{
        "title": "Start order",
        "body": f"{order}. Clients talk to the {kind.label} on port {companion['port']}. "
                f"{' '.join(companion['description'].split())}",
    }]
