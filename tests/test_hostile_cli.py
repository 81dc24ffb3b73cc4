"""Bad command lines (issue 24, points 5 and 6): each gets exit 2 (usage) or 1 (problems in
the data) and one short line on standard error, never a traceback or a huge echo."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from tests.recipes_data import RECIPES, ROOT

MAX_ERROR_BYTES = 2048
"""The most an error output may print (the issue's bound)."""
MODEL = "Qwen/Qwen3-8B"
COMMAND = f"vllm serve {MODEL} --max-model-len 4096"


@contextlib.contextmanager
def _no_cache() -> object:
    before = os.environ.get("VLLM_RECIPES_CACHE")
    os.environ["VLLM_RECIPES_CACHE"] = "off"
    try:
        yield
    finally:
        if before is None:
            del os.environ["VLLM_RECIPES_CACHE"]
        else:
            os.environ["VLLM_RECIPES_CACHE"] = before


def cli(*args: str, stdin: str = "") -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of the command line, run in this process; an exception
    that escapes it is printed as the interpreter would (a traceback) with status 1."""
    from vllm_recipes_cli.cli import main

    out, err = io.StringIO(), io.StringIO()
    with (_no_cache(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err),
          contextlib.ExitStack() as stack):
        if stdin:
            stack.enter_context(_stdin(stdin))
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse
            code = exit_.code if isinstance(exit_.code, int) else 2
        except BaseException:
            traceback.print_exc()
            code = 1
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _stdin(text: str) -> object:
    before = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = before


def one_line(code: int, err: str, expected_code: int = 2) -> str:
    assert "Traceback" not in err, err[-3000:]
    assert code == expected_code, (code, err[:500])
    assert len(err.encode()) <= MAX_ERROR_BYTES, len(err)
    lines = err.splitlines()
    assert len(lines) == 1, lines[:5]
    return lines[0]


LONG = "x" * 100_000


@pytest.mark.parametrize(("args", "expected"), [
    (["a/" + "b" * 300], "vllm-recipes: hf_id: 'a/" + "b" * 57 + "…' is not a model id "
                         "(ORG/NAME, e.g. Qwen/Qwen3-8B); see vllm-recipes --list"),
    (["Qwen/Qwen3-8B\x00"], "vllm-recipes: hf_id: 'Qwen/Qwen3-8B\\x00' is not a model id "
                            "(ORG/NAME, e.g. Qwen/Qwen3-8B); see vllm-recipes --list"),
    ([MODEL, "--recipes", "/nonexistent"],
     "vllm-recipes: /nonexistent: not a recipe tree (no hardware.yaml)"),
    (["--list", "--recipes", "/nonexistent"],
     "vllm-recipes: /nonexistent: not a recipe tree (no hardware.yaml)"),
    ([MODEL, "--dynamo", "--recipes", "/nonexistent"],
     "vllm-recipes: /nonexistent: not a recipe tree (no hardware.yaml)"),
    (["diff", MODEL, "--command", COMMAND, "--recipes", "/nonexistent"],
     "vllm-recipes diff: /nonexistent: not a recipe tree (no hardware.yaml)"),
    (["diff", "qwen/qwen3-8b", "--command", COMMAND],
     "hf_id: unknown model 'qwen/qwen3-8b'; did you mean Qwen/Qwen3-8B?"),
    ([MODEL, f"hardware={LONG}"], "hardware: unknown value '" + "x" * 59 + "…'; valid values: "),
    ([MODEL, f"{LONG}=1"], "x" * 59 + "…: unknown key; valid keys: "),
    ([MODEL, LONG], "x" * 59 + "…: expected KEY=VALUE (for example hardware=h200)"),
    ([MODEL, f"variant={LONG}"], "variant: unknown value '" + "x" * 59 + "…'; valid values: "),
    # issue 32
    (["run"], "vllm-recipes: run: HF_ID is required (see vllm-recipes --list)"),
    (["run", "--dry-run"], "vllm-recipes: run: HF_ID is required (see vllm-recipes --list)"),
    (["verify", "a", "b"], "vllm-recipes verify: argument url: 'a' is not an http:// or "
                           "https:// URL (see vllm-recipes verify --help)"),
    (["verify", "http://127.0.0.1:9", "b"], "vllm-recipes verify: unrecognized arguments: b"),
    (["run", "../../../../x/recipe", "--dry-run"],
     "vllm-recipes: hf_id: '../../../../x/recipe' is not a model id (ORG/NAME"),
    (["diff", MODEL, "--command", f"vllm serve {MODEL} \u2014tensor-parallel-size 2"],
     "command: \u2014tensor-parallel-size starts with em dash (U+2014), not '-': type the "
     "option with ASCII hyphens ('--tensor-parallel-size')"),
    (["diff", MODEL, "--command", f"vllm serve {MODEL} --max-model-len 4096 \u2212\u2212x"],
     "command: \u2212\u2212x starts with minus sign (U+2212), not '-'"),
])
def test_bad_arguments_are_one_short_line(args: list[str], expected: str) -> None:
    code, _, err = cli(*args)
    assert one_line(code, err).startswith(expected)


def test_diff_with_thousands_of_nested_brackets_is_not_a_traceback() -> None:
    deep = "[" * 5000 + "]" * 5000
    code, out, err = cli("diff", MODEL, "--command", f"{COMMAND} --speculative-config '{deep}'")
    assert "Traceback" not in err, err[-3000:]
    assert code == 0 and not err, err[:500]
    assert "--speculative-config" in out
    dotted = "--compilation-config." + ".".join(["a"] * 5000) + "=1"
    code, out, err = cli("diff", MODEL, "--command", f"{COMMAND} {dotted}")
    assert "Traceback" not in err, err[-3000:]
    assert code in (0, 2) and len(err) <= MAX_ERROR_BYTES


def test_diff_on_an_ascii_terminal() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "vllm_recipes_cli", "diff", MODEL, "--command", COMMAND], cwd=ROOT,
        env={**os.environ, "PYTHONIOENCODING": "ascii", "VLLM_RECIPES_CACHE": "off"},
        capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "\\u2192" in run.stdout  # the arrow, spelled out


@pytest.mark.parametrize(("content", "expected"), [
    (None, "vllm-recipes port: {path}: no such file"),
    (b"", "vllm-recipes port: {path}: not a public-catalogue recipe (it needs `meta` and "
          "`model.model_id`)"),
    (b"\x7fELF\x02\x01\x01\x00\x00\x00\xb0\xff", "vllm-recipes port: {path}:1: not UTF-8 text "
                                                 "(byte 0xb0); save it as UTF-8"),
    (b"meta: [\n", "vllm-recipes port: {path}:2: column 1: expected the node content, but "
                   "found '<stream end>' (while parsing a flow node)"),
    (b"meta: {}\nmodel: {model_id: ../../../etc/x}\n",
     "vllm-recipes port: {path}: model.model_id '../../../etc/x' is not a Hugging Face id "
     "(ORG/NAME)"),
    (b"meta: {hardware: 3}\nmodel: {model_id: a/b}\n",
     "vllm-recipes port: {path}: not in the public catalogue's recipe format ("),
])
def test_port_refuses_bad_files(tmp_path: Path, content: bytes | None, expected: str) -> None:
    path = tmp_path / "public.yaml"
    if content is not None:
        path.write_bytes(content)
    tree = tmp_path / "tree"
    tree.mkdir()
    shutil.copy(RECIPES / "hardware.yaml", tree / "hardware.yaml")
    code, _, err = cli("port", str(path), "--recipes", str(tree))
    assert one_line(code, err).startswith(expected.format(path=path))
    assert not (tree / "models").exists()


def test_the_api_docs_say_argv_is_for_a_shell() -> None:
    """Issue 24.8: `docker_argv` holds `~/.cache/huggingface` (and multi-node argv `$HEAD_IP`),
    which only a shell expands: the API page says so, and how to run one without a shell."""
    import json

    code, out, _ = cli("deepseek-ai/DeepSeek-V4-Pro", "hardware=h100", "--json")
    assert code == 0
    words = [w for c in json.loads(out)["recommended_command"]["commands"]
             for w in [*c["argv"], *c["docker_argv"]]]
    assert any(w.startswith("~/") for w in words) and "$HEAD_IP" in words
    docs = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for said in ("`~/.cache/huggingface`", "`$HEAD_IP`", "os.path.expanduser",
                 "os.path.expandvars"):
        assert said in docs, said


def test_a_download_url_reaches_the_install_block_as_one_word() -> None:
    """Issue 32.3: a `files` URL with the shell characters a URL may hold (`$ & ( ) ;`) is
    one quoted word of its `curl` line; `check` refuses one that is no URL (tests/invalid/
    download_shell_text)."""
    import copy
    import shlex

    from builder import build
    from tests.recipes_data import builder_catalog, builder_recipe

    hf_id = "nvidia/NVIDIA-Nemotron-3-Nano-4B-BF16"
    recipe = copy.deepcopy(builder_recipe(hf_id))
    (name,) = recipe["files"]
    url = "https://example.org/p.py?a=1&b=$(touch${IFS}x);c=`id`"
    recipe["files"][name]["download"] = url
    steps = [s for method in ("pip", "docker") for s in
             build(builder_catalog(), recipe, {"reasoning": "on", "install": method}
                   )["install"][method]["dependencies"]
             if s["command"].startswith("curl ")]
    assert steps
    for step in steps:  # split as a shell splits: `;`, `&`, `(` end a word when not quoted
        words = list(shlex.shlex(step["command"], posix=True, punctuation_chars=True))
        assert words[-1] == url and len(words) == 4, step["command"]
