"""builder/ is pure standard library (it runs under Pyodide, which ships no packages)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

BUILDER = Path(__file__).resolve().parent.parent / "builder"


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_builder_imports_only_the_standard_library() -> None:
    files = list(BUILDER.rglob("*.py"))
    assert len(files) >= 5
    offenders = {
        p.name: sorted(_imports(p) - set(sys.stdlib_module_names) - {"__future__"})
        for p in files
    }
    assert {name: bad for name, bad in offenders.items() if bad} == {}


def test_builder_core_does_no_io() -> None:
    forbidden = {"open", "print", "input", "exec", "eval"}
    risky_modules = {"os", "sys", "pathlib", "subprocess", "socket", "urllib", "io", "shutil"}
    for path in BUILDER.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not (_imports(path) & risky_modules), path.name
        calls = {
            node.func.id for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        assert not (calls & forbidden), (path.name, calls & forbidden)

