"""Checks of one recipe against the rest of the tree, each problem with its file and line.

- every hardware key, hardware id, strategy id, feature and variant a recipe names exists;
- offering: verified hardware is offered; every variant runs somewhere; a variant does not
  list hardware its precision cannot run on (NVFP4/FP4 outside Blackwell) unless
  `precision_hardware` says so; the default hardware runs the default variant;
- strategies: a strategy granted in `strategy_hardware` is in `strategies`; prefill/decode is
  offered only where `pd` gives its layout;
- parallel sizes (`parallel_size`, a variant's `tp`, a literal `--tensor-parallel-size` or
  `--data-parallel-size`) divide the GPU count of every node they apply to, and a server's
  GPUs hold the weights (`vram_minimum_gb` without its 1.2 headroom, less `host_memory_gb`);
- every option in the recipe's arguments is one vLLM 0.33.0 accepts (see `vllm_flags.py`),
  with a value where it needs one, among its choices, and known JSON keys;
- every path-valued option (`--chat-template`, the parser plugins, `--deploy-config`, ...)
  names a file that an install step of each install method the recipe offers provides: a file
  of vLLM's source tree, one of the recipe's `files`, or a `dependencies` step's `provides`
  (see builder/files.py);
- in-page links of the guide and of hardware notes (`#anchor`) name a heading of the page;
- dates: `date_updated` is not before `date_added`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from markdown.extensions.toc import slugify

from builder.commands.build import Builder
from builder.commands.deploy_types import DEPLOY_TYPES
from builder.commands.needed_files import path_values, source_tree_file
from builder.commands.offering import precision_keys, variant_runs_on
from builder.commands.pd import pd_settings
from builder.commands.selection import recipe_strategies, strategy_reason
from builder.errors import SelectionError
from builder.hardware_keys import ALL, matching, ranked

from .guide import Guide
from .schema import HardwareCatalog, Recipe, Strategy
from .validated import publish
from .vllm_flags import check_tokens
from .yaml_source import Located, YamlFile

__all__ = ["PAGE_ANCHORS", "check_default_builds", "check_recipe", "check_related",
           "check_unique_model_ids", "guide_anchors"]

HEADROOM = 1.2
"""`vram_minimum_gb` is the weights times this factor (room for KV cache)."""
PAGE_ANCHORS = frozenset({"command", "install-vllm", "hardware-notes"})
"""Headings every model page has besides its guide's."""
SIZE_FLAGS = ("--tensor-parallel-size", "-tp", "--data-parallel-size", "-dp")


def _keys(hardware: HardwareCatalog) -> set[str]:
    keys = {ALL} | set(hardware.brands) | set(hardware.generations) | set(hardware.hardware)
    keys |= {f"arch:{hw.compute_arch}" for hw in hardware.hardware.values()}
    return keys


def _args_fields(recipe: Recipe) -> Iterator[tuple[tuple[Any, ...], list[Any]]]:
    """(YAML path, tokens) of every `vllm serve` argument list in the recipe."""
    yield ("model", "base_args"), recipe.model.base_args
    for fid, feature in recipe.features.items():
        yield ("features", fid, "args"), feature.args
        for key, ov in feature.hardware_overrides.items():
            yield ("features", fid, "hardware_overrides", key, "args"), ov.args
        for mid, mode in (feature.modes or {}).items():
            yield ("features", fid, "modes", mid, "args"), mode.args
            for key, ov in mode.hardware_overrides.items():
                yield ("features", fid, "modes", mid, "hardware_overrides", key, "args"), ov.args
    for vid, variant in recipe.variants.items():
        yield ("variants", vid, "extra_args"), variant.extra_args
    for path, override in recipe.overrides():
        yield (*path.split("."), "extra_args"), override.extra_args
    for key, settings in recipe.pd.items():
        yield ("pd", key, "extra_args"), settings.extra_args
        for pool in ("prefill", "decode"):
            if getattr(settings, pool) is not None:
                yield ("pd", key, pool, "extra_args"), getattr(settings, pool).extra_args
    for tid, task in (recipe.omni.tasks if recipe.omni else {}).items():
        yield ("omni", "tasks", tid, "extra_args"), task.extra_args
        for key, ov in task.hardware_overrides.items():
            yield ("omni", "tasks", tid, "hardware_overrides", key, "extra_args"), ov.extra_args


