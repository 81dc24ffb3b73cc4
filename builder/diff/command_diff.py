"""A pasted vLLM command against the builder's: parse it, line its options up, diff them.

Parsing (`parse_command`) reads the text as a POSIX shell would (`shlex`): backslash line
continuations are joined, `#` comments dropped, and statements end at a newline, `;`, `&`,
`&&`, `||` or `|`. `export NAME=VALUE` statements and `NAME=VALUE` prefixes set the
environment. Exactly one engine command must be found, in one of these forms:

- `vllm serve MODEL ...` (after wrappers such as `exec`, `env`, `sudo`, `nohup`, `taskset`,
  `numactl`, `uv run`);
- `docker run [options] IMAGE ...` of a vLLM image: its `-e` options are environment; the
  engine is the image's own entrypoint, `--entrypoint vllm IMAGE serve ...`, or
  `--entrypoint bash IMAGE -c "<script>"` with the script read the same way;
- `python -m vllm.entrypoints.openai.api_server --model MODEL ...` and, for NVIDIA Dynamo
  workers, `python -m dynamo.vllm --model MODEL ...`.

Anything else (no engine command, two of them, unbalanced quotes, a paste over `MAX_CHARS`)
raises `CommandError` with one line; nothing else escapes.

Options (`engine_options`): one identity per option, whatever the spelling. `_` and `-` are
the same before the first dot; `--flag=value` is `--flag value`; `--no-x`, `--disable-x` and
`--enable-x` are the switch `x` turned off / off / on; vLLM's short aliases (`-tp`, `-dp`,
...) are their long flags. A dotted flag (`--speculative-config.method dspark`) sets one key
of the JSON-valued flag before the dot. A later setting replaces an earlier one.

Diff (`diff_commands`): the recipe's command is the base. Every flag is `equal`, `changed`,
`added` (only in the command) or `removed` (only in the recipe); JSON objects are compared
key by key (`keys`), numbers by value (`0.90` is `0.9`). A command that says which recipe
settings it kept (a published configuration's claims, `mark_kept`) has each of those that
differs from today's recipe as `recipe_changed`: the recipe changed since, the command did
not. Flags and environment variables that only concern one deployment — network address,
served name, API keys, logging, NUMA binding, device lists, caches — are of kind
`deployment` and shown apart; Dynamo's own worker flags are of kind `dynamo`. `distance`
weighs what is left: the number the join (`join.py`) minimises.
"""

from __future__ import annotations

import json
import re
import shlex
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict

from ..arglist import MAX_JSON_DEPTH, SHORT_FLAGS, loads_json
from ..diff_result import STATUSES, CommandDiff, ValueDiff, summarize
from ..errors import shown

__all__ = [
    "MAX_CHARS",
    "CommandDiff",
    "CommandError",
    "ParsedCommand",
    "ValueDiff",
    "claim_key",
    "diff_commands",
    "distance",
    "engine_options",
    "mark_kept",
    "option_identity",
    "parse_argv",
    "parse_command",
    "summarize",
]

MAX_CHARS = 65_536
"""The longest text `parse_command` reads; real commands are a few kilobytes."""
SEPARATORS = frozenset({";", "&", "&&", "||", "|", "\n", ";;", "|&"})


