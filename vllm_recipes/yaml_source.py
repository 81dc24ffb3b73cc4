"""Reading YAML the way recipes need it: duplicate keys refused, dates kept as text (the schema
checks they are real), and the line of every key and list item remembered, so that every
problem can be reported as `file:line: field.path: message`.

Every file is read within bounds, whoever wrote it: a regular file (not a directory, device,
FIFO or socket, also behind a symlink) of at most `MAX_FILE_BYTES`, UTF-8 text, nested at most
`MAX_DEPTH` levels, and at most `MAX_VALUES` values once every alias is counted as a copy of
what it names (a few hundred bytes of nested anchors would otherwise expand to gigabytes).
Anything else is refused as one `file:line: message` line (`InvalidRecipe`). `read_text` and
`load_text` give the same bounds to readers of other YAML (the public catalogue's files).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import InvalidRecipe

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "MAX_VALUES", "Located", "YamlFile", "dotted",
           "load_text", "read_text", "read_yaml"]

Path_ = tuple[str | int, ...]
MAX_FILE_BYTES = 1 << 20
"""The largest file read (the largest recipe-tree file is ~65 KB)."""
MAX_DEPTH = 64
"""The deepest nesting of mappings and lists (recipes nest ~10 levels)."""
MAX_VALUES = 100_000
"""The most values (keys, items, scalars) of one file, each alias counted as a copy of what it
names (the largest recipe-tree file has ~3,300)."""


def read_text(path: Path, display: str, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of `path`, a regular file of at most `limit` bytes; InvalidRecipe
    (`display[:line]: message`) for anything else. Opened without blocking and checked before
    reading, so a FIFO or a device (a symlink to /dev/zero) is refused, never read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InvalidRecipe(f"{display}: no such file") from None
    except OSError as error:
        raise InvalidRecipe(f"{display}: cannot be read ({error.strerror})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InvalidRecipe(f"{display}: is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InvalidRecipe(f"{display}: not a regular file (a device, FIFO or socket); "
                                "recipe files are plain files")
        if info.st_size > limit:
            raise InvalidRecipe(f"{display}: {info.st_size:,} bytes, more than the "
                                f"{limit:,} a file may have")
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InvalidRecipe(f"{display}: more than the {limit:,} bytes a file may have")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        utf16 = " (it looks like UTF-16)" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise InvalidRecipe(f"{display}:{line}: not UTF-8 text (byte 0x{data[error.start]:02x})"
                            f"{utf16}; save it as UTF-8") from None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _bound(node: yaml.Node, display: str) -> None:
    """InvalidRecipe when `node` nests deeper than MAX_DEPTH or expands to more than
    MAX_VALUES values. Iterative, each distinct node visited once (aliases share nodes)."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, done = stack.pop()
        key = id(current)
        if key in size:
            continue
        children = _children(current)
        if not done:
            stack.append((current, True))
            stack += [(child, False) for child in children if id(child) not in size]
            continue
        size[key] = min(MAX_VALUES + 1, 1 + sum(size[id(c)] for c in children))
        depth[key] = min(MAX_DEPTH + 1, 1 + max((depth[id(c)] for c in children), default=0))
    if depth[id(node)] > MAX_DEPTH:
        at = node
        for _ in range(MAX_DEPTH):  # down the deepest path to the level past the limit
            at = max(_children(at), key=lambda c: depth[id(c)])
        raise InvalidRecipe(f"{display}:{_mark(at)}: nested deeper than {MAX_DEPTH} levels")
    if size[id(node)] > MAX_VALUES:
        at = node
        while True:  # the innermost value that is too large on its own
            bigger = [c for c in _children(at) if size[id(c)] > MAX_VALUES]
            if not bigger:
                break
            at = bigger[0]
        raise InvalidRecipe(
            f"{display}:{_mark(at)}: more than {MAX_VALUES:,} values, counting each alias "
            "(*name) as a copy of its anchor; write the values out")


def _mark(node: yaml.Node) -> str:
    """`line: column N` of a node, as YAML syntax errors are reported."""
    return f"{node.start_mark.line + 1}: column {node.start_mark.column + 1}"


class _Shallow:
    """A pure-Python composer that stops at MAX_DEPTH levels: it recurses (libyaml's composer
    stops at 1,000 levels, deep enough for Python's recursion limit)."""

    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                # A mixin of PyYAML's loaders (untyped): peek_event and compose_node are the
                # composer's, which the checker cannot see on this class.
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {MAX_DEPTH} levels",
                    self.peek_event().start_mark)  # type: ignore[attr-defined]
            return super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self._depth -= 1


class _PyLoader(_Shallow, yaml.SafeLoader):
    """SafeLoader without implicit timestamps, refusing duplicate keys. Pure Python: its
    syntax errors say what was expected (libyaml's say less), so it reads files that fail."""


