"""Files a command names, and the install steps that put them where the command runs.

A path-valued option (`PATH_OPTIONS`: `--chat-template`, the parser plugins, `--deploy-config`,
`--config`, ...) names a file the server reads when it starts. Its value, as a recipe writes
it, is one of:

- a file of vLLM's source tree (`vllm_release.SOURCE_TREE_DIRS`, e.g.
  `examples/tool_chat_template_gemma4.jinja`): the vLLM Docker images have it in their working
  directory, so the Docker form names it as written; a pip install has no source tree, so the
  pip install block fetches it from the release's tag (`curl -fsSLo NAME URL`) and the command
  names NAME;
- a file of the recipe's `files` (a name, with the URL it is downloaded from): one install step
  fetches it into the directory `vllm serve` starts from, for pip and Docker alike; the Docker
  form mounts it at `CONTAINER_DIR/NAME` and names that path;
- a path that one of the recipe's `dependencies` leaves there (`provides`, e.g. a source
  checkout the step changes into).

The `vllm serve` command (`argv`) names the pip install's paths, or the container's where the
selection offers no pip install; `docker_argv` names the container's. `vllm-recipes check`
refuses a value that none of these provide for an install method the recipe offers.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..shell import command_text, env_lines, quote
from ..types import Command, Dependency, OptionSource
from ..vllm_release import SOURCE_TREE_DIRS, VLLM_VERSION, source_url

__all__ = ["CONTAINER_DIR", "PATH_OPTIONS", "fetch_steps", "image_files", "in_container",
           "mounts", "on_host", "path_values", "rewrite", "source_tree_file"]

PATH_OPTIONS = (
    "--chat-template", "--tool-parser-plugin", "--reasoning-parser-plugin", "--config",
    "--deploy-config", "--stage-configs-path", "--ssl-keyfile", "--ssl-certfile",
    "--ssl-ca-certs",
)
"""`vllm serve` options (vLLM's and vLLM-Omni's) whose value is a file read at start-up."""

CONTAINER_DIR = "/vllm-recipes"
"""Where a Docker form mounts the files its install steps fetched on the host."""

Files = Mapping[str, Any]
"""A recipe's `files`: name → {download, note, registers}."""


def path_values(argv: list[str]) -> Iterator[tuple[int, str, str]]:
    """(index of the value, option, value) of every path-valued option in `argv`."""
    for index, token in enumerate(argv):
        option, eq, value = token.partition("=")
        if option not in PATH_OPTIONS:
            continue
        if eq:
            yield index, option, value
        elif index + 1 < len(argv) and not argv[index + 1].startswith("-"):
            yield index + 1, option, argv[index + 1]


def source_tree_file(value: str) -> bool:
    return value.startswith(SOURCE_TREE_DIRS)


def on_host(files: Files, value: str) -> str:
    """The path a pip install's command names for `value`."""
    return posixpath.basename(value) if source_tree_file(value) else value


def in_container(files: Files, value: str) -> str:
    """The path a Docker form names for `value`."""
    return f"{CONTAINER_DIR}/{value}" if value in files else value


def rewrite(command: Command, path: Callable[[str], str]) -> Command:
    """`command` with every path-valued option's value mapped by `path` (argv, text, shell
    and sources); the command itself when nothing changes."""
    argv = list(command["argv"])
    for index, _, value in path_values(argv):
        new = path(value)
        argv[index] = new if argv[index] == value else argv[index].replace(value, new, 1)
    if argv == command["argv"]:
        return command
    text = command_text(argv, 3)
    sources = command["sources"]
    args: list[OptionSource] = []
    for source in sources["args"]:
        option = list(source["option"])
        for index, _, value in path_values(option):
            option[index] = option[index].replace(value, path(value), 1)
        args.append({**source, "option": option})
    rewritten = sources.copy()
    rewritten["args"] = args
    return {**command, "argv": argv, "text": text, "shell": env_lines(command["env"]) + text,
            "sources": rewritten}


def _used(argvs: list[list[str]]) -> list[str]:
    seen: list[str] = []
    for argv in argvs:
        for _, _, value in path_values(argv):
            if value not in seen:
                seen.append(value)
    return seen


def fetch_steps(files: Files, method: str, argvs: list[list[str]]) -> list[Dependency]:
    """The install steps of `method` that fetch the files the commands name."""
    steps: list[Dependency] = []
    for value in _used(argvs):
        if source_tree_file(value) and method == "pip":
            name = on_host(files, value)
            steps.append({
                "note": f"{name} from vLLM {VLLM_VERSION}'s source tree ({value}); the pip "
                        "package does not ship it. Run it where you start vllm serve.",
                "command": f"curl -fsSLo {quote(name)} {quote(source_url(value))}",
                "optional": False,
                "provides": [name],
            })
        elif value in files:
            entry = files[value]
            where = (f"; the Docker command mounts it at {CONTAINER_DIR}/{value}"
                     if method == "docker" else "")
            steps.append({
                "note": f"{entry['note']} Run it where you start vllm serve{where}.",
                "command": f"curl -fsSLo {quote(value)} {quote(entry['download'])}",
                "optional": False,
                "provides": [value] if method == "pip" else [f"{CONTAINER_DIR}/{value}"],
            })
    return steps


def image_files(method: str, argvs: list[list[str]]) -> list[str]:
    """The files the commands name that the install itself provides (the Docker images'
    source-tree examples)."""
    if method != "docker":
        return []
    return [value for value in _used(argvs) if source_tree_file(value)]


def mounts(files: Files, argv: list[str]) -> list[str]:
    """`docker run -v` mounts of the recipe's files `argv` names."""
    return [f"$PWD/{value}:{CONTAINER_DIR}/{value}" for value in _used([argv]) if value in files]
