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
  `install`); `model.nightly_required` → `model.nightly`; `model.install` notes are kept;
- the guide is not copied: the draft's `.md` is a stub to write in our own words.

What the draft cannot decide is listed in its header as `TODO:` lines (prefill/decode pools,
strategy-level hardware overrides that replace rather than add, ...). Read them, settle each
one, compare the commands with the public catalogue's, and delete the header.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import yaml

__all__ = ["draft", "main"]

DROPPED_META = ("difficulty", "slug", "platforms", "hardware", "default_hardware")
DROPPED_MODEL = ("base_args", "base_env", "supports_dcp", "docker_source", "flashinfer_autotune",
                 "nightly_required", "install", "docker_image")
BRAND_KEYS = {"nvidia": "nvidia", "amd": "amd", "tpu": "google", "intel": "xeon"}


def _identifier(value: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in value.lower())


def _keyed(value: Any) -> Any:
    """A public hardware-keyed map (`default` = every hardware) in our keys."""
    if isinstance(value, dict):
        return {("all" if k == "default" else k): v for k, v in value.items()}
    return value


def _args(tokens: list[Any] | None) -> list[str]:
    return [str(token) for token in tokens or []]


def _override(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("extra_args", "extra_env", "docker_image"):
        if data.get(key):
            out[key] = _args(data[key]) if key == "extra_args" else data[key]
    return out


def draft(public: dict[str, Any], restricted: set[str]) -> tuple[dict[str, Any], list[str]]:
    """(our recipe as data, TODO lines) for one public recipe."""
    todo: list[str] = []
    meta = public["meta"]
    ours: dict[str, Any] = {"meta": {k: v for k, v in meta.items() if k not in DROPPED_META}}
    ours["meta"]["tasks"] = list(meta.get("tasks", []))
    for key in ("date_added", "date_updated"):
        if key in ours["meta"]:
            ours["meta"][key] = str(ours["meta"][key])
    if not ours["meta"].get("related_recipes"):
        ours["meta"].pop("related_recipes", None)

    listed = meta.get("hardware") or {}
    verified = [hw for hw, level in listed.items() if level == "verified"]
    offer = {hw: "unsupported" for hw, level in listed.items() if level == "unsupported"}
    offer.update({hw: "supported" for hw, level in listed.items()
                  if level in ("supported", "experimental") and hw in restricted})
    if offer:
        ours["hardware"] = offer
    if verified:
        ours["verified"] = verified
    if meta.get("default_hardware"):
        ours["default_hardware"] = meta["default_hardware"]

    compatible = [] if public.get("omni") else list(public.get("compatible_strategies") or [])
    first = public.get("default_strategy")
    if first in compatible:
        compatible = [first, *[s for s in compatible if s != first]]
    elif "single_node_tp" in compatible:
        compatible = ["single_node_tp", *[s for s in compatible if s != "single_node_tp"]]
    gates = public.get("strategy_hardware") or {}
    for sid, mapping in gates.items():
        if sid not in compatible and "supported" in (mapping or {}).values():
            compatible.append(sid)
    if compatible:
        ours["strategies"] = compatible
    if gates:
        ours["strategy_hardware"] = {sid: _keyed(mapping) for sid, mapping in gates.items()}

    model = public["model"]
    ours["model"] = {k: v for k, v in model.items() if k not in DROPPED_MODEL}
    ours["model"]["min_vllm_version"] = str(model["min_vllm_version"])
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
    install = model.get("install") or {}
    notes = {m: c["note"] for m, c in install.items() if isinstance(c, dict) and c.get("note")}
    if notes:
        ours["model"]["install_notes"] = notes
    for method, config in install.items():
        if config is False:
            ours.setdefault("hardware_overrides", {}).setdefault("all", {}).setdefault(
                "install", {})[method] = False
        if isinstance(config, dict) and config.get("command"):
            todo.append(f"model.install.{method}.command replaces the {method} install: "
                        f"{config['command']!r} (write it as a dependency, or explain)")
    if model.get("supports_dcp"):
        todo.append("model.supports_dcp: the public site offers decode context parallel as an "
                    "advanced option; our builder does not (no default command changes)")

    features: dict[str, Any] = {}
    opt_in = set(public.get("opt_in_features") or [])
    hw_opt_in: dict[str, list[str]] = {}
    for hw, fids in (public.get("hardware_opt_in_features") or {}).items():
        for fid in fids:
            hw_opt_in.setdefault(fid, []).append(hw)
    for fid, feature in (public.get("features") or {}).items():
        out: dict[str, Any] = {}
        for key in ("label", "description"):
            if feature.get(key):
                out[key] = feature[key]
        out.setdefault("description", fid.replace("_", " "))
        if fid in opt_in:
            out["opt_in"] = True
        elif fid in hw_opt_in:
            out["opt_in"] = hw_opt_in[fid]
        if feature.get("args"):
            out["args"] = _args(feature["args"])
        if feature.get("strategies"):
            out["strategies"] = feature["strategies"]
        if feature.get("hardware"):
            out["hardware"] = _keyed(feature["hardware"])
        if feature.get("hardware_overrides"):
            out["hardware_overrides"] = {
                ("all" if k == "default" else k): {"args": _args(v.get("args"))}
                for k, v in feature["hardware_overrides"].items()}
        if feature.get("modes"):
            if feature.get("default_mode"):
                out["default_mode"] = feature["default_mode"]
            modes = {}
            for mid, mode in feature["modes"].items():
                m: dict[str, Any] = {"label": mode.get("label") or mid}
                if mode.get("description"):
                    m["description"] = mode["description"]
                if mode.get("variants"):
                    m["variants"] = [_identifier(v) for v in mode["variants"]]
                if mode.get("hardware"):
                    m["hardware"] = _keyed(mode["hardware"])
                if mode.get("args"):
                    m["args"] = _args(mode["args"])
                if mode.get("hardware_overrides"):
                    m["hardware_overrides"] = {
                        ("all" if k == "default" else k): {"args": _args(v.get("args"))}
                        for k, v in mode["hardware_overrides"].items()}
                modes[mid] = m
            out["modes"] = modes
        if feature.get("companion"):
            todo.append(f"features.{fid}.companion: a helper process; not supported here")
        features[fid] = out
    if features:
        ours["features"] = features

    variants: dict[str, Any] = {}
    for raw_vid, variant in public["variants"].items():
        vid = _identifier(raw_vid)
        if vid != raw_vid:
            todo.append(f"variants.{raw_vid}: renamed {vid} (ids are lower-case with _)")
        v: dict[str, Any] = {}
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
        if variant.get("precision_hardware"):
            constraint = variant["precision_hardware"]
            keys = [BRAND_KEYS.get(str(constraint.get("brand", "")).lower(), "")]
            if constraint.get("generation"):
                keys = [constraint["generation"]]
            v["precision_hardware"] = [k for k in keys if k]
        if variant.get("tp") is not None:
            v["tp"] = _keyed(variant["tp"])
        if variant.get("extra_args"):
            v["extra_args"] = _args(variant["extra_args"])
        if variant.get("extra_env"):
            v["extra_env"] = variant["extra_env"]
        if variant.get("hardware_overrides"):
            v["hardware_overrides"] = {k: _override(o) | (
                {"install": o["install"]} if "install" in o else {})
                for k, o in variant["hardware_overrides"].items()}
        variants[vid] = v
    ours["variants"] = variants

    for dep in public.get("dependencies") or []:
        d: dict[str, Any] = {"note": dep["note"], "command": dep["command"]}
        if dep.get("optional"):
            d["optional"] = True
        if dep.get("brand"):
            d["hardware"] = [BRAND_KEYS.get(str(dep["brand"]).lower(), str(dep["brand"]))]
        if dep.get("install_modes"):
            d["install"] = dep["install_modes"]
        ours.setdefault("dependencies", []).append(d)
    if public.get("kv_offload_support"):
        ours["kv_offload_support"] = dict(public["kv_offload_support"])

    overrides = {k: _override(v) for k, v in (public.get("hardware_overrides") or {}).items()
                 if _override(v)}
    if "nvidia" in overrides and {"hopper", "blackwell", "ada", "ampere"} & set(overrides):
        todo.append("hardware_overrides.nvidia: the public synthesis skips it where a generation "
                    "key exists; here both apply (brand first)")
    if overrides:
        ours.setdefault("hardware_overrides", {}).update(overrides)
    strategy_overrides: dict[str, Any] = {}
    for sid, so in (public.get("strategy_overrides") or {}).items():
        if not so:
            continue
        if sid == "pd_cluster":
            todo.append("strategy_overrides.pd_cluster: write the pools as a `pd:` block "
                        "(layout, nodes, extra_args per pool; env; connectors)")
            continue
        mapping: dict[str, Any] = {}
        plain = _override(so) | ({"extra_args": _args(so["vllm_args"])} if so.get("vllm_args")
                                 else {})
        if plain:
            mapping["all"] = plain
        tp = so.get("tp")
        if tp is not None and sid == "single_node_tp":
            for key, size in (_keyed(tp) if isinstance(tp, dict) else {"all": tp}).items():
                mapping.setdefault(key, {})["parallel_size"] = size
        for key, ho in (so.get("hardware_overrides") or {}).items():
            if _override(ho):
                mapping.setdefault(key, {}).update(_override(ho))
                todo.append(f"strategy_overrides.{sid}.hardware_overrides.{key}: the public "
                            "synthesis lets a strategy's generation override REPLACE the "
                            "recipe's and the variant's for that generation; here it adds to "
                            "them (use remove_args where needed)")
        if mapping:
            strategy_overrides[sid] = mapping
    if strategy_overrides:
        ours["strategy_overrides"] = strategy_overrides
    if public.get("omni"):
        ours["omni"] = _omni(public["omni"], todo)
    if public.get("strategy_min_gpus"):
        todo.append(f"strategy_min_gpus {public['strategy_min_gpus']}: express it through "
                    "vram_minimum_gb (node counts follow from it) or strategy_hardware")
    if public.get("hardware_notes"):
        todo.append("hardware_notes: rewrite them in the guide's `## Hardware notes` section")
    return ours, todo


class _Dumper(yaml.SafeDumper):
    """Block mappings; lists of scalars and small flat mappings in flow style."""


def _represent_list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    flat = all(not isinstance(item, dict | list) for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flat)


def _represent_dict(dumper: yaml.SafeDumper, data: dict[str, Any]) -> yaml.Node:
    flat = all(not isinstance(v, dict | list) and len(str(v)) < 40 for v in data.values())
    small = flat and len(data) <= 4 and sum(len(str(k)) + len(str(v)) for k, v in data.items()) < 70
    return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=small)


