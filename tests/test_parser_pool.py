"""The parser processes every `vllm_parser` test shares (tests/vllm_parser/envs.py): a missing or
broken parser environment fails the tests that ask for it, saying what to do or what the
process said, and only the first one waits for it; never a skip."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import LONG_FIRST
from tests.recipes_data import ROOT
from tests.vllm_parser.envs import PYTHONS, Parsers


def test_a_missing_environment_fails_every_test_that_asks_at_once(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(PYTHONS, "vllm", str(tmp_path / "bin" / "python"))
    parsers = Parsers()
    with pytest.raises(pytest.fail.Exception, match=r"no parser environment at .*make parser-envs"):
        parsers("vllm")
    with pytest.raises(pytest.fail.Exception, match=r"did not start: no parser environment"):
        parsers("vllm")
    assert parsers.started == {}
    parsers.close()


def test_a_broken_environment_fails_with_what_its_process_said(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(PYTHONS, "vllm", sys.executable)  # the project's venv: no vLLM in it
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path))  # its bytecode: not in that venv
    parsers = Parsers()
    with pytest.raises(pytest.fail.Exception,
                       match=r"(?s)the vllm parser process .* ended \(exit 1\):.*"
                             r"No module named 'vllm'"):
        parsers("vllm")
    with pytest.raises(pytest.fail.Exception, match=r"did not start"):
        parsers("vllm")
    assert parsers.started == {}


GROUPED = '''
import os
from pathlib import Path

import pytest


@pytest.mark.vllm_parser
@pytest.mark.parametrize("i", range(8))
def test_parser(i):
    Path(os.environ["WORKERS"], f"parser-{i}").write_text(os.environ["PYTEST_XDIST_WORKER"])


@pytest.mark.parametrize("i", range(8))
def test_other(i):
    Path(os.environ["WORKERS"], f"other-{i}").write_text(os.environ["PYTEST_XDIST_WORKER"])
'''


def test_every_parser_test_runs_on_one_xdist_worker(tmp_path: Path) -> None:
    """`make test`'s `pytest -n auto` (with pyproject.toml's `--dist loadgroup`) runs every
    `vllm_parser` test on one worker, so each parser process starts once per run; the other
    tests still go to every worker."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = options["tool"]["pytest"]["ini_options"]["addopts"].split()
    assert addopts[addopts.index("--dist") + 1] == "loadgroup"
    (tmp_path / "conftest.py").write_text(
        "from tests.conftest import pytest_collection_modifyitems  # noqa: F401\n",
        encoding="utf-8")
    (tmp_path / "test_grouped.py").write_text(GROUPED, encoding="utf-8")
    workers = tmp_path / "workers"
    workers.mkdir()
    # (the plugins these 16 tests do not use are left out: three pytest processes start)
    unused = ("cacheprovider", "playwright", "hypothesispytest", "platformdirs")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir",
         str(tmp_path), *(f"-pno:{name}" for name in unused), "-q", "-n", "2", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=300,
        env={**os.environ, "WORKERS": str(workers), "PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stdout + run.stderr
    ran = {path.name: path.read_text(encoding="utf-8") for path in workers.iterdir()}
    assert len(ran) == 16
    assert len({ran[f"parser-{i}"] for i in range(8)}) == 1, ran
    assert set(ran.values()) == {"gw0", "gw1"}, ran


def test_every_test_named_to_run_first_exists() -> None:
    """conftest.LONG_FIRST names files and test functions; a renamed one would silently lose
    its place at the front."""
    for entry in LONG_FIRST:
        path, _, name = entry.partition("::")
        source = ROOT / path
        assert source.is_file(), entry
        assert not name or f"def {name}" in source.read_text(encoding="utf-8"), entry