# The base is chosen at run time (libyaml's loader where PyYAML has it), which a checker cannot
# follow as a class.
class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The same on libyaml's parser when PyYAML has it (several times faster)."""


_PyLoader.yaml_implicit_resolvers = _Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    loader.flatten_mapping(node)
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if not isinstance(key, str | int | float | bool | None):
            raise yaml.constructor.ConstructorError(
                None, None, f"a key must be a plain value, not {type(key).__name__}",
                key_node.start_mark)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


for _loader in (_PyLoader, _Loader):
    _loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def dotted(loc: Iterable[str | int]) -> str:
    """`("variants", "fp8", "hardware", 2)` → `variants.fp8.hardware[2]`."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


@dataclass(frozen=True)
class Located:
    """One problem: where (file, line, field path) and what."""

    display: str
    line: int | None
    loc: str
    message: str

    def __str__(self) -> str:
        if not self.display:
            return self.message
        where = f"{self.display}:{self.line}" if self.line else self.display
        return f"{where}: {self.loc}: {self.message}" if self.loc else f"{where}: {self.message}"


@dataclass
class YamlFile:
    """A parsed YAML file and the line of each path in it."""

    path: Path
    display: str
    """The path shown in messages (relative to the recipe tree's parent)."""
    data: Any
    lines: dict[Path_, int] = field(default_factory=dict)

    def line(self, loc: Iterable[str | int]) -> int | None:
        """The line of `loc`, or of its nearest ancestor that has one."""
        parts = tuple(loc)
        while parts:
            if parts in self.lines:
                return self.lines[parts]
            parts = parts[:-1]
        return self.lines.get((), 1)

    def problem(self, loc: Iterable[str | int] | str, message: str) -> Located:
        parts = tuple(_split(loc)) if isinstance(loc, str) else tuple(loc)
        return Located(self.display, self.line(parts), dotted(parts), message)


def _split(loc: str) -> list[str | int]:
    parts: list[str | int] = []
    for piece in re.findall(r"[^.\[\]]+|\[\d+\]", loc):
        parts.append(int(piece[1:-1]) if piece.startswith("[") else piece)
    return parts


def _index(node: yaml.Node, path: Path_, lines: dict[Path_, int], depth: int = 0) -> None:
    if depth > 64:
        return
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            child = (*path, key_node.value)
            lines.setdefault(child, key_node.start_mark.line + 1)
            _index(value_node, child, lines, depth + 1)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            child = (*path, index)
            lines.setdefault(child, item.start_mark.line + 1)
            _index(item, child, lines, depth + 1)


def _parse(text: str, loader_class: type[Any], display: str) -> tuple[yaml.Node | None, Any]:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None, None
        _bound(node, display)
        return node, loader.construct_document(node)
    finally:
        loader.dispose()


def read_yaml(path: Path, display: str) -> YamlFile:
    """Parse `path`; InvalidRecipe (`file:line: message`) when it is not valid YAML or not
    within the bounds of the module docstring."""
    node, data = _load(read_text(path, display), display, _Loader, _PyLoader)
    lines: dict[Path_, int] = {(): 1}
    if node is not None:
        _index(node, (), lines)
    return YamlFile(path, display, data, lines)


# (A base chosen at run time, as for _Loader.)
class _PlainLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loading as is (for other projects' files)."""


class _PlainPyLoader(_Shallow, yaml.SafeLoader):
    """The same in pure Python, for its messages."""


def load_text(text: str, display: str) -> Any:
    """`yaml.safe_load(text)` within the bounds of the module docstring; InvalidRecipe
    (`display:line: message`) for text that is not YAML or not within them."""
    return _load(text, display, _PlainLoader, _PlainPyLoader)[1]


def _load(text: str, display: str, fast: type[Any], slow: type[Any]
          ) -> tuple[yaml.Node | None, Any]:
    try:
        try:
            return _parse(text, fast, display)
        except yaml.YAMLError:
            return _parse(text, slow, display)  # for its message; raises the same problem
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f"{display}:{mark.line + 1}" if mark else display
        context = ""
        if error.context:
            started = error.context_mark
            same_line = mark is not None and started is not None and started.line == mark.line
            at = f" at line {started.line + 1}" if started and not same_line else ""
            context = f" ({error.context}{at})"
        column = f"column {mark.column + 1}: " if mark else ""
        raise InvalidRecipe(f"{where}: {column}{error.problem}{context}") from None
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position) + 1
        character = error.character
        shown = chr(character) if isinstance(character, int) else character
        raise InvalidRecipe(f"{display}:{line}: character {shown!r} is not allowed in YAML (a "
                            "binary file?)") from None
    except yaml.YAMLError as error:
        raise InvalidRecipe(f"{display}: {' '.join(str(error).split())}") from None