def _winner(keys: list[str], hw_id: str, hw: dict[str, Any]) -> str | None:
    """The most specific of `keys` naming the hardware."""
    entries = ranked(dict.fromkeys(keys, True), hw_id, hw)
    return entries[-1][1] if entries else None


def guide_anchors(guide: str) -> set[str]:
    """The anchors mkdocs gives the guide's headings (`## Foo bar` → `foo-bar`)."""
    anchors: set[str] = set()
    in_code = False
    for line in guide.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        match = None if in_code else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slugify(re.sub(r"[`*_]", "", match.group(1)), "-")
            anchor, n = base, 0
            while anchor in anchors:
                n += 1
                anchor = f"{base}_{n}"
            anchors.add(anchor)
    return anchors


class _Checker:
    def __init__(self, recipe: Recipe, source: YamlFile, guide: Guide, guide_display: str,
                 hardware: HardwareCatalog, strategies: dict[str, Strategy]) -> None:
        self.recipe = recipe
        self.source = source
        self.guide = guide
        self.guide_display = guide_display
        self.hardware = hardware
        self.strategies = strategies
        self.problems: list[Located] = []
        self.keys = _keys(hardware)
        self.catalog: dict[str, Any] = {}

    def add(self, loc: tuple[Any, ...] | str, message: str) -> None:
        self.problems.append(self.source.problem(loc, message))

    # ------------------------------------------------------------ references

    def need_keys(self, where: tuple[Any, ...], names: Any) -> None:
        for index, name in enumerate(names):
            if name not in self.keys:
                loc = (*where, index) if isinstance(names, list) else (*where, name)
                self.add(loc, f"unknown hardware key {name!r} (use all, a hardware id, a brand, "
                              "a generation or arch:<compute_arch> from recipes/hardware.yaml)")

    def need_ids(self, where: tuple[Any, ...], names: Any) -> None:
        for index, name in enumerate(names):
            if name not in self.hardware.hardware:
                loc = (*where, index) if isinstance(names, list) else (*where, name)
                self.add(loc, f"unknown hardware id {name!r}")

    def need_strategies(self, where: tuple[Any, ...], names: Any) -> None:
        for index, name in enumerate(names):
            if name not in self.strategies:
                loc = (*where, index) if isinstance(names, list) else (*where, name)
                self.add(loc, f"unknown strategy {name!r} (known: {', '.join(self.strategies)})")

    def references(self) -> None:
        r = self.recipe
        self.need_keys(("hardware",), r.hardware)
        self.need_ids(("verified",), r.verified)
        if r.default_hardware is not None:
            self.need_ids(("default_hardware",), [r.default_hardware])
        self.need_strategies(("strategies",), r.strategies or [])
        self.need_keys(("model", "docker_image"), r.model.docker_image)
        self.need_keys(("hardware_overrides",), r.hardware_overrides)
        for hw_id in r.hardware_notes:
            if hw_id not in self.hardware.hardware:
                self.problems.append(Located(self.guide_display, self.guide.lines.get(hw_id),
                                             "guide", f"a note for unknown hardware id {hw_id!r}"))
        self.need_strategies(("strategy_hardware",), r.strategy_hardware)
        for sid, mapping in r.strategy_hardware.items():
            self.need_keys(("strategy_hardware", sid), mapping)
        self.need_strategies(("strategy_overrides",), r.strategy_overrides)
        for sid, mapping in r.strategy_overrides.items():
            self.need_keys(("strategy_overrides", sid), mapping)
        for index, dep in enumerate(r.dependencies):
            self.need_keys(("dependencies", index, "hardware"), dep.hardware)
        for fid, feature in r.features.items():
            self.need_keys(("features", fid, "hardware"), feature.hardware)
            self.need_keys(("features", fid, "hardware_overrides"), feature.hardware_overrides)
            self.need_strategies(("features", fid, "strategies"), feature.strategies or [])
            if isinstance(feature.opt_in, list):
                self.need_keys(("features", fid, "opt_in"), feature.opt_in)
            for mid, mode in (feature.modes or {}).items():
                where = ("features", fid, "modes", mid)
                self.need_keys((*where, "hardware"), mode.hardware)
                self.need_keys((*where, "hardware_overrides"), mode.hardware_overrides)
        for vid, variant in r.variants.items():
            where = ("variants", vid)
            self.need_keys((*where, "hardware"), variant.hardware or [])
            self.need_keys((*where, "precision_hardware"), variant.precision_hardware or [])
            self.need_keys((*where, "tp"), variant.tp)
            self.need_keys((*where, "hardware_overrides"), variant.hardware_overrides)
            self.need_strategies((*where, "strategy_overrides"), variant.strategy_overrides)
            for sid, mapping in variant.strategy_overrides.items():
                self.need_keys((*where, "strategy_overrides", sid), mapping)
        self.need_keys(("pd",), r.pd)

    # ------------------------------------------------------------ offering

    def offering(self, catalog: dict[str, Any], data: dict[str, Any]) -> None:
        r = self.recipe
        hardware = catalog["hardware"]
        for index, hw_id in enumerate(r.verified):
            if r.hardware.get(hw_id) == "unsupported":
                self.add(("verified", index), f"{hw_id!r} is verified but `hardware` marks it "
                                              "unsupported")
        for vid, variant in data["variants"].items():
            keys = precision_keys(variant)
            own = variant.get("hardware") or []
            if keys is not None and variant.get("precision_hardware") is None:
                for index, key in enumerate(own):
                    named = matching([key], hardware)
                    if named and not matching(keys, {h: hardware[h] for h in named}):
                        where = ", ".join(self._key_name(k) for k in keys)
                        self.add(("variants", vid, "hardware", index),
                                 f"{key!r}: {variant['precision'].upper()} weights run on "
                                 f"{where} only; set precision_hardware to offer them "
                                 "elsewhere")
            if not any(variant_runs_on(catalog, data, vid, h) for h in hardware):
                self.add(("variants", vid), "this variant runs on no hardware (its `hardware`, "
                                            "its precision and the recipe's `hardware` exclude "
                                            "everything)")
        wanted = r.default_hardware
        if wanted and wanted in hardware and not variant_runs_on(catalog, data, "default",
                                                                 wanted):
            self.add(("default_hardware",), f"the default variant does not run on {wanted!r}")

    def _key_name(self, key: str) -> str:
        for names in (self.hardware.hardware, self.hardware.generations, self.hardware.brands):
            if key in names:
                return names[key].display_name
        return key

    # ------------------------------------------------------------ strategies

    def strategy_rules(self, catalog: dict[str, Any], data: dict[str, Any]) -> None:
        r = self.recipe
        offered = recipe_strategies(catalog, data)
        for sid, mapping in r.strategy_hardware.items():
            if sid not in offered and any(v != "unsupported" for v in mapping.values()):
                self.add(("strategy_hardware", sid), f"grants {sid} on some hardware, but "
                                                     f"`strategies` does not offer {sid}")
        if "pd_cluster" not in offered or "pd_cluster" not in self.strategies:
            return
        missing = []
        for hw_id in catalog["hardware"]:
            if any(variant_runs_on(catalog, data, vid, hw_id) for vid in data["variants"]):
                vid = next(v for v in data["variants"] if variant_runs_on(catalog, data, v, hw_id))
                reason = strategy_reason(catalog, data, hw_id, vid, "pd_cluster")
                if reason and "gives no prefill/decode layout" in reason:
                    missing.append(hw_id)
        if missing:
            loc = ("strategies", offered.index("pd_cluster")) if r.strategies else ("strategies",)
            self.add(loc, f"pd_cluster is offered but `pd` gives no layout for "
                          f"{', '.join(missing)} (add `pd` settings for them, or mark "
                          "pd_cluster unsupported there in strategy_hardware)")

    # ------------------------------------------------------------ parallel sizes

    def sizes(self, catalog: dict[str, Any], data: dict[str, Any]) -> None:
        hardware = catalog["hardware"]
        r = self.recipe

        def variants_of(path: str) -> list[str]:
            parts = path.split(".")
            return [parts[1]] if parts[0] == "variants" else list(r.variants)

        def strategies_of(path: str) -> list[str] | None:
            parts = path.split(".")
            if "strategy_overrides" in parts:
                return [parts[parts.index("strategy_overrides") + 1]]
            return None

        settings: list[tuple[tuple[Any, ...], str, int, int]] = []
        """(loc, hardware key, size, host GB)"""
        for path, override in r.overrides():
            key = path.split(".")[-1]
            if override.parallel_size is not None:
                settings.append(((*path.split("."), "parallel_size"), key,
                                 override.parallel_size, override.host_memory_gb or 0))
            tokens = override.extra_args
            for index, token in enumerate(tokens):
                if token in SIZE_FLAGS and index + 1 < len(tokens):
                    self._divides((*path.split("."), "extra_args", index + 1), key,
                                  str(tokens[index + 1]), hardware, data, variants_of(path))
        for vid, variant in r.variants.items():
            for key, size in variant.tp.items():
                settings.append((("variants", vid, "tp", key), key, size, 0))
            for index, token in enumerate(variant.extra_args):
                if token in SIZE_FLAGS and index + 1 < len(variant.extra_args):
                    self._divides(("variants", vid, "extra_args", index + 1), ALL,
                                  str(variant.extra_args[index + 1]), hardware, data, [vid])
        for loc, key, size, host in settings:
            siblings = [k for (other, k, _, _) in settings if other[:-2] == loc[:-2]]
            path = ".".join(str(p) for p in loc[:-1])
            vids = variants_of(path) if loc[0] != "variants" or loc[2] != "tp" else [loc[1]]
            sids = strategies_of(path) if loc[2:3] != ("tp",) else ["single_node_tp"]
            for hw_id in matching([key], hardware):
                hw = hardware[hw_id]
                if _winner(siblings, hw_id, hw) != key:
                    continue  # a more specific key of the same mapping sets this hardware's size
                runs = [v for v in vids if variant_runs_on(catalog, data, v, hw_id)]
                if not runs:
                    continue
                if hw["gpu_count"] % size:
                    self.add(loc, f"{size} does not divide the {hw['gpu_count']} GPUs of a "
                                  f"{hw['display_name']} node")
                    continue
                single = sids is None or any(
                    DEPLOY_TYPES[self.strategies[s].deploy_type].weights_on_one_node
                    for s in sids
                    if s in self.strategies)
                if not single:
                    continue
                host = host or self._host_memory(path, hw_id, hw)
                for vid in runs:
                    weights = math.ceil(r.variants[vid].vram_minimum_gb / HEADROOM) - host
                    if size * hw["memory_gb"] < weights:
                        self.add(loc, f"{size}× {hw['display_name']} hold "
                                      f"{size * hw['memory_gb']} GB but the {vid} weights need "
                                      f"{weights} GB (vram_minimum_gb / {HEADROOM}"
                                      f"{f' - {host} in host memory' if host else ''})")
                        break

    def _host_memory(self, path: str, hw_id: str, hw: dict[str, Any]) -> int:
        """The `host_memory_gb` that overrides beside the one at `path` give this hardware."""
        parent = path.split(".")[:-1]
        found = 0
        for other_path, override in self.recipe.overrides():
            other = other_path.split(".")
            if (override.host_memory_gb and other[:-1] == parent
                    and matching([other[-1]], {hw_id: hw})):
                found = max(found, override.host_memory_gb)
        return found

    def _divides(self, loc: tuple[Any, ...], key: str, text: str, hardware: dict[str, Any],
                 data: dict[str, Any], vids: list[str]) -> None:
        if not text.isdigit():
            self.add(loc, f"{text!r} is not a number")
            return
        size = int(text)
        if size < 1:
            self.add(loc, f"{size}: a parallel size is at least 1")
            return
        for hw_id in matching([key], hardware):
            hw = hardware[hw_id]
            runs = any(variant_runs_on(self.catalog, data, v, hw_id) for v in vids)
            if runs and hw["gpu_count"] % size and size <= hw["gpu_count"]:
                self.add(loc, f"{size} does not divide the {hw['gpu_count']} GPUs of a "
                              f"{hw['display_name']} node")
                return

    # ------------------------------------------------------------ prefill/decode pools

    def pd_pools(self, catalog: dict[str, Any], data: dict[str, Any]) -> None:
        """Pools, merged per hardware as the builder merges them, must fit the hardware:
        devices that exist and do not overlap, distinct ports on a shared node, and a KV
        transfer config that names its connector."""
        for key, settings in self.recipe.pd.items():
            for cid, connector in (settings.connectors or {}).items():
                config = connector.kv_transfer_config
                if config is not None and "kv_connector" not in config:
                    self.add(("pd", key, "connectors", cid, "kv_transfer_config"),
                             "names no kv_connector")
        seen: set[tuple[tuple[Any, ...], str]] = set()
        for hw_id, hw in catalog["hardware"].items():
            merge = pd_settings(data, hw_id, hw)
            pools = {n: merge.values[n] for n in ("prefill", "decode") if n in merge.values}
            used: dict[int, str] = {}
            found: list[tuple[tuple[Any, ...], str]] = []
            for name, pool in pools.items():
                gpus = pool.get("gpus_per_node")
                where = ("pd", merge.where.get(f"{name}.gpus_per_node", "?"), name)
                if gpus is not None and gpus > hw["gpu_count"]:
                    found.append(((*where, "gpus_per_node"),
                                  f"{gpus} but {hw_id} has {hw['gpu_count']} GPUs"))
                devices_at = ("pd", merge.where.get(f"{name}.devices", "?"), name, "devices")
                for device in pool.get("devices") or []:
                    if device >= hw["gpu_count"]:
                        found.append((devices_at, f"{device} does not exist on {hw_id} "
                                                  f"({hw['gpu_count']} GPUs)"))
                    elif device in used:
                        found.append((devices_at, f"{device} is also a {used[device]} device"))
                    used[device] = name
            with_devices = [n for n, pool in pools.items() if pool.get("devices")]
            if len(with_devices) == 1:
                name = with_devices[0]
                found.append((("pd", merge.where[f"{name}.devices"], name, "devices"),
                              f"only {name} names devices; name both pools' devices to share a "
                              "node, or neither"))
            if len(with_devices) == 2:
                ports = [pools[n].get("port", d) for n, d in (("prefill", 8000), ("decode", 8001))]
                if ports[0] == ports[1]:
                    found.append((("pd", merge.where.get("decode.port", "?"), "decode", "port"),
                                  f"both pools share a node and port {ports[0]}"))
            for loc, message in found:
                text = f"{message} (pools merged for {hw_id})"
                if (loc, message) not in seen:  # one report for all hardware a key covers
                    seen.add((loc, message))
                    self.add(loc, text)

    # ------------------------------------------------------------ flags, anchors, dates

    def flags(self) -> None:
        for path, tokens in _args_fields(self.recipe):
            for index, problem in check_tokens(list(tokens), omni=self.recipe.omni is not None):
                self.add((*path, index), problem)

    def paths(self) -> None:
        everywhere = self.recipe.hardware_overrides.get(ALL)
        toggles = (everywhere.install if everywhere and everywhere.install else None)
        methods = [m for m in ("pip", "docker")
                   if toggles is None or getattr(toggles, m, None) is not False]
        for path, tokens in _args_fields(self.recipe):
            words = [t if isinstance(t, str) else str(t) for t in tokens]
            for index, option, value in path_values(words):
                at = index if words[index].startswith(option) else index - 1
                for method in methods:
                    if self._provided(value, method):
                        continue
                    self.add((*path, at), f"{option} {value}: no install step of the {method} "
                             "install provides this file (name it in files: with its URL, or in "
                             "the provides: of the dependencies step that makes it)")
                    break

    def _provided(self, value: str, method: str) -> bool:
        if source_tree_file(value) or value in self.recipe.files:
            return True
        return any(value in dep.provides and method in dep.install
                   for dep in self.recipe.dependencies)

    def anchors(self) -> None:
        text = self.guide.text
        anchors = guide_anchors(text) | PAGE_ANCHORS
        for match in re.finditer(r"\]\(#([^)\s]+)\)", text):
            if match.group(1) not in anchors:
                line = text.count("\n", 0, match.start()) + 1
                self.problems.append(Located(self.guide_display, line, "guide",
                                             f"link to #{match.group(1)}: no such heading"))
        for hw_id, note in self.recipe.hardware_notes.items():
            if note.link and note.link.href.startswith("#") and note.link.href[1:] not in anchors:
                self.problems.append(Located(
                    self.guide_display, self.guide.lines.get(hw_id), f"hardware notes.{hw_id}",
                    f"link to {note.link.href}: no such heading in the guide"))

    def dates(self) -> None:
        meta = self.recipe.meta
        if meta.date_updated < meta.date_added:
            self.add(("meta", "date_updated"), f"{meta.date_updated} is before date_added "
                                               f"({meta.date_added})")

    def names(self) -> None:
        """A variant id is not also a mode id of one of the recipe's features: in a URL,
        `variant=dspark` and `spec_decoding=dspark` would read as the same choice."""
        modes = {mode: fid for fid, feature in self.recipe.features.items()
                 for mode in (feature.modes or {})}
        for variant_id in self.recipe.variants:
            if variant_id in modes:
                self.add(("variants", variant_id),
                         f"the variant id is also a mode of features.{modes[variant_id]}; "
                         "give the variant another id")

    def run(self) -> list[Located]:
        self.references()
        self.flags()
        self.paths()
        self.anchors()
        self.dates()
        self.names()
        if self.problems:
            return self.problems
        catalog = publish(self.hardware)
        catalog["strategies"] = {sid: publish(s) for sid, s in self.strategies.items()}
        self.catalog = catalog
        data = publish(self.recipe)
        self.offering(catalog, data)
        self.strategy_rules(catalog, data)
        self.sizes(catalog, data)
        self.pd_pools(catalog, data)
        return self.problems


