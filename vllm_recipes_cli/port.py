"""`vllm-recipes port`: a first draft of a recipe from the public catalogue's format.

The public catalogue (github.com/vllm-project/recipes, `models/<org>/<repo>.yaml`) leaves some
behaviour to its command synthesis; the draft writes it down in our format (v2):

- `meta.hardware` lists verified GPUs, not allowed ones: its `verified` entries become
  `verified`, `unsupported` ones `hardware: {id: unsupported}`, and the restricted hardware it
  names (TPUs, Xeon, workstations) is offered by naming it;
- `compatible_strategies` (with `default_strategy` first) becomes `strategies`;
- `opt_in_features` / `hardware_opt_in_features` become each feature's `opt_in`;
- `tp` maps and `strategy_overrides.<s>.tp` become `tp` / `parallel_size` (`default` → `all`);
  single-node auto-fit and "NVFP4 runs on Blackwell" are builder rules here too;
- un-keyed `strategy_overrides.<s>.extra_args` become `strategy_overrides.<s>.all`;
- `dependencies` keep their note and command (`brand` → `hardware`, `install_modes` →
  `install`); `model.nightly_required` → `model.nightly`; `model.install` notes are kept
  (a method left empty is offered: only `false` hides it; the public site opens the tab
  listed first, a TODO line where that is Docker);
- newer public fields: a top-level `default_hardware` (beside `meta.default_hardware`),
  `kv_cache_strategy_hardware` (gates of the KV-store strategies, read like
  `strategy_hardware`), a feature's `extra_env` (our `env`), `strategy_overrides.<s>.env`
  (our `extra_env`);
- the format as of 2026-10: `model.default_frontend` (ours too), `model.frontends.<name>`
  (a frontend marked `unsupported` makes the other one the default, with a TODO line: it stays
  selectable here), a feature's or mode's `env` (ours), an override's `docker_serve_command`
  (the words after the image, our `docker_command_prefix`) and `install: {pip: false}`
  (kept, on the variant's or recipe's override); an unknown frontend or status is a TODO line;
- an earlier node-shaped hardware id (`rtx_5090_2x`, a `hardware_aliases` entry of
  recipes/hardware.yaml) becomes its GPU at that count (`rtx_5090@2`) wherever the file keys by
  hardware (`_aliased`), a note in the header says where; where a count is not read
  (`default_hardware`, `strategy_hardware`) it becomes the GPU id, with a TODO line;
- `upstream: {path, commit}` records the public file and commit the draft was made from:
  `--upstream-path` (else read from an input path ending `models/<Org>/<repo>.yaml`) and
  `--upstream-commit`;
- the guide is not copied: the draft's `.md` is a stub to write in our own words.

What the draft cannot decide is listed in its header as `TODO:` lines (prefill/decode pools,
strategy-level hardware overrides that replace rather than add, hardware ids or strategies
this catalogue lacks, ...). Every public field the port does not know is a `TODO:` line too,
so a newer file loses nothing silently. Read them, settle each one, compare the commands with
the public catalogue's, and delete the header.
"""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from builder.hardware_keys import counted, split_count
from builder.text_safety import printable
from builder.yaml_text import comment_lines
from vllm_recipes.yaml_source import load_text, read_text, read_yaml

from .cli_common import ArgumentParser
from .errors import InvalidRecipe

__all__ = ["KNOWN", "aliases", "draft", "main", "upstream_path"]

DROPPED_META = ("difficulty", "slug", "platforms", "hardware", "default_hardware")
DROPPED_MODEL = ("base_args", "base_env", "supports_dcp", "docker_source", "flashinfer_autotune",
                 "nightly_required", "install", "docker_image", "default_frontend", "frontends")
FRONTENDS = ("rust", "python")
"""The frontends both formats name (`builder.vocabulary.FRONTENDS` here)."""
BRAND_KEYS = {"nvidia": "nvidia", "amd": "amd", "tpu": "google", "intel": "xeon", "huawei": "npu"}

# The public fields the port reads (or drops on purpose), per place in the file; anything
# else becomes a TODO line naming it.
KNOWN = {
    "": {"meta", "model", "features", "opt_in_features", "hardware_opt_in_features", "variants",
         "compatible_strategies", "default_strategy", "strategy_hardware",
         "kv_cache_strategy_hardware", "hardware_overrides", "strategy_overrides",
         "dependencies", "kv_offload_support", "omni", "strategy_min_gpus", "hardware_notes",
         "guide", "default_hardware"},
    "meta": {"title", "slug", "provider", "description", "date_added", "date_updated",
             "difficulty", "tasks", "performance_headline", "related_recipes", "hardware",
             "default_hardware", "platforms"},
    "model": {"model_id", "min_vllm_version", "architecture", "parameter_count",
              "active_parameters", "context_length", "base_args", "base_env", "docker_image",
              "docker_source", "flashinfer_autotune", "nightly_required", "install",
              "supports_dcp", "default_frontend", "frontends"},
    "feature": {"label", "description", "args", "extra_env", "env", "default_mode", "modes",
                "hardware", "hardware_overrides", "strategies", "companion"},
    "mode": {"label", "description", "args", "env", "hardware", "hardware_overrides",
             "variants"},
    "args_override": {"args"},
    "variant": {"model_id", "label", "precision", "vram_minimum_gb", "description",
                "min_vllm_version", "docker_image", "default_modes", "supported_hardware",
                "precision_hardware", "tp", "extra_args", "extra_env", "hardware_overrides"},
    "override": {"extra_args", "extra_env", "docker_image", "docker_serve_command", "install"},
    "strategy_override": {"extra_args", "vllm_args", "extra_env", "env", "tp",
                          "hardware_overrides"},
    "dependency": {"note", "command", "optional", "brand", "install_modes"},
}
PD_OVERRIDE = "pd_cluster"
Data = dict[str, Any]

