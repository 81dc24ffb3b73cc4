"""The `vllm serve` commands of a result in the forms a user runs them (the pip install's
`argv`, the Docker form's `vllm serve` + what follows the image), with the files each install
method leaves where the command runs: what vLLM's own parser is given
(tests/vllm_parser/test_published_commands.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from builder.commands.needed_files import CONTAINER_DIR

__all__ = ["form_key", "forms"]


def _container_argv(result: dict[str, Any], command: dict[str, Any]) -> list[str] | None:
    """`vllm serve` + what the Docker form runs after its image."""
    docker = command.get("docker_argv")
    if not docker:
        return None
    rest = docker[docker.index(result["docker_image"]) + 1:]
    if rest[:2] == ["vllm", "serve"]:
        rest = rest[2:]
    return ["vllm", "serve", *rest]


def _files(recipe: dict[str, Any], choice: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """Paths an install method leaves where the command runs, with what a plugin registers."""
    own = recipe.get("files", {})
    paths = [*choice.get("provides", []),
             *(p for step in choice.get("dependencies", []) for p in step.get("provides", []))]
    return {path: dict(own.get(path.removeprefix(CONTAINER_DIR + "/"), {}).get("registers", {}))
            for path in paths}


def forms(recipe: dict[str, Any], result: dict[str, Any]) -> Iterator[tuple[str, list[str],
                                                                            dict[str, Any]]]:
    """(install method, argv, files) of every `vllm serve` command of a result, as run."""
    install = result["install"]
    for command in result["commands"]:
        if command["argv"][:2] != ["vllm", "serve"]:
            continue
        host = "pip" if install["pip"]["available"] else "docker"
        yield host, command["argv"], _files(recipe, install[host])
        container = _container_argv(result, command)
        if container is not None and install["docker"]["available"]:
            yield "docker", container, _files(recipe, install["docker"])


def form_key(argv: list[str], files: dict[str, Any]) -> tuple[str, tuple[str, ...], str]:
    """(parser kind, argv, files as JSON): one key per distinct command the parser checks."""
    return ("omni" if "--omni" in argv else "vllm", tuple(argv),
            json.dumps(files, sort_keys=True))
