"""The builder's public entry points: query in, commands out. Same code in CPython and Pyodide.

A variant's own model id (`nvidia/DeepSeek-V4-Flash-NVFP4`, the id of a variant of the
`deepseek-ai/DeepSeek-V4-Flash` recipe) names its recipe with that variant as the *base*: the
selection the query starts from, `{"variant": "nvfp4"}`. The query's own keys override the base,
so `variant=` naming another variant of the recipe is honoured (`vllm-recipes
nvidia/DeepSeek-V4-Flash-NVFP4 variant=fp8` and the variant's page with `?variant=fp8` both
show the FP8 checkpoint), and a bad value is refused exactly as on the recipe's id: the CLI
exits 2 with the SelectionError, the page drops the key with the same reason in its notice and
shows the base (never the recipe's default checkpoint), and the URL it writes back names only
the keys it honoured, so a reload shows the same command. `build(..., base=)` applies the
rule; `view.page_state(..., base=)` is the page's side of it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from ..errors import SelectionError
from ..estimates.report import performance_json
from ..hardware_keys import counted
from ..types import Command, Data, Note, Result
from ..vllm_release import VLLM_VERSION
from ..vocabulary import COMPANIONS, OFF, ON, feature_label
from .compose import Context, sizing_args
from .deploy_types import context, deploy_type
from .docker import docker_image, with_docker
from .fit import fit_json, fit_plan, no_estimate
from .install import install_choices, install_refusals
from .kv_offload import offload_volumes
from .memo import Memo
from .needed_files import in_container, mounts, on_host, rewrite
from .omni_tasks import TASK, omni_task
from .requests import example_requests
from .selection import (
    Resolver,
    canonical_query,
    feature_reason,
    mode_reason,
    parse_query,
    unavailable_with,
)
from .summary import parallel_sizes

__all__ = ["Builder", "build", "published", "refuse_retired", "render", "render_commands",
           "result_fit", "result_performance", "retired_reason", "typed_selection"]

_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def retired_reason(recipe: Data) -> str | None:
    """Why a retired recipe has no command (its `retired.reason`), or None while it has one."""
    retired = recipe.get("retired")
    return retired["reason"] if retired else None


def refuse_retired(recipe: Data) -> None:
    """SelectionError for a retired recipe: the one refusal the CLI, the JSON and the page
    give for a model that no longer runs on vLLM."""
    reason = retired_reason(recipe)
    if reason is not None:
        raise SelectionError("hf_id", f"{recipe['model']['model_id']} is retired: {reason}")


def build(catalog: Data, recipe: Data, query: Mapping[str, str],
          base: Mapping[str, str] | None = None) -> Result:
    """Commands for `query` (URL keys, all optional); SelectionError for bad or unavailable keys.
    `base`: what a variant's own model id selects (see the module docstring)."""
    return Builder(catalog, recipe).build(query, base=base)


