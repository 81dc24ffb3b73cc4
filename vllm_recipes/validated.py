"""Validated data: a YAML file through its pydantic model, with every problem at its line, and
the JSON form of what validated (the data the builder and the site publish). The loader,
the checks and the configuration and deployment trees all read files through here.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .yaml_source import Located, YamlFile

__all__ = ["INVISIBLE", "invisible_problems", "publish", "validate"]

INVISIBLE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
"""Bidirectional controls (U+202A-E, U+2066-9, the marks U+200E/F and U+061C) and zero-width
characters (U+200B-D, U+2060-4, U+FEFF): they make a text read otherwise than it runs or
compares (a command, an id, a label), and no recipe value needs one."""

M = TypeVar("M", bound=BaseModel)


def publish(model: BaseModel) -> dict[str, Any]:
    """The JSON form of validated data: exactly the keys the YAML author wrote (normalised)."""
    return model.model_dump(mode="json", exclude_unset=True)


def _trim(loc: tuple[Any, ...], data: Any) -> tuple[Any, ...]:
    """`loc` cut where it leaves the data (pydantic adds union branch and validator names)."""
    kept: list[Any] = []
    for part in loc:
        inside = (part in data) if isinstance(data, dict) else (
            isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data))
        if not inside:
            break
        data = data[part]
        kept.append(part)
    return tuple(kept)


def invisible_problems(source: YamlFile) -> list[Located]:
    """Every string of the file (keys too) that holds an `INVISIBLE` character."""
    problems = []
    stack: list[tuple[tuple[Any, ...], Any]] = [((), source.data)]
    while stack:
        loc, item = stack.pop()
        texts: list[tuple[tuple[Any, ...], Any, str]] = []
        if isinstance(item, dict):
            texts = [(loc, key, "the key ") for key in item]
            stack += [((*loc, key), value) for key, value in reversed(item.items())]
        elif isinstance(item, list):
            stack += [((*loc, i), value) for i, value in reversed(list(enumerate(item)))]
        else:
            texts = [(loc, item, "")]
        for where, text, what in texts:
            found = INVISIBLE.search(text) if isinstance(text, str) else None
            if found:
                char = found.group()
                problems.append(source.problem(where, (
                    f"{what}holds an invisible U+{ord(char):04X} "
                    f"({unicodedata.name(char, 'control')}) at character {found.start() + 1}: "
                    "bidirectional and zero-width characters make text read otherwise than it "
                    "runs; delete it")))
    return problems


def validate(model: type[M], source: YamlFile) -> tuple[M | None, list[Located]]:
    """The validated model, or every schema problem of the file with its line (and every
    invisible character, `invisible_problems`)."""
    hidden = invisible_problems(source)
    try:
        validated = model.model_validate(source.data)
        return (None, hidden) if hidden else (validated, [])
    except ValidationError as error:
        problems = []
        for problem in error.errors():
            loc = _trim(problem["loc"], source.data)
            message = problem["msg"]
            if problem["type"] == "missing":
                loc = tuple(problem["loc"])
            elif problem["type"] == "extra_forbidden":
                loc = tuple(problem["loc"])
                message = "unknown key (not in the schema; check the spelling)"
            elif problem["type"] == "value_error":
                message = message.removeprefix("Value error, ")
                # Our validators name the field they blame: "variants.x.default_modes: ..."
                head, sep, rest = message.partition(": ")
                if sep and " " not in head and head.replace("_", "").replace(".", "").isalnum():
                    loc = (*loc, *head.split("."))
                    message = rest
            problems.append(source.problem(loc, message))
        return None, problems + hidden