def check_recipe(recipe: Recipe, source: YamlFile, guide: Guide, guide_display: str,
                 hardware: HardwareCatalog, strategies: dict[str, Strategy]) -> list[Located]:
    """Every problem of one recipe that the schema alone cannot see."""
    return _Checker(recipe, source, guide, guide_display, hardware, strategies).run()


def check_related(recipes: dict[str, Recipe], files: dict[str, YamlFile],
                  named: set[str] | None = None) -> list[Located]:
    """`meta.related_recipes` name other recipes of the tree, each once. `named`: the ids of
    every recipe file (one that does not validate is still a recipe, with problems of its
    own)."""
    named = set(recipes) if named is None else named
    problems = []
    for hf_id, recipe in recipes.items():
        seen: set[str] = set()
        for index, other in enumerate(recipe.meta.related_recipes):
            where = ("meta", "related_recipes", index)
            if other == hf_id:
                problems.append(files[hf_id].problem(where, "names the recipe itself"))
            elif other in seen:
                problems.append(files[hf_id].problem(where, f"{other!r} is listed twice"))
            elif other not in recipes and other not in named:
                known = next((h for h in named if h.casefold() == other.casefold()), None)
                hint = f"; did you mean {known}?" if known else ""
                problems.append(files[hf_id].problem(where, f"{other!r} is not a recipe of "
                                                            f"this tree{hint}"))
            seen.add(other)
    return problems


