"""Composing one `vllm serve` command from a resolved selection, recording where every option
and environment variable came from.

Layers are applied in this order; a flag set again by a later layer replaces the earlier value
and a JSON value written as a mapping merges into it (see `arglist`):

1. the model's `base_args`, then the strategy's `vllm_args` and its parallel size (see
   `parallel_size`);
2. overrides, least specific first: `all`, then brand; then the variant's own `extra_args` /
   `extra_env` (a checkpoint's settings beat brand-wide ones); then generation, `arch:<arch>`
   and exact id, then exact id at the selection's GPU count (`rtx_5090@2`, see `count`).
   Overrides come from the recipe's and the variant's `hardware_overrides` and
   `strategy_overrides` (and the variant's `tp`); for keys equally specific, recipe before
   variant and hardware-wide before strategy-specific. An override with `when` applies only
   while the features it names have the values it names;
3. the features that are on, in the recipe's order, each followed by its (or its mode's)
   most specific matching `hardware_overrides` entry, applied by the same rule as every other
   layer; then the KV offload tier (`kv_offload.py`); then a workload profile's
   `--max-num-seqs` (`builder.estimates.profiles`);
4. the strategy's `remove_args` (a flag the strategy must not run with, whoever set it);
5. the frontend's environment;
6. on an NVIDIA GPU without BF16 (T4), `--dtype half` (`legacy_gpus.half_precision`, applied
   to every `vllm serve` by `serve_command`).

Parallel size: a workload profile's pick (`builder.estimates.profiles`: latency or
throughput, single-node Tensor Parallel with estimates), else an override's `parallel_size`
(the last one in the order above that applies, see `size_applies`) or the variant's `tp`
(single-node Tensor Parallel only); else, for
single-node Tensor Parallel, the fit rule's size on the GPUs asked for (`builder.sizing`, for a
recipe with memory facts; `--max-model-len` capped where they hold less than the full
context, GPUs beyond the size as data-parallel replicas), without facts the GPUs asked for (a
power of two: `unchecked_tp_reason`), else
1 GPU when the variant's `vram_minimum_gb` fits one GPU and the whole node otherwise (auto-fit);
for every other strategy, the GPUs asked for (`gpus`), else every GPU of the node.

Multi-node, prefill/decode and KV-store layouts add their own layers after these (see
`multi_node.py`, `pd.py`, `kv_store.py`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..arglist import ArgList
from ..env import EnvMap
from ..estimates.profiles import Pick, pick
from ..hardware_keys import BRAND, ranked
from ..shell import command_text, env_lines
from ..sizing import Plan, valid_tp
from ..types import Command, Data, Origin
from ..vocabulary import FRONTENDS, OFF, ON, SERVE_PORT
from .fit import fit_plan, most_gpus, no_estimate, variant_facts
from .kv_offload import offload_parts
from .legacy_gpus import half_precision
from .offering import label
from .omni_tasks import TASK, omni_task

__all__ = ["DEFAULT_PORT", "HEADROOM", "Context", "builder_origin", "cards_name", "context_plan",
           "serve_command", "size_applies", "size_override", "sizing_args", "tool_command",
           "unchecked_tp_reason"]

DEFAULT_PORT = SERVE_PORT
VARIANT_OWN = BRAND + 0.5
"""Where a variant's own `extra_args`/`extra_env` sit among hardware keys."""


def cards_name(hw: Data, gpus: int | str | None) -> str:
    """The hardware's name, with the count of cards asked for where it names one GPU (a
    `max_gpus`) and more than one is asked for (`2× RTX 5090`), rather than a node."""
    return (f"{gpus}× {hw['display_name']}" if gpus and hw.get("max_gpus") and int(gpus) > 1
            else hw["display_name"])


def matched_count(selection: dict[str, str], hw: Data) -> int | None:
    """The GPU count a count-qualified hardware key (`rtx_5090@2`) is matched against: the
    GPUs asked for, else one card of a single-GPU id (one with a `max_gpus`), else none (a
    node's key names it at any count)."""
    gpus = selection.get("gpus")
    return int(gpus) if gpus else (1 if hw.get("max_gpus") else None)


