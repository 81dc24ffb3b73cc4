"""The shapes the builder returns (plain JSON-able dicts, typed for readers and checkers)."""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["Command", "InstallChoice", "Note", "Result"]

# Recipe and catalog data arrive as the JSON endpoints publish them: plain dicts.
Data = dict[str, Any]


class Command(TypedDict):
    role: str
    """serve, head, worker, prefill, decode, router, master, store."""
    label: str
    """A heading for the block ("Node 1 (worker)", "Prefill", ...)."""
    argv: list[str]
    env: dict[str, str]
    text: str
    """The command alone, one option per line."""
    shell: str
    """`export` lines for env, then `text`: what to paste when vLLM is installed with pip."""
    docker_argv: list[str] | None
    docker_text: str | None
    port: int | None


class InstallChoice(TypedDict):
    available: bool
    command: str | None
    reason: str | None


class Note(TypedDict, total=False):
    title: str
    body: str
    link: dict[str, str]


class Result(TypedDict):
    hf_id: str
    model_id: str
    selection: dict[str, str]
    summary: str
    docker_image: str
    commands: list[Command]
    install: dict[str, InstallChoice]
    unavailable: dict[str, dict[str, str]]
    notes: list[Note]
    copy_text: str
    """Everything the page's copy-all button copies for the selected install method."""
