"""Read and validate the recipe tree: hardware catalog, strategies, model recipes and guides.

`load_catalog` is what the site build, `vllm-recipes check` and the tests call; it reports
every problem it finds, each as `file:line: field.path: message` (see `yaml_source.py`), after
the schema (`schema.py`) and the cross-file checks (`checks.py`).

A recipe is `models/<org>/<repo>.yaml`; its guide, and its hardware notes, are the Markdown
file beside it, `models/<org>/<repo>.md` (see `guide.py`); its memory facts are
`facts/<org>/<repo>.yaml`, its performance `performance/<org>/<repo>.json` and the measured
table of `deployments/<org>/<repo>.yaml` (see `performance_data.py`).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from .checks import check_default_builds, check_recipe, check_related, check_unique_model_ids
from .checks_facts import check_facts_coverage
from .errors import InvalidRecipe
from .guide import parse_guide
from .performance_data import coverage_path, deployments_path, estimates_path, load_performance
from .schema import HardwareCatalog, HardwareNote, ModelFacts, Recipe, Strategy
from .validated import publish, validate
from .yaml_source import MAX_FILE_BYTES, Located, YamlFile, read_text, read_yaml

__all__ = ["Catalog", "UnknownModel", "load_catalog", "load_catalog_with_problems", "load_for",
           "publish", "recipe_sources"]

M = TypeVar("M", bound=BaseModel)

STRATEGY_ORDER = (
    "single_node_tp", "single_node_tep", "single_node_dep", "single_node_dpa_tp",
    "multi_node_tp", "multi_node_tep", "multi_node_dep", "multi_node_tp_dp", "multi_node_tp_pp",
    "pd_cluster",
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
    strategy_files: dict[str, YamlFile] = field(default_factory=dict)

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
            if model_id in recipe.aliases:
                return hf_id, "default"
        raise KeyError(model_id)


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.parent))
    except ValueError:
        return str(path)


def load_catalog(root: Path, memo: dict[str, Any] | None = None) -> Catalog:
    """Load `root` (the `recipes/` folder). Raises InvalidRecipe listing every problem found.
    `memo` (kept by the caller between loads, e.g. by `mkdocs serve`) skips re-validating a
    recipe whose files, and the hardware and strategy files, are unchanged."""
    catalog, problems = load_catalog_with_problems(root, memo)
    if problems or catalog is None:
        raise InvalidRecipe("\n".join(str(p) for p in problems))
    return catalog


def _read(path: Path, root: Path, problems: list[Located]) -> YamlFile | None:
    try:
        return read_yaml(path, _display(path, root))
    except InvalidRecipe as error:
        problems.append(Located("", None, "", str(error)))  # already `file:line: message`
        return None


def _read_valid(kind: type[M], path: Path, root: Path, problems: list[Located]
                ) -> tuple[M | None, YamlFile | None]:
    """The file at `path` read and validated as `kind` (None where it is not, with problems);
    the parsed file too, for messages that name a line."""
    source = _read(path, root, problems)
    if source is None:
        return None, None
    value, found = validate(kind, source)
    problems += found
    return value, source


def _load_tree_base(root: Path, problems: list[Located]) -> tuple[
        HardwareCatalog | None, dict[str, Strategy], dict[str, YamlFile]]:
    hardware, _ = _read_valid(HardwareCatalog, root / "hardware.yaml", root, problems)
    strategies: dict[str, Strategy] = {}
    files: dict[str, YamlFile] = {}
    strategy_files = sorted(
        (root / "strategies").glob("*.yaml"),
        key=lambda p: (STRATEGY_ORDER.index(p.stem) if p.stem in STRATEGY_ORDER
                       else len(STRATEGY_ORDER), p.stem),
    )
    for path in strategy_files:
        strategy, source = _read_valid(Strategy, path, root, problems)
        if strategy is None or source is None:
            continue
        if strategy.name != path.stem:
            problems.append(source.problem(("name",), f"{strategy.name!r} must match the file "
                                                      "name"))
        strategies[strategy.name] = strategy
        files[strategy.name] = source
    return hardware, strategies, files


def _load_recipe(path: Path, root: Path, hardware: HardwareCatalog,
                 strategies: dict[str, Strategy], problems: list[Located]
                 ) -> tuple[Recipe, str, YamlFile] | None:
    """One recipe with its guide text and parsed file (None, with problems, when invalid)."""

    recipe, source = _read_valid(Recipe, path, root, problems)
    if recipe is None or source is None:
        return None
    expected = f"{path.parent.name}/{path.stem}"
    if recipe.model.model_id != expected:
        problems.append(source.problem(
            ("model", "model_id"),
            f"{recipe.model.model_id!r} must match the file path ({expected!r})"))
        return None
    guide_path = path.with_suffix(".md")
    guide_display = _display(guide_path, root)
    text = ""
    if os.path.lexists(guide_path):
        try:
            text = read_text(guide_path, guide_display)
        except InvalidRecipe as error:
            problems.append(Located("", None, "", str(error)))
            return None
    else:
        problems.append(source.problem(("model", "model_id"), (
            f"no guide: every recipe has its guide beside it ({guide_path.name}: what the "
            "model is and how to run it; see CONTRIBUTING.md)")))
    guide = parse_guide(text)
    problems += [Located(guide_display, line, "guide", message)
                 for line, message in guide.problems]
    recipe = recipe.model_copy(update={"hardware_notes": {
        hw_id: HardwareNote.model_validate(note) for hw_id, note in guide.notes.items()}})
    facts = _load_facts(root, path, recipe, source, problems)
    if facts is not None:
        recipe = recipe.model_copy(update={"facts": facts})
    performance = load_performance(root, path, recipe, hardware, problems)
    if performance is not None:
        recipe = recipe.model_copy(update={"performance": performance})
    problems += check_recipe(recipe, source, guide, guide_display, hardware, strategies)
    return recipe, guide.text, source


def recipe_sources(recipe_path: Path) -> tuple[Path, ...]:
    """The files a recipe's answers come from: its YAML, its guide, its memory facts, its
    performance estimates and measured points."""
    root = recipe_path.parent.parent.parent
    return (recipe_path, recipe_path.with_suffix(".md"), facts_path(root, recipe_path),
            estimates_path(root, recipe_path), deployments_path(root, recipe_path))


def facts_path(root: Path, recipe_path: Path) -> Path:
    """`recipes/facts/<org>/<repo>.yaml`: the memory facts of the recipe at `recipe_path`."""
    return root / "facts" / recipe_path.parent.name / recipe_path.name


def _load_facts(root: Path, recipe_path: Path, recipe: Recipe, recipe_source: YamlFile,
                problems: list[Located]) -> ModelFacts | None:
    """The recipe's memory facts (None when it has no facts file, or with problems when the
    file is invalid, names a variant the recipe lacks or leaves a variant of another model
    undecided: `checks_facts.py`)."""
    path = facts_path(root, recipe_path)
    if not _is_file(path):
        return None
    facts, source = _read_valid(ModelFacts, path, root, problems)
    if facts is None or source is None:
        return None
    problems += check_facts_coverage(recipe, facts, recipe_source, source)
    return facts


def _catalog(root: Path, hardware: HardwareCatalog, strategies: dict[str, Strategy],
             strategy_files: dict[str, YamlFile],
             loaded: dict[str, tuple[Path, tuple[Recipe, str, YamlFile]]]) -> Catalog:
    ordered = sorted(loaded, key=lambda h: (loaded[h][1][0].meta.provider.lower(), h.lower()))
    return Catalog(
        root=root,
        hardware=hardware,
        strategies=strategies,
        recipes={h: loaded[h][1][0] for h in ordered},
        paths={h: loaded[h][0] for h in ordered},
        guides={h: loaded[h][1][1] for h in ordered},
        files={h: loaded[h][1][2] for h in ordered},
        strategy_files=strategy_files,
    )


def _digest(paths: list[Path]) -> str:
    hashed = hashlib.sha256()
    for path in paths:
        hashed.update(str(path).encode() + b"\0")
        try:
            info = path.stat()
        except OSError:
            info = None
        if info is None or not stat.S_ISREG(info.st_mode):
            hashed.update(b"\0missing")
        elif info.st_size > MAX_FILE_BYTES:  # refused when read; its size and time will do
            hashed.update(f"\0{info.st_size}\0{info.st_mtime_ns}".encode())
        else:
            hashed.update(path.read_bytes())
    return hashed.hexdigest()


def _misplaced(root: Path) -> list[Located]:
    """Files the tree would otherwise skip without a word: `.yml` recipe, strategy, deployment
    and configuration files, and recipes that are not at models/<org>/<repo>.yaml."""
    found = []
    for pattern in ("models/*.yml", "models/*/*.yml", "strategies/*.yml",
                    "deployments/*/*.yml", "configurations/*.yml"):
        found += [Located(_display(p, root), None, "", "a .yml file is not read; name it "
                                                       f"{p.with_suffix('.yaml').name}")
                  for p in sorted(root.glob(pattern))]
    found += [Located(_display(p, root), None, "", "a recipe is models/<org>/<repo>.yaml; "
                                                   "move it into its organisation's folder")
              for p in sorted(root.glob("models/*.yaml"))]
    return found


def load_catalog_with_problems(root: Path, memo: dict[str, Any] | None = None
                               ) -> tuple[Catalog | None, list[Located]]:
    """The catalog (None if the hardware catalog or a strategy is broken) and every problem
    (`memo`: see `load_catalog`)."""

    root = Path(root)
    problems: list[Located] = _misplaced(root)
    hardware, strategies, strategy_files = _load_tree_base(root, problems)
    if hardware is None or problems:
        return None, problems
    base = "" if memo is None else _digest(
        [root / "hardware.yaml", *sorted((root / "strategies").glob("*.yaml")),
         coverage_path(root)])
    loaded: dict[str, tuple[Path, tuple[Recipe, str, YamlFile]]] = {}
    for path in sorted((root / "models").glob("*/*.yaml")):
        if memo is None:
            result = _load_recipe(path, root, hardware, strategies, problems)
        else:
            key = base + _digest(list(recipe_sources(path)))
            kept = memo.get(str(path))
            if kept is None or kept[0] != key:
                found: list[Located] = []
                kept = memo[str(path)] = (
                    key, _load_recipe(path, root, hardware, strategies, found), found)
            result = kept[1]
            problems += kept[2]
        if result is not None:
            loaded[f"{path.parent.name}/{path.stem}"] = (path, result)
    recipes = {h: r[1][0] for h, r in loaded.items()}
    files = {h: r[1][2] for h, r in loaded.items()}
    problems += check_unique_model_ids(recipes, files)
    problems += check_related(recipes, files, {
        f"{p.parent.name}/{p.stem}" for p in (root / "models").glob("*/*.yaml")})
    catalog = _catalog(root, hardware, strategies, strategy_files, loaded)
    if not problems:  # what the site builds first: each recipe's default selection
        active = [h for h, r in catalog.recipes.items() if r.retired is None]
        problems += check_default_builds(
            catalog.builder_catalog(), {h: catalog.builder_recipe(h) for h in active},
            {h: catalog.display(catalog.paths[h]) for h in active})
    return catalog, problems


def _model_id_pattern(model_id: str) -> re.Pattern[str]:
    """A line that names `model_id` as a variant's model id or among the recipe's aliases
    (`aliases: [a, b]` or a block list); the file found is then validated as usual."""
    quoted = rf"[\"']?{re.escape(model_id)}[\"']?"
    return re.compile(
        rf"^\s*model_id:\s*{quoted}\s*(#.*)?$|^aliases:\s*\[([^\]#]*[\s,])?{quoted}\s*[,\]]"
        rf"|^aliases:\s*(#.*)?\n(\s+-\s*\S+\s*(#.*)?\n)*\s+-\s*{quoted}\s*(#.*)?$", re.M)


class UnknownModel(KeyError):
    """No recipe of the tree has this id; `suggestion`: the id it names in another letter
    case, if any (ids are case-sensitive)."""

    def __init__(self, model_id: str, suggestion: str | None) -> None:
        super().__init__(model_id)
        self.suggestion = suggestion


_IDS = re.compile(r"^\s*model_id:\s*[\"']?([\w.-]+/[\w.-]+)[\"']?\s*(?:#.*)?$", re.M)
_ALIASES = re.compile(r"^aliases:\s*\[([^\]#]*)\]", re.M)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a name too long for the file system, ...
        return False


def _text_or_empty(path: Path, root: Path) -> str:
    """A file's text, or "" when it cannot be read (the whole-tree load then reports it)."""
    try:
        return read_text(path, _display(path, root))
    except InvalidRecipe:
        return ""