def check_default_builds(catalog: dict[str, Any], recipes: dict[str, dict[str, Any]],
                         displays: dict[str, str]) -> list[Located]:
    """Each recipe's default selection builds (the site refuses to build otherwise):
    `recipes` as the builder takes them (`Catalog.builder_recipe`), retired ones left out."""
    problems = []
    for hf_id, data in recipes.items():
        try:  # with the unavailable choices, as the page shows them
            Builder(catalog, data).build({})
        except SelectionError as error:
            problems.append(Located(displays[hf_id], None, "",
                                    f"the default selection does not build: {error}"))
        except Exception as error:  # a builder bug this data meets: the build would crash
            problems.append(Located(displays[hf_id], None, "", (
                f"the builder fails on the default selection ({type(error).__name__}: "
                f"{str(error)[:200]}); please report it")))
    return problems


def check_unique_model_ids(recipes: dict[str, Recipe],
                           files: dict[str, YamlFile]) -> list[Located]:
    """A model id names one recipe, one variant or one recipe's alias, never two."""
    owner: dict[str, str] = {hf_id: hf_id for hf_id in recipes}
    problems = []
    for hf_id, recipe in recipes.items():
        for vid, variant in recipe.variants.items():
            mid = variant.model_id
            if mid is None or mid == hf_id:
                continue
            if mid in owner:
                problems.append(files[hf_id].problem(
                    ("variants", vid, "model_id"), f"{mid!r} is already used by {owner[mid]}"))
            owner[mid] = f"{hf_id}#{vid}"
    for hf_id, recipe in recipes.items():
        for index, alias in enumerate(recipe.aliases):
            if alias in owner:
                where = "itself" if owner[alias] == hf_id else owner[alias]
                problems.append(files[hf_id].problem(
                    ("aliases", index), f"{alias!r} is already used by {where}"))
            owner[alias] = f"{hf_id} (alias)"
    return problems