# Where the public format keys by hardware (`*`: every key or item), read by `_aliased`: with
# a GPU count (`COUNTED`) and without one (`UNCOUNTED`: our `default_hardware` and
# `strategy_hardware` read no count).
COUNTED = (("meta", "hardware"), ("model", "docker_image"), ("hardware_opt_in_features",),
           ("hardware_overrides",),
           ("features", "*", "hardware"), ("features", "*", "hardware_overrides"),
           ("features", "*", "modes", "*", "hardware"),
           ("features", "*", "modes", "*", "hardware_overrides"),
           ("variants", "*", "supported_hardware"), ("variants", "*", "tp"),
           ("variants", "*", "hardware_overrides"), ("strategy_overrides", "*", "tp"),
           ("strategy_overrides", "*", "hardware_overrides"),
           ("omni", "tasks", "*", "hardware_overrides"))
UNCOUNTED = (("strategy_hardware", "*"), ("kv_cache_strategy_hardware", "*"))


def _quoted(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _identifier(value: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in value.lower())


def _keyed(value: Any) -> Any:
    """A public hardware-keyed map (`default` = every hardware) in our keys."""
    if isinstance(value, dict):
        return {("all" if k == "default" else k): v for k, v in value.items()}
    return value


def _args(tokens: Any, where: str = "", todo: list[str] | None = None) -> list[str]:
    """A public token list as strings; anything else is a TODO line (and no tokens)."""
    if tokens is None:
        return []
    if not isinstance(tokens, list):
        if todo is not None:
            todo.append(f"{where}: {tokens!r} is not a list of tokens (the public synthesis "
                        "reads lists only); write the arguments by hand")
        return []
    return [str(token) for token in tokens]


def _override(data: dict[str, Any], where: str = "",
              todo: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("extra_args", "extra_env", "docker_image"):
        if data.get(key):
            out[key] = (_args(data[key], f"{where}.extra_args", todo) if key == "extra_args"
                        else data[key])
    if not out.get("extra_args"):
        out.pop("extra_args", None)
    if data.get("docker_serve_command"):
        command = data["docker_serve_command"]
        if isinstance(command, str) and command.split():
            # The image's entrypoint is not `vllm serve`: the words go after the image.
            out["docker_command_prefix"] = command.split()
        elif todo is not None:
            todo.append(f"{where}.docker_serve_command: {command!r} is not a command; write "
                        "the words after the image as docker_command_prefix by hand")
    if "install" in data:
        install = data["install"]
        methods = install if isinstance(install, dict) else {}
        if todo is not None and (not methods or any(
                m not in ("pip", "docker") or not isinstance(v, bool)
                for m, v in methods.items())):
            todo.append(f"{where}.install: {install!r:.60} is not {{pip|docker: true|false}}; "
                        "write the install toggles by hand")
        else:
            out["install"] = dict(methods)
    return out


def _unknown(where: str, data: Any, kind: str, todo: list[str]) -> None:
    """A TODO line for each key of `data` that the port does not read (see `KNOWN`)."""
    if not isinstance(data, dict):
        return
    for key in data:
        if key not in KNOWN[kind]:
            path = f"{where}.{key}" if where else str(key)
            todo.append(f"{path}: a public field the port does not know ({data[key]!r:.60}); "
                        "map it by hand or drop it")


def _hardware_keys(where: str, keys: Any, known: set[str] | None, todo: list[str]) -> None:
    """A TODO line for each hardware key this catalogue does not have."""
    if known is None:
        return
    for key in keys or []:
        name = str(key)
        if split_count(name)[0] not in known and name not in ("default", "all") and (
                not name.startswith("arch:")):
            todo.append(f"{where}: hardware {name!r} is not in recipes/hardware.yaml; add it "
                        "(with its facts) or drop it")


def aliases(hardware: Data) -> dict[str, str]:
    """Each earlier node-shaped id of a hardware catalog (its `hardware_aliases`, as
    recipes/hardware.yaml writes them) → the key of its GPU at that count (`rtx_5090@2`)."""
    return {alias: counted(entry["hardware"], entry["gpus"])
            for alias, entry in (hardware.get("hardware_aliases") or {}).items()}


def _places(node: Any, path: tuple[str, ...], where: str) -> list[tuple[str, Any]]:
    """(`where`, container) of each mapping or list at `path` under `node` (`*`: any key)."""
    if not path:
        return [(where, node)] if isinstance(node, dict | list) else []
    items = (node.items() if isinstance(node, dict)
             else enumerate(node) if isinstance(node, list) else [])
    head, rest = path[0], path[1:]
    return [place for key, child in items if head in ("*", key)
            for place in _places(child, rest, f"{where}.{key}" if where else str(key))]


def _renamed(container: Any, names: dict[str, str]) -> list[str]:
    """Rename the keys (or items) of `container` found in `names`, in place and in order;
    the names renamed."""
    found = [k for k in container if isinstance(k, str) and k in names]
    if isinstance(container, dict):
        items = [(names.get(k, k) if isinstance(k, str) else k, v) for k, v in container.items()]
        container.clear()
        container.update(items)
    else:
        container[:] = [names.get(k, k) if isinstance(k, str) else k for k in container]
    return found


def _aliased(public: Data, alias_keys: dict[str, str], todo: list[str]) -> tuple[Data, list[str]]:
    """(`public` with every earlier node-shaped id in our keys, a note per id saying where):
    its GPU at the count (`rtx_5090_2x` → `rtx_5090@2`, `COUNTED` places), else the GPU id
    (`UNCOUNTED` places and `default_hardware`, where a count is not read: a TODO line)."""
    if not alias_keys:
        return public, []
    public = copy.deepcopy(public)
    plain = {alias: split_count(key)[0] for alias, key in alias_keys.items()}
    seen: dict[str, list[str]] = {}
    for path in COUNTED:
        found: dict[str, list[str]] = {}
        for where, container in _places(public, path, ""):
            for name in _renamed(container, alias_keys):
                found.setdefault(name, []).append(where)
        for name, places in found.items():  # more than three: the path and how many
            seen.setdefault(name, []).extend(
                places if len(places) <= 3 else [f"{'.'.join(path)} ({len(places)})"])
    for path in UNCOUNTED:
        for where, mapping in _places(public, path, ""):
            if not isinstance(mapping, dict):
                continue
            for name in [k for k in mapping if k in plain]:
                value = mapping.pop(name)
                kept = mapping.setdefault(plain[name], value)
                todo.append(f"{where}.{name}: {name} is {alias_keys[name]} here, and a GPU "
                            f"count is not read here: the draft says {plain[name]}: {kept} "
                            "(every count of it); gate the strategy by hand if the count "
                            "matters")
    owners: list[tuple[Any, str]] = [(public.get("meta"), "meta.default_hardware"),
                                     (public, "default_hardware")]
    for owner, where in owners:
        default = owner.get("default_hardware") if isinstance(owner, dict) else None
        if isinstance(default, str) and default in plain:
            owner["default_hardware"] = plain[default]
            todo.append(f"{where}: {default} is {alias_keys[default]} here; the draft's default "
                        f"is {plain[default]} (a default names no count: a list naming "
                        f"{alias_keys[default]} and not {plain[default]} makes it the default "
                        "count)")
    notes = [f"{name} (public) is {alias_keys[name]} here (hardware_aliases in "
             f"recipes/hardware.yaml): {', '.join(places)}" for name, places in seen.items()]
    return public, notes


def upstream_path(path: Path) -> str | None:
    """`models/<Org>/<repo>.yaml` when `path` ends so (a checkout of the public catalogue)."""
    parts = path.parts
    if len(parts) >= 3 and parts[-3] == "models" and path.suffix == ".yaml":
        return "/".join(parts[-3:])
    return None


def draft(public: dict[str, Any], restricted: set[str], *,
          hardware_keys: set[str] | None = None, strategies: set[str] | None = None,
          upstream: dict[str, str] | None = None, hardware_aliases: dict[str, str] | None = None
          ) -> tuple[dict[str, Any], list[str], list[str]]:
    """(our recipe as data, TODO lines, notes) for one public recipe. `hardware_keys` (every
    id, brand and generation of our catalogue) and `strategies` (our strategy ids), when
    given, turn names this catalogue lacks into TODO lines; `upstream` (`path`, `commit`) is
    written as the recipe's `upstream` block; `hardware_aliases` (`aliases` of our catalog)
    turns earlier node-shaped ids into our keys, each with a note.

    The sections are drafted in the order CONTRIBUTING.md gives a recipe's fields (the
    draft's keys and TODO lines come out in this order)."""
    todo: list[str] = []
    public, notes = _aliased(public, hardware_aliases or {}, todo)
    _unknown("", public, "", todo)
    ours: Data = {"meta": _meta(public["meta"], todo)}
    _hardware(public, restricted, hardware_keys, ours, todo)
    _strategies(public, hardware_keys, strategies, ours, todo)
    _model(public["model"], ours, todo)
    features = _features(public, todo)
    if features:
        ours["features"] = features
    ours["variants"] = _variants(public["variants"], hardware_keys, todo)
    _dependencies(public, ours, todo)
    if public.get("kv_offload_support"):
        ours["kv_offload_support"] = dict(public["kv_offload_support"])
    _hardware_overrides(public, hardware_keys, ours, todo)
    strategy_overrides = _strategy_overrides(public, todo)
    if strategy_overrides:
        ours["strategy_overrides"] = strategy_overrides
    _rest(public, ours, todo)
    _upstream(upstream, ours, todo)
    return ours, todo, notes


def _meta(meta: Data, todo: list[str]) -> Data:
    """`meta` without the fields the public site alone uses (`DROPPED_META`), dates as text."""
    _unknown("meta", meta, "meta", todo)
    ours = {k: v for k, v in meta.items() if k in KNOWN["meta"] and k not in DROPPED_META}
    ours["tasks"] = list(meta.get("tasks", []))
    for key in ("date_added", "date_updated"):
        if key in ours:
            ours[key] = str(ours[key])
        else:
            todo.append(f"meta.{key}: the public file gives none (its git history has the "
                        "date)")
    if not ours.get("related_recipes"):
        ours.pop("related_recipes", None)
    return ours


def _hardware(public: Data, restricted: set[str], hardware_keys: set[str] | None, ours: Data,
              todo: list[str]) -> None:
    """`meta.hardware` (verified GPUs, not allowed ones) as `hardware` and `verified`, and
    the default hardware (`meta.default_hardware` or the top-level one)."""
    meta = public["meta"]
    listed = meta.get("hardware") or {}
    _hardware_keys("meta.hardware", listed, hardware_keys, todo)
    verified = [hw for hw, level in listed.items() if level == "verified"]
    offer = {hw: "unsupported" for hw, level in listed.items() if level == "unsupported"}
    offer.update({hw: "supported" for hw, level in listed.items()
                  if level in ("supported", "experimental")
                  and split_count(hw)[0] in restricted})
    if offer:
        ours["hardware"] = offer
    if verified:
        ours["verified"] = verified
    default_hw = meta.get("default_hardware") or public.get("default_hardware")
    if meta.get("default_hardware") and public.get("default_hardware") not in (
            None, meta["default_hardware"]):
        todo.append(f"default_hardware: meta says {meta['default_hardware']!r}, the top level "
                    f"{public['default_hardware']!r}; the draft keeps meta's")
    if default_hw:
        ours["default_hardware"] = default_hw
        _hardware_keys("default_hardware", [default_hw], hardware_keys, todo)


def _strategies(public: Data, hardware_keys: set[str] | None, strategies: set[str] | None,
                ours: Data, todo: list[str]) -> None:
    """`compatible_strategies` (default first) as `strategies`, and the hardware gates
    (`strategy_hardware`, `kv_cache_strategy_hardware`) as `strategy_hardware`."""
    compatible = [] if public.get("omni") else list(public.get("compatible_strategies") or [])
    first = public.get("default_strategy")
    if first in compatible:
        compatible = [first, *[s for s in compatible if s != first]]
    elif "single_node_tp" in compatible:
        compatible = ["single_node_tp", *[s for s in compatible if s != "single_node_tp"]]
    gates = dict(public.get("strategy_hardware") or {})
    kv_gates = public.get("kv_cache_strategy_hardware") or {}
    if kv_gates:
        todo.append("kv_cache_strategy_hardware: the public site offers the KV-store "
                    "strategies wherever this does not gate them; the draft offers them only "
                    "where it says `supported` (add them to `strategies` to offer more)")
        for sid, mapping in kv_gates.items():
            if sid in gates:
                todo.append(f"kv_cache_strategy_hardware.{sid}: also in strategy_hardware; "
                            "the draft keeps strategy_hardware's")
                continue
            gates[sid] = mapping
    for sid, mapping in gates.items():
        if sid not in compatible and "supported" in (mapping or {}).values():
            compatible.append(sid)
        _hardware_keys(f"strategy_hardware.{sid}", mapping, hardware_keys, todo)
    # A KV-store gate matters only where the draft offers the strategy.
    gates = {sid: m for sid, m in gates.items() if sid not in kv_gates or sid in compatible}
    if strategies is not None:
        for sid in compatible:
            if sid not in strategies:
                todo.append(f"compatible_strategies: {sid!r} is not a strategy of "
                            "recipes/strategies/; add the strategy or drop it")
    if compatible:
        ours["strategies"] = compatible
    if gates:
        ours["strategy_hardware"] = {sid: _keyed(mapping) for sid, mapping in gates.items()}


def _model(model: Data, ours: Data, todo: list[str]) -> None:
    """`model` without the fields written elsewhere (`DROPPED_MODEL`): `nightly`, arguments,
    Docker images by hardware key, and the install methods (`_install`)."""
    _unknown("model", model, "model", todo)
    ours["model"] = {k: v for k, v in model.items()
                     if k in KNOWN["model"] and k not in DROPPED_MODEL}
    if model.get("min_vllm_version") is not None:
        ours["model"]["min_vllm_version"] = str(model["min_vllm_version"])
    else:
        todo.append("model.min_vllm_version: the public file gives none; find the release "
                    "that first serves the model")
    if not model.get("architecture"):
        todo.append("model.architecture: the public file gives none; write moe or dense "
                    "(the model card's config)")
    if not model.get("context_length"):
        ours["model"].pop("context_length", None)
    if model.get("nightly_required"):
        ours["model"]["nightly"] = True
    if model.get("base_args"):
        ours["model"]["base_args"] = _args(model["base_args"])
    if model.get("base_env"):
        ours["model"]["base_env"] = model["base_env"]
    image = model.get("docker_image")
    if isinstance(image, str):
        ours["model"]["docker_image"] = {"nvidia": image}
    elif isinstance(image, dict):
        images = {}
        for brand, value in image.items():
            if isinstance(value, dict):  # a CUDA map: the public default is the cu130 build
                value = value.get("cu130") or value.get("cu129")
                todo.append(f"model.docker_image.{brand}: a CUDA-tagged map; the draft keeps "
                            "the cu130 image")
            images[BRAND_KEYS.get(brand, brand)] = value
        ours["model"]["docker_image"] = images
    _install(model.get("install") or {}, ours, todo)
    _frontends(model, ours, todo)
    if model.get("supports_dcp"):
        todo.append("model.supports_dcp: the public site offers decode context parallel as an "
                    "advanced option; our builder does not (no default command changes)")


def _frontends(model: Data, ours: Data, todo: list[str]) -> None:
    """`model.default_frontend` as ours; `model.frontends.<name>.status: unsupported` makes
    the other frontend the default (a TODO line says the refused one stays selectable here)."""
    default = model.get("default_frontend")
    if default is not None:
        if default in FRONTENDS:
            ours["model"]["default_frontend"] = default
        else:
            todo.append(f"model.default_frontend: {default!r} is not a frontend here "
                        f"({', '.join(FRONTENDS)})")
    for name, spec in (model.get("frontends") or {}).items():
        where = f"model.frontends.{name}"
        status = spec.get("status") if isinstance(spec, dict) else None
        if name not in FRONTENDS:
            todo.append(f"{where}: {name!r} is not a frontend here ({', '.join(FRONTENDS)})")
            continue
        if status in ("supported", "verified", "experimental", None):
            continue
        if status != "unsupported":
            todo.append(f"{where}.status: {status!r} is not a status the port knows "
                        "(unsupported, supported); settle it by hand")
            continue
        (other,) = [f for f in FRONTENDS if f != name]
        if ours["model"].get("default_frontend", other) == name:
            todo.append(f"{where}.status: unsupported, but default_frontend names it; settle "
                        "which frontend serves the model")
            continue
        ours["model"]["default_frontend"] = other
        note = spec.get("note") or "no reason given"
        todo.append(f"{where}.status: unsupported; the draft defaults to {other} (frontend="
                    f"{name} stays selectable here): say why in a comment ({note!r:.80})")


def _install(install: Data, ours: Data, todo: list[str]) -> None:
    """`model.install`: its notes as `install_notes`, a refused method (`false`) as
    `hardware_overrides.all.install`; a replaced command is a TODO line."""
    notes = {m: c["note"] for m, c in install.items()
             if m in ("pip", "docker") and isinstance(c, dict) and c.get("note")}
    if notes:
        ours["model"]["install_notes"] = notes
    if list(install)[:1] == ["docker"] and install.get("pip") is not False:
        todo.append("model.install lists docker first: the public site opens its Docker tab "
                    "by default; here pip is the default unless pip is refused")
    for method, config in install.items():
        if method not in ("pip", "docker"):
            todo.append(f"model.install.{method}: not an install method here (pip, docker); "
                        f"{config!r:.80}")
            continue
        if config is False:
            ours.setdefault("hardware_overrides", {}).setdefault("all", {}).setdefault(
                "install", {})[method] = False
        if isinstance(config, dict) and config.get("command"):
            todo.append(f"model.install.{method}.command replaces the {method} install: "
                        f"{config['command']!r} (write it as a dependency, or explain)")


def _features(public: Data, todo: list[str]) -> Data:
    """Each feature, its `opt_in` read from `opt_in_features` / `hardware_opt_in_features`."""
    features: Data = {}
    opt_in = set(public.get("opt_in_features") or [])
    hw_opt_in: dict[str, list[str]] = {}
    for hw, fids in (public.get("hardware_opt_in_features") or {}).items():
        for fid in fids:
            hw_opt_in.setdefault(fid, []).append(hw)
    for fid, feature in (public.get("features") or {}).items():
        _unknown(f"features.{fid}", feature, "feature", todo)
        out: Data = {}
        for key in ("label", "description"):
            if feature.get(key):
                out[key] = feature[key]
        out.setdefault("description", fid.replace("_", " "))
        if fid in opt_in:
            out["opt_in"] = True
        elif fid in hw_opt_in:
            out["opt_in"] = hw_opt_in[fid]
        if feature.get("args"):
            out["args"] = _args(feature["args"], f"features.{fid}.args", todo)
        if feature.get("extra_env") or feature.get("env"):
            out["env"] = {**(feature.get("extra_env") or {}), **(feature.get("env") or {})}
        if feature.get("strategies"):
            out["strategies"] = feature["strategies"]
        if feature.get("hardware"):
            out["hardware"] = _keyed(feature["hardware"])
        if feature.get("hardware_overrides"):
            out["hardware_overrides"] = _args_overrides(feature["hardware_overrides"],
                                                        f"features.{fid}", todo)
        if feature.get("modes"):
            if feature.get("default_mode"):
                out["default_mode"] = feature["default_mode"]
            out["modes"] = {mid: _mode(f"features.{fid}.modes.{mid}", mid, mode, todo)
                            for mid, mode in feature["modes"].items()}
        if feature.get("companion"):
            todo.append(f"features.{fid}.companion: a helper process; not supported here")
        features[fid] = out
    return features


def _mode(where: str, mid: str, mode: Data, todo: list[str]) -> Data:
    """One mode of a feature (its variants' ids as ours: lower-case with _)."""
    _unknown(where, mode, "mode", todo)
    m: Data = {"label": mode.get("label") or mid}
    if mode.get("description"):
        m["description"] = mode["description"]
    if mode.get("variants"):
        m["variants"] = [_identifier(v) for v in mode["variants"]]
    if mode.get("hardware"):
        m["hardware"] = _keyed(mode["hardware"])
    if mode.get("args"):
        m["args"] = _args(mode["args"])
    if mode.get("env"):
        m["env"] = dict(mode["env"])
    if mode.get("hardware_overrides"):
        m["hardware_overrides"] = _args_overrides(mode["hardware_overrides"], where, todo)
    return m


def _args_overrides(overrides: Data, where: str, todo: list[str]) -> Data:
    """A feature's or mode's `hardware_overrides` (`default` → `all`), arguments only; a key
    beyond them is a TODO line (`where`: the feature's or mode's path)."""
    for key, override in overrides.items():
        _unknown(f"{where}.hardware_overrides.{key}", override, "args_override", todo)
    return {("all" if k == "default" else k): {"args": _args(v.get("args"))}
            for k, v in overrides.items()}


def _variants(public_variants: Data, hardware_keys: set[str] | None,
              todo: list[str]) -> Data:
    """Each variant under our id for it (lower-case with _; a rename is a TODO line)."""
    variants: Data = {}
    for raw_vid, variant in public_variants.items():
        _unknown(f"variants.{raw_vid}", variant, "variant", todo)
        vid = _identifier(raw_vid)
        if vid != raw_vid:
            todo.append(f"variants.{raw_vid}: renamed {vid} (ids are lower-case with _)")
        variants[vid] = _variant(raw_vid, variant, hardware_keys, todo)
    return variants


def _variant(raw_vid: str, variant: Data, hardware_keys: set[str] | None,
             todo: list[str]) -> Data:
    """One variant: `supported_hardware` → `hardware`, `precision_hardware` (a brand or a
    generation) → keys, `int4/8`-style precisions → `int4+int8`, `tp` keyed as ours."""
    v: Data = {}
    for key in ("model_id", "label", "precision", "vram_minimum_gb", "description",
                "min_vllm_version", "docker_image", "default_modes"):
        if variant.get(key) not in (None, "", {}):
            v[key] = variant[key]
    if "min_vllm_version" in v:
        v["min_vllm_version"] = str(v["min_vllm_version"])
    if isinstance(v.get("precision"), str) and "/" in v["precision"]:
        v["precision"] = "+".join(p if p.startswith("int") else f"int{p}"
                                  for p in v["precision"].split("/"))
    if variant.get("supported_hardware"):
        v["hardware"] = list(variant["supported_hardware"])
        _hardware_keys(f"variants.{raw_vid}.supported_hardware", v["hardware"],
                       hardware_keys, todo)
    if variant.get("precision_hardware"):
        constraint = variant["precision_hardware"]
        keys = [BRAND_KEYS.get(str(constraint.get("brand", "")).lower(), "")]
        if constraint.get("generation"):
            keys = [constraint["generation"]]
        v["precision_hardware"] = [k for k in keys if k]
    if variant.get("tp") is not None:
        v["tp"] = _keyed(variant["tp"])
    if variant.get("extra_args"):
        v["extra_args"] = _args(variant["extra_args"], f"variants.{raw_vid}.extra_args",
                                todo)
    if variant.get("extra_env"):
        v["extra_env"] = variant["extra_env"]
    if variant.get("hardware_overrides"):
        where = f"variants.{raw_vid}.hardware_overrides"
        v["hardware_overrides"] = {}
        for k, o in variant["hardware_overrides"].items():
            _unknown(f"{where}.{k}", o, "override", todo)
            v["hardware_overrides"][k] = _override(o, f"{where}.{k}", todo)
        _hardware_keys(where, variant["hardware_overrides"], hardware_keys, todo)
    return v


def _dependencies(public: Data, ours: Data, todo: list[str]) -> None:
    """Each install step with its note and command (`brand` → `hardware`, `install_modes`
    → `install`)."""
    for index, dep in enumerate(public.get("dependencies") or []):
        _unknown(f"dependencies.{index}", dep, "dependency", todo)
        d: Data = {"note": dep["note"], "command": dep["command"]}
        if dep.get("optional"):
            d["optional"] = True
        if dep.get("brand"):
            d["hardware"] = [BRAND_KEYS.get(str(dep["brand"]).lower(), str(dep["brand"]))]
        if dep.get("install_modes"):
            d["install"] = dep["install_modes"]
        ours.setdefault("dependencies", []).append(d)


def _hardware_overrides(public: Data, hardware_keys: set[str] | None, ours: Data,
                        todo: list[str]) -> None:
    """The recipe's `hardware_overrides`, added to any the install methods gave (an
    `install_note` is a TODO line: it belongs in the guide's hardware notes)."""
    overrides = {}
    for key, value in (public.get("hardware_overrides") or {}).items():
        if not isinstance(value, dict):
            continue
        where = f"hardware_overrides.{key}"
        if value.get("install_note"):
            todo.append(f"{where}.install_note: {value['install_note']!r:.80} (a note for this "
                        "hardware's install: write it in the guide's hardware notes)")
        _unknown(where, {k: v for k, v in value.items() if k != "install_note"}, "override",
                 todo)
        override = _override(value, where, todo)
        if override:
            overrides[key] = override
    _hardware_keys("hardware_overrides", public.get("hardware_overrides"), hardware_keys, todo)
    if "nvidia" in overrides and {"hopper", "blackwell", "ada", "ampere"} & set(overrides):
        todo.append("hardware_overrides.nvidia: the public synthesis skips it where a generation "
                    "key exists; here both apply (brand first)")
    if overrides:
        ours.setdefault("hardware_overrides", {}).update(overrides)


def _strategy_overrides(public: Data, todo: list[str]) -> Data:
    """Each strategy's overrides keyed by hardware (un-keyed ones under `all`); the
    prefill/decode pools (`pd_cluster`) are a TODO line: they become a `pd:` block."""
    strategy_overrides: Data = {}
    for sid, so in (public.get("strategy_overrides") or {}).items():
        if not so:
            continue
        if sid == PD_OVERRIDE:
            todo.append("strategy_overrides.pd_cluster: write the pools as a `pd:` block "
                        "(layout, nodes, extra_args per pool; env; connectors; router)")
            continue
        mapping = _strategy_override(sid, so, todo)
        if mapping:
            strategy_overrides[sid] = mapping
    return strategy_overrides


def _strategy_override(sid: str, so: Data, todo: list[str]) -> Data:
    """One strategy's overrides: `vllm_args` and `env` join the un-keyed ones, `tp` is a
    `parallel_size` (single_node_tp only), `hardware_overrides` are keyed entries."""
    where = f"strategy_overrides.{sid}"
    _unknown(where, so, "strategy_override", todo)
    mapping: Data = {}
    plain = _override(so, where, todo) | (
        {"extra_args": _args(so["vllm_args"], f"{where}.vllm_args", todo)}
        if so.get("vllm_args") else {})
    if so.get("env"):
        plain["extra_env"] = {**so["env"], **plain.get("extra_env", {})}
        todo.append(f"{where}.env: written as extra_env; check that the public synthesis "
                    "sets it outside prefill/decode too")
    if plain:
        mapping["all"] = plain
    tp = so.get("tp")
    if tp is not None and sid == "single_node_tp":
        for key, size in (_keyed(tp) if isinstance(tp, dict) else {"all": tp}).items():
            mapping.setdefault(key, {})["parallel_size"] = size
    elif tp is not None:
        todo.append(f"{where}.tp {tp!r}: the public synthesis reads `tp` for "
                    f"single_node_tp only, and {sid} spans every GPU of the node; if the "
                    "size differs, write it as parallel_size")
    for key, ho in (so.get("hardware_overrides") or {}).items():
        _unknown(f"{where}.hardware_overrides.{key}", ho, "override", todo)
        override = _override(ho, f"{where}.hardware_overrides.{key}", todo)
        if override:
            mapping.setdefault(key, {}).update(override)
            todo.append(f"strategy_overrides.{sid}.hardware_overrides.{key}: the public "
                        "synthesis lets a strategy's generation override REPLACE the "
                        "recipe's and the variant's for that generation; here it adds to "
                        "them (use remove_args where needed)")
    return mapping


def _rest(public: Data, ours: Data, todo: list[str]) -> None:
    """Omni tasks (`_omni`); `strategy_min_gpus` and `hardware_notes` are TODO lines (the
    notes belong in the guide, which the draft does not copy)."""
    if public.get("omni"):
        ours["omni"] = _omni(public["omni"], todo)
    if public.get("strategy_min_gpus"):
        todo.append(f"strategy_min_gpus {public['strategy_min_gpus']}: express it through "
                    "vram_minimum_gb (node counts follow from it) or strategy_hardware")
    if public.get("hardware_notes"):
        todo.append("hardware_notes: rewrite them in the guide's `## Hardware notes` section")


def _upstream(upstream: dict[str, str] | None, ours: Data, todo: list[str]) -> None:
    """The `upstream: {path, commit}` block, or a TODO line naming what is missing."""
    if upstream and upstream.get("path") and upstream.get("commit"):
        ours["upstream"] = {"path": upstream["path"], "commit": upstream["commit"]}
    elif upstream is not None:
        missing = [k for k in ("path", "commit") if not upstream.get(k)]
        todo.append(f"upstream: no {' or '.join(missing)} (pass --upstream-path / "
                    "--upstream-commit); write `upstream: {path, commit}` by hand")


class _Dumper(yaml.SafeDumper):
    """Block mappings; lists of scalars and small flat mappings in flow style."""


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    flat = all(not isinstance(item, dict | list) for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flat)


def _represent_dict(dumper: yaml.SafeDumper, data: dict[str, Any]) -> yaml.Node:
    flat = all(not isinstance(v, dict | list) and len(str(v)) < 40 for v in data.values())
    small = flat and len(data) <= 4 and sum(len(str(k)) + len(str(v)) for k, v in data.items()) < 70
    return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=small)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.Node:
    """Multi-line text (a written-out `curl`, install steps) as a literal block; text with any
    other line break (CR, NEL, U+2028, U+2029) or a character that does not print
    double-quoted, where YAML writes it as an escape."""
    lines = data.split("\n")
    style = ('"' if not all(line.isprintable() for line in lines)
             else "|" if len(lines) > 1 else None)
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(dict, _represent_dict)
_Dumper.add_representer(str, _represent_str)


def _request(task: dict[str, Any]) -> dict[str, Any] | None:
    if task.get("curl"):
        return {"curl": task["curl"].strip()}
    if task.get("endpoint"):
        return {"endpoint": task["endpoint"]}
    return None


def _omni(omni: dict[str, Any], todo: list[str]) -> dict[str, Any]:
    tasks: dict[str, Any] = {}
    for entry in omni.get("tasks") or []:
        task: dict[str, Any] = {"id": entry} if isinstance(entry, str) else dict(entry)
        key = str(task.get("key") or task["id"]).replace("-", "_").lower()
        out: dict[str, Any] = {"kind": task["id"]}
        for field in ("label", "description", "model_id", "vram_minimum_gb"):
            if task.get(field):
                out[field] = task[field]
        if task.get("extra_args"):
            out["extra_args"] = _args(task["extra_args"])
        if _request(task):
            out["request"] = _request(task)
        for hw, override in (task.get("hardware_overrides") or {}).items():
            o: dict[str, Any] = {f: override[f] for f in ("label", "model_id", "vram_minimum_gb")
                                 if override.get(f)}
            if override.get("extra_args"):
                o["extra_args"] = _args(override["extra_args"])
            if _request(override):
                o["request"] = _request(override)
            out.setdefault("hardware_overrides", {})[hw] = o
        if task.get("axes"):
            todo.append(f"omni.tasks.{key}.axes {task['axes']}: the public site's extra selector "
                        "rows; here each preset is its own task")
        if key in tasks:
            todo.append(f"omni.tasks: two tasks share the key {key!r}; rename one")
        tasks[key] = out
    result: dict[str, Any] = {"tasks": tasks}
    if omni.get("port"):
        result["port"] = omni["port"]
    for extra in set(omni) - {"tasks", "port"}:
        todo.append(f"omni.{extra}: {omni[extra]!r} (labels and hints of the public site's rows)")
    return result


def _dump(data: dict[str, Any]) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="vllm-recipes port",
        description="Write a first draft of a recipe from a public-catalogue recipe YAML "
                    "(github.com/vllm-project/recipes models/<org>/<repo>.yaml).")
    parser.add_argument("public", type=Path, help="the public recipe's YAML file")
    parser.add_argument("--recipes", type=Path, default=Path("recipes"),
                        help="the recipe tree to write into (default: recipes/)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing recipe")
    parser.add_argument("--upstream-path", metavar="models/ORG/REPO.yaml",
                        help="the public file's path in its repository (default: read from "
                             "PUBLIC when it ends models/<Org>/<repo>.yaml)")
    parser.add_argument("--upstream-commit", metavar="SHA",
                        help="the public commit PUBLIC was read at (7 to 40 hex digits)")
    args = parser.parse_args(argv)
    commit = args.upstream_commit
    if commit is not None and not re.fullmatch(r"[0-9a-f]{7,40}", commit):
        print(f"vllm-recipes port: --upstream-commit: {commit!r} is not 7 to 40 lower-case "
              "hex digits", file=sys.stderr)
        return 2
    path = args.upstream_path or upstream_path(args.public)
    if path is not None and not re.fullmatch(r"models/[\w.-]+/[\w.-]+\.yaml", path):
        print(f"vllm-recipes port: --upstream-path: {_quoted(path)} is not "
              "models/<Org>/<repo>.yaml", file=sys.stderr)
        return 2
    try:
        public = load_text(read_text(args.public, str(args.public)), str(args.public))
        hardware = read_yaml(args.recipes / "hardware.yaml",
                             str(args.recipes / "hardware.yaml")).data
    except InvalidRecipe as error:
        print(f"vllm-recipes port: {error}", file=sys.stderr)
        return 2
    model = public.get("model") if isinstance(public, dict) else None
    model_id = model.get("model_id") if isinstance(model, dict) else None
    if not isinstance(model_id, str) or not isinstance(public.get("meta"), dict):
        print(f"vllm-recipes port: {args.public}: not a public-catalogue recipe (it needs "
              "`meta` and `model.model_id`)", file=sys.stderr)
        return 2
    if not re.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+", model_id) or ".." in model_id:
        print(f"vllm-recipes port: {args.public}: model.model_id {_quoted(model_id)} is not "
              "a Hugging Face id (ORG/NAME)", file=sys.stderr)
        return 2
    try:
        restricted = {hw for hw, spec in hardware["hardware"].items() if spec.get("restricted")}
        keys = {*hardware["hardware"], *hardware["brands"], *hardware["generations"]}
        strategy_ids = {p.stem for p in (args.recipes / "strategies").glob("*.yaml")}
        ours, todo, notes = draft(public, restricted, hardware_keys=keys,
                                  strategies=strategy_ids, hardware_aliases=aliases(hardware),
                                  upstream={"path": path or "", "commit": commit or ""})
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        print(f"vllm-recipes port: {args.public}: not in the public catalogue's recipe format "
              f"({type(error).__name__}: {_quoted(str(error))})", file=sys.stderr)
        return 2
    model_id = ours["model"]["model_id"]
    target = args.recipes / "models" / f"{model_id}.yaml"
    if target.exists() and not args.force:
        print(f"vllm-recipes port: {target} exists (use --force)", file=sys.stderr)
        return 2
    target.parent.mkdir(parents=True, exist_ok=True)
    source = path or f"models/{args.public.parent.name}/{args.public.name}"
    at = f" at {commit[:7]}" if commit else ""
    header = comment_lines("\n".join([
        "yaml-language-server: $schema=../../schema.json",
        f"{printable(str(ours['meta']['title']), 200)}. Facts from the public catalogue "
        f"(github.com/vllm-project/recipes, {source}{at}); the guide "
        f"({target.with_suffix('.md').name}) is ours.",
        *[f"Note: {printable(line, 500)}" for line in notes],
        *[f"TODO: {printable(line, 500)}" for line in todo]]))  # public text: one line each
    body = _dump({k: v for k, v in ours.items() if k != "upstream"})
    if "upstream" in ours:  # block style, as every ported recipe writes it
        body += (f"upstream:\n  path: {ours['upstream']['path']}\n"
                 f"  commit: {ours['upstream']['commit']}\n")
    target.write_text(header + body, encoding="utf-8")
    guide = target.with_suffix(".md")
    if not guide.exists():
        guide.write_text("## Overview\n\nTODO: write the guide in our own words.\n",
                         encoding="utf-8")
    print(f"{target}: {len(todo)} TODO line{'s' if len(todo) != 1 else ''}")
    return 0
