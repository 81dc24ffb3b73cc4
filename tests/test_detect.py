"""Issue 27.2: `vllm-recipes --detect` picks `hardware=` from what the machine's tools report
(fakes on PATH printing recorded outputs: tests/fixtures/detect/), by the `detect` patterns of
recipes/hardware.yaml; what it cannot match is one line and exit 2."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.recipes_data import ROOT, builder_catalog

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "detect"
ARGS = {
    "nvidia-smi": ["--query-gpu=name,memory.total", "--format=csv,noheader"],
    "amd-smi": ["static", "--asic", "--vram", "--json"],
    "rocm-smi": ["--showproductname", "--json"],
    "npu-smi": ["info"],
    "lscpu": [],
}
QWEN = "Qwen/Qwen3-8B"


def fake_tools(bin_dir: Path, outputs: dict[str, str]) -> None:
    """One executable per tool that prints its recorded output, and fails (as a broken tool
    would) when called with other arguments than `--detect` uses."""
    bin_dir.mkdir(exist_ok=True)
    for tool, fixture in outputs.items():
        script = bin_dir / tool
        script.write_text(
            f"#!{sys.executable}\nimport sys\n"
            f"if sys.argv[1:] != {ARGS[tool]!r}:\n"
            "    sys.exit(f'unexpected arguments {sys.argv[1:]}')\n"
            f"sys.stdout.write(open({str(FIXTURES / fixture)!r}).read())\n")
        script.chmod(0o755)


def run(tmp_path: Path, outputs: dict[str, str], *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    fake_tools(tmp_path / "bin", outputs)
    base = {k: v for k, v in os.environ.items() if not k.startswith("TPU_")}
    return subprocess.run(
        [sys.executable, "-m", "vllm_recipes_cli", *args], cwd=ROOT, capture_output=True, text=True,
        check=False, env={**base, "PATH": str(tmp_path / "bin"), **(env or {})})


@pytest.mark.parametrize(("outputs", "env", "hardware", "found"), [
    ({"nvidia-smi": "nvidia-smi-8x-h200.txt"}, {}, "h200",
     "8× NVIDIA H200, 143771 MiB each (nvidia-smi)"),
    ({"nvidia-smi": "nvidia-smi-4x-gb200.txt"}, {}, "gb200",
     "4× NVIDIA GB200, 189471 MiB each (nvidia-smi)"),
    ({"nvidia-smi": "nvidia-smi-1x-gb300.txt"}, {}, "dgx_station_gb300",
     "1× NVIDIA GB300, 258048 MiB (nvidia-smi)"),
    # Two RTX 5090s were `rtx_5090_2x`, now an alias of the GPU and its count.
    ({"nvidia-smi": "nvidia-smi-2x-rtx-5090.txt"}, {}, "rtx_5090 gpus=2",
     "2× NVIDIA GeForce RTX 5090, 32607 MiB each (nvidia-smi)"),
    ({"amd-smi": "amd-smi-8x-mi300x.json"}, {}, "mi300x",
     "8× AMD Instinct MI300X, 196592 MB each (amd-smi)"),
    ({"amd-smi": "amd-smi-8x-mi355x-list.json"}, {}, "mi355x",
     "8× AMD Instinct MI355X, 294896 MB each (amd-smi)"),
    ({"rocm-smi": "rocm-smi-8x-mi325x.json"}, {}, "mi325x",
     "8× AMD Instinct MI325X (rocm-smi)"),
    ({"npu-smi": "npu-smi-atlas-800-a3.txt"}, {}, "ascend_910c", "16× Ascend910 (npu-smi)"),
    ({}, {"TPU_ACCELERATOR_TYPE": "v6e-8"}, "trillium", "8× v6e-8 ($TPU_ACCELERATOR_TYPE)"),
    ({"lscpu": "lscpu-xeon6.txt"}, {}, "xeon6",
     "Intel(R) Xeon(R) 6767P with 4 NUMA nodes (lscpu)"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_a_machine_gives_its_hardware_id(tmp_path: Path, outputs: dict[str, str],
                                         env: dict[str, str], hardware: str, found: str) -> None:
    alone = run(tmp_path, outputs, "--detect", env=env)
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout == f"hardware={hardware}\n"
    assert alone.stderr == f"vllm-recipes: --detect: found {found}: hardware={hardware}\n"


def test_8x_h200_answers_the_query_for_h200(tmp_path: Path) -> None:
    """The issue's example: the query with --detect is the query with hardware=h200."""
    detected = run(tmp_path, {"nvidia-smi": "nvidia-smi-8x-h200.txt"}, QWEN, "--detect",
                   "--json")
    assert detected.returncode == 0, detected.stderr
    given = run(tmp_path, {}, QWEN, "hardware=h200", "--json")
    assert json.loads(detected.stdout) == json.loads(given.stdout)
    assert json.loads(detected.stdout)["recommended_command"]["selection"]["hardware"] == "h200"


