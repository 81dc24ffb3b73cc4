"""Hostile files in a recipe tree (issue 24, points 1, 5 and 8): YAML bombs, devices, FIFOs,
directories, other encodings, deep nesting, `.yml` names. Each is refused by `vllm-recipes
check` (and every other reader of the tree) with one `file[:line]: message` line and exit 1,
quickly and within a small memory budget: never a traceback, a hang or a memory blow-up."""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import resource
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from tests.recipes_data import RECIPES, ROOT
from vllm_recipes.errors import InvalidRecipe
from vllm_recipes_cli.cli import main

MODEL = "Qwen/Qwen3-8B"
MAX_DEPTH = 64
"""The nesting limit of recipe files (vllm_recipes.yaml_source.MAX_DEPTH)."""
TIMEOUT_S = 20
MEMORY_BYTES = 1 << 30
"""Address space the command line gets here: ample for any real tree (it uses ~150 MB)."""


def bomb() -> str:
    """Ten levels of nested anchors: ~400 bytes that expand to 9**10 strings."""
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for previous, name in itertools.pairwise("abcdefghij"):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def tree(tmp_path: Path) -> Path:
    """A small real tree: the hardware catalog, the strategies and one recipe."""
    root = tmp_path / "recipes"
    for part in ("hardware.yaml", "strategies", f"models/{MODEL}.yaml", f"models/{MODEL}.md"):
        source, target = RECIPES / part, root / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)
    guide = root / "models" / f"{MODEL}.yaml"  # the recipes it names are not in this tree
    guide.write_text(guide.read_text(encoding="utf-8").replace(
        "  related_recipes: [Qwen/Qwen3-4B, Qwen/Qwen3-32B]\n", ""), encoding="utf-8")
    return root


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line in a child with a memory cap and a time limit (a hang fails)."""
    env = {**os.environ, "VLLM_RECIPES_CACHE": "off"}
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
                          preexec_fn=_limits)


def in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line in this process (for input that cannot hang or exhaust it)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except Exception:  # a traceback, as the command line would print it
            traceback.print_exc()
            code = 1
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def one_problem(run: subprocess.CompletedProcess[str], expected: str) -> None:
    """Exit 1, no traceback, and exactly one problem line: `expected`."""
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    assert run.returncode == 1, (run.returncode, run.stdout[-500:], run.stderr[-500:])
    lines = [line for line in (run.stdout + run.stderr).splitlines()
             if line and line != "1 problem"]
    assert lines == [expected], lines


BOMB_AT = ("column 4: more than 100,000 values, counting each alias (*name) as a copy of its "
           "anchor; write the values out")


@pytest.mark.parametrize("where", [
    f"models/{MODEL}.yaml", "hardware.yaml", "strategies/single_node_tp.yaml",
])
def test_an_alias_bomb_is_refused_by_check(tmp_path: Path, where: str) -> None:
    root = tree(tmp_path)
    (root / where).write_text(bomb(), encoding="utf-8")
    one_problem(cli("check", str(root)), f"recipes/{where}:6: {BOMB_AT}")


def test_an_alias_bomb_is_refused_in_deployments_and_configurations(tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / "deployments" / "Qwen").mkdir(parents=True)
    (root / "deployments" / f"{MODEL}.yaml").write_text(bomb(), encoding="utf-8")
    one_problem(cli("check", str(root)), f"recipes/deployments/{MODEL}.yaml:6: {BOMB_AT}")
    (root / "deployments" / f"{MODEL}.yaml").unlink()
    (root / "configurations").mkdir()
    (root / "configurations" / "x.yaml").write_text(bomb(), encoding="utf-8")
    one_problem(cli("check", str(root)), f"recipes/configurations/x.yaml:6: {BOMB_AT}")


def test_an_alias_bomb_is_refused_by_list_and_by_the_model_id(tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / "models" / "Qwen" / "Bomb.yaml").write_text(bomb(), encoding="utf-8")
    one_problem(cli("--list", "--recipes", str(root)), f"recipes/models/Qwen/Bomb.yaml:6: "
                                                       f"{BOMB_AT}")
    run = cli("Qwen/Bomb", "--recipes", str(root))
    one_problem(run, f"recipes/models/Qwen/Bomb.yaml:6: {BOMB_AT}")


def test_a_symlink_to_a_device_and_a_fifo_are_not_read(tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / "models" / "Qwen" / "Zero.yaml").symlink_to("/dev/zero")
    one_problem(cli("check", str(root)), "recipes/models/Qwen/Zero.yaml: not a regular file "
                                         "(a device, FIFO or socket); recipe files are plain "
                                         "files")
    (root / "models" / "Qwen" / "Zero.yaml").unlink()
    os.mkfifo(root / "models" / "Qwen" / "Pipe.yaml")
    one_problem(cli("check", str(root)), "recipes/models/Qwen/Pipe.yaml: not a regular file "
                                         "(a device, FIFO or socket); recipe files are plain "
                                         "files")
    # The guide beside a recipe is read the same way.
    (root / "models" / "Qwen" / "Pipe.yaml").unlink()
    (root / "models" / f"{MODEL}.md").unlink()
    os.mkfifo(root / "models" / f"{MODEL}.md")
    one_problem(cli("check", str(root)), f"recipes/models/{MODEL}.md: not a regular file "
                                         "(a device, FIFO or socket); recipe files are plain "
                                         "files")


def test_a_huge_file_is_not_read_whole(tmp_path: Path) -> None:
    root = tree(tmp_path)
    with (root / "models" / "Qwen" / "Huge.yaml").open("wb") as handle:
        handle.truncate(4 << 30)  # 4 GB, sparse
    one_problem(cli("check", str(root)), "recipes/models/Qwen/Huge.yaml: 4,294,967,296 bytes, "
                                         "more than the 1,048,576 a file may have")


@pytest.mark.parametrize(("content", "expected"), [
    ("meta:\n  title: Caf\u00e9\n".encode("latin-1"),
     "recipes/models/Qwen/Bad.yaml:2: not UTF-8 text (byte 0xe9); save it as UTF-8"),
    ("meta: {title: x}\n".encode("utf-16"),
     "recipes/models/Qwen/Bad.yaml:1: not UTF-8 text (byte 0xff) (it looks like UTF-16); "
     "save it as UTF-8"),
    (b"meta:\n  title: \x00\x01\x02\n",
     "recipes/models/Qwen/Bad.yaml:2: character '\\x00' is not allowed in YAML (a binary "
     "file?)"),
    (b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n",
     f"recipes/models/Qwen/Bad.yaml:1: column {MAX_DEPTH + 3}: nested deeper than "
     f"{MAX_DEPTH} levels"),
    (b"a:\n" + b"".join(b"  " * i + b"- \n" for i in range(1, 200)),
     f"recipes/models/Qwen/Bad.yaml:{MAX_DEPTH + 1}: column {2 * MAX_DEPTH + 1}: nested "
     f"deeper than {MAX_DEPTH} levels"),
    (b"? [a, b]\n: c\n", "recipes/models/Qwen/Bad.yaml:1: column 3: a key must be a plain "
                         "value, not list"),
])
def test_bad_bytes_are_one_line(tmp_path: Path, content: bytes, expected: str) -> None:
    root = tree(tmp_path)
    (root / "models" / "Qwen" / "Bad.yaml").write_bytes(content)
    one_problem(in_process("check", str(root)), expected)


def test_a_directory_named_like_a_recipe(tmp_path: Path) -> None:
    root = tree(tmp_path)
    (root / "models" / "Qwen" / "Dir.yaml").mkdir()
    one_problem(in_process("check", str(root)),
                "recipes/models/Qwen/Dir.yaml: is a directory, not a file")


@pytest.mark.parametrize(("name", "expected"), [
    ("models/Qwen/Other.yml", "recipes/models/Qwen/Other.yml: a .yml file is not read; name it "
                              "Other.yaml"),
    ("strategies/extra.yml", "recipes/strategies/extra.yml: a .yml file is not read; name it "
                             "extra.yaml"),
    ("models/Loose.yaml", "recipes/models/Loose.yaml: a recipe is models/<org>/<repo>.yaml; "
                          "move it into its organisation's folder"),
])
def test_files_the_tree_would_skip_are_named(tmp_path: Path, name: str, expected: str) -> None:
    root = tree(tmp_path)
    (root / name).write_text("meta: {}\n", encoding="utf-8")
    one_problem(in_process("check", str(root)), expected)


def test_load_text_bounds_other_yaml() -> None:
    from vllm_recipes.yaml_source import load_text

    with pytest.raises(InvalidRecipe, match=r"^public:6: column 4: more than 100,000 values"):
        load_text(bomb(), "public")
    assert load_text("a: &x [1, 2]\nb: *x\n", "public") == {"a": [1, 2], "b": [1, 2]}
