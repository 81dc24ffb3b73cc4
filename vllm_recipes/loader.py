"""Read and validate the recipe tree: hardware catalog, strategies, model recipes.

Every problem is reported as ``path: field: message``; all problems of a file are reported
together. Cross-file references (hardware keys, strategy ids, variant model ids) are checked
here, because only the loader sees every file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from builder.selection import variant_runs_on

from .errors import InvalidRecipe
from .schema import HardwareCatalog, Recipe, Strategy

__all__ = ["Catalog", "load_catalog", "load_recipe_file"]

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Catalog:
    """The validated recipe tree, and the plain-dict forms the builder and the JSON API use."""

    root: Path
    hardware: HardwareCatalog
    strategies: dict[str, Strategy]
    recipes: dict[str, Recipe]
    """By hf_id, in a stable order (sorted by provider then title)."""
    paths: dict[str, Path]
    """Source file of each recipe, by hf_id."""

    def builder_catalog(self) -> dict[str, Any]:
        """What `builder` takes as its catalog argument (also published as JSON)."""
        data = publish(self.hardware)
        data["strategies"] = {sid: publish(s) for sid, s in self.strategies.items()}
        return data

    def builder_recipe(self, hf_id: str) -> dict[str, Any]:
        return publish(self.recipes[hf_id])

    def find(self, model_id: str) -> tuple[str, str]:
        """(recipe hf_id, variant id) for a recipe's or a variant's model id.

        A variant that declares a model id selects itself, even when that id is also the
        recipe's (DeepSeek-V4.1-Flash names the 0909 checkpoint, not the 1017 default);
        otherwise the recipe's id selects its default variant.
        """
        for hf_id, recipe in self.recipes.items():
            for variant_id, variant in recipe.variants.items():
                if variant.model_id == model_id:
                    return hf_id, variant_id
        if model_id in self.recipes:
            return model_id, "default"
        raise KeyError(model_id)


def publish(model: BaseModel) -> dict[str, Any]:
    """The JSON form of validated data: exactly the keys the YAML author wrote."""
    return model.model_dump(mode="json", exclude_unset=True)


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses duplicate keys instead of keeping the last one."""


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)  # type: ignore[no-untyped-call]
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping
)


def _read_yaml(path: Path, display: str) -> Any:
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        context = ""
        if error.context:
            started = error.context_mark
            same_line = mark is not None and started is not None and started.line == mark.line
            at = f" at line {started.line + 1}" if started and not same_line else ""
            context = f" ({error.context}{at})"
        raise InvalidRecipe(f"{display}: {where}{error.problem}{context}") from None
    except yaml.YAMLError as error:
        raise InvalidRecipe(f"{display}: {' '.join(str(error).split())}") from None


def _validate(model: type[M], data: Any, display: str) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        lines = []
        for problem in error.errors():
            loc = ".".join(str(part) for part in problem["loc"])
            message = problem["msg"]
            if problem["type"] == "extra_forbidden":
                message = "unknown key (not in the schema; check the spelling)"
            elif problem["type"] == "value_error":
                # Our validators already name the field: "variants.x.default_modes: ..."
                message = message.removeprefix("Value error, ")
            lines.append(f"{display}: {loc}: {message}" if loc else f"{display}: {message}")
        raise InvalidRecipe("\n".join(lines)) from None


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.parent))
    except ValueError:
        return str(path)


def load_recipe_file(path: Path, root: Path) -> Recipe:
    display = _display(path, root)
    return _validate(Recipe, _read_yaml(path, display), display)