# Option identities (see `option_identity`) that only concern one deployment.
DEPLOYMENT_FLAGS = frozenset({
    "--host", "--port", "--served-model-name", "--api-key", "--root-path", "--uds",
    "--ssl-keyfile", "--ssl-certfile", "--ssl-ca-certs", "--ssl-cert-reqs", "--ssl-ciphers",
    "--ssl-refresh", "--allowed-origins", "--allowed-methods", "--allowed-headers",
    "--allow-credentials", "--fastapi-docs", "--offline-docs", "--middleware",
    "--uvicorn-log-level", "--uvicorn-access-log", "--access-log-for-endpoints",
    "--log-requests", "--log-stats", "--log-outputs", "--log-deltas", "--log-level",
    "--log-config-file", "--logging-config", "--max-log-len", "--log-error-stack",
    "--logging-iteration-details", "--numa-bind", "--numa-bind-nodes", "--numa-bind-cpus",
    "--download-dir", "--hf-token", "--grpc-port", "--data-parallel-rpc-port",
    "--master-port", "--http-host", "--http-port",
})
# NVIDIA Dynamo's worker options (`python -m dynamo.vllm`), which `vllm serve` does not have.
DYNAMO_PREFIXES = ("--dyn-", "--router-")
DYNAMO_FLAGS = frozenset({
    "--disaggregation-mode", "--component", "--endpoint", "--namespace", "--migration-limit",
    "--connector", "--request-plane", "--event-plane", "--discovery-backend",
})
DEPLOYMENT_ENV = re.compile(
    r"^(?:.*_VISIBLE_DEVICES|HF_.*|HUGGING_FACE_.*|TRANSFORMERS_.*|.*LOG.*|.*TOKEN.*"
    r"|.*_HOST|.*_PORT|.*_HOST_IP|PYTHONUNBUFFERED|VLLM_API_KEY|VLLM_CACHE_ROOT"
    r"|XDG_CACHE_HOME|TORCHINDUCTOR_CACHE_DIR|TRITON_CACHE_DIR|ETCD_.*|NATS_.*|DYN_.*_HOST"
    r"|DYN_SYSTEM_PORT|NCCL_DEBUG.*)$"
)
"""Environment variables that only concern one deployment."""

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_FLAG = re.compile(r"^(?:--[A-Za-z0-9]|-[A-Za-z])")
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_PYTHON = re.compile(r"^(?:.*/)?python(?:3(?:\.\d+)?)?$")

# docker run options that take a value when it is not written after `=`.
_DOCKER_VALUE = frozenset({
    "-e", "--env", "--env-file", "-v", "--volume", "-p", "--publish", "--gpus", "--device",
    "--group-add", "--security-opt", "--shm-size", "--ulimit", "--network", "--net", "--name",
    "--entrypoint", "-w", "--workdir", "-u", "--user", "--ipc", "--runtime", "--cpuset-cpus",
    "--cpuset-mems", "--cpus", "-m", "--memory", "--mount", "--label", "-l", "--hostname",
    "-h", "--add-host", "--cap-add", "--cap-drop", "--pid", "--restart", "--platform",
    "--pull", "--tmpfs", "--log-driver", "--log-opt", "--stop-signal", "--memory-swap",
    "--device-cgroup-rule", "--label-file", "--dns", "--mac-address", "--cgroupns",
})
_WRAPPERS = frozenset({"exec", "nohup", "time", "command", "stdbuf"})
_NUMACTL_SWITCHES = frozenset({"-l", "--localalloc", "-a", "--all", "-s", "--show", "-H",
                               "--hardware"})
_PY_ENGINES = {
    "vllm.entrypoints.openai.api_server": "python -m vllm.entrypoints.openai.api_server",
    "dynamo.vllm": "python -m dynamo.vllm",
}


class CommandError(ValueError):
    """Text that is not one vLLM engine command; the message is one line for a person."""


class ParsedCommand(TypedDict):
    launcher: str
    """How the engine was started: "vllm serve", "docker run <image>", "python -m dynamo.vllm"."""
    model: str | None
    args: list[str]
    """The engine's options, after the model (the model given as `--model` is left in)."""
    env: dict[str, str]
    image: str | None
    """The container image when the command is a `docker run`."""


# ----------------------------------------------------------------------------- parsing


def parse_command(text: str) -> ParsedCommand:
    """The one engine command in `text` (see the module docstring); CommandError otherwise."""
    if not isinstance(text, str):
        raise CommandError("expected the command as text")
    if len(text) > MAX_CHARS:
        raise CommandError(
            f"the text is {len(text):,} characters long; paste one command of at most "
            f"{MAX_CHARS:,} characters"
        )
    if not text.strip():
        raise CommandError("empty: paste a `vllm serve MODEL ...` command")
    found = _find_engines(_statements(text), {})
    if not found:
        raise CommandError(_not_vllm(text))
    if len(found) > 1:
        raise CommandError(f"{len(found)} vLLM engine commands found; paste one at a time")
    return found[0]


def parse_argv(argv: Sequence[str], env: Mapping[str, str] | None = None) -> ParsedCommand:
    """An already split engine command (`vllm serve MODEL ...`, `python -m dynamo.vllm ...`)."""
    found = _engine(list(argv), dict(env or {}))
    if found is None:
        raise CommandError(f"not a vLLM engine command: {shlex.join(list(argv)[:3])}")
    return found


