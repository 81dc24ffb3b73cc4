"""Read and validate the recipe tree: hardware catalog, strategies, model recipes and guides.

`load_catalog` is what the site build, `vllm-recipes check` and the tests call; it reports
every problem it finds, each as `file:line: field.path: message` (see `yaml_source.py`), after
the schema (`schema.py`) and the cross-file checks (`checks.py`).

A recipe is `models/<org>/<repo>.yaml`; its guide is the Markdown file beside it,
`models/<org>/<repo>.md`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import InvalidRecipe
from .schema import HardwareCatalog, Recipe, Strategy
from .yaml_source import Located, YamlFile, read_yaml

__all__ = ["Catalog", "load_catalog", "publish"]

M = TypeVar("M", bound=BaseModel)
STRATEGY_ORDER = (
    "single_node_tp", "single_node_tep", "single_node_dep", "multi_node_tp", "multi_node_tep",
    "multi_node_dep", "multi_node_tp_dp", "multi_node_tp_pp", "pd_cluster",
)


@dataclass(frozen=True)
class Catalog:
    """The validated recipe tree, and the plain-dict forms the builder and the JSON API use."""

    root: Path
    hardware: HardwareCatalog
    strategies: dict[str, Strategy]
    recipes: dict[str, Recipe]
    """By hf_id, in a stable order (sorted by provider then model id)."""
    paths: dict[str, Path]
    """Source file of each recipe, by hf_id."""
    guides: dict[str, str] = field(default_factory=dict)
    """The Markdown guide of each recipe (empty when it has none)."""
    files: dict[str, YamlFile] = field(default_factory=dict)
    """Each recipe's parsed file, with the line of every YAML path."""

    def display(self, path: Path) -> str:
        return _display(path, self.root)

    def builder_catalog(self) -> dict[str, Any]:
        """What `builder` takes as its catalog argument (also published as JSON)."""
        data = publish(self.hardware)
        data["strategies"] = {
            sid: {**publish(s), "file": self.display(self.root / "strategies" / f"{sid}.yaml")}
            for sid, s in self.strategies.items()
        }
        return data

    def builder_recipe(self, hf_id: str) -> dict[str, Any]:
        """The recipe as the builder takes it: its data, and `file` (its path, for sources)."""
        return {**publish(self.recipes[hf_id]), "file": self.display(self.paths[hf_id])}

    def find(self, model_id: str) -> tuple[str, str]:
        """(recipe hf_id, variant id) for a recipe's or a variant's model id.

        A recipe's own id means the recipe at its default variant; a variant's own model id
        (when it differs from the recipe's) selects that variant.
        """
        if model_id in self.recipes:
            return model_id, "default"
        for hf_id, recipe in self.recipes.items():
            for variant_id, variant in recipe.variants.items():
                if variant.model_id == model_id:
                    return hf_id, variant_id
        raise KeyError(model_id)


def publish(model: BaseModel) -> dict[str, Any]:
    """The JSON form of validated data: exactly the keys the YAML author wrote (normalised)."""
    return model.model_dump(mode="json", exclude_unset=True)


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.parent))
    except ValueError:
        return str(path)


def _trim(loc: tuple[Any, ...], data: Any) -> tuple[Any, ...]:
    """`loc` cut where it leaves the data (pydantic adds union branch and validator names)."""
    kept: list[Any] = []
    for part in loc:
        inside = (part in data) if isinstance(data, dict) else (
            isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data))
        if not inside:
            break
        data = data[part]
        kept.append(part)
    return tuple(kept)


def validate(model: type[M], source: YamlFile) -> tuple[M | None, list[Located]]:
    """The validated model, or every schema problem of the file with its line."""
    try:
        return model.model_validate(source.data), []
    except ValidationError as error:
        problems = []
        for problem in error.errors():
            loc = _trim(problem["loc"], source.data)
            message = problem["msg"]
            if problem["type"] == "missing":
                loc = tuple(problem["loc"])
            elif problem["type"] == "extra_forbidden":
                loc = tuple(problem["loc"])
                message = "unknown key (not in the schema; check the spelling)"
            elif problem["type"] == "value_error":
                message = message.removeprefix("Value error, ")
                # Our validators name the field they blame: "variants.x.default_modes: ..."
                head, sep, rest = message.partition(": ")
                if sep and " " not in head and head.replace("_", "").replace(".", "").isalnum():
                    loc = (*loc, *head.split("."))
                    message = rest
            problems.append(source.problem(loc, message))
        return None, problems


def load_catalog(root: Path) -> Catalog:
    """Load `root` (the `recipes/` folder). Raises InvalidRecipe listing every problem found."""
    catalog, problems = load_catalog_with_problems(root)
    if problems or catalog is None:
        raise InvalidRecipe("\n".join(str(p) for p in problems))
    return catalog


def _read(path: Path, root: Path, problems: list[Located]) -> YamlFile | None:
    try:
        return read_yaml(path, _display(path, root))
    except InvalidRecipe as error:
        problems.append(Located("", None, "", str(error)))  # already `file:line: message`
        return None


def load_catalog_with_problems(root: Path) -> tuple[Catalog | None, list[Located]]:
    """The catalog (None if the hardware catalog or a strategy is broken) and every problem."""
    from .checks import check_recipe, check_unique_model_ids  # the checks need the catalog types

    root = Path(root)
    problems: list[Located] = []
    hw_file = _read(root / "hardware.yaml", root, problems)
    hardware = None
    if hw_file is not None:
        hardware, found = validate(HardwareCatalog, hw_file)
        problems += found

    strategies: dict[str, Strategy] = {}
    strategy_files = sorted(
        (root / "strategies").glob("*.yaml"),
        key=lambda p: (STRATEGY_ORDER.index(p.stem) if p.stem in STRATEGY_ORDER
                       else len(STRATEGY_ORDER), p.stem),
    )
    for path in strategy_files:
        source = _read(path, root, problems)
        if source is None:
            continue
        strategy, found = validate(Strategy, source)
        problems += found
        if strategy is None:
            continue
        if strategy.name != path.stem:
            problems.append(source.problem(("name",), f"{strategy.name!r} must match the file "
                                                      "name"))
        strategies[strategy.name] = strategy
    if hardware is None or problems:
        return None, problems

    recipes: dict[str, Recipe] = {}
    paths: dict[str, Path] = {}
    guides: dict[str, str] = {}
    files: dict[str, YamlFile] = {}
    for path in sorted((root / "models").glob("*/*.yaml")):
        source = _read(path, root, problems)
        if source is None:
            continue
        recipe, found = validate(Recipe, source)
        problems += found
        if recipe is None:
            continue
        expected = f"{path.parent.name}/{path.stem}"
        if recipe.model.model_id != expected:
            problems.append(source.problem(
                ("model", "model_id"),
                f"{recipe.model.model_id!r} must match the file path ({expected!r})"))
            continue
        guide_path = path.with_suffix(".md")
        guide = guide_path.read_text(encoding="utf-8") if guide_path.is_file() else ""
        problems += check_recipe(recipe, source, guide, hardware, strategies)
        recipes[expected] = recipe
        paths[expected] = path
        guides[expected] = guide
        files[expected] = source
    problems += check_unique_model_ids(recipes, files)
    ordered = sorted(recipes, key=lambda h: (recipes[h].meta.provider.lower(), h.lower()))
    catalog = Catalog(
        root=root,
        hardware=hardware,
        strategies=strategies,
        recipes={h: recipes[h] for h in ordered},
        paths={h: paths[h] for h in ordered},
        guides={h: guides[h] for h in ordered},
        files={h: files[h] for h in ordered},
    )
    return catalog, problems
