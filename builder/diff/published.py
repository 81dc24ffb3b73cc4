"""How a published configuration reads on a page: its layout, engine and speculative decoding in
a few words, and each role's command as copy-pasteable shell text.

A role's shell text is its environment as `export` lines, then the command with one option per
line; a role started in a container is shown as the `docker run` it was: the container options,
the environment as `-e`, argv[0] as the entrypoint, the image, the rest of argv. `shlex.split`
of the text gives back the words (see `shell.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..shell import command_text, env_lines, format_lines

__all__ = ["engine_label", "layout_label", "role_layout", "role_text", "speculative_label"]

ROLE_NAMES = {"serve": "server", "prefill": "prefill", "decode": "decode"}


def _head_len(argv: list[str]) -> int:
    if argv[:2] in (["vllm", "serve"],) or (len(argv) > 2 and argv[1] == "-m"):
        return 3
    if argv[:2] == ["sglang", "serve"]:
        return 2
    return 1


def role_text(command: Mapping[str, Any]) -> str:
    """The shell text of one role's command."""
    argv: list[str] = list(command["argv"])
    env: dict[str, str] = dict(command.get("env") or {})
    docker = command.get("docker")
    if not docker:
        return env_lines(env) + command_text(argv, _head_len(argv))
    lines: list[list[str]] = [["docker", "run"]]
    options = list(docker.get("options") or [])
    group: list[str] = []
    for token in options:
        if token.startswith("-") and group:
            lines.append(group)
            group = []
        group.append(token)
    if group:
        lines.append(group)
    if len(lines) > 1:  # the first option joins `docker run`, as in the builder's own form
        lines[0:2] = [[*lines[0], *lines[1]]]
    lines += [["-e", f"{name}={value}"] for name, value in env.items()]
    lines.append(["--entrypoint", argv[0]])
    head = _head_len(argv) - 1
    lines.append([docker["image"], *argv[1:1 + head]])
    rest = argv[1 + head:]
    options_lines: list[list[str]] = []
    for token in rest:
        if token.startswith("-") or not options_lines:
            options_lines.append([token])
        else:
            options_lines[-1].append(token)
    return format_lines([*lines, *options_lines])


def _parallel(parallelism: Mapping[str, int] | None) -> str:
    if not parallelism:
        return ""
    p = {"tp": 1, "dp": 1, "pp": 1, **parallelism}
    parts = []
    if p.get("ep") and p["dp"] > 1 and p["tp"] == 1:
        parts.append(f"DEP{p['dp']}")
    else:
        if p["tp"] > 1 or (p["dp"] == 1 and p["pp"] == 1):
            parts.append(f"TP{p['tp']}")
        if p["dp"] > 1:
            parts.append(f"DP{p['dp']}")
        if p.get("ep"):
            parts.append(f"EP{p['ep']}")
    if p["pp"] > 1:
        parts.append(f"PP{p['pp']}")
    return " · ".join(parts)


def role_layout(role: Mapping[str, Any]) -> str:
    """"2 × 2 GPUs · TP2" for one role (how many, how big, how split)."""
    gpus = role["gpus"]
    size = f"{role['count']} × {gpus} GPU{'s' if gpus != 1 else ''}"
    parallel = _parallel(role.get("parallelism"))
    return f"{size} · {parallel}" if parallel else size


def layout_label(configuration: Mapping[str, Any]) -> str:
    """"TP2", "TP4 · EP4", or "2× prefill TP2 + 1× decode DEP4"."""
    engines = [r for r in configuration["roles"] if r["role"] in ROLE_NAMES]
    if configuration["serving"] == "aggregated" and len(engines) == 1:
        return _parallel(engines[0].get("parallelism"))
    return " + ".join(
        f"{r['count']}× {ROLE_NAMES[r['role']]} {_parallel(r.get('parallelism'))}"
        for r in engines)


def engine_label(engine: Mapping[str, Any]) -> str:
    """"vLLM 0.31.0", "vLLM 0.30.0 + Dynamo 1.5.0", "vLLM 0.31.1rc1… (ROCm 10.0.0)"."""
    label = f"{engine['name']} {engine['version']}"
    if engine.get("dynamo"):
        label += f" + Dynamo {engine['dynamo']}"
    if engine.get("rocm"):
        label += f" (ROCm {engine['rocm']})"
    return label


def speculative_label(spec: Mapping[str, Any] | None) -> str:
    """"DSpark, 5 draft tokens, probabilistic drafts, block rejection, adaptive verification"."""
    if not spec:
        return "none"
    method = {"dspark": "DSpark", "mtp": "MTP", "eagle3": "EAGLE-3"}.get(spec["method"],
                                                                        spec["method"])
    parts = [method, f"{spec['draft_tokens']} draft tokens"]
    if spec.get("draft_sampling"):
        parts.append(f"{spec['draft_sampling']} drafts")
    if spec.get("rejection_sampling"):
        parts.append(f"{spec['rejection_sampling']} rejection")
    if spec.get("adaptive_verification") is not None:
        parts.append("adaptive verification" if spec["adaptive_verification"]
                     else "no adaptive verification")
    return ", ".join(parts)