class Builder:
    """`build` for many queries of one recipe: what does not depend on the query (the offered
    hardware, each variant's and strategy's reasons per hardware) is worked out once and
    kept on the instance. The catalog and recipe must not change while it is in use."""

    def __init__(self, catalog: Data, recipe: Data,
                 renders: dict[tuple[tuple[str, str], ...], Result] | None = None) -> None:
        """`renders`: a dict the caller keeps to render each selection once (the site's build
        asks for many selections twice); results then share their commands with earlier
        results of the same selection, so treat them as read-only."""
        refuse_retired(recipe)
        self.catalog = catalog
        self.recipe = recipe
        self.resolver = Resolver(catalog, recipe)
        self._default: dict[str, str] | None = None
        self._renders = renders

    @property
    def choices(self) -> dict[str, list[str]]:
        """`selection.choices(catalog, recipe)`."""
        return self.resolver.choices

    def resolve(self, query: Mapping[str, str]) -> dict[str, str]:
        """The complete selection for `query` (URL keys), or SelectionError."""
        query, _ = canonical_query(self.recipe, query, self.catalog)
        return self.resolver.run(parse_query(self.catalog, self.recipe, query, self.choices))

    def build(self, query: Mapping[str, str], *, unavailable: bool = True,
              base: Mapping[str, str] | None = None) -> Result:
        """`build(catalog, recipe, query)`; with `unavailable=False` the result's
        `unavailable` is left empty (for callers that show no pills). An earlier variant id
        is read as the variant's id now, an earlier node-shaped hardware id as its GPU and count
        (`canonical_query`; the CLI and page say so).
        `base`: the selection the query starts from, its keys overridden by the query's (a
        variant's own model id, see the module docstring)."""
        query, _ = canonical_query(self.recipe, {**(base or {}), **query}, self.catalog)
        explicit = parse_query(self.catalog, self.recipe, query, self.resolver.choices)
        selection = self.resolver.run(explicit)
        reasons = unavailable_with(self.resolver, explicit, selection) if unavailable else {}
        if self._renders is None:
            result = render(self.catalog, self.recipe, selection, reasons, self.resolver.memo)
        else:
            key = tuple(selection.items())
            rendered = self._renders.get(key)
            if rendered is None:
                rendered = self._renders[key] = render(self.catalog, self.recipe, selection,
                                                       memo=self.resolver.memo)
            result = rendered.copy()  # shares its commands with the kept rendering
            result["unavailable"] = reasons
        result["notes"] = [*self.turned_off(explicit, selection), *result["notes"]]
        return result

    def turned_off(self, explicit: Mapping[str, str], selection: Mapping[str, str]
                   ) -> list[Note]:
        """Features the recipe's default turns on that this selection turns off without
        being asked to (a variant, strategy or hardware that cannot have them), each with
        why: the note the page and `--json` show after such a switch."""
        notes: list[Note] = []
        for fid, feature in self.recipe.get("features", {}).items():
            if selection.get(fid, OFF) != OFF or fid in explicit:
                continue
            if self._default is None:
                self._default = self.resolver.run({})
            was = self._default.get(fid, OFF)
            if was == OFF:
                continue
            name = feature_label(fid, feature)
            reason = feature_reason(self.catalog, self.recipe, selection, fid)
            if reason is None and was != ON:
                reason = mode_reason(self.catalog, self.recipe, selection, fid, was)
            variant = self.recipe["variants"][selection["variant"]]
            why = (f"{reason[0].upper()}{reason[1:]}." if reason else
                   f"It starts off with {variant.get('label') or selection['variant']}; "
                   "turn it on in its row.")
            mode = (feature.get("modes") or {}).get(was, {}).get("label")
            notes.append({"title": f"{name} is off",
                          "body": f"The recipe's default has it on{f' ({mode})' if mode else ''}"
                                  f". {why}"})
        return notes

    def offered_strategies(self, selection: Mapping[str, str]) -> list[str]:
        """The strategies a pill row offers next to a resolved `selection` (its own
        included), in catalog order: the ones `build` does not list as unavailable."""
        hw_id, variant_id, own = selection["hardware"], selection["variant"], selection["strategy"]
        return [sid for sid in self.catalog["strategies"] if sid == own
                or self.resolver.strategy_reason(hw_id, variant_id, sid) is None]


def render(
    catalog: Data,
    recipe: Data,
    selection: Mapping[str, str],
    unavailable: dict[str, dict[str, str]] | None = None,
    memo: Memo | None = None,
) -> Result:
    """Commands for a complete, resolved selection (see `selection.resolve`), with the
    unavailable choices computed for it. `memo`: a `Memo` of this recipe the caller keeps
    (a `Builder` passes its resolver's), for the parts a rendering shares with others (its
    example requests, read-only)."""
    ctx = context(catalog, recipe, selection)
    deploy = deploy_type(ctx.strategy)
    volumes = [*offload_volumes(recipe, selection), *deploy.volumes(ctx)]
    written = deploy.render(ctx)
    files = recipe.get("files", {})
    pip = "pip" not in install_refusals(ctx)
    commands: list[Command] = []
    for command in written:
        # The Docker form names the container's paths; `argv` the pip install's (the
        # container's where there is no pip install): see files.py.
        container = rewrite(command, lambda value: in_container(files, value))
        docked = with_docker(ctx, container, host_network=deploy.host_network,
                             rdma=deploy.host_network and ctx.nodes > 1, omni=deploy.omni,
                             volumes=[*volumes, *mounts(files, command["argv"])])
        host = rewrite(command, lambda value: on_host(files, value)) if pip else container
        commands.append({**host, "docker_argv": docked["docker_argv"],
                         "docker_text": docked["docker_text"]})
    task = (omni_task(recipe, selection[TASK], ctx.hw_id, ctx.hw, ctx.count)[0]
            if recipe.get("omni") else None)
    examples = example_requests(recipe, commands, task, memo)
    return {
        "hf_id": recipe["model"]["model_id"],
        "model_id": ctx.model_id,
        "selection": dict(selection),
        "summary": deploy.summary(ctx, commands),
        "docker_image": docker_image(ctx),
        "commands": commands,
        "install": install_choices(ctx, [command["argv"] for command in written]),
        "unavailable": unavailable or {},
        "notes": _notes(ctx, commands),
        "request": ({"label": examples[0]["label"], "text": examples[0]["curl"]}
                    if ctx.recipe.get("omni") else None),
        "example_requests": examples,
        "copy_text": copy_text(commands, selection["install"]),
        "vllm_version": VLLM_VERSION,
        "fit": result_fit(ctx),
        "performance": result_performance(ctx, commands),
    }


