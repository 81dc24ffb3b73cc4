"""vLLM-Omni: generation models (images, video, speech) served by `vllm serve MODEL ... --omni`.

A recipe with an `omni` block serves one or more *tasks* (the `task` selection key, the first
task by default). A task may serve its own checkpoint (`model_id`, an HF id or a path on the
host), add arguments, and give the request that exercises it; its `hardware_overrides` (most
specific key wins) replace those on matching hardware. The command is one server on one node:

    the model's base_args, overrides (hardware, variant), the task's extra_args, the
    features that are on, `--port` (the recipe's `omni.port`), then `--omni`.

There is no parallel-size flag: the recipe's arguments set the server's parallelism
(`--num-gpus`, `--usp`, ...). A task is offered on hardware where the GPUs its server runs on
(`server_gpus`) hold its `vram_minimum_gb` (the task's on that hardware, else the variant's).
The request example (`requests.py`) is the task's `request` (a JSON body or form fields posted
to the task's endpoint, or a whole `curl` written out), over the kind's defaults
(`vocabulary.OMNI_KINDS`).
"""

from __future__ import annotations

from typing import Any

from ..arglist import ArgList
from ..types import Command, Data
from ..vocabulary import OMNI_KINDS
from .compose import Context, builder_origin, cards_name, serve_command
from .omni_tasks import TASK, omni_task, task_ids

__all__ = ["TASK", "omni_summary", "omni_task", "render_omni", "request_parts",
           "server_gpus", "task_ids", "task_reason", "with_model"]

OMNI_FLAG = "--omni"


def _task(ctx: Context) -> tuple[Data, str | None]:
    return omni_task(ctx.recipe, ctx.selection[TASK], ctx.hw_id, ctx.hw, ctx.count)


PARALLEL_FLAGS = ("--tensor-parallel-size", "--usp", "--ring", "--cfg-parallel-size")
"""vLLM-Omni's parallel degrees (`--ulysses-degree` is `--usp`); their product is the GPUs a
server runs on when `--num-gpus` does not say."""


def _server_args(ctx: Context) -> ArgList:
    """The arguments that decide the server's layout: base, overrides and the task's."""
    task_id = ctx.selection[TASK]
    task, key = _task(ctx)
    args = ctx.base_options()
    ctx.apply_overrides(args)
    path = f"omni.tasks.{task_id}" + (f".hardware_overrides.{key}" if key else "")
    args.extend(task.get("extra_args", []), ctx.origin(f"{path}.extra_args", f"task: {task_id}"))
    return args


def server_gpus(args: ArgList) -> int:
    """The GPUs a vLLM-Omni server with these arguments runs on."""
    def value(flag: str) -> int:
        given = args.get(flag)
        return int(given[0]) if given and given[0].isdigit() else 1

    if args.get("--num-gpus"):
        return value("--num-gpus")
    count = 1
    for flag in PARALLEL_FLAGS:
        count *= value("--ulysses-degree" if flag == "--usp" and not args.get(flag) else flag)
    return count


def task_reason(ctx: Context) -> str | None:
    """Why the selected task cannot be served on the selected hardware; None when it can."""
    task, _ = _task(ctx)
    name = task.get("label") or OMNI_KINDS[task["kind"]].label
    hw, hw_name = ctx.hw, ctx.hw["display_name"]
    gpus = server_gpus(_server_args(ctx))
    if ctx.gpus and hw.get("max_gpus"):  # the cards of a single-GPU id asked for
        if gpus > ctx.gpus:
            return f"{name} runs on {gpus} GPUs; gpus={ctx.gpus} gives {ctx.gpus} {hw_name}"
    elif gpus > hw["gpu_count"]:
        return f"{name} runs on {gpus} GPUs; {hw_name} has {hw['gpu_count']}"
    need = task.get("vram_minimum_gb") or ctx.variant["vram_minimum_gb"]
    have = gpus * hw["memory_gb"]
    if need > have:
        where = f"one {hw_name} GPU has" if gpus == 1 else f"its {gpus} {hw_name} GPUs have"
        return f"{name} needs {need} GB; {where} {have} GB"
    return None


def render_omni(ctx: Context) -> list[Command]:
    args = _server_args(ctx)
    ctx.apply_features(args)
    port = ctx.recipe["omni"].get("port")
    if port is not None:
        args.set(ctx.origin("omni.port", "omni"), "--port", str(port))
    args.set(builder_origin(__name__, "vLLM-Omni serves generation models with --omni", "omni"),
             OMNI_FLAG)
    return [serve_command(ctx, "serve", args, port=ctx.port(args))]


def omni_summary(ctx: Context, commands: list[Command]) -> str:
    task, _ = _task(ctx)
    label = task.get("label") or OMNI_KINDS[task["kind"]].label
    return f"{cards_name(ctx.hw, ctx.gpus)} · vLLM-Omni · {label} · {ctx.variant_label}"


def request_parts(task: Data) -> tuple[str, Data | None, Data | None]:
    """(endpoint, form fields, JSON body) of the request that exercises `task` (one of the
    two is None): the task's `request` over its kind's defaults (`vocabulary.OMNI_KINDS`).
    A task whose `request` is a whole `curl` has none (the caller uses the curl)."""
    kind = OMNI_KINDS[task["kind"]]
    given: Data = task.get("request") or {}
    endpoint = given.get("endpoint") or kind.endpoint
    form = given.get("form")
    body = given.get("json_body")
    if form is None and body is None:
        form, body = kind.form, kind.json_body
    return endpoint, form, body


MODEL_ENDPOINTS = ("/v1/chat/completions", "/v1/audio/speech")
"""Endpoints whose requests name the model (the others serve the one model there is)."""


def with_model(endpoint: str, body: Data, model: str) -> dict[str, Any]:
    """`body`, naming `model` first where the endpoint wants it and the body does not."""
    if endpoint in MODEL_ENDPOINTS and "model" not in body:
        return {"model": model, **body}
    return dict(body)
