"""Structural checks shared by the multi-node, prefill/decode and KV-store tests."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from builder import SelectionError
from tests.recipes_data import hf_ids, kept_builder, resolving
from vllm_recipes.vllm_flags import check_serve_argv

__all__ = ["layout_problems", "renderings", "value"]


def renderings(
    strategies: Iterable[str], extras: Iterable[dict[str, str]] = ({},)
) -> Iterator[tuple[dict[str, str], dict]]:
    """(query, result) for every recipe × variant × hardware × strategy in `strategies`, with
    each of `extras` added, that resolves (`resolving`; the rest say why:
    tests/test_render_matrix.py). Rendered by the recipe's kept `Builder` (the commands of
    a fresh `build`, byte for byte) without the unavailable choices, which no walk of these
    reads (tests/test_unavailable_agrees.py and tests/test_render_matrix.py check those)."""
    extras = list(extras)
    for hf_id in hf_ids():
        kept = kept_builder(hf_id)
        for strategy in strategies:
            for extra in extras:
                for query in resolving(hf_id, strategy, tuple(extra.items())):
                    try:
                        result = kept.build(query, unavailable=False)
                    except SelectionError as error:
                        assert error.reason.strip(), query
                        continue
                    yield query, result


def value(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


def _server_problems(name: str, commands: list[dict]) -> list[str]:
    """One server spread over `commands` (one per node): one head, ranks that cover it."""
    problems = []
    heads = [c for c in commands if "--headless" not in c["argv"]]
    if len(heads) != 1:
        problems.append(f"{name}: {len(heads)} head commands, expected exactly one")
    for command in commands:
        argv = command["argv"]
        if "--headless" in argv and "--port" in argv:
            problems.append(f"{command['label']}: a headless worker with --port")
    first = commands[0]["argv"]
    nnodes = value(first, "--nnodes")
    if nnodes is not None:
        ranks = sorted(int(value(c["argv"], "--node-rank") or -1) for c in commands)
        if ranks != list(range(int(nnodes))):
            problems.append(f"{name}: node ranks {ranks} do not cover --nnodes {nnodes}")
    local = value(first, "--data-parallel-size-local")
    if local is not None:
        size = int(value(first, "--data-parallel-size") or 0)
        starts = sorted(int(value(c["argv"], "--data-parallel-start-rank") or 0)
                        for c in commands)
        if starts != list(range(0, size, int(local))):
            problems.append(f"{name}: DP start ranks {starts} do not cover DP{size} "
                            f"in steps of {local}")
        if len(set(starts)) != len(starts):
            problems.append(f"{name}: DP start ranks repeat: {starts}")
    elif len(commands) > 1 and nnodes is None:
        problems.append(f"{name}: {len(commands)} commands but no multi-node placement flags")
    return problems


def layout_problems(result: dict) -> list[str]:
    """Problems with the commands of a multi-node, PD or KV-store result (empty when fine)."""
    problems: list[str] = []
    servers: dict[str, list[dict]] = defaultdict(list)
    for command in result["commands"]:
        argv = command["argv"]
        if argv[:2] != ["vllm", "serve"]:
            if command["docker_argv"] is not None:
                problems.append(f"{command['label']}: a docker form for a non-vLLM command")
            continue
        problems += [f"{command['label']}: {p}" for p in check_serve_argv(argv)]
        port = int(value(argv, "--port") or 8000)
        if command["port"] is not None and command["port"] != port:
            problems.append(f"{command['label']}: port {command['port']} but --port {port}")
        docker = command["docker_argv"] or []
        published = [docker[i + 1] for i, t in enumerate(docker) if t == "-p"]
        if "--headless" in argv:
            if published:
                problems.append(f"{command['label']}: a headless worker publishes {published}")
        elif docker and published != [f"{port}:{port}"]:
            problems.append(f"{command['label']}: docker publishes {published}, --port {port}")
        role = command["role"]
        group = "server" if role in ("head", "worker") else role
        if role != "serve":
            servers[group].append(command)
        else:
            servers[f"serve:{command['label']}"].append(command)
    for name, commands in servers.items():
        problems += _server_problems(name, commands)
    return problems