def test_1x_rtx_4090_is_the_single_rtx_4090(tmp_path: Path) -> None:
    """One RTX 4090 is the catalogue's single RTX 4090 (issue 33), whose fit caps the context."""
    out = run(tmp_path, {"nvidia-smi": "nvidia-smi-1x-rtx-4090.txt"}, QWEN, "--detect")
    assert out.returncode == 0, out.stderr
    assert "--tensor-parallel-size 1" in out.stdout and "--max-model-len" in out.stdout
    assert out.stderr.startswith(
        "vllm-recipes: --detect: found 1× NVIDIA GeForce RTX 4090, 24564 MiB (nvidia-smi): "
        "hardware=rtx_4090\n")


def test_half_a_node_is_the_node_with_the_gpus_found(tmp_path: Path) -> None:
    out = run(tmp_path, {"nvidia-smi": "nvidia-smi-4x-h100.txt"}, "--detect")
    assert out.returncode == 0 and out.stdout == "hardware=h100 gpus=4\n"
    assert out.stderr == (
        "vllm-recipes: --detect: found 4× NVIDIA H100 80GB HBM3, 81559 MiB each (nvidia-smi): "
        "hardware=h100 gpus=4\n")


def test_one_h100_never_gets_a_command_for_more(tmp_path: Path) -> None:
    """Issue 33: `--detect` with one H100 sizes for one GPU: a model that fits gets TP 1,
    one that does not exits 2 with the memory numbers and the smallest count that fits."""
    small = run(tmp_path, {"nvidia-smi": "nvidia-smi-1x-h100.txt"}, QWEN, "--detect")
    assert small.returncode == 0, small.stderr
    assert "--tensor-parallel-size 1" in small.stdout
    assert "--data-parallel-size" not in small.stdout
    big = run(tmp_path, {"nvidia-smi": "nvidia-smi-1x-h100.txt"},
              "meta-llama/Llama-3.1-70B-Instruct", "--detect")
    assert big.returncode == 2 and big.stdout == ""
    error = big.stderr.splitlines()[-1]
    assert "does not fit 1× H100" in error and "141.2 GB" in error and "gpus=4" in error


@pytest.mark.parametrize(("outputs", "first_words"), [
    ({"nvidia-smi": "nvidia-smi-mixed.txt"},
     "vllm-recipes: --detect: found 1× NVIDIA H200, 1× NVIDIA H100 80GB HBM3 (nvidia-smi): "
     "mixed accelerators"),
    ({"npu-smi": "npu-smi-8x-910b3.txt"},
     "vllm-recipes: --detect: found 8× 910B3 (npu-smi), which no hardware= is; pick one of"),
    ({"lscpu": "lscpu-epyc.txt"},
     "vllm-recipes: --detect: found AMD EPYC 9654 96-Core Processor with 2 NUMA nodes "
     "(lscpu), which no hardware= is; pick one of"),
    ({}, "vllm-recipes: --detect: found no accelerator"),
])
def test_what_cannot_be_matched_is_one_line(tmp_path: Path, outputs: dict[str, str],
                                            first_words: str) -> None:
    out = run(tmp_path, outputs, "--detect")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(first_words), out.stderr
    assert out.stderr.count("\n") == 1


def test_amd_smi_first_rocm_smi_where_it_fails(tmp_path: Path) -> None:
    """A broken amd-smi (it fails on the arguments) falls back to rocm-smi."""
    fake_tools(tmp_path / "bin", {"rocm-smi": "rocm-smi-8x-mi325x.json"})
    broken = tmp_path / "bin" / "amd-smi"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    out = run(tmp_path, {}, "--detect")
    assert out.stdout == "hardware=mi325x\n"


def test_detect_and_hardware_do_not_mix(tmp_path: Path) -> None:
    out = run(tmp_path, {"nvidia-smi": "nvidia-smi-8x-h200.txt"}, QWEN, "--detect",
              "hardware=b200")
    assert out.returncode == 2
    assert out.stderr == ("vllm-recipes: --detect picks hardware= itself; drop hardware= or "
                          "--detect\n")


