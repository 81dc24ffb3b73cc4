"""`docker run` forms of serve commands, and which image they use.

The container gets the smallest grant that runs the command (issue 32): the brand's
`docker_device_args` (recipes/hardware.yaml, each with its vendor's source), in which `{gpus}`
names the devices the command itself uses (`node_devices`: `all` when it uses every GPU of its
node, else `"device=0,1"`, or the pool's own devices on a shared node); shared memory through
`--ipc=host`; the brand's `docker_rdma_args` only for a layout that spans nodes or a KV
connector that moves its blocks over RDMA (`uses_rdma`); and
`-e HF_TOKEN`, which passes the token of the shell it runs from by name (never its value), for
gated checkpoints.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from ..arglist import ArgList, split_options
from ..hardware_keys import most_specific
from ..shell import INDENT, format_lines
from ..types import Command
from .compose import Context
from .omni import server_gpus
from .summary import parallel_sizes

__all__ = ["GPUS", "HF_TOKEN", "docker_command_prefix", "docker_image", "gpus_value",
           "node_devices", "uses_rdma", "with_docker"]

HF_CACHE = "~/.cache/huggingface:/root/.cache/huggingface"
HF_TOKEN = "HF_TOKEN"
"""Passed through by name (`-e HF_TOKEN`): gated checkpoints need it, and its value is the
user's own, never written into a command."""
GPUS = "{gpus}"
"""The word of a brand's `docker_device_args` that names the devices a command uses."""


def _flag_value(argv: list[str], flag: str) -> int | None:
    if flag in argv[:-1] and argv[argv.index(flag) + 1].isdigit():
        return int(argv[argv.index(flag) + 1])
    return None


def node_devices(argv: list[str], *, omni: bool = False) -> int:
    """The accelerators one `vllm serve` command uses on its own node, read from its argv (so
    it follows whatever GPU count the command was given): a vLLM-Omni server's degrees;
    else its local data-parallel ranks (`--data-parallel-size-local`) times TP × PP, or its
    TP × DP × PP shared among the nodes it spans (`--nnodes`)."""
    if omni:
        args = ArgList()
        args.extend(argv[3:], {"file": "", "path": "", "layer": ""})
        return server_gpus(args)
    sizes = parallel_sizes(argv)
    local = _flag_value(argv, "--data-parallel-size-local")
    if local is not None:
        return max(1, local * sizes["TP"] * sizes["PP"])
    return max(1, math.prod(sizes.values()) // (_flag_value(argv, "--nnodes") or 1))


def uses_rdma(argv: list[str]) -> bool:
    """The command's KV connector moves KV blocks over RDMA (`"mooncake_protocol": "rdma"` in
    its `--kv-transfer-config`), even between pools of one node."""
    return any(flag == "--kv-transfer-config" and '"rdma"' in value
               for flag, value in pairwise(argv))


def gpus_value(ctx: Context, command: Command, *, omni: bool = False) -> str:
    """What `--gpus` names for `command`: the pool's devices when its node is shared (the
    brand's visible-devices variable), `all` when it uses every GPU of the node (every card
    asked for, on a single-GPU id), else the
    first N (`"device=0,1"`: Docker reads the value as CSV, hence the inner quotes)."""
    visible = ctx.brand.get("visible_devices_env")
    shared = command["env"].get(visible) if visible else None
    if shared:
        return f'"device={shared}"'
    count = node_devices(command["argv"], omni=omni)
    # The cards of a single-GPU id are the GPUs asked for (`gpus=2` of an RTX 5090).
    have = ctx.gpus if ctx.gpus and ctx.hw.get("max_gpus") else ctx.hw["gpu_count"]
    if count >= have:
        return "all"
    return '"device=' + ",".join(str(i) for i in range(count)) + '"'


def docker_image(ctx: Context) -> str:
    """Most specific wins: brand default (its nightly image when the model needs a nightly
    build) < variant image (primary brand only) < the model's per-hardware images < image
    overrides (in override order)."""
    image = ctx.brand["default_image"]
    if ctx.model.get("nightly") and ctx.brand.get("nightly_image"):
        image = ctx.brand["nightly_image"]
    if ctx.brand.get("primary") and ctx.variant.get("docker_image"):
        image = ctx.variant["docker_image"]
    keyed = most_specific(ctx.model.get("docker_image", {}), ctx.hw_id, ctx.hw, ctx.count)
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
    rdma: bool = False,
    omni: bool = False,
    volumes: Sequence[str] = (),
) -> Command:
    """`command` with `docker_argv` / `docker_text` filled in (serve commands only).

    The published port is the command's `--port` (vLLM's 8000 when absent); a headless worker
    (`port` None) publishes none. `rdma`: the layout talks to other nodes (the brand's
    `docker_rdma_args`). `omni`: a vLLM-Omni server (its own degrees say its GPUs). `volumes`
    are extra `-v` mounts after the model cache.
    """
    argv = command["argv"]
    if argv[:2] != ["vllm", "serve"]:
        return command
    port = command["port"]
    device_args = list(ctx.brand["docker_device_args"])
    env = dict(command["env"])
    if GPUS in device_args:
        device_args = [gpus_value(ctx, command, omni=omni) if word == GPUS else word
                       for word in device_args]
        # the container sees only the devices named, numbered from 0: the pool's
        # visible-devices variable would name devices it does not have
        env.pop(ctx.brand.get("visible_devices_env") or "", None)
    if rdma or uses_rdma(argv):
        device_args += ctx.brand.get("docker_rdma_args", [])
    device_groups = [list(g) for g in split_options(device_args)]
    bare_tail: list[str] = []
    while device_groups and len(device_groups[-1]) == 1 and len(device_groups) > 1:
        bare_tail = device_groups.pop() + bare_tail
    lines: list[list[str]] = [["docker", "run", *device_groups[0]], *device_groups[1:]]
    published = ["-p", f"{port}:{port}"] if port is not None else []
    lines.append([*bare_tail, "--ipc=host", *published])
    if host_network and "--network" not in device_args:
        lines.append(["--network", "host"])
    lines.append(["-v", HF_CACHE])
    lines += [["-v", volume] for volume in volumes]
    lines.append(["-e", HF_TOKEN])
    lines += [["-e", f"{name}={value}"] for name, value in env.items()]
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
