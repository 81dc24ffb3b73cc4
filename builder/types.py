"""The shapes the builder returns (plain JSON-able dicts, typed for readers and checkers)."""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["Command", "Dependency", "ExampleRequest", "InstallChoice", "Note", "OptionSource",
           "Origin", "Request",
           "Result"]

# Recipe and catalog data arrive as the JSON endpoints publish them: plain dicts.
Data = dict[str, Any]


class Origin(TypedDict):
    """Who set a value: a file, the YAML path (or rule) inside it, and the layer it belongs to."""

    file: str
    """`recipes/models/<org>/<repo>.yaml`, `recipes/strategies/<id>.yaml`, or a builder module
    (`builder/<module>.py`) for values the builder derives."""
    path: str
    """YAML path (`strategy_overrides.single_node_tp.blackwell.extra_args`), or the rule."""
    layer: str
    """A short name of the layer for people ("override: blackwell", "feature: tool_calling")."""


class Replaced(Origin):
    option: list[str]
    """The tokens that were set before."""
    merged: bool
    """True when the later value was merged into this one (JSON keys) rather than replacing it."""


class OptionSource(Origin):
    option: list[str]
    """The option's tokens as they are on the command line."""
    replaced: list[Replaced]


class EnvSource(Origin):
    value: str
    replaced: list[dict[str, str]]
    """Earlier values with their origins (`value`, `file`, `path`, `layer`)."""


class Sources(TypedDict):
    args: list[OptionSource]
    env: dict[str, EnvSource]


class Command(TypedDict):
    role: str
    """serve, head, worker, prefill, decode, router, master, store."""
    label: str
    """A heading for the block ("Node 1 (worker)", "Prefill", ...)."""
    argv: list[str]
    """The command's words for a shell: `~` and `$NAME` in them are the shell's to expand
    (docs/api.md); `docker_argv` the same."""
    env: dict[str, str]
    text: str
    """The command alone, one option per line."""
    shell: str
    """`export` lines for env, then `text`: what to paste when vLLM is installed with pip."""
    docker_argv: list[str] | None
    docker_text: str | None
    port: int | None
    sources: Sources
    """Where each option and environment variable came from (see `Origin`)."""


class Dependency(TypedDict):
    note: str
    command: str
    optional: bool
    provides: list[str]
    """Paths the step leaves where `vllm serve` starts (or, mounted, inside its container)."""


class InstallChoice(TypedDict):
    available: bool
    command: str | None
    reason: str | None
    dependencies: list[Dependency]
    """Extra steps after installing vLLM, in order (required and optional)."""
    provides: list[str]
    """Paths the commands name that the install itself provides (the image's examples/)."""
    note: str | None
    """The recipe's note for this install method."""
    checked_with: str | None
    """"checked with vLLM <release>", and the build it installs when that is another one."""


class Request(TypedDict):
    """A request that exercises the server (vLLM-Omni tasks)."""

    label: str
    text: str
    """A `curl` command to paste."""


class ExampleRequest(TypedDict):
    """A request to send the server once it is up (`commands.requests`)."""

    kind: str
    """chat, completion, embedding, rerank, transcription, or a vLLM-Omni task kind."""
    label: str
    method: str
    path: str | None
    """None: the recipe gives a whole `curl` of its own (in `curl`), nothing structured."""
    url: str | None
    json: dict[str, Any] | None
    """The JSON body (None: a form)."""
    form: dict[str, str] | None
    """Multipart form fields; a value `@name` uploads the file `name` (curl's -F syntax)."""
    answer: str
    """Where the answer comes back in the response."""
    curl: str
    python: str | None
    """The same request with the OpenAI Python client (None with a recipe's own curl)."""


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
    request: Request | None
    """A vLLM-Omni model's request as one curl (`example_requests[0]`), or None."""
    example_requests: list[ExampleRequest]
    """What to send the server once it is up, for the model's task (`commands.requests`)."""
    copy_text: str
    """Everything the page's copy-all button copies for the selected install method."""
    vllm_version: str
    """The vLLM release whose `vllm serve` parser the commands were checked with."""
    fit: dict[str, Any] | None
    """What fits the GPUs (`commands.fit.fit_json`): weights and KV cache per GPU, tokens and
    sequences, the arithmetic and the facts used; None for a recipe without memory facts and
    for layouts over several nodes."""
    performance: dict[str, Any]
    """How fast it serves (`estimates.report.performance_json`): the estimate of the
    command's layout with its source, or "no estimate" and why; measured points beside it."""