def frontend_env(frontend: str) -> tuple[dict[str, str], Origin]:
    """The environment the frontend sets, with its origin (`FRONTENDS`)."""
    return FRONTENDS[frontend].env, builder_origin(
        "builder.vocabulary", f"FRONTENDS[{frontend!r}]", f"frontend: {frontend}")


def builder_origin(module: str, rule: str, layer: str = "builder") -> Origin:
    """The origin of a value the builder derives: `module` is the dotted name of the module
    whose rule it is (`__name__`), shown as its file (`builder/commands/pd.py`)."""
    return {"file": module.replace(".", "/") + ".py", "path": rule, "layer": layer}


@dataclass(frozen=True)
class Override:
    path: str
    """YAML path in the recipe (`strategy_overrides.single_node_tp.blackwell`)."""
    key: str
    """The hardware key it was matched by."""
    data: Data


@dataclass(frozen=True)
class Context:
    """Everything a layout needs to render commands for one resolved selection. Made by
    `deploy_types.context`, which tells it what the selection's deploy type decides."""

    catalog: Data
    recipe: Data
    selection: dict[str, str]
    auto_fit: bool = False
    """The strategy is its deploy type's plain layout (`deploy_types.context` says): its
    parallel size fits the model to the node, and the variant's `tp` sizes apply."""
    hw_id: str = field(init=False)
    hw: Data = field(init=False)
    brand: Data = field(init=False)
    variant: Data = field(init=False)
    strategy: Data = field(init=False)
    count: int | None = field(init=False)  # `matched_count`

    def __post_init__(self) -> None:
        sel = self.selection
        hw = self.catalog["hardware"][sel["hardware"]]
        object.__setattr__(self, "hw_id", sel["hardware"])
        object.__setattr__(self, "hw", hw)
        object.__setattr__(self, "brand", self.catalog["brands"][hw["brand"]])
        object.__setattr__(self, "variant", self.recipe["variants"][sel["variant"]])
        object.__setattr__(self, "strategy", self.catalog["strategies"][sel["strategy"]])
        object.__setattr__(self, "count", matched_count(sel, hw))

    # ------------------------------------------------------------------ basic facts

    @property
    def model(self) -> Data:
        return self.recipe["model"]

    @property
    def model_id(self) -> str:
        """The checkpoint served: an Omni task's, else the variant's, else the recipe's."""
        if TASK in self.selection and self.recipe.get("omni"):
            task, _ = omni_task(self.recipe, self.selection[TASK], self.hw_id, self.hw,
                                self.count)
            if task.get("model_id"):
                return str(task["model_id"])
        return self.variant.get("model_id") or self.model["model_id"]

    @property
    def nodes(self) -> int:
        return int(self.selection["nodes"])

    @property
    def variant_label(self) -> str:
        return label(self.selection["variant"], self.variant)

    def origin(self, path: str, layer: str) -> Origin:
        """The origin of a value the recipe file sets at `path`."""
        return {"file": self.recipe.get("file", "recipe"), "path": path, "layer": layer}

    def strategy_origin(self, path: str) -> Origin:
        sid = self.selection["strategy"]
        return {"file": self.strategy.get("file", f"recipes/strategies/{sid}.yaml"),
                "path": path, "layer": f"strategy: {sid}"}

    def lookup(self, mapping: dict[str, Any] | None) -> tuple[str, Any] | None:
        """(key, value) of the most specific key of `mapping` naming this hardware."""
        entries = ranked(mapping or {}, self.hw_id, self.hw, self.count)
        return (entries[-1][1], entries[-1][2]) if entries else None

    def overrides(self) -> list[Override]:
        """Matching overrides in the order they apply (see the module docstring)."""
        return self._overrides

    @cached_property
    def _overrides(self) -> list[Override]:
        sid = self.selection["strategy"]
        vid = self.selection["variant"]
        variant = self.variant
        layers: list[tuple[str, dict[str, Any]]] = [
            ("hardware_overrides", self.recipe.get("hardware_overrides", {})),
            (f"strategy_overrides.{sid}", self.recipe.get("strategy_overrides", {}).get(sid, {})),
            (f"variants.{vid}.hardware_overrides", variant.get("hardware_overrides", {})),
        ]
        if self.auto_fit:
            layers.append((f"variants.{vid}.tp", {
                key: {"parallel_size": size} for key, size in variant.get("tp", {}).items()}))
        layers.append((f"variants.{vid}.strategy_overrides.{sid}",
                       variant.get("strategy_overrides", {}).get(sid, {})))
        entries: list[tuple[float, int, Override]] = []
        if variant.get("extra_args") or variant.get("extra_env"):
            own = {"extra_args": variant.get("extra_args", []),
                   "extra_env": variant.get("extra_env", {})}
            entries.append((VARIANT_OWN, 2, Override(f"variants.{vid}", vid, own)))
        for index, (path, mapping) in enumerate(layers):
            entries += [(rank, index, Override(f"{path}.{key}", key, data))
                        for rank, key, data in ranked(mapping, self.hw_id, self.hw, self.count)]
        entries.sort(key=lambda entry: (entry[0], entry[1]))
        return [ov for _, _, ov in entries if self._features_hold(ov.data.get("when") or {})]

    def _features_hold(self, when: dict[str, str]) -> bool:
        """True when every feature named in an override's `when` has the value it asks for."""
        for fid, wanted in when.items():
            value = self.selection.get(fid, OFF)
            if not (value == wanted or (wanted == ON and value != OFF)):
                return False
        return True

    @property
    def gpus(self) -> int | None:
        """The GPUs the selection asks for (its `gpus`), None when it does not say."""
        value = self.selection.get("gpus")
        return int(value) if value else None

    @cached_property
    def profile_pick(self) -> Pick | None:  # `profile_choice`, worked out once
        return profile_choice(self)

    @cached_property
    def plan(self) -> Plan | None:
        """`context_plan` of this context, worked out once."""
        return context_plan(self)

    def parallel_size(self) -> tuple[int, Origin]:
        """GPUs per server for the strategy's parallel flag, and where that number comes from
        (see the module docstring and `parallel_size`)."""
        return parallel_size(self)

    def replicas(self, size: int) -> int:
        """Data-parallel replicas of single-node Tensor Parallel: the GPUs asked for beyond
        one tensor-parallel group of `size`."""
        return max(1, self.gpus // size) if self.auto_fit and self.gpus else 1

    def port(self, args: ArgList) -> int:
        value = args.get("--port")
        return int(value[0]) if value else DEFAULT_PORT

    # -------------------------------------------------------------------- layers

    def base_options(self) -> ArgList:
        args = ArgList()
        args.extend(self.model.get("base_args", []), self.origin("model.base_args", "model"))
        args.extend(self.strategy.get("vllm_args", []), self.strategy_origin("vllm_args"))
        return args

    def apply_overrides(self, args: ArgList) -> None:
        for ov in self.overrides():
            origin = self.origin(f"{ov.path}.extra_args", f"override: {ov.key}")
            if ov.path == f"variants.{self.selection['variant']}":
                origin = self.origin(f"{ov.path}.extra_args", "variant")
            args.extend(ov.data.get("extra_args", []), origin)
            for flag in ov.data.get("remove_args", []):
                args.remove(flag)

    def apply_strategy_removals(self, args: ArgList) -> None:
        for flag in self.strategy.get("remove_args", []):
            args.remove(flag)

    def feature_parts(self) -> list[tuple[list[Any], dict[str, str], Origin]]:
        """(args, env, origin) of every feature that is on, in recipe order (worked out once
        per context: the args and the environment both read them; callers do not change
        them)."""
        return self._feature_parts

    @cached_property
    def _feature_parts(self) -> list[tuple[list[Any], dict[str, str], Origin]]:
        parts = []
        for fid, feature in self.recipe.get("features", {}).items():
            value = self.selection.get(fid, OFF)
            if value == OFF:
                continue
            path = f"features.{fid}" if value == ON else f"features.{fid}.modes.{value}"
            source = feature if value == ON else feature["modes"][value]
            layer = f"feature: {fid}" if value == ON else f"feature: {fid}={value}"
            parts.append((list(source.get("args", [])), dict(source.get("env", {})),
                          self.origin(f"{path}.args", layer)))
            # Its hardware override applies on top, by the rule of every override: a flag set
            # again replaces its value, a JSON value written as a mapping merges into it.
            override = self.lookup(source.get("hardware_overrides"))
            if override is not None:
                key, settings = override
                parts.append((list(settings.get("args", [])), dict(settings.get("env", {})),
                              self.origin(f"{path}.hardware_overrides.{key}.args", layer)))
        return parts

    def apply_features(self, args: ArgList) -> None:
        for feature_args, _, origin in self.feature_parts():
            args.extend(feature_args, origin)
        offload_args, _, origin = offload_parts(self.recipe, self.selection)
        args.extend(offload_args, origin)
        args.extend(*profile_parts(self))

    def env(self) -> EnvMap:
        env = EnvMap()
        env.update(self.model.get("base_env", {}), self.origin("model.base_env", "model"))
        vid = self.selection["variant"]
        for ov in self.overrides():
            layer = "variant" if ov.path == f"variants.{vid}" else f"override: {ov.key}"
            env.update(ov.data.get("extra_env", {}), self.origin(f"{ov.path}.extra_env", layer))
        for _, feature_env, origin in self.feature_parts():
            env.update(feature_env, {**origin, "path": origin["path"][:-5] + ".env"})
        _, offload_env, origin = offload_parts(self.recipe, self.selection)
        env.update(offload_env, origin)
        env.update(*frontend_env(self.selection["frontend"]))
        return env


def profile_choice(ctx: Context) -> Pick | None:
    """What the selection's workload profile picks (`builder.estimates.profiles`):
    single-node Tensor Parallel on the GPUs asked for only; None for balanced."""
    profile = ctx.selection.get("profile")
    if not profile or not ctx.auto_fit or not ctx.gpus:
        return None
    return pick(ctx.recipe, ctx.hw_id, ctx.selection["variant"], ctx.selection["strategy"],
                ctx.gpus, profile)


def profile_origin(ctx: Context) -> Origin:
    """Where a value the workload profile picked comes from: its rule, and why."""
    chosen = ctx.profile_pick
    why = chosen.why if chosen is not None else ""
    return builder_origin("builder.estimates.profiles", why,
                          f"profile: {chosen.profile if chosen else ''}")


def profile_parts(ctx: Context) -> tuple[list[str], Origin]:
    """The workload profile's scheduler setting (`--max-num-seqs`), with its origin."""
    chosen = ctx.profile_pick
    args = ["--max-num-seqs", str(chosen.max_num_seqs)] if chosen is not None else []
    return args, profile_origin(ctx)


def parallel_size(ctx: Context) -> tuple[int, Origin]:
    """GPUs per server for the strategy's parallel flag of `ctx`, and where that number comes
    from (see the module docstring)."""
    gpus = ctx.hw["gpu_count"]
    if ctx.profile_pick is not None:
        return ctx.profile_pick.tp, profile_origin(ctx)
    override = size_override(ctx)
    found = ctx.plan
    if override is not None and (ctx.auto_fit or ctx.gpus in (None, override[0])):
        return override
    if found is not None:
        return found.tp, builder_origin("builder.commands.fit", (
            f"fit rule: the fewest GPUs that hold the weights and one "
            f"{found.max_model_len:,}-token sequence"), "parallel size")
    if ctx.gpus is not None and not ctx.auto_fit:
        size, rule = ctx.gpus, f"the GPUs asked for (gpus={ctx.gpus})"
    elif ctx.gpus is not None and (why := no_estimate(ctx.recipe, ctx.selection["variant"])):
        size, rule = ctx.gpus, f"the GPUs asked for (gpus={ctx.gpus}); {why}"
    elif ctx.auto_fit:
        need, per_gpu = ctx.variant["vram_minimum_gb"], ctx.hw["memory_gb"]
        fits = need <= per_gpu
        size = 1 if fits else gpus
        rule = (f"auto-fit: {ctx.variant_label} needs {need} GB and one "
                f"{ctx.hw['display_name']} has {per_gpu} GB, so "
                f"{'one GPU' if fits else 'every GPU of the node'}")
    else:
        size, rule = gpus, "the strategy spans every GPU of the node"
    return size, builder_origin(__name__, rule, "parallel size")


TP_FLAG = "--tensor-parallel-size"


def unchecked_tp_reason(ctx: Context) -> str | None:
    """Why the GPUs asked for (`gpus`) cannot be the tensor-parallel size of a variant without
    memory facts; None when they can. vLLM needs the tensor-parallel size to divide the
    attention heads (and the KV heads); without facts (`fit.no_estimate`) the builder does
    not know the head count, so it offers only the sizes every model it serves divides by:
    powers of two (the sizes recipes set by hand are too). A size the recipe sets itself
    (`tp:`, an override's `parallel_size`) stands, and a strategy whose parallel flag is not
    `--tensor-parallel-size` (data-parallel layouts) is not asked."""
    if ctx.gpus is None or ctx.strategy.get("parallel_flag") != TP_FLAG:
        return None
    size, _ = ctx.parallel_size()
    override = size_override(ctx)
    if override is not None and override[0] == size:
        return None
    if no_estimate(ctx.recipe, ctx.selection["variant"]) is None:
        return _heads_reason(ctx, size)
    if size & (size - 1) == 0:
        return None
    where = ("its memory facts (recipes/facts/MISSING.md says why)"
             if not ctx.recipe.get("facts") else
             f"recipes/facts/{ctx.model['model_id']}.yaml (it does not cover this variant)")
    counts = [str(1 << k) for k in range(most_gpus(ctx.hw).bit_length())]
    choices = f"{', '.join(counts[:-1])} or {counts[-1]}" if len(counts) > 1 else counts[0]
    asked = f" (gpus={ctx.gpus})" if ctx.gpus != size else ""
    return (f"TP {size}{asked}: vLLM needs the tensor-parallel size to divide the "
            f"model's attention heads, and this model's head count is not in {where}, so "
            f"only powers of two are offered: pick {choices} GPU"
            f"{'s' if counts != ['1'] else ''}")


def _heads_reason(ctx: Context, size: int) -> str | None:
    """Why the facts' heads refuse tensor-parallel size `size` (`sizing.valid_tp`: it divides
    the attention heads, and the KV heads divide it or it divides them); None when vLLM
    accepts it. The fit rule sizes plain TP layouts by the same test; this catches the
    layouts whose size is the GPUs asked for (TP + EP)."""
    facts = variant_facts(ctx.recipe, ctx.selection["variant"])
    if facts is None or valid_tp(facts["config"], size):
        return None
    config = facts["config"]
    counts = [str(t) for t in range(1, most_gpus(ctx.hw) + 1) if valid_tp(config, t)]
    choices = f"{', '.join(counts[:-1])} or {counts[-1]}" if len(counts) > 1 else counts[0]
    kv = "" if config.get("kv_lora_rank") else f" and {config['num_key_value_heads']} KV heads"
    return (f"TP {size}: vLLM needs the tensor-parallel size to divide the model's "
            f"{config['num_attention_heads']} attention heads{kv} (recipes/facts/"
            f"{ctx.model['model_id']}.yaml): pick {choices} GPU{'s' if counts != ['1'] else ''}")


def size_override(ctx: Context) -> tuple[int, Origin] | None:
    """The parallel size the recipe sets for `ctx` (the last override that applies, see
    `size_applies`), with where it is set; None when it sets none."""
    found = None
    # Host memory (Engram tables, offloaded experts) a wider layer keeps out of the GPUs is
    # kept out for a narrower layer's size too: the most specific layer that says it wins.
    host_gb = 0
    for ov in ctx.overrides():
        if ov.data.get("host_memory_gb") is not None:
            host_gb = ov.data["host_memory_gb"]
    for ov in ctx.overrides():
        if ov.data.get("parallel_size") is not None and size_applies(
                ov.data["parallel_size"], ov.key, ctx.hw_id, ctx.hw,
                ctx.variant["vram_minimum_gb"], host_gb):
            path = ov.path if ov.path.split(".")[-2] == "tp" else f"{ov.path}.parallel_size"
            found = (int(ov.data["parallel_size"]), ctx.origin(path, f"override: {ov.key}"))
    return found


def sizing_args(ctx: Context) -> ArgList:
    """The options the fit rule reads (utilization, context, KV cache type): every layer of
    the command but its parallel size."""
    args = ctx.base_options()
    ctx.apply_overrides(args)
    ctx.apply_features(args)
    ctx.apply_strategy_removals(args)
    return args


def context_plan(ctx: Context) -> Plan | None:
    """The fit rule's plan for single-node Tensor Parallel on the GPUs asked for (the node's
    `gpu_count` when the selection names none); None for other strategies, without memory
    facts, or when nothing fits."""
    if not ctx.auto_fit:
        return None
    override = size_override(ctx)
    if ctx.profile_pick is not None:  # the profile's layout, as the fit rule sees it
        override = (ctx.profile_pick.tp, profile_origin(ctx))
    available = ctx.gpus or ctx.hw["gpu_count"]
    return fit_plan(ctx.recipe, ctx.selection["variant"], ctx.hw, sizing_args(ctx),
                    max(available, override[0] if override else 1),
                    override[0] if override else None)


def size_applies(size: int, key: str, hw_id: str, hw: Data, vram_minimum_gb: float,
                 host_gb: int = 0) -> bool:
    """A parallel size a recipe sets under `key` applies on `hw_id`: always when the key is
    the hardware's own id; under a wider key (`all`, a brand, a generation) only where the
    node can hold it (`size` divides its most GPUs) and `size` GPUs hold the weights
    (`vram_minimum_gb` / HEADROOM, less `host_gb` kept in host memory): on smaller
    hardware the builder's fit rule sizes the command instead."""
    if key == hw_id:
        return True
    most = hw.get("max_gpus") or hw["gpu_count"]
    return (size <= most and most % size == 0
            and size * hw["memory_gb"] >= math.ceil(vram_minimum_gb / HEADROOM) - host_gb)


HEADROOM = 1.2
"""`vram_minimum_gb` is the weights times this factor (room for KV cache)."""


def serve_command(
    ctx: Context,
    role: str,
    args: ArgList,
    *,
    label: str = "",
    port: int | None = None,
    env: EnvMap | None = None,
) -> Command:
    """A `vllm serve` command of `role`; its Docker form is added by `docker.py`."""
    full_env = ctx.env() if env is None else env
    args = half_precision(args, ctx.hw)
    argv = ["vllm", "serve", ctx.model_id, *args.tokens()]
    command = tool_command(role, argv, label=label or role, env=full_env.values(), port=port,
                           head_len=3)
    command["sources"] = {"args": args.sources(), "env": full_env.sources()}
    return command


def tool_command(
    role: str,
    argv: list[str],
    *,
    label: str,
    env: dict[str, str] | None = None,
    port: int | None = None,
    head_len: int = 1,
) -> Command:
    """A command with its shell text; `vllm serve` commands get their Docker form later from
    `docker.py`, others (router, Mooncake master, ...) have none."""
    full_env = dict(env or {})
    text = command_text(argv, head_len)
    return {
        "role": role,
        "label": label,
        "argv": list(argv),
        "env": full_env,
        "text": text,
        "shell": env_lines(full_env) + text,
        "docker_argv": None,
        "docker_text": None,
        "port": port,
        "sources": {"args": [], "env": {}},
    }
