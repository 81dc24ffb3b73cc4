"""`vllm-recipes diff`: the issue's example, --json, stdin, and one-line refusals (exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from builder import build
from tests.recipes_data import ROOT, builder_catalog, builder_recipe

V41 = "deepseek-ai/DeepSeek-V4.1-Flash"
EXAMPLE = f"vllm serve {V41} --tensor-parallel-size 8"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", "diff", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False, input=stdin)


def test_the_issue_example_reports_tp_and_what_the_command_lacks() -> None:
    out = run(V41, "hardware=h200", "--command", EXAMPLE)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "  changed  --tensor-parallel-size: 4 → 8" in lines
    # Every engine flag of the builder's H200 command except TP is reported as missing.
    serve = build(builder_catalog(), builder_recipe(V41),
                  {"hardware": "h200", "variant": "fp8"})["commands"][0]
    flags = [t for t in serve["argv"][3:] if t.startswith("--")]
    assert "--tensor-parallel-size" in flags and len(flags) >= 5
    for flag in flags:
        if flag == "--tensor-parallel-size":
            continue
        assert any(line.startswith(f"  removed  {flag}") for line in lines), flag
    for name in serve["env"]:
        assert any(line.startswith(f"  removed  env {name}: ") for line in lines), name
    assert "Differences: 1 changed, 7 only in the recipe" in lines


def test_json_and_stdin_give_the_same_comparison() -> None:
    by_flag = run(V41, "hardware=h200", "--command", EXAMPLE, "--json")
    by_stdin = run(V41, "hardware=h200", "--command", "-", "--json", stdin=EXAMPLE + "\n")
    assert by_flag.returncode == by_stdin.returncode == 0
    data = json.loads(by_flag.stdout)
    assert data == json.loads(by_stdin.stdout)
    assert data["selection"]["hardware"] == "h200" and data["role"] == "serve"
    tp = next(f for f in data["diff"]["flags"] if f["key"] == "--tensor-parallel-size")
    assert (tp["status"], tp["recipe"], tp["command"]) == ("changed", "4", "8")
    assert data["diff"]["counts"]["removed"] == 7


@pytest.mark.parametrize(("args", "stdin", "error"), [
    ((V41, "--command", "sglang serve --model-path x"), None,
     "command: an SGLang command: only vLLM commands (`vllm serve MODEL ...`) can be compared"),
    ((V41, "--command", "echo hello"), None,
     "command: not a vllm serve command: no `vllm serve MODEL ...` (or docker run of it) "
     "found"),
    ((V41, "--command", "-"), "vllm serve m --x '{\n",
     "command: unbalanced quotes: a ' or \" is never closed"),
    ((V41, "--command", "-"), "vllm serve m " + "--x 1 " * 200_000,
     "command: the text is 65,537 characters long; paste one command of at most 65,536 "
     "characters"),
    ((V41, "hardware=h100", "--command", EXAMPLE), None,
     "hardware: this recipe is not offered on H100; it is offered on H200, B200, GB200, B300, "
     "GB300, DGX Station (GB300), MI300X, MI325X, MI350X, MI355X"),
    (("nobody/Nothing", "--command", EXAMPLE), None,
     "hf_id: unknown model 'nobody/Nothing'; see vllm-recipes --list"),
])
def test_refusals_are_one_line_and_exit_2(args: tuple[str, ...], stdin: str | None,
                                         error: str) -> None:
    out = run(*args, stdin=stdin)
    assert out.returncode == 2
    assert out.stdout == ""
    assert out.stderr == error + "\n"


def test_a_pasted_escape_is_shown_not_obeyed() -> None:
    """Issue 32.3: text of a pasted command reaches the terminal escaped."""
    out = run("Qwen/Qwen3-8B", "--command",
              "vllm serve Qwen/Qwen3-8B --served-model-name '\x1b[31mred\u202e'")
    assert out.returncode == 0, out.stderr
    assert "  added    --served-model-name: (not set) → \\x1b[31mred\\u202e" in \
        out.stdout.splitlines()
    assert all(line.isprintable() for line in out.stdout.splitlines())