def load_for(root: Path, model_id: str) -> Catalog:
    """A catalog holding only the recipe that `model_id` names (the recipe's own id, or a
    variant's): what one CLI answer needs. Falls back to the whole tree when no file names it
    but one mentions it; UnknownModel (with the id in its right letter case, when a file
    names one so) when no file mentions it as written. Raises InvalidRecipe for problems in
    the files it reads."""
    root = Path(root)
    path = root / "models" / f"{model_id}.yaml"
    if not _is_file(path):
        texts = {p: _text_or_empty(p, root) for p in sorted((root / "models").glob("*/*.yaml"))}
        pattern = _model_id_pattern(model_id)
        path = next((p for p, text in texts.items() if pattern.search(text)), path)
        folded = model_id.casefold()
        if not _is_file(path) and not any(model_id in text for text in texts.values()):
            ids = [f"{p.parent.name}/{p.stem}" for p in texts]
            ids += [m.group(1) for text in texts.values() for m in _IDS.finditer(text)]
            ids += [a for text in texts.values() for m in _ALIASES.finditer(text)
                    for a in re.findall(r"[^\s,'\"]+", m.group(1))]
            known = next((i for i in ids if i.casefold() == folded), None)
            if known is not None or not any(folded in t.casefold() for t in texts.values()):
                raise UnknownModel(model_id, known)  # no file mentions it as it is written
    if not _is_file(path):
        return load_catalog(root)
    problems: list[Located] = []
    hardware, strategies, strategy_files = _load_tree_base(root, problems)
    result = None
    if hardware is not None and not problems:
        result = _load_recipe(path, root, hardware, strategies, problems)
    if problems or result is None or hardware is None:
        raise InvalidRecipe("\n".join(str(p) for p in problems))
    return _catalog(root, hardware, strategies, strategy_files,
                    {f"{path.parent.name}/{path.stem}": (path, result)})