def load_catalog(root: Path) -> Catalog:
    """Load `root` (the `recipes/` folder). Raises InvalidRecipe listing every problem found."""
    root = Path(root)
    hardware_path = root / "hardware.yaml"
    hw_display = _display(hardware_path, root)
    hardware = _validate(HardwareCatalog, _read_yaml(hardware_path, hw_display), hw_display)

    strategies: dict[str, Strategy] = {}
    order = ["single_node_tp", "single_node_tep", "single_node_dep", "multi_node_tp",
             "multi_node_tep", "multi_node_dep", "multi_node_tp_dp", "multi_node_tp_pp",
             "pd_cluster"]
    strategy_files = sorted(
        (root / "strategies").glob("*.yaml"),
        key=lambda p: (order.index(p.stem) if p.stem in order else len(order), p.stem),
    )
    problems: list[str] = []
    for path in strategy_files:
        display = _display(path, root)
        try:
            strategy = _validate(Strategy, _read_yaml(path, display), display)
        except InvalidRecipe as error:
            problems.append(str(error))
            continue
        if strategy.name != path.stem:
            problems.append(f"{display}: name: {strategy.name!r} must match the file name")
        strategies[strategy.name] = strategy

    recipes: dict[str, Recipe] = {}
    paths: dict[str, Path] = {}
    for path in sorted((root / "models").glob("*/*.yaml")):
        display = _display(path, root)
        try:
            recipe = load_recipe_file(path, root)
        except InvalidRecipe as error:
            problems.append(str(error))
            continue
        expected = f"{path.parent.name}/{path.stem}"
        if recipe.model.model_id != expected:
            problems.append(
                f"{display}: model.model_id: {recipe.model.model_id!r} must match the file "
                f"path ({expected!r})"
            )
            continue
        problems += check_references(recipe, hardware, strategies, display)
        recipes[expected] = recipe
        paths[expected] = path
    problems += _check_unique_model_ids(recipes, paths, root)
    if problems:
        raise InvalidRecipe("\n".join(problems))
    ordered = sorted(recipes, key=lambda h: (recipes[h].meta.provider.lower(), h.lower()))
    return Catalog(
        root=root,
        hardware=hardware,
        strategies=strategies,
        recipes={h: recipes[h] for h in ordered},
        paths={h: paths[h] for h in ordered},
    )


def _hardware_keys(hardware: HardwareCatalog) -> set[str]:
    keys = set(hardware.brands) | set(hardware.generations) | set(hardware.hardware)
    keys |= {f"arch:{hw.compute_arch}" for hw in hardware.hardware.values()}
    return keys


def check_references(
    recipe: Recipe, hardware: HardwareCatalog, strategies: dict[str, Strategy], display: str
) -> list[str]:
    """Every hardware key, hardware id and strategy id the recipe names must exist."""
    keys = _hardware_keys(hardware)
    ids = set(hardware.hardware)
    problems: list[str] = []

    def need_keys(where: str, names: Any) -> None:
        for name in names:
            if name not in keys:
                problems.append(
                    f"{display}: {where}: unknown hardware key {name!r} (use a hardware id, "
                    f"a brand, a generation or arch:<compute_arch> from recipes/hardware.yaml)"
                )

    def need_ids(where: str, names: Any) -> None:
        for name in names:
            if name not in ids:
                problems.append(f"{display}: {where}: unknown hardware id {name!r}")

    def need_strategies(where: str, names: Any) -> None:
        for name in names:
            if name not in strategies:
                problems.append(
                    f"{display}: {where}: unknown strategy {name!r} (known: "
                    f"{', '.join(strategies)})"
                )

    need_ids("meta.hardware", recipe.meta.hardware)
    need_ids("recommended.hardware", [recipe.recommended.hardware])
    need_strategies("recommended.strategies", recipe.recommended.strategies)
    need_keys("model.docker_image", recipe.model.docker_image)
    need_keys("hardware_overrides", recipe.hardware_overrides)
    need_ids("hardware_notes", recipe.hardware_notes)
    need_strategies("strategy_hardware", recipe.strategy_hardware)
    for sid, mapping in recipe.strategy_hardware.items():
        need_keys(f"strategy_hardware.{sid}", mapping)
    need_strategies("strategy_overrides", recipe.strategy_overrides)
    for sid, mapping in recipe.strategy_overrides.items():
        need_keys(f"strategy_overrides.{sid}", mapping)
    for fid, feature in recipe.features.items():
        need_keys(f"features.{fid}.hardware", feature.hardware)
        need_keys(f"features.{fid}.hardware_overrides", feature.hardware_overrides)
        need_strategies(f"features.{fid}.strategies", feature.strategies or [])
        for mid, mode in (feature.modes or {}).items():
            need_keys(f"features.{fid}.modes.{mid}.hardware", mode.hardware)
            need_keys(f"features.{fid}.modes.{mid}.hardware_overrides", mode.hardware_overrides)
    for vid, variant in recipe.variants.items():
        where = f"variants.{vid}"
        need_keys(f"{where}.supported_hardware", variant.supported_hardware or [])
        need_keys(f"{where}.tp", variant.tp)
        need_keys(f"{where}.hardware_overrides", variant.hardware_overrides)
        need_strategies(f"{where}.strategy_overrides", variant.strategy_overrides)
        for sid, mapping in variant.strategy_overrides.items():
            need_keys(f"{where}.strategy_overrides.{sid}", mapping)
    need_keys("pd", recipe.pd)
    if not problems:
        problems += _check_pd(recipe, hardware, display)
    if not problems:
        # The builder's own rule, on the data as the builder will receive it.
        data = publish(recipe)
        wanted = recipe.recommended.hardware
        hw = publish(hardware.hardware[wanted])
        if not variant_runs_on(data, data["variants"]["default"], wanted, hw):
            problems.append(
                f"{display}: recommended.hardware: the default variant does not run on "
                f"{wanted!r}"
            )
    return problems