def test_every_detectable_name_matches_one_id_per_count() -> None:
    """No two hardware ids of a brand claim the same device name and count (the answer
    would depend on the catalogue's order)."""
    import re

    hardware = builder_catalog()["hardware"]
    names = {"NVIDIA H200": "h200", "NVIDIA H20": "h20", "NVIDIA H100 80GB HBM3": "h100",
             "NVIDIA A100-SXM4-80GB": "a100", "NVIDIA B200": "b200", "NVIDIA GB200": "gb200",
             "NVIDIA B300 SXM6 AC": "b300", "NVIDIA GB10": "dgx_spark_gb10",
             "NVIDIA RTX PRO 6000 Blackwell Server Edition": "rtx_pro_6000_8x",
             "NVIDIA RTX PRO 5000 Blackwell": "rtx_pro_5000", "AMD Instinct MI350X": "mi350x",
             "tpu7x-8": "ironwood", "INTEL(R) XEON(R) PLATINUM 8580": "xeon5"}
    for name, hw_id in names.items():
        hits = [(h, hw["gpu_count"]) for h, hw in hardware.items()
                if any(re.search(p, name, re.IGNORECASE) for p in hw.get("detect", ()))]
        assert hw_id in [h for h, _ in hits], (name, hits)
        counts = [count for _, count in hits]
        assert len(counts) == len(set(counts)), (name, hits)


def test_run_detect_is_run_with_the_detected_hardware(tmp_path: Path) -> None:
    detected = run(tmp_path, {"nvidia-smi": "nvidia-smi-8x-h200.txt"}, "run", QWEN, "--detect",
                   "--dry-run")
    given = run(tmp_path, {}, "run", QWEN, "hardware=h200", "--dry-run")
    assert detected.returncode == given.returncode == 0, detected.stderr
    assert detected.stdout == given.stdout
    assert detected.stderr == ("vllm-recipes: --detect: found 8× NVIDIA H200, 143771 MiB each "
                               "(nvidia-smi): hardware=h200\n")


# ------------------------------------------------------------------ hostile tools (issue 32.4)
# Each fake tool prints what no real one should; `--detect` answers with one line (a
# hardware= and what it found, or why none, exit 2), never a traceback, a control character,
# a hang or a memory blow-up.

def hostile_tool(bin_dir: Path, tool: str, output: bytes | str) -> None:
    """A `tool` on PATH that prints `output` (bytes as they are; a str is Python code that
    writes to `out`, the binary standard output)."""
    bin_dir.mkdir(exist_ok=True)
    body = (f"out.write({output!r})" if isinstance(output, bytes) else output)
    script = bin_dir / tool
    script.write_text(f"#!{sys.executable}\nimport sys\nout = sys.stdout.buffer\n{body}\n")
    script.chmod(0o755)


