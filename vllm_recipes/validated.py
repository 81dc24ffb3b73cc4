"""Validated data: a YAML file through its pydantic model, with every problem at its line, and
the JSON form of what validated (the data the builder and the site publish). The loader,
the checks and the configuration and deployment trees all read files through here.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .yaml_source import Located, YamlFile

__all__ = ["publish", "validate"]

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


def validate(model: type[M], source: YamlFile) -> tuple[M | None, list[Located]]:
    """The validated model, or every schema problem of the file with its line."""
    try:
        return model.model_validate(source.data), []
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
        return None, problems
