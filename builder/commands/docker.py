"""`docker run` forms of serve commands, and which image they use."""

from __future__ import annotations

from collections.abc import Sequence

from ..arglist import split_options
from ..hardware_keys import most_specific
from ..shell import INDENT, format_lines
from ..types import Command
from .compose import Context

__all__ = ["docker_command_prefix", "docker_image", "with_docker"]

HF_CACHE = "~/.cache/huggingface:/root/.cache/huggingface"


def docker_image(ctx: Context) -> str:
    """Most specific wins: brand default (its nightly image when the model needs a nightly
    build) < variant image (primary brand only) < the model's per-hardware images < image
    overrides (in override order)."""
    image = ctx.brand["default_image"]
    if ctx.model.get("nightly") and ctx.brand.get("nightly_image"):
        image = ctx.brand["nightly_image"]
    if ctx.brand.get("primary") and ctx.variant.get("docker_image"):
        image = ctx.variant["docker_image"]
    keyed = most_specific(ctx.model.get("docker_image", {}), ctx.hw_id, ctx.hw)
    if keyed is not None:
        image = keyed
    for ov in ctx.overrides():
        image = ov.data.get("docker_image") or image
    return image


def docker_command_prefix(ctx: Context) -> list[str]:
    """The words after the image when it has no `vllm serve` entrypoint: the brand's, unless an
    override (an image of its own) says otherwise, the most specific last."""
    prefix: list[str] = list(ctx.brand.get("docker_command_prefix", []))
    for ov in ctx.overrides():
        if ov.data.get("docker_command_prefix") is not None:
            prefix = list(ov.data["docker_command_prefix"])
    return prefix


def with_docker(
    ctx: Context,
    command: Command,
    *,
    host_network: bool = False,
    volumes: Sequence[str] = (),
) -> Command:
    """`command` with `docker_argv` / `docker_text` filled in (serve commands only).

    The published port is the command's `--port` (vLLM's 8000 when absent); a headless worker
    (`port` None) publishes none. `volumes` are extra `-v` mounts after the model cache.
    """
    argv = command["argv"]
    if argv[:2] != ["vllm", "serve"]:
        return command
    port = command["port"]
    device_groups = [list(g) for g in split_options(ctx.brand["docker_device_args"])]
    bare_tail: list[str] = []
    while device_groups and len(device_groups[-1]) == 1 and len(device_groups) > 1:
        bare_tail = device_groups.pop() + bare_tail
    lines: list[list[str]] = [["docker", "run", *device_groups[0]], *device_groups[1:]]
    published = ["-p", f"{port}:{port}"] if port is not None else []
    lines.append([*bare_tail, "--ipc=host", *published])
    if host_network and "--network" not in ctx.brand["docker_device_args"]:
        lines.append(["--network", "host"])
    lines.append(["-v", HF_CACHE])
    lines += [["-v", volume] for volume in volumes]
    lines += [["-e", f"{name}={value}"] for name, value in command["env"].items()]
    lines.append([docker_image(ctx), *docker_command_prefix(ctx), *argv[2:3]])
    docker_argv = [token for line in lines for token in line] + argv[3:]
    return {**command, "docker_argv": docker_argv,
            "docker_text": format_lines(lines) + _option_lines(command["text"], argv)}


def _option_lines(text: str, argv: list[str]) -> str:
    """The option lines of a serve command's `text` (from its first continuation on): a
    Docker form puts the same options, one per line, after its own head. `text` is
    `command_text(argv, 3)`: its first line is `vllm serve MODEL` (a model id never holds a
    line continuation), and when it is not, the options are laid out again."""
    cut = text.find(" \\\n")
    head = text if cut < 0 else text[:cut]
    if head != format_lines([argv[:3]]):
        options = format_lines([[], *split_options(argv[3:])])
        return f" \\\n{INDENT}{options}" if options else ""
    return "" if cut < 0 else text[cut:]