def _check_pd(recipe: Recipe, hardware: HardwareCatalog, display: str) -> list[str]:
    """Prefill/decode pools, merged per hardware id as the builder merges them, must fit the
    hardware: devices that exist and do not overlap, distinct ports on a shared node, and a
    KV-transfer config that names its connector."""
    if not recipe.pd:
        return []
    from builder.pd import pd_settings  # pure stdlib, the same merge the builder does

    data = publish(recipe)
    problems: list[str] = []
    for key, settings in recipe.pd.items():
        for cid, connector in (settings.connectors or {}).items():
            config = connector.kv_transfer_config
            if config is not None and "kv_connector" not in config:
                problems.append(f"{display}: pd.{key}.connectors.{cid}.kv_transfer_config: "
                                f"names no kv_connector")
    for hw_id, hw in hardware.hardware.items():
        merged = pd_settings(data, hw_id, hw.model_dump())
        pools = {name: merged[name] for name in ("prefill", "decode") if name in merged}
        where = f"{display}: pd (merged for {hw_id})"
        used: dict[int, str] = {}
        for name, pool in pools.items():
            gpus = pool.get("gpus_per_node")
            if gpus is not None and gpus > hw.gpu_count:
                problems.append(f"{where}: {name}.gpus_per_node: {gpus} but {hw_id} has "
                                f"{hw.gpu_count} GPUs")
            for device in pool.get("devices") or []:
                if device >= hw.gpu_count:
                    problems.append(f"{where}: {name}.devices: {device} does not exist on "
                                    f"{hw_id} ({hw.gpu_count} GPUs)")
                elif device in used:
                    problems.append(f"{where}: {name}.devices: {device} is also a "
                                    f"{used[device]} device")
                used[device] = name
        with_devices = [name for name, pool in pools.items() if pool.get("devices")]
        if len(with_devices) == 1:
            problems.append(f"{where}: only {with_devices[0]} names devices; name both pools' "
                            f"devices to share a node, or neither")
        if len(with_devices) == 2:
            ports = [pools[n].get("port", d) for n, d in (("prefill", 8000), ("decode", 8001))]
            if ports[0] == ports[1]:
                problems.append(f"{where}: both pools share a node and port {ports[0]}")
    return sorted(set(problems), key=problems.index)


def _check_unique_model_ids(
    recipes: dict[str, Recipe], paths: dict[str, Path], root: Path
) -> list[str]:
    owner: dict[str, str] = {hf_id: hf_id for hf_id in recipes}
    problems = []
    for hf_id, recipe in recipes.items():
        for vid, variant in recipe.variants.items():
            mid = variant.model_id
            if mid is None or (mid == hf_id and vid == "default"):
                continue
            # The recipe's own id may name one of its variants (see Catalog.find); any
            # other id, and the recipe's own id named by two variants, is a conflict.
            if mid in owner and owner[mid] not in (hf_id, hf_id + "#" + vid):
                problems.append(
                    f"{_display(paths[hf_id], root)}: variants.{vid}.model_id: {mid!r} is "
                    f"already used by {owner[mid]}"
                )
            owner[mid] = hf_id + "#" + vid
    return problems
