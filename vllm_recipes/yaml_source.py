"""Reading YAML the way recipes need it: duplicate keys refused, dates kept as text (the schema
checks they are real), and the line of every key and list item remembered, so that every
problem can be reported as `file:line: field.path: message`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import InvalidRecipe

__all__ = ["Located", "YamlFile", "dotted", "read_yaml"]

Path_ = tuple[str | int, ...]


class _Loader(yaml.SafeLoader):
    """SafeLoader without implicit timestamps, refusing duplicate keys."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    loader.flatten_mapping(node)
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)  # type: ignore[no-untyped-call]
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


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


def read_yaml(path: Path, display: str) -> YamlFile:
    """Parse `path`; InvalidRecipe (`file:line: message`) when it is not valid YAML."""
    text = path.read_text(encoding="utf-8")
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()  # type: ignore[no-untyped-call]
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
    except yaml.YAMLError as error:
        raise InvalidRecipe(f"{display}: {' '.join(str(error).split())}") from None
    lines: dict[Path_, int] = {(): 1}
    if node is not None:
        _index(node, (), lines)
    return YamlFile(path, display, data, lines)