def result_performance(ctx: Context, commands: list[Command]) -> dict[str, Any]:
    """The rendering's `performance` (`estimates.report.performance_json`): the estimate
    of one `vllm serve` on one node, the measured points of its hardware."""
    deploy = deploy_type(ctx.strategy)
    serve = [c for c in commands if c["role"] == "serve"]
    sizes = (parallel_sizes(serve[0]["argv"])
             if deploy.one_node and ctx.nodes == 1 and len(serve) == 1 else None)
    return performance_json(ctx.recipe, ctx.hw, ctx.selection, sizes, ctx.profile_pick)


def result_fit(ctx: Context) -> dict[str, Any] | None:
    """The rendering's `fit` (`fit.fit_json`): single-node Tensor Parallel's plan; other
    single-node layouts judged on the GPUs they span; None over several nodes."""
    found = ctx.plan
    deploy = deploy_type(ctx.strategy)
    args = sizing_args(ctx)
    if found is None and not ctx.auto_fit and deploy.one_node and deploy.weights_on_one_node:
        size, _ = ctx.parallel_size()
        found = fit_plan(ctx.recipe, ctx.selection["variant"], ctx.hw, args, size, size)
    return fit_json(found, ctx.recipe, ctx.selection["variant"], ctx.hw, args)


def typed_selection(selection: Mapping[str, str]) -> dict[str, str | int]:
    """A selection as JSON publishes it: URL keys, with `nodes` and `gpus` numbers (the page
    and the URL keep every value a string)."""
    return {key: int(value) if key in ("nodes", "gpus") else value
            for key, value in selection.items()}


def published(result: Result) -> dict[str, object]:
    """A result as `vllm-recipes --json` prints it (its selection typed)."""
    return {**result, "selection": typed_selection(result["selection"])}


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
    notes_of = ctx.recipe.get("hardware_notes", {})
    # The note of the hardware at the selection's count (`### rtx_5090@2:`), else its own.
    hw_note = (notes_of.get(counted(ctx.hw_id, ctx.count)) if ctx.count else None) or (
        notes_of.get(ctx.hw_id))
    if hw_note:
        # A recipe's hardware note has a Note's keys (the schema's HardwareNote).
        notes.append(cast(Note, {k: v for k, v in hw_note.items() if v is not None}))
    names: list[str] = []
    for command in commands:
        for token in [*command["argv"], *command["env"].values()]:
            if "$" not in token:
                continue
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
        router = COMPANIONS["router"].package
        parts = ["the router runs outside the vLLM containers"] if router in packages else []
        if [p for p in packages if p != router]:
            parts.append("install the KV connector's package in every vLLM environment that "
                         "lacks it")
        notes.append({
            "title": "Install the other pieces",
            "body": f"uv pip install {' '.join(packages)} — {'; '.join(parts)}.",
        })
    notes += deploy.notes(ctx, commands)
    why = no_estimate(ctx.recipe, ctx.selection["variant"])
    if why and ctx.recipe.get("facts"):  # a variant of another model size the facts lack
        notes.append({"title": "No fit estimate", "body": f"{why[0].upper()}{why[1:]}."})
    return notes
