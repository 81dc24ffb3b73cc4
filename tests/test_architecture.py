"""The package map holds (issue 26): layers point one way, no import circles, the deploy type
is asked through its registry only, modules and classes stay readable, the page's Python is
Python files, and code outside the builder uses its public names only.

The rules read the source (ast), so they hold for every file added later.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("builder", "vllm_recipes", "vllm_recipes_cli", "site_plugins")
LAYERS = {"builder": set(), "vllm_recipes": {"builder"},
          "vllm_recipes_cli": {"builder", "vllm_recipes"},
          "site_plugins": {"builder", "vllm_recipes"}}
"""What each package may import of ours: the site and the tool → the data layer → the builder,
never back up, and neither of the top two imports the other."""
BUILDER_FLOORS = {"sizing": 1, "dynamo": 1, "estimates": 1, "commands": 2, "deployment": 3,
                  "performance": 3, "views": 4, "diff": 5}
"""The builder's sub-packages, floor by floor: each imports only from floors below it. The
shared top-level modules (`errors`, `types`, ...) are floor 0; `builder/__init__.py` and
`bridge.py`, which expose it all, are above every sub-package."""
TOP_FLOOR = max(BUILDER_FLOORS.values()) + 1
REGISTRY = ROOT / "builder" / "commands" / "deploy_types.py"
TOP_MODULE_LINES = 300
CLASS_LINES = 200
OUTSIDE = ("vllm_recipes", "vllm_recipes_cli", "site_plugins", "benchmarks")
"""Code outside the builder that must use its public names only (tests may reach inside)."""


def _sources(*tops: str) -> Iterator[Path]:
    for top in tops:
        yield from sorted(p for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _runtime_imports(path: Path, *, typing: bool = False
                     ) -> Iterator[tuple[ast.ImportFrom | ast.Import, str]]:
    """(node, absolute module) of each import that runs when the module is imported (inside
    functions too; `if TYPE_CHECKING:` blocks are not run, and count only with `typing`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if (not typing and isinstance(node, ast.If)
                and "TYPE_CHECKING" in ast.unparse(node.test)):
            skipped |= {id(child) for child in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            yield node, module
            for alias in node.names:  # `from . import x`, `from pkg import submodule`
                yield node, f"{module}.{alias.name}"


def _graph() -> dict[str, set[str]]:
    """Module → the modules of ours it imports at module level, in a function or for type
    checking only (a circle through type hints is still one for a reader)."""
    files = {_module_name(p): p for p in _sources(*PACKAGES)}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets = set()
        for _, module in _runtime_imports(path, typing=True):
            # the longest prefix that is one of our modules
            parts = module.split(".")
            for end in range(len(parts), 0, -1):
                candidate = ".".join(parts[:end])
                if candidate in files and candidate != name:
                    targets.add(candidate)
                    break
        graph[name] = targets
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle (a list of modules that ends where it starts), or None. A package's
    `__init__` importing its own modules is not a circle back to it."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if node.startswith(target + "."):
                continue  # a module importing its own package's __init__ (names it re-exports)
            if state.get(target) == 1:
                return [*stack[stack.index(target):], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def _floor(module: str) -> tuple[str, int]:
    """(unit, floor) of a builder module: its sub-package and that package's floor, the shared
    top-level modules (floor 0), or the builder's entry points (`builder`, `bridge`)."""
    parts = module.split(".")
    if module in ("builder", "builder.bridge"):
        return module, TOP_FLOOR
    if len(parts) > 2 or (len(parts) == 2 and parts[1] in BUILDER_FLOORS):
        return f"builder.{parts[1]}", BUILDER_FLOORS[parts[1]]
    return "builder (shared)", 0


def _upward(graph: dict[str, set[str]]) -> list[str]:
    """Imports between builder units that do not point to a lower floor."""
    wrong = []
    for module, targets in sorted(graph.items()):
        if module.split(".")[0] != "builder":
            continue
        unit, floor = _floor(module)
        for target in sorted(targets):
            to_unit, to_floor = _floor(target)
            if to_unit != unit and to_floor >= floor and target.split(".")[0] == "builder":
                wrong.append(f"{module} (floor {floor}) imports {target} (floor {to_floor})")
    return wrong


def test_no_import_circles() -> None:
    """No circle among our modules, and no builder sub-package imports one on its own floor or
    above (`BUILDER_FLOORS`)."""
    graph = _graph()
    assert _cycle(graph) is None
    assert _upward(graph) == []


def test_every_builder_package_has_a_floor() -> None:
    assert {p.parent.name for p in (ROOT / "builder").glob("*/__init__.py")} == set(
        BUILDER_FLOORS)


def test_the_circle_finder_finds_a_circle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_floor_rule_finds_an_arrow_back_up() -> None:
    # the arrow issue 37 removed: a view taking the diff's shapes from builder.diff
    assert _upward({"builder.views.diff": {"builder.diff.command_diff", "builder.errors"}}) == [
        "builder.views.diff (floor 4) imports builder.diff.command_diff (floor 5)"]
    assert _upward({"builder.sizing.fit": {"builder.dynamo.targets"}}) != []  # same floor
    assert _upward({"builder.diff.compare": {"builder.views.widget", "builder.errors"},
                    "builder.bridge": {"builder.diff.compare"}}) == []


def _layer_problems(imports: list[tuple[str, str]]) -> list[str]:
    """(importing module, imported module) pairs that break `LAYERS`."""
    wrong = []
    for importer, module in imports:
        top, first = importer.split(".")[0], module.split(".")[0]
        if first in PACKAGES and first != top and first not in LAYERS[top]:
            wrong.append(f"{importer} imports {module}")
    return wrong


def test_layers_point_one_way() -> None:
    imports = [(_module_name(path), module) for top in LAYERS for path in _sources(top)
               for _, module in _runtime_imports(path)]
    assert _layer_problems(imports) == []


def test_the_layer_rule_refuses_the_tool_below_the_site_and_the_data() -> None:
    assert _layer_problems([
        ("site_plugins.recipes.api", "vllm_recipes_cli.cli"),
        ("vllm_recipes.loader", "vllm_recipes_cli.cli_common"),
        ("builder.commands.build", "vllm_recipes.schema"),
        ("vllm_recipes_cli.cli", "vllm_recipes.loader"),
        ("site_plugins.recipes.api", "vllm_recipes.loader"),
    ]) == ["site_plugins.recipes.api imports vllm_recipes_cli.cli",
           "vllm_recipes.loader imports vllm_recipes_cli.cli_common",
           "builder.commands.build imports vllm_recipes.schema"]


def test_each_package_says_what_it_owns_and_may_import() -> None:
    """The packages outside the builder: each docstring names what it may import."""
    for package in ("vllm_recipes", "vllm_recipes_cli", "site_plugins"):
        doc = ast.get_docstring(ast.parse((ROOT / package / "__init__.py").read_text()))
        assert doc and "May import" in doc, package


DEPLOY_SWITCH = re.compile(r"""deploy_type["']?\]?\s*(==|!=|\bin\b|\bnot in\b)""")


def test_the_deploy_type_is_asked_through_its_registry_only() -> None:
    """Every fact about a deploy type is a field or method of its `DEPLOY_TYPES` entry."""
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for path in _sources(*PACKAGES) if path != REGISTRY
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if DEPLOY_SWITCH.search(line)]
    assert found == []


@pytest.mark.parametrize("line", ['strategy["deploy_type"] == "omni"', "s.deploy_type != 'x'",
                                  'if deploy_type in ("a", "b")'])
def test_the_switch_pattern_catches_each_spelling(line: str) -> None:
    assert DEPLOY_SWITCH.search(line)


def test_builder_top_level_modules_are_short() -> None:
    long = {p.name: n for p in (ROOT / "builder").glob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > TOP_MODULE_LINES}
    assert long == {}


def test_no_class_is_long() -> None:
    long = {}
    for path in _sources(*PACKAGES):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > CLASS_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    assert long == {}


PYTHON_LINE = re.compile(r"^\s*(def \w+\(.*\):|from [\w.]+ import \w|import [\w.]+$)")


def test_no_python_source_in_javascript() -> None:
    """The page's Python is `.py` files the worker loads (linted and tested as Python)."""
    found = [f"{path.relative_to(ROOT)}:{number}"
             for path in sorted((ROOT / "docs").rglob("*.js"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if PYTHON_LINE.match(line)]
    assert found == []


def _public(module: str, name: str | None) -> bool:
    parts = module.split(".") + ([name] if name else [])
    return not any(part.startswith("_") for part in parts[1:])


def test_code_outside_the_builder_uses_public_names_only() -> None:
    """pydantic's rule: what starts with `_` (a module or a name) is the builder's own."""
    private = []
    for path in _sources(*OUTSIDE):
        for node, module in _runtime_imports(path):
            if not module.startswith("builder"):
                continue
            names = [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else [None]
            base = module if isinstance(node, ast.Import) else ".".join(
                module.split(".")[:-1]) if module.rsplit(".", 1)[-1] in names else module
            for name in names:
                if not _public(base, name):
                    private.append(f"{path.relative_to(ROOT)}: {base} {name or ''}".strip())
    assert sorted(set(private)) == []


def test_the_public_name_rule_refuses_private_names() -> None:
    assert not _public("builder.commands.selection", "_Resolver")
    assert not _public("builder._internal.x", None)
    assert _public("builder.commands", "build")


def test_builder_packages_say_what_they_own() -> None:
    missing = [str(p.relative_to(ROOT)) for p in (ROOT / "builder").rglob("__init__.py")
               if not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))]
    assert missing == []


def test_the_package_map_names_every_builder_package() -> None:
    """CONTRIBUTING's package map and the builder's packages are the same list."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## How the code is laid out", 1)[1].split("\n## ", 1)[0]
    mapped = set(re.findall(r"^\| `builder/(\w+)/` \|", section, flags=re.M))
    packages = {p.parent.name for p in (ROOT / "builder").glob("*/__init__.py")}
    assert mapped == packages
    shared = re.search(r"^\| `builder/` \(top level\) \|(.*)\|$", section, flags=re.M)
    assert shared is not None
    named = set(re.findall(r"`(\w+)(?:\.py)?`", shared.group(1)))
    assert named == {p.stem for p in (ROOT / "builder").glob("*.py")} - {"__init__"}