def _statements(text: str) -> list[list[str]]:
    text = re.sub(r"\\\r?\n", " ", text)
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|\n")
    lexer.whitespace = " \t\r\f\v"
    lexer.whitespace_split = True
    statements: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token in SEPARATORS:
                statements.append([])
            else:
                statements[-1].append(token)
    except ValueError as error:  # "No closing quotation", "No escaped character"
        message = str(error).lower()
        if "quotation" in message:
            raise CommandError("unbalanced quotes: a ' or \" is never closed") from None
        raise CommandError(f"cannot split the text like a shell: {message}") from None
    return [words for words in statements if words]


def _not_vllm(text: str) -> str:
    words = text.split()
    if any(word in ("sglang", "sglang.launch_server") for word in words):
        return "an SGLang command: only vLLM commands (`vllm serve MODEL ...`) can be compared"
    return "not a vllm serve command: no `vllm serve MODEL ...` (or docker run of it) found"


def _find_engines(statements: Iterable[list[str]], env: dict[str, str]) -> list[ParsedCommand]:
    found = []
    for words in statements:
        words, assigned = _assignments(words)
        if not words:
            env.update(assigned)
            continue
        if words[0] in ("export", "declare"):
            env.update(_assignments([w for w in words[1:] if not w.startswith("-")])[1])
            continue
        engine = _engine(words, {**env, **assigned})
        if engine is not None:
            found.append(engine)
    return found


def _assignments(words: list[str]) -> tuple[list[str], dict[str, str]]:
    """Leading NAME=VALUE words, split off."""
    env = {}
    at = 0
    while at < len(words) and _ASSIGNMENT.match(words[at]):
        name, _, value = words[at].partition("=")
        env[name] = value
        at += 1
    return words[at:], env


def _strip_wrappers(words: list[str], env: dict[str, str]) -> list[str]:
    while words:
        head = words[0].rsplit("/", 1)[-1]
        if head in _WRAPPERS:
            words = words[1:]
        elif head == "env":
            words = words[1:]
            while words and words[0].startswith("-"):
                words = words[2:] if words[0] in ("-u", "--unset", "-C", "--chdir") else words[1:]
            words, assigned = _assignments(words)
            env.update(assigned)
        elif head == "sudo":
            words = words[1:]
            while words and words[0].startswith("-"):
                words = words[1:]
        elif head == "taskset":
            words = words[1:]
            while words and words[0].startswith("-"):
                words = words[1:]
            words = words[1:]  # the CPU list or mask
        elif head == "numactl":
            words = words[1:]
            while words and words[0].startswith("-"):
                takes = "=" not in words[0] and words[0] not in _NUMACTL_SWITCHES
                words = words[2:] if takes else words[1:]
        elif head == "uv" and words[1:2] == ["run"]:
            words = words[2:]
            while words and words[0].startswith("-"):
                words = words[1:]
        else:
            return words
    return words


def _engine(words: list[str], env: dict[str, str]) -> ParsedCommand | None:
    env = dict(env)
    words = _strip_wrappers(words, env)
    if not words:
        return None
    head = words[0].rsplit("/", 1)[-1]
    if head == "vllm" and words[1:2] == ["serve"]:
        return _serve("vllm serve", words[2:], env, None)
    if head in ("docker", "podman") and words[1:2] == ["run"]:
        return _docker(words[2:], env)
    if _PYTHON.match(head) and words[1:2] == ["-m"] and len(words) > 2:
        launcher = _PY_ENGINES.get(words[2])
        if launcher is not None:
            return _serve(launcher, words[3:], env, None, positional=False)
        if words[2] in ("vllm.entrypoints.cli.main", "vllm") and words[3:4] == ["serve"]:
            return _serve("vllm serve", words[4:], env, None)
    if head in ("bash", "sh", "zsh") and "-c" in words[1:]:
        script = words[words.index("-c") + 1:]
        if script:
            found = _find_engines(_statements(script[0]), env)
            return found[0] if len(found) == 1 else None
    return None


def _dash_lookalike(words: list[str]) -> None:
    """CommandError for a word that starts with a dash other than `-` (an editor's or a web
    page's `—tensor-parallel-size`): vLLM would not read it as an option, and neither would
    the diff; said rather than dropped."""
    for word in words:
        first = word[:1]
        if first != "-" and (first == "\u2212" or (first and unicodedata.category(first) == "Pd")):
            name = unicodedata.name(first, "a dash").lower()
            raise CommandError(
                f"{shown(word)} starts with {name} (U+{ord(first):04X}), not '-': type the "
                f"option with ASCII hyphens ({'--' + word.lstrip(word[0])[:40]!r})")