_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(dict, _represent_dict)


def _request(task: dict[str, Any]) -> dict[str, Any] | None:
    if task.get("curl"):
        return {"curl": task["curl"].strip()}
    if task.get("endpoint"):
        return {"endpoint": task["endpoint"]}
    return None


def _omni(omni: dict[str, Any], todo: list[str]) -> dict[str, Any]:
    tasks: dict[str, Any] = {}
    for entry in omni.get("tasks") or []:
        task = {"id": entry} if isinstance(entry, str) else dict(entry)
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
    parser = argparse.ArgumentParser(
        prog="vllm-recipes port",
        description="Write a first draft of a recipe from a public-catalogue recipe YAML "
                    "(github.com/vllm-project/recipes models/<org>/<repo>.yaml).")
    parser.add_argument("public", type=Path, help="the public recipe's YAML file")
    parser.add_argument("--recipes", type=Path, default=Path("recipes"),
                        help="the recipe tree to write into (default: recipes/)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing recipe")
    args = parser.parse_args(argv)
    public = yaml.safe_load(args.public.read_text(encoding="utf-8"))
    hardware = yaml.safe_load((args.recipes / "hardware.yaml").read_text(encoding="utf-8"))
    restricted = {hw for hw, spec in hardware["hardware"].items() if spec.get("restricted")}
    ours, todo = draft(public, restricted)
    model_id = ours["model"]["model_id"]
    target = args.recipes / "models" / f"{model_id}.yaml"
    if target.exists() and not args.force:
        print(f"vllm-recipes port: {target} exists (use --force)", file=sys.stderr)
        return 2
    target.parent.mkdir(parents=True, exist_ok=True)
    header = ["# yaml-language-server: $schema=../../schema.json",
              f"# {ours['meta']['title']}. Facts from the public catalogue "
              f"(github.com/vllm-project/recipes, models/{args.public.parent.name}/"
              f"{args.public.name}); the guide ({target.with_suffix('.md').name}) is ours.",
              *[f"# TODO: {line}" for line in todo]]
    target.write_text("\n".join(header) + "\n" + _dump(ours), encoding="utf-8")
    guide = target.with_suffix(".md")
    if not guide.exists():
        guide.write_text("## Overview\n\nTODO: write the guide in our own words.\n",
                         encoding="utf-8")
    print(f"{target}: {len(todo)} TODO line{'s' if len(todo) != 1 else ''}")
    return 0
