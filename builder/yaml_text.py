"""A small YAML emitter for the files the builder writes (vLLM config, Compose, Kubernetes).

Block style for mappings and lists, flow style (`{}`, `[]`) only when empty. A string is written
plain when YAML 1.1 and 1.2 both read it back as that string (a word of safe characters that is
not a number, a boolean or null); a string of several lines that YAML can hold verbatim is a
literal block (`|-`); any other string is double-quoted with JSON's escapes, which are YAML's.
`dump` round-trips through any YAML loader: loading its text gives back the data. No
character that does not print is written raw (line separators, bidi and zero-width ones are
escaped in strings, and in comments).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .errors import printable

__all__ = ["comment_lines", "dump", "dump_all", "scalar"]

INDENT = "  "
_PLAIN = re.compile(r"^(?:[A-Za-z_/]|--?[A-Za-z])[A-Za-z0-9_./@+-]*\Z")
_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_./-]*\Z")
r"""(`\Z`, not `$`: `$` also matches before a final line break, and `A\n` is no plain word.)"""
_SPECIAL = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}
"""Words YAML 1.1 or 1.2 reads as booleans or null (compared case-folded)."""
_LITERAL_LINE = re.compile(r"^[\x20-\x7e]*\Z")


def scalar(value: Any) -> str:
    """One scalar (str, int, float, bool or None) as YAML text on one line."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    if not isinstance(value, str):
        raise TypeError(f"not a YAML scalar: {value!r}")
    if _PLAIN.match(value) and value.lower() not in _SPECIAL:
        return value
    return _quoted(value)


def _quoted(value: str) -> str:
    """A double-quoted scalar: JSON's escapes, and `\\uXXXX` (`\\UXXXXXXXX`) for every
    character that does not print: those YAML forbids raw, reads as a line break (NEL, U+2028,
    U+2029) or a byte-order mark, and the bidi and zero-width ones a reader would not see."""
    text = json.dumps(value, ensure_ascii=False)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else
                   f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
                   for c in text)


def _key(key: str) -> str:
    return key if _KEY.match(key) and key.lower() not in _SPECIAL else _quoted(key)


def _literal(value: str) -> bool:
    """A string a literal block holds verbatim: several printable lines, no trailing blanks,
    the first line not indented (its indentation would be taken for the block's)."""
    lines = value.split("\n")
    return (len(lines) > 1 and all(_LITERAL_LINE.match(line) for line in lines)
            and all(line == line.rstrip() for line in lines)
            and not lines[0].startswith(" ") and lines[-1] != "")


def _node(value: Any, depth: int) -> list[str]:
    """`value` as lines, each prefixed with `depth` indents, for a value that starts on its
    own line (a non-empty mapping or list)."""
    pad = INDENT * depth
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            lines += _entry(f"{pad}{_key(str(key))}:", item, depth)
    else:
        for item in value:
            if isinstance(item, dict) and item:
                inner = _node(item, depth + 1)
                lines.append(f"{pad}- {inner[0].lstrip()}")
                lines += inner[1:]
            else:
                lines += _entry(f"{pad}-", item, depth)
    return lines


def _entry(head: str, value: Any, depth: int) -> list[str]:
    """`head` (`key:` or `-`) followed by `value`."""
    if isinstance(value, dict | list):
        if not value:
            return [f"{head} {'{}' if isinstance(value, dict) else '[]'}"]
        return [head, *_node(value, depth + 1)]
    if isinstance(value, str) and _literal(value):
        pad = INDENT * (depth + 1)
        return [f"{head} |-", *(f"{pad}{line}" if line else "" for line in value.split("\n"))]
    return [f"{head} {scalar(value)}"]


def comment_lines(text: str) -> str:
    """`text` as YAML comment lines (`# ...`), each ending with a newline: one per `\\n` of
    `text`; any other line break (CR, NEL, U+2028, U+2029, which YAML also ends a comment
    at) or character that does not print is written as its escape, so no text of a recipe
    becomes a key."""
    return "".join(f"# {printable(line)}".rstrip() + "\n" for line in text.split("\n"))


def dump(data: Any) -> str:
    """One YAML document (a mapping or a list at the top), ending with a newline."""
    if isinstance(data, dict | list) and data:
        return "\n".join(_node(data, 0)) + "\n"
    return _entry("", data, -1)[0].lstrip() + "\n"


def dump_all(documents: list[Any]) -> str:
    """Several documents, separated by `---` lines."""
    return "---\n".join(dump(document) for document in documents)