def _serve(launcher: str, rest: list[str], env: dict[str, str], image: str | None, *,
           positional: bool = True) -> ParsedCommand:
    _dash_lookalike(rest)
    model = None
    if positional and rest and not _FLAG.match(rest[0]):
        model, rest = rest[0], rest[1:]
    for index, token in enumerate(rest):
        if token == "--model" and index + 1 < len(rest):
            model = model or rest[index + 1]
        elif token.startswith("--model="):
            model = model or token.partition("=")[2]
    if model is None:
        raise CommandError(f"`{launcher}` without a model: give MODEL (or --model MODEL)")
    return {"launcher": launcher, "model": model, "args": list(rest), "env": env,
            "image": image}


def _docker(words: list[str], env: dict[str, str]) -> ParsedCommand | None:
    entrypoint = None
    at = 0
    while at < len(words) and words[at].startswith("-"):
        option, eq, inline = words[at].partition("=")
        takes = option in _DOCKER_VALUE and not eq
        value = words[at + 1] if takes and at + 1 < len(words) else inline
        if option in ("-e", "--env"):
            name, sep, val = value.partition("=")
            if name:
                env[name] = val if sep else f"${name}"
        elif option == "--entrypoint":
            entrypoint = value
        at += 2 if takes else 1
    if at >= len(words):
        return None
    image, rest = words[at], words[at + 1:]
    launcher = f"docker run {image}"
    entry = (entrypoint or "").rsplit("/", 1)[-1]
    if rest[:2] == ["vllm", "serve"]:
        return _serve(launcher, rest[2:], env, image)
    if entry == "vllm" and rest[:1] == ["serve"]:
        return _serve(launcher, rest[1:], env, image)
    if entry in ("bash", "sh") and "-c" in rest:
        script = rest[rest.index("-c") + 1:]
        if script:
            found = _find_engines(_statements(script[0]), env)
            if len(found) == 1:
                return {**found[0], "launcher": launcher, "image": image}
        return None
    if not entrypoint and "vllm" in image.lower():
        return _serve(launcher, rest, env, image)
    return None


# ----------------------------------------------------------------------------- options


def option_identity(flag: str) -> tuple[str, bool]:
    """(identity, polarity) of an option string: `--no-x` → ("--x", False); `--a_b.c` →
    ("--a-b.c", True); `-tp` → ("--tensor-parallel-size", True)."""
    name = SHORT_FLAGS.get(flag, flag).split("=", 1)[0]
    head, dot, tail = name.partition(".")
    head = head.lstrip("-").replace("_", "-")
    on = True
    if head.startswith("no-"):
        head, on = head[3:], False
    if head.startswith("enable-"):
        head = head[7:]
    elif head.startswith("disable-"):
        head, on = head[8:], not on
    return f"--{head}{dot}{tail}", on


def _group(args: Sequence[str]) -> list[tuple[str, list[str]]]:
    groups: list[tuple[str, list[str]]] = []
    for token in args:
        if _FLAG.match(token) and not _NUMBER.match(token):
            flag, eq, inline = token.partition("=")
            groups.append((flag, [inline] if eq else []))
        elif groups:
            groups[-1][1].append(token)
    return groups