def detect_in_process(monkeypatch: pytest.MonkeyPatch, bin_dir: Path,
                      env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `vllm-recipes --detect` (cli._serve's lines), here:
    any exception but the usage error is a failure of the test."""
    from vllm_recipes_cli.cli_common import usage
    from vllm_recipes_cli.detect import detect
    from vllm_recipes_cli.errors import UsageError

    bin_dir.mkdir(exist_ok=True)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("TPU_ACCELERATOR_TYPE", raising=False)
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            found = detect(builder_catalog())
        except UsageError as error:
            return usage(str(error)), "", err.getvalue()
    return 0, f"hardware={found.hardware}\n", f"vllm-recipes: {found.line}\n"


DEEP = "out.write(b'[' * 200000 + b']' * 200000)"
HOSTILE_TOOLS = [
    # (tool, output, env, the start of the one line: stdout when it exits 0, else stderr)
    ("nvidia-smi", b"NVIDIA H200\xff, 143771 MiB\n" * 8, {}, "vllm-recipes: --detect: found "
     "8\u00d7 NVIDIA H200\ufffd, 143771 MiB each (nvidia-smi): hardware=h200\n"),
    ("nvidia-smi", b"\xff\xfe\n", {}, "vllm-recipes: --detect: found 1\u00d7 \ufffd\ufffd"),
    ("nvidia-smi", b"NVIDIA H200\x1b[31m\x1b]0;pwned\x07, 1 MiB\n", {},
     "vllm-recipes: --detect: found 1\u00d7 NVIDIA H200\\x1b[31m\\x1b]0;pwned\\x07, 1 MiB "
     "(nvidia-smi): hardware=h200 gpus=1\n"),
    ("amd-smi", b'[{"asic": "x"}]', {}, "vllm-recipes: --detect: found 1\u00d7  (amd-smi)"),
    ("amd-smi", b'[{"asic": {"market_name": "AMD Instinct MI300X"}, "vram": [1]}]', {},
     "vllm-recipes: --detect: found 1\u00d7 AMD Instinct MI300X (amd-smi): hardware=mi300x"),
    ("amd-smi", b'[{"asic": {"market_name": "AMD Instinct MI300X"}, "vram": {"size": 5}}]',
     {}, "vllm-recipes: --detect: found 1\u00d7 AMD Instinct MI300X (amd-smi): hardware=mi300x"),
    ("amd-smi", b'{"gpu_data": 5}', {}, "vllm-recipes: --detect: found no accelerator"),
    ("amd-smi", DEEP, {}, "vllm-recipes: --detect: found no accelerator"),
    ("rocm-smi", b"[1]", {}, "vllm-recipes: --detect: found no accelerator"),
    ("rocm-smi", b'{"card0": 5, "card1": {"Card series": ["a"]}}', {},
     "vllm-recipes: --detect: found 1\u00d7 ['a'] (rocm-smi), which no hardware= is"),
    ("npu-smi", b"| 0     910B3\x1b[2J\xff  | OK |\n", {},
     "vllm-recipes: --detect: found 1\u00d7 910B3\\x1b[2J\ufffd (npu-smi), which no"),
    ("lscpu", "Model name: Intel(R) Xeon(R) 6767P\nNUMA node(s): \u00b2\n".encode(), {},
     "vllm-recipes: --detect: lscpu reports '\u00b2' NUMA nodes, not a count from 1 to 4096"),
    ("lscpu", b"Model name: Intel(R) Xeon(R) 6767P\nNUMA node(s): 0\n", {},
     "vllm-recipes: --detect: lscpu reports '0' NUMA nodes, not a count from 1 to 4096"),
    ("lscpu", b"Model name: Intel(R) Xeon(R) 6767P\nNUMA node(s): 999999999999\n", {},
     "vllm-recipes: --detect: lscpu reports '999999999999' NUMA nodes, not a count"),
    (None, b"", {"TPU_ACCELERATOR_TYPE": "v6e-0"},
     "vllm-recipes: --detect: $TPU_ACCELERATOR_TYPE reports '0' chips, not a count from 1"),
    (None, b"", {"TPU_ACCELERATOR_TYPE": "v6e-99999999999"},
     "vllm-recipes: --detect: $TPU_ACCELERATOR_TYPE reports '99999999999' chips, not a"),
    (None, b"", {"TPU_ACCELERATOR_TYPE": "v6e-\u0668"},
     "vllm-recipes: --detect: $TPU_ACCELERATOR_TYPE reports '\u0668' chips, not a count"),
    ("nvidia-smi", "out.write(b''.join(b'NVIDIA H200 %d, 1 MiB\\n' % i for i in range(100000)))",
     {}, "vllm-recipes: --detect: nvidia-smi reports 100000 devices, more than 4096"),
    ("nvidia-smi", "out.write(b''.join(b'NVIDIA H200 %d, 1 MiB\\n' % i for i in range(4096)))",
     {}, "vllm-recipes: --detect: found 1\u00d7 NVIDIA H200 0, 1\u00d7 NVIDIA H200 1, 1\u00d7"),
    ("nvidia-smi", "while True:\n    out.write(b'NVIDIA H200, 1 MiB\\n' * 50000)", {},
     "vllm-recipes: --detect: nvidia-smi printed more than 8 MiB; pick hardware= yourself"),
]


@pytest.mark.parametrize(("tool", "output", "env", "first"), HOSTILE_TOOLS,
                         ids=[f"{t}-{i}" for i, (t, *_) in enumerate(HOSTILE_TOOLS)])
def test_a_hostile_tool_gets_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      tool: str | None, output: bytes | str,
                                      env: dict[str, str], first: str) -> None:
    import time

    if tool is not None:
        hostile_tool(tmp_path / "bin", tool, output)
    began = time.monotonic()
    code, out, err = detect_in_process(monkeypatch, tmp_path / "bin", env)
    assert time.monotonic() - began < 10
    assert "Traceback" not in err, err[-3000:]
    assert (code, out) == (2, "") or (code == 0 and out.startswith("hardware=")
                                      and out.count("\n") == 1), (code, out[:300], err[:300])
    assert err.count("\n") == 1 and err.isprintable() is False and err[:-1].isprintable(), err
    assert len(err) <= 501
    assert err.startswith(first), err[:300]


def test_the_memory_found_picks_among_ids_of_one_name(tmp_path: Path) -> None:
    """An A100 of 40 GB is the A100 40GB, not the (80 GB) A100 its name also matches."""
    out = run(tmp_path, {"nvidia-smi": "nvidia-smi-8x-a100-40gb.txt"}, "--detect")
    assert out.returncode == 0 and out.stdout == "hardware=a100_40gb\n"


def test_two_single_cards_are_gpus_2_of_the_card(tmp_path: Path) -> None:
    out = run(tmp_path, {"nvidia-smi": "nvidia-smi-2x-l40s.txt"}, "--detect")
    assert out.returncode == 0 and out.stdout == "hardware=l40s gpus=2\n"
