"""Where the tests find vLLM's own parsers (`make parser-envs`), and the one check_argv.py
process per parser environment that every test of a test process shares.

The Makefile exports both variables; without them, the checkout's parser venvs. A parser
process costs seconds of CPU to start (it imports vLLM, torch and transformers), so a test
never starts its own: it takes the session fixture `parser` (tests/conftest.py), which starts
each kind's process the first time a test asks for it and ends it when the session ends. Every
test marked `vllm_parser` runs on one pytest-xdist worker (tests/conftest.py puts them in one
`xdist_group`; `--dist loadgroup` in pyproject.toml), so one `make test` run starts each
kind's process once."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from builder.commands.needed_files import PATH_OPTIONS
from builder.vllm_release import OMNI_VERSION, VLLM_VERSION
from tests.sitebuild import ROOT

CHECKER = Path(__file__).with_name("check_argv.py")
PYTHONS = {
    "vllm": os.environ.get("VLLM_PARSER_PYTHON")
    or str(ROOT / ".parser-venv" / f"vllm-{VLLM_VERSION}" / "bin" / "python"),
    "omni": os.environ.get("VLLM_OMNI_PARSER_PYTHON")
    or str(ROOT / ".parser-venv" / f"vllm-omni-{OMNI_VERSION}" / "bin" / "python"),
}
"""kind ("vllm", "omni") → the python of its parser environment."""

BATCH = 400
"""Commands per request line."""

XDIST_GROUP = "vllm_parser"
"""The pytest-xdist group of every `vllm_parser` test: the worker that owns the processes."""


def parser_python(kind: str) -> str:
    """The python of a kind's parser environment; the test fails (never skips) without it."""
    python = PYTHONS[kind]
    if not Path(python).is_file():
        pytest.fail(f"no parser environment at {python}: run `make parser-envs` (make test "
                    "does); these tests never skip")
    return python


class Parser:
    """One check_argv.py process in a parser environment, fed requests line by line (the
    protocol is check_argv.py's docstring)."""

    def __init__(self, kind: str) -> None:
        python = parser_python(kind)
        self.kind = kind
        # what the process says, shown if it ends (closed by close())
        self.stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # noqa: SIM115
        self.process = subprocess.Popen(
            [python, "-W", "ignore", str(CHECKER), *(["--omni"] if kind == "omni" else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            text=True, cwd=ROOT)
        try:
            first = self._read()
            assert json.loads(first) == {"ready": True}, first
        except BaseException:
            self.close()
            raise

    def _read(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.stderr.seek(0)
            said = self.stderr.read()[-3000:]
            pytest.fail(f"the {self.kind} parser process ({PYTHONS[self.kind]} {CHECKER.name}) "
                        f"ended (exit {self.process.wait(timeout=60)}):\n{said}")
        return line

    def ask(self, request: dict[str, Any]) -> Any:
        """check_argv.py's answer to one request (a batch, `{"flags": true}`,
        `{"registries": true}`)."""
        assert self.process.stdin is not None
        if self.process.poll() is not None:
            self._read()  # fails with the exit code and what the process said
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return json.loads(self._read())

    def check(self, commands: list[dict[str, Any]]) -> list[str | None]:
        """vLLM's verdict on each command (None: accepted), every path option checked."""
        errors: list[str | None] = []
        for start in range(0, len(commands), BATCH):
            answers = self.ask({"path_flags": list(PATH_OPTIONS),
                                "commands": commands[start:start + BATCH]})
            errors += [answer["error"] for answer in answers]
        return errors

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        with contextlib.suppress(BrokenPipeError):  # (a process that died)
            self.process.stdin.close()  # check_argv.py ends at the end of its input
        try:
            self.process.wait(timeout=60)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self.process.stdout.close()
            self.stderr.close()


class Parsers:
    """The parser processes of one test process, by kind, each started on first use."""

    def __init__(self) -> None:
        self.started: dict[str, Parser] = {}
        self.failed: dict[str, str] = {}
        """kind → why its process did not start (every later test fails with it at once)."""

    def __call__(self, kind: str) -> Parser:
        if kind in self.failed:
            pytest.fail(self.failed[kind])
        if kind not in self.started:
            try:
                self.started[kind] = Parser(kind)
            except BaseException as error:
                self.failed[kind] = f"the {kind} parser did not start: {error}"
                raise
        return self.started[kind]

    def close(self) -> None:
        started, self.started = self.started, {}
        for parser in started.values():
            parser.close()