def _json_value(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return loads_json(stripped)
        except ValueError:
            return text
    return text


def _scalar(text: str) -> Any:
    """A dotted key's value: JSON when it parses (numbers, true, objects), else the text."""
    try:
        return loads_json(text)
    except ValueError:
        return text


def engine_options(args: Sequence[str]) -> dict[str, tuple[str, Any]]:
    """Identity → (flag as written, value). A switch's value is True/False, a JSON object's
    a dict, one value a str, several a list of str. `--model` is left out. CommandError for a
    dotted key deeper than MAX_JSON_DEPTH."""
    options: dict[str, tuple[str, Any]] = {}
    for flag, values in _group(args):
        key, on = option_identity(flag)
        if key == "--model":
            continue
        head, dot, path = key.partition(".")
        if dot and path.count(".") >= MAX_JSON_DEPTH:
            raise CommandError(f"{head}: a dotted key deeper than {MAX_JSON_DEPTH} levels")
        if dot:
            written, current = options.get(head, (flag.split(".")[0], {}))
            data = dict(current) if isinstance(current, dict) else {}
            _set_path(data, path.split("."), _scalar(" ".join(values)) if values else True)
            options.pop(head, None)
            options[head] = (written, data)
            continue
        if not values:
            value: Any = on
        elif len(values) == 1:
            value = _json_value(values[0])
        else:
            value = list(values)
        options.pop(key, None)
        options[key] = (flag, value)
    return options


def _set_path(data: dict[str, Any], path: list[str], value: Any) -> None:
    for part in path[:-1]:
        child = data.get(part)
        data[part] = child = dict(child) if isinstance(child, dict) else {}
        data = child
    data[path[-1]] = value


# ----------------------------------------------------------------------------- diffing


def _text(flag: str, value: Any) -> str:
    """A value as a person reads it: a switch as its flag as written (`--no-x`), JSON compact,
    several values space-separated."""
    if isinstance(value, bool):
        return flag if flag.startswith("-") else json.dumps(value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or (isinstance(a, str) and a.lower() == str(b).lower()) or (
            isinstance(b, str) and b.lower() == str(a).lower())
    if a == b:
        return True
    sa, sb = str(a), str(b)
    if _NUMBER.match(sa) and _NUMBER.match(sb):
        return float(sa) == float(sb)
    return False


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            flat.update(_flatten(value, path + "."))
        else:
            flat[path] = value
    return flat


def _status(ours: Any, theirs: Any) -> str:
    if ours is None:
        return "added"
    if theirs is None:
        return "removed"
    return "equal" if _same(ours, theirs) else "changed"


def _entry(key: str, name: str, kind: str, ours: Any, theirs: Any,
           keys: list[ValueDiff] | None = None, *, written: tuple[str, str] = ("", "")
           ) -> ValueDiff:
    return {
        "key": key,
        "name": name,
        "status": _status(ours, theirs),
        "kind": kind,
        "recipe": None if ours is None else _text(written[0], ours),
        "command": None if theirs is None else _text(written[1], theirs),
        "keys": keys or [],
    }


def _kind(key: str) -> str:
    if key.startswith(DYNAMO_PREFIXES) or key in DYNAMO_FLAGS:
        return "dynamo"
    return "deployment" if key in DEPLOYMENT_FLAGS else "engine"


def _flag_entry(key: str, ours: tuple[str, Any] | None,
                theirs: tuple[str, Any] | None) -> ValueDiff:
    either = ours or theirs
    assert either is not None, "an option one of the two commands sets"
    name = either[0]
    if name in SHORT_FLAGS:
        name = SHORT_FLAGS[name]
    a = ours[1] if ours else None
    b = theirs[1] if theirs else None
    keys: list[ValueDiff] = []
    if isinstance(a, dict) and isinstance(b, dict):
        fa, fb = _flatten(a), _flatten(b)
        for path in [*fa, *(p for p in fb if p not in fa)]:
            keys.append(_entry(f"{key}.{path}", path, _kind(key), fa.get(path), fb.get(path)))
    written = ((ours or ("", None))[0], (theirs or ("", None))[0])
    return _entry(key, name, _kind(key), a, b, keys, written=written)


def diff_commands(recipe: ParsedCommand, command: ParsedCommand) -> CommandDiff:
    """The recipe's engine command (the base) against `command`."""
    ours = engine_options(recipe["args"])
    theirs = engine_options(command["args"])
    flags = [_flag_entry(k, ours[k], theirs.get(k)) for k in ours]
    flags += [_flag_entry(k, None, theirs[k]) for k in theirs if k not in ours]
    # A variable passed through by name (`docker run -e HF_TOKEN`: the host's own value,
    # which the page's Docker form does for the token) sets nothing to compare.
    passed = {n for n, v in command["env"].items() if v == f"${n}" and n not in recipe["env"]}
    env = [
        _entry(name, name, "deployment" if DEPLOYMENT_ENV.match(name) else "engine",
               recipe["env"].get(name), command["env"].get(name))
        for name in [*recipe["env"], *(n for n in command["env"]
                                       if n not in recipe["env"] and n not in passed)]
    ]
    model = _entry("model", "model", "engine", recipe["model"], command["model"])
    image = None
    if command["image"] and recipe["image"]:
        image = _entry("image", "image", "deployment", recipe["image"], command["image"])
    result: CommandDiff = {
        "model": model,
        "image": image,
        "flags": flags,
        "env": env,
        "counts": _counts(flags, env),
        "distance": 0.0,
        "summary": "",
    }
    result["distance"] = distance(result)
    result["summary"] = summarize(result["counts"], model["status"] != "equal")
    return result


def _counts(flags: list[ValueDiff], env: list[ValueDiff]) -> dict[str, int]:
    counts = dict.fromkeys(STATUSES, 0)
    counts["deployment"] = 0
    for entry in [*flags, *env]:
        if entry["kind"] == "engine":
            counts[entry["status"]] += 1
        elif entry["status"] != "equal":
            counts["deployment"] += 1
    return counts


def claim_key(claim: str) -> str:
    """The identity a claim names, as diff entries are keyed: a flag by `option_identity`
    (`--no-x` → `--x`), a JSON key as `--flag.key`, an environment variable as `$NAME`."""
    if claim.startswith("$"):
        return claim
    return option_identity(claim)[0]


def _with_status(entry: ValueDiff, status: str) -> ValueDiff:
    changed = entry.copy()
    changed["status"] = status
    return changed


def _kept_entry(entry: ValueDiff, kept: frozenset[str], *, env: bool = False) -> ValueDiff:
    """`entry` with the kept claims that differ marked `recipe_changed` (see `mark_kept`)."""
    key = f"${entry['key']}" if env else entry["key"]
    if entry["status"] in ("equal", "removed"):  # a kept claim names what the command sets
        return entry
    if key in kept:
        keys = [_with_status(k, "recipe_changed") if k["status"] != "equal" else k
                for k in entry["keys"]]
        return {**entry, "status": "recipe_changed", "keys": keys}
    if entry["keys"]:
        keys = [_kept_entry(k, kept) for k in entry["keys"]]
        differing = [k["status"] for k in keys if k["status"] != "equal"]
        whole = bool(differing) and all(s == "recipe_changed" for s in differing)
        return {**entry, "keys": keys, "status": "recipe_changed" if whole else entry["status"]}
    # A JSON object only one side sets: recipe_changed when every key of it was kept.
    value = _json_value(entry["command"] or "")
    if (entry["status"] == "added" and isinstance(value, dict) and value
            and all(f"{key}.{path}" in kept for path in _flatten(value))):
        return {**entry, "status": "recipe_changed"}
    return entry


def mark_kept(diff: CommandDiff, kept: Iterable[str]) -> CommandDiff:
    """The diff of a command that says it kept the recipe settings `kept` (claims: `--flag`,
    `--flag.json_key`, `$NAME`). Each of them that is not equal becomes `recipe_changed`,
    and so does a JSON flag whose differing keys all are; counts and summary follow. The
    distance is unchanged: the settings still differ, whoever changed them."""
    claims = frozenset(claim_key(claim) for claim in kept)
    flags = [_kept_entry(entry, claims) for entry in diff["flags"]]
    env = [_kept_entry(entry, claims, env=True) for entry in diff["env"]]
    counts = _counts(flags, env)
    return {**diff, "flags": flags, "env": env, "counts": counts,
            "summary": summarize(counts, diff["model"]["status"] != "equal")}


def _size(text: str | None) -> int:
    """Keys in a JSON object's text (at least 1): what adding or dropping it weighs."""
    value = _json_value(text or "")
    return max(1, len(_flatten(value))) if isinstance(value, dict) else 1


def distance(diff: CommandDiff) -> float:
    """How far apart: 2 for another model; per engine flag added, removed or changed, 1 — for
    a JSON object, 1 per key that differs (all its keys when only one side has it); ½ per
    environment variable. Deployment-specific and Dynamo entries weigh nothing."""
    total = 0.0 if diff["model"]["status"] == "equal" else 2.0
    for entry in diff["flags"]:
        if entry["kind"] != "engine" or entry["status"] == "equal":
            continue
        if entry["keys"]:
            total += sum(1 for k in entry["keys"] if k["status"] != "equal")
        else:
            total += _size(entry["recipe"] if entry["status"] == "removed" else entry["command"])
    total += 0.5 * sum(1 for e in diff["env"] if e["kind"] == "engine" and e["status"] != "equal")
    return total
