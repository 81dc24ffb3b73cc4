"""Composing one `vllm serve` command from a resolved selection.

Layers are applied in this order; a flag set again by a later layer replaces the earlier value
(see `arglist`):

1. the model's `base_args`, then the strategy's `vllm_args` and its parallel flag;
2. overrides, least specific first: recipe `hardware_overrides` keyed by brand; then the
   variant's own `extra_args` / `extra_env` (a checkpoint's settings beat brand-wide ones);
   then overrides keyed by generation, `arch:<arch>` and exact id. Overrides come from the
   recipe's and the variant's `hardware_overrides` and `strategy_overrides` (and the variant's
   per-hardware `tp`); for keys equally specific, recipe before variant and hardware-wide
   before strategy-specific. An override with `when` applies only while the features it names
   have the values it names;
3. the features that are on, in the recipe's order (a mode's `hardware_overrides` replace its
   args on matching hardware), then the KV offload tier (`kv_offload.py`);
4. the frontend's environment.

Multi-node, prefill/decode and KV-store layouts add their own layers after these (see
`multi_node.py`, `pd.py`, `kv_store.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .arglist import ArgList
from .hardware_keys import BRAND, most_specific, ranked
from .kv_offload import offload_parts
from .shell import command_text, env_lines
from .types import Command, Data

__all__ = ["FRONTEND_ENV", "Context", "serve_command", "tool_command"]

FRONTEND_ENV: dict[str, dict[str, str]] = {
    "rust": {"VLLM_USE_RUST_FRONTEND": "1"},
    "python": {},
}

DEFAULT_PORT = 8000


@dataclass(frozen=True)
class Context:
    """Everything a layout needs to render commands for one resolved selection."""

    catalog: Data
    recipe: Data
    selection: dict[str, str]
    hw_id: str = field(init=False)
    hw: Data = field(init=False)
    brand: Data = field(init=False)
    variant: Data = field(init=False)
    strategy: Data = field(init=False)

    def __post_init__(self) -> None:
        sel = self.selection
        hw = self.catalog["hardware"][sel["hardware"]]
        object.__setattr__(self, "hw_id", sel["hardware"])
        object.__setattr__(self, "hw", hw)
        object.__setattr__(self, "brand", self.catalog["brands"][hw["brand"]])
        object.__setattr__(self, "variant", self.recipe["variants"][sel["variant"]])
        object.__setattr__(self, "strategy", self.catalog["strategies"][sel["strategy"]])

    # ------------------------------------------------------------------ basic facts

    @property
    def model(self) -> Data:
        return self.recipe["model"]

    @property
    def model_id(self) -> str:
        return self.variant.get("model_id") or self.model["model_id"]

    @property
    def nodes(self) -> int:
        return int(self.selection["nodes"])

    def lookup(self, mapping: dict[str, Any] | None) -> Any:
        """The value of the most specific key of `mapping` naming this hardware."""
        return most_specific(mapping or {}, self.hw_id, self.hw)

    def overrides(self) -> list[Data]:
        """Matching overrides in the order they apply (see the module docstring)."""
        return self._overrides

    @cached_property
    def _overrides(self) -> list[Data]:
        sid = self.selection["strategy"]
        variant = self.variant
        tp = {key: {"extra_args": ["--tensor-parallel-size", str(size)]}
              for key, size in variant.get("tp", {}).items()}
        layers = (
            self.recipe.get("hardware_overrides", {}),
            self.recipe.get("strategy_overrides", {}).get(sid, {}),
            variant.get("hardware_overrides", {}),
            tp,
            variant.get("strategy_overrides", {}).get(sid, {}),
        )
        entries: list[tuple[float, int, Data]] = [
            (BRAND + 0.5, 2, {"extra_args": variant.get("extra_args", []),
                              "extra_env": variant.get("extra_env", {})}),
        ]
        for layer, mapping in enumerate(layers):
            entries += [(rank, layer, ov) for rank, ov in ranked(mapping, self.hw_id, self.hw)]
        entries.sort(key=lambda entry: (entry[0], entry[1]))
        return [ov for _, _, ov in entries if self._features_hold(ov.get("when") or {})]

    def _features_hold(self, when: dict[str, str]) -> bool:
        """True when every feature named in an override's `when` has the value it asks for."""
        for fid, wanted in when.items():
            value = self.selection.get(fid, "off")
            if not (value == wanted or (wanted == "on" and value != "off")):
                return False
        return True

    def parallel_size(self) -> int:
        """GPUs per server for the strategy's parallel flag, unless an override says otherwise."""
        size = self.hw["gpu_count"]
        for ov in self.overrides():
            if ov.get("parallel_size") is not None:
                size = ov["parallel_size"]
        return size

    def port(self, args: ArgList) -> int:
        value = args.get("--port")
        return int(value[0]) if value else DEFAULT_PORT

    # -------------------------------------------------------------------- layers

    def base_options(self) -> ArgList:
        args = ArgList()
        args.extend(self.model.get("base_args", []))
        args.extend(self.strategy.get("vllm_args", []))
        return args

    def apply_overrides(self, args: ArgList) -> None:
        for ov in self.overrides():
            args.extend(ov.get("extra_args", []))
            for flag in ov.get("remove_args", []):
                args.remove(flag)

    def feature_parts(self) -> list[tuple[list[str], dict[str, str]]]:
        """(args, env) of every feature that is on, in recipe order."""
        parts = []
        for fid, feature in self.recipe.get("features", {}).items():
            value = self.selection.get(fid, "off")
            if value == "off":
                continue
            source = feature["modes"][value] if value != "on" else feature
            args = list(source.get("args", []))
            env = dict(source.get("env", {}))
            replacement = self.lookup(source.get("hardware_overrides"))
            if replacement is not None:
                if "args" in replacement:
                    args = list(replacement["args"])
                env.update(replacement.get("env", {}))
            parts.append((args, env))
        return parts

    def apply_features(self, args: ArgList) -> None:
        for feature_args, _ in self.feature_parts():
            args.extend(feature_args)
        args.extend(offload_parts(self.recipe, self.selection)[0])

    def env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        env.update(self.model.get("base_env", {}))
        for ov in self.overrides():
            env.update(ov.get("extra_env", {}))
        for _, feature_env in self.feature_parts():
            env.update(feature_env)
        env.update(offload_parts(self.recipe, self.selection)[1])
        env.update(FRONTEND_ENV[self.selection["frontend"]])
        return env


def serve_command(
    ctx: Context,
    role: str,
    args: ArgList,
    *,
    label: str = "",
    port: int | None = None,
    env: dict[str, str] | None = None,
    extra_env: dict[str, str] | None = None,
) -> Command:
    """A `vllm serve` command of `role`; its Docker form is added by `docker.py`."""
    argv = ["vllm", "serve", ctx.model_id, *args.tokens()]
    full_env = dict(ctx.env() if env is None else env)
    full_env.update(extra_env or {})
    return tool_command(role, argv, label=label or role, env=full_env, port=port, head_len=3)


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
    }
