"""Shell text, made only at the edge: argv in, copy-pasteable text out.

`shlex.split(text)` gives back the argv exactly. Values that are pure references to shell
variables (`$HEAD_IP`, `x:$LD_PRELOAD`) are double-quoted so the shell expands them; a leading
`~/` stays bare so it expands to the home directory; JSON and anything else with shell
metacharacters is single-quoted.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence

from .arglist import split_options

__all__ = ["command_text", "env_lines", "format_lines", "quote"]

_BARE = re.compile(r"^(?:[\w@%+=:,./-]+|~/[\w@%+=:,./-]*)$")
"""A word that goes on the command line as it is: only safe characters, or `~/` and safe
characters (the shell expands the home directory)."""
_EXPANDABLE = re.compile(r"^(?:[\w@%+=:,./-]|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)+$")

INDENT = "  "


def quote(token: str) -> str:
    if _BARE.match(token):
        return token
    if "$" in token and _EXPANDABLE.match(token):
        return f'"{token}"'
    return shlex.quote(token)


def format_lines(lines: Sequence[Sequence[str]]) -> str:
    """Words grouped in lines, joined with backslash continuations; the first line unindented."""
    text = [" ".join([quote(t) for t in line]) for line in lines if line]
    return (" \\\n" + INDENT).join(text)


def command_text(argv: Sequence[str], head_len: int) -> str:
    """`argv` with the first `head_len` words on the first line, one option per line after."""
    return format_lines([argv[:head_len], *split_options(argv[head_len:])])


def env_lines(env: Mapping[str, str]) -> str:
    """`export` lines for the environment of a command run outside Docker."""
    return "".join(f"export {name}={quote(value)}\n" for name, value in env.items())
