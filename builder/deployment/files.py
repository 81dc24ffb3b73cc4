"""Files for where the server runs, made from a builder result (the same commands the page and
the CLI show; no second set of rules):

- `vllm-config`: the YAML file `vllm serve --config FILE` reads, the command's options as keys
  (vLLM's config-file rules: a bare flag is `true`, a flag with several values a list, a JSON
  object a mapping; everything else a string vLLM passes on as it is), and the one-line command
  that uses it (the environment in front);
- `compose`: a Docker Compose service translated from the command's `docker run` form, option by
  option (`DOCKER_RUN` below: NVIDIA's `--gpus` becomes a device reservation, the other brands'
  `--device`, `--group-add`, ... their Compose keys), with a health check on `/health`;
- `k8s`: for one server, a Deployment, a Service and a PersistentVolumeClaim for the Hugging Face
  cache (the accelerators as the generation's `kubernetes_resource` in hardware.yaml, `/dev/shm`
  as a memory `emptyDir`, startup, readiness and liveness probes on `/health`); for a multi-node
  server, a LeaderWorkerSet (leader = node 0's command, one worker template filled in from
  `LWS_WORKER_INDEX`) and a Service on the leader.

Each format is offered or not, with the reason: prefill/decode and KV-store selections run
several kinds of servers (on Kubernetes, prefill/decode is NVIDIA Dynamo's job), Compose runs on
one host, a Docker-based file needs the Docker install, and Kubernetes needs a device-plugin
resource for the hardware.
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from ..arglist import SHORT_FLAGS, split_options
from ..commands.deploy_types import DeployType, deploy_type
from ..commands.docker import HF_TOKEN, node_devices
from ..commands.multi_node import RANK_FLAGS
from ..shell import command_text, env_lines, quote
from ..types import Command, Data, Result
from ..yaml_text import comment_lines, dump, dump_all

__all__ = ["FILE_FORMATS", "DeployFile", "FileFormat", "data_url", "deploy_file",
           "deploy_files"]

HF_CACHE_PATH = "/root/.cache/huggingface"
HEALTH = "/health"
LEADER_ADDRESS = "$LWS_LEADER_ADDRESS"
WORKER_INDEX = "LWS_WORKER_INDEX"
VARIABLES = {"HEAD_IP": LEADER_ADDRESS}
"""Shell variables of the commands that a LeaderWorkerSet sets for them."""
_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_EXPANDABLE = re.compile(r"^(?:[\w@%+=:,./-]|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?)+$")
_INT = re.compile(r"^(0|-?[1-9][0-9]*)$")


@dataclass(frozen=True)
class FileFormat:
    label: str
    filename: str
    media_type: str = "application/yaml"


FILE_FORMATS: dict[str, FileFormat] = {
    "vllm-config": FileFormat("vLLM config", "vllm-config.yaml"),
    "compose": FileFormat("Docker Compose", "compose.yaml"),
    "k8s": FileFormat("Kubernetes", "k8s.yaml"),
}
"""The `--format` values (the CLI) and the page's file choices, in order."""


class DeployFile(TypedDict):
    format: str
    label: str
    filename: str
    available: bool
    reason: str | None
    """Why the format is not offered for this selection (None when it is)."""
    usage: str | None
    """The command that uses the file."""
    text: str | None
    """The file."""


class _Refused(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# ------------------------------------------------------------------------------ helpers


def _deploy_type(catalog: Data, result: Result) -> DeployType:
    return deploy_type(catalog["strategies"][result["selection"]["strategy"]])


def _hardware(catalog: Data, result: Result) -> Data:
    return catalog["hardware"][result["selection"]["hardware"]]


def _servers(catalog: Data, result: Result, fmt: str, *, dynamo: bool) -> list[Command]:
    """The commands a file can hold, or _Refused: one server (on one or several nodes)."""
    refusal = _deploy_type(catalog, result).file_refusal
    if refusal is not None:
        raise _Refused(refusal(fmt, result["hf_id"], dynamo))
    commands = result["commands"]
    if len(commands) > 1:
        if fmt == "vllm-config":
            raise _Refused(f"this selection runs one server over {len(commands)} nodes, each "
                           "with its own options; use the commands or the Kubernetes file")
        if fmt == "compose":
            raise _Refused(f"Compose runs containers on one host; this selection spans "
                           f"{len(commands)} nodes (the Kubernetes file has a LeaderWorkerSet)")
    return commands


def _needs_docker(result: Result) -> None:
    docker = result["install"]["docker"]
    if not docker["available"]:
        raise _Refused(docker["reason"] or "no Docker install for this selection")


def _name(result: Result) -> str:
    """A Kubernetes / Compose name from the model id: `vllm-qwen3-8b`."""
    repo = result["model_id"].rsplit("/", 1)[-1].lower()
    slug = re.sub(r"[^a-z0-9]+", "-", repo).strip("-")[:40].strip("-")
    return f"vllm-{slug or 'model'}"


def _devices_used(catalog: Data, result: Result, command: Command) -> int:
    """The accelerators one command's server uses on its node: the same rule as its
    `docker run --gpus` (`docker.node_devices`)."""
    return node_devices(command["argv"], omni=_deploy_type(catalog, result).omni)


def _header(result: Result, lines: list[str]) -> str:
    return comment_lines("\n".join([f"{result['hf_id']}: {result['summary']}", *lines]))


def _env_prefix(env: Mapping[str, str]) -> str:
    return "".join(f"{name}={quote(value)} " for name, value in env.items())


def _compose_value(token: str) -> str:
    """A token for Compose, which interpolates `$VAR` itself: a reference the shell would
    expand stays one, any other `$` is escaped as `$$`."""
    if "$" in token and not _EXPANDABLE.match(token):
        return token.replace("$", "$$")
    return token


def _variables(command: Command) -> list[str]:
    names: list[str] = []
    for token in [*command["argv"], *command["env"].values()]:
        names += [n for n in _VAR.findall(token) if n not in names]
    return names


# ------------------------------------------------------------------------------ vllm-config


def _config_key(flag: str) -> str:
    name = flag.split("=", 1)[0]
    head, dot, tail = name.partition(".")
    return SHORT_FLAGS.get(head, head).removeprefix("--") + dot + tail


def _config_value(tokens: tuple[str, ...]) -> Any:
    """What the config file holds for an option's value tokens (see the module docstring)."""
    if not tokens:
        return True
    if len(tokens) > 1:
        return list(tokens)
    token = tokens[0]
    if _INT.match(token):
        return int(token)  # vLLM reads `str(value)`: the same word
    if token.startswith("{"):
        try:
            parsed = json.loads(token)
        except ValueError:
            return token
        if isinstance(parsed, dict):
            return parsed
    return token


def vllm_config(catalog: Data, recipe: Data, result: Result, *, dynamo: bool = False
                ) -> tuple[str, str]:
    """(file text, the command that uses it)."""
    (command,) = _servers(catalog, result, "vllm-config", dynamo=dynamo)
    if _deploy_type(catalog, result).omni:
        raise _Refused("not offered for vLLM-Omni servers; use the command")
    argv = command["argv"]
    data: dict[str, Any] = {"model": argv[2]}
    for option in split_options(argv[3:]):
        flag, values = option[0], tuple(option[1:])
        if "=" in flag:
            flag, value = flag.split("=", 1)
            values = (value, *values)
        data[_config_key(flag)] = _config_value(values)
    filename = FILE_FORMATS["vllm-config"].filename
    usage = f"{_env_prefix(command['env'])}vllm serve --config {filename}"
    text = _header(result, [f"Run: {usage}"]) + dump(data)
    return text, usage


# ------------------------------------------------------------------------------ compose


def _gpus(service: Data, value: str) -> None:
    """`--gpus all`, `--gpus N` or `--gpus '"device=0,1"'` as a device reservation (`count`
    or `device_ids`)."""
    device: Data = {"driver": "nvidia"}
    listed = value.strip('"')
    if listed.startswith("device="):
        device["device_ids"] = listed.removeprefix("device=").split(",")
    else:
        device["count"] = "all" if value == "all" else int(value)
    device["capabilities"] = ["gpu"]
    service.setdefault("deploy", {}).setdefault("resources", {}).setdefault(
        "reservations", {}).setdefault("devices", []).append(device)


def _append(key: str) -> Callable[[Data, str], None]:
    return lambda service, value: service.setdefault(key, []).append(value)


def _set(key: str) -> Callable[[Data, str], None]:
    return lambda service, value: service.__setitem__(key, value)


def _env(service: Data, value: str) -> None:
    """`-e NAME=VALUE`, or `-e NAME`: passed through from the shell Compose runs in, by name
    (`${NAME:-}`: empty, without a warning, when the shell has none)."""
    name, eq, text = value.partition("=")
    service.setdefault("environment", {})[name] = _compose_value(text) if eq else f"${{{name}:-}}"


DOCKER_RUN: dict[str, Callable[[Data, str], None] | None] = {
    "--gpus": _gpus,
    "--device": _append("devices"),
    "--group-add": _append("group_add"),
    "--security-opt": _append("security_opt"),
    "--cap-add": _append("cap_add"),
    "-v": _append("volumes"),
    "-e": _env,
    "-p": _append("ports"),
    "--ipc": _set("ipc"),
    "--network": _set("network_mode"),
    "--shm-size": _set("shm_size"),
    "--runtime": _set("runtime"),
    "--privileged": None,
}
"""`docker run` options → what they set in a Compose service (None: a switch, `true`;
`--privileged` is here for the one brand whose vendor requires it, the TPU)."""
SWITCHES = {"--privileged": "privileged"}


def _compose_service(argv: list[str], port: int | None) -> Data:
    """A Compose service from a `docker run ... IMAGE ARGS` argv (options of `DOCKER_RUN`)."""
    service: Data = {}
    at = 2
    while at < len(argv) and argv[at].startswith("-"):
        flag, eq, value = argv[at].partition("=")
        if flag not in DOCKER_RUN:
            raise ValueError(f"no Compose key for the docker run option {flag}")
        handler = DOCKER_RUN[flag]
        if handler is None:
            service[SWITCHES[flag]] = True
            at += 1
            continue
        if not eq:
            at += 1
            value = argv[at]
        handler(service, value)
        at += 1
    image, command = argv[at], argv[at + 1:]
    out: Data = {"image": image, "command": [_compose_value(t) for t in command]}
    for key in ("environment", "ports", "ipc", "network_mode", "privileged", "shm_size",
                "runtime", "devices", "group_add", "security_opt", "cap_add", "volumes",
                "deploy"):
        if key in service:
            out[key] = service[key]
    if out.get("network_mode") == "host":
        out.pop("ports", None)  # the server listens on the host's own ports
    probe = f"http://localhost:{port or 8000}{HEALTH}"
    out["healthcheck"] = {
        "test": ["CMD", "python3", "-c",
                 f"import urllib.request; urllib.request.urlopen('{probe}')"],
        "interval": "30s", "timeout": "5s", "retries": 3, "start_period": "20m",
    }
    return out


def compose_file(catalog: Data, recipe: Data, result: Result, *, dynamo: bool = False
                 ) -> tuple[str, str]:
    (command,) = _servers(catalog, result, "compose", dynamo=dynamo)
    _needs_docker(result)
    if not command["docker_argv"]:
        raise _Refused("this command has no docker run form")
    service = _compose_service(command["docker_argv"], command["port"])
    filename = FILE_FORMATS["compose"].filename
    usage = f"docker compose -f {filename} up -d"
    lines = [f"Run: {usage}"]
    if service.get("environment", {}).get(HF_TOKEN) == f"${{{HF_TOKEN}:-}}":
        lines.append(f"{HF_TOKEN} comes from your shell or a .env file when set (gated models "
                     "need it).")
    names = [n for n in _variables(command) if n not in command["env"]]
    if names:
        lines.append("Compose fills in " + ", ".join(f"${n}" for n in names)
                     + " from your shell or a .env file: set them first.")
    return _header(result, lines) + dump({"services": {"vllm": service}}), usage


# ------------------------------------------------------------------------------ k8s


def _resource(catalog: Data, hw: Data) -> str | None:
    """The device-plugin resource of the hardware's accelerators; None for a CPU host.
    _Refused when the hardware has accelerators and no known resource."""
    generation = catalog["generations"][hw["generation"]]
    brand = catalog["brands"][hw["brand"]]
    resource = generation.get("kubernetes_resource")
    if resource is None and brand.get("visible_devices_env"):
        raise _Refused(f"no Kubernetes device-plugin resource is recorded for "
                       f"{generation['display_name']} ({hw['display_name']})")
    return resource


def _probe(port_name: str, **timing: int) -> Data:
    return {"httpGet": {"path": HEALTH, "port": port_name}, **timing}


def _container(command: Command, image: str, resource: str | None, devices: int,
               script: str | None) -> Data:
    """One vLLM container: the command as `vllm serve` args, or through `sh -c` when it
    needs the shell (variables)."""
    container: Data = {"name": "vllm", "image": image}
    if script is None:
        container["command"] = command["argv"][:2]
        container["args"] = command["argv"][2:]
        env: list[Data] = [{"name": k, "value": v} for k, v in command["env"].items()]
    else:
        container["command"] = ["/bin/sh", "-c"]
        container["args"] = [script]
        env = []
    env.append({"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {
        "name": "hf-token", "key": "token", "optional": True}}})
    container["env"] = env
    if command["port"] is not None:
        container["ports"] = [{"name": "http", "containerPort": command["port"]}]
        container["startupProbe"] = _probe("http", periodSeconds=10, failureThreshold=180)
        container["readinessProbe"] = _probe("http", periodSeconds=10, failureThreshold=3)
        container["livenessProbe"] = _probe("http", periodSeconds=30, failureThreshold=3)
    if resource is not None:
        container["resources"] = {"limits": {resource: devices}}
    container["volumeMounts"] = [{"name": "hf-cache", "mountPath": HF_CACHE_PATH},
                                 {"name": "dshm", "mountPath": "/dev/shm"}]
    return container


def _volumes(claim: str) -> list[Data]:
    return [{"name": "hf-cache", "persistentVolumeClaim": {"claimName": claim}},
            {"name": "dshm", "emptyDir": {"medium": "Memory"}}]


def _script(command: Command, argv: list[str], extra: Mapping[str, str] | None = None) -> str:
    """The shell text of `command` with `argv`, for `sh -c`: exports, then `exec`. `extra`
    maps placeholder words of `argv` to shell text put in as it is."""
    exports = {**{name: value for name, value in VARIABLES.items()
                  if name in _variables(command)}, **command["env"]}
    head = "".join(f"export {n}={v}\n" if v == LEADER_ADDRESS else env_lines({n: v})
                   for n, v in exports.items())
    text = command_text(argv, 3)
    for word, shell in (extra or {}).items():
        text = text.replace(quote(word), shell)
    return f"{head}exec {text}"


def _claim(name: str, recipe: Data, result: Result, *, shared: bool) -> Data:
    need = recipe["variants"][result["selection"]["variant"]]["vram_minimum_gb"]
    return {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": f"{name}-hf-cache"},
        "spec": {"accessModes": ["ReadWriteMany" if shared else "ReadWriteOnce"],
                 "resources": {"requests": {"storage": f"{max(50, math.ceil(need * 1.5))}Gi"}}},
    }


def _service(name: str, port: int, selector: Data) -> Data:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
            "spec": {"selector": selector,
                     "ports": [{"name": "http", "port": port, "targetPort": "http"}]}}


def _rank_argv(worker: Command) -> tuple[list[str], dict[str, str]]:
    """Node 1's argv with each rank-dependent value a placeholder, and the shell arithmetic
    that fills it in on every worker (`RANK_FLAGS` values are the rank times their node-1
    value)."""
    argv = list(worker["argv"])
    fill: dict[str, str] = {}
    for at, token in enumerate(argv[:-1]):
        if token in RANK_FLAGS:
            step = int(argv[at + 1])
            word = f"RANK_TIMES_{step}"
            argv[at + 1] = word
            fill[word] = (f'"${WORKER_INDEX}"' if step == 1
                          else f'"$(({WORKER_INDEX} * {step}))"')
    return argv, fill


def k8s_file(catalog: Data, recipe: Data, result: Result, *, dynamo: bool = False
             ) -> tuple[str, str]:
    commands = _servers(catalog, result, "k8s", dynamo=dynamo)
    _needs_docker(result)
    hw = _hardware(catalog, result)
    resource = _resource(catalog, hw)
    name, image = _name(result), result["docker_image"]
    head = commands[0]
    devices = _devices_used(catalog, result, head)
    port = head["port"] or 8000
    filename = FILE_FORMATS["k8s"].filename
    usage = f"kubectl apply -f {filename}"
    lines = [f"Apply: {usage}", f"Then: kubectl port-forward service/{name} {port}:{port}",
             "A Secret hf-token (key: token) is passed as HF_TOKEN when it exists."]
    user = [n for c in commands for n in _variables(c) if n not in VARIABLES
            and n not in c["env"]]
    if user:
        lines.append("The commands refer to " + ", ".join(dict.fromkeys(f"${n}" for n in user))
                     + ": set them in the container's environment.")
    label = {"app.kubernetes.io/name": name}
    if len(commands) == 1:
        script = _script(head, head["argv"]) if _variables(head) else None
        pod = {"containers": [_container(head, image, resource, devices, script)],
               "volumes": _volumes(f"{name}-hf-cache")}
        deployment = {
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 1, "selector": {"matchLabels": label},
                     "template": {"metadata": {"labels": label}, "spec": pod}},
        }
        documents = [_claim(name, recipe, result, shared=False), deployment,
                     _service(name, port, label)]
    else:
        argv, fill = _rank_argv(commands[1])
        leader = {"containers": [_container(head, image, resource, devices,
                                            _script(head, head["argv"]))],
                  "volumes": _volumes(f"{name}-hf-cache")}
        worker = {"containers": [_container(commands[1], image, resource, devices,
                                            _script(commands[1], argv, fill))],
                  "volumes": _volumes(f"{name}-hf-cache")}
        lws = {
            "apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
            "metadata": {"name": name},
            "spec": {"replicas": 1, "leaderWorkerTemplate": {
                "size": len(commands), "restartPolicy": "RecreateGroupOnPodRestart",
                "leaderTemplate": {"metadata": {"labels": {"role": "leader"}}, "spec": leader},
                "workerTemplate": {"spec": worker}}},
        }
        lines.insert(1, "Needs the LeaderWorkerSet controller (lws.sigs.k8s.io) and a storage "
                        "class that offers ReadWriteMany volumes for the shared cache.")
        documents = [_claim(name, recipe, result, shared=True), lws,
                     _service(name, port, {"leaderworkerset.sigs.k8s.io/name": name,
                                           "role": "leader"})]
    return _header(result, lines) + dump_all(documents), usage


# ------------------------------------------------------------------------------ all formats

_MAKERS = {"vllm-config": vllm_config, "compose": compose_file, "k8s": k8s_file}


def deploy_file(catalog: Data, recipe: Data, result: Result, fmt: str, *,
                dynamo: bool = False) -> DeployFile:
    """The file of format `fmt` (a key of FILE_FORMATS) for `result`, or why there is none.
    `dynamo`: the model has NVIDIA Dynamo deployments (a refusal points at them)."""
    spec = FILE_FORMATS[fmt]
    entry: DeployFile = {"format": fmt, "label": spec.label, "filename": spec.filename,
                         "available": False, "reason": None, "usage": None, "text": None}
    try:
        text, usage = _MAKERS[fmt](catalog, recipe, result, dynamo=dynamo)
    except _Refused as refused:
        entry["reason"] = refused.reason
        return entry
    entry["available"], entry["text"], entry["usage"] = True, text, usage
    return entry


def deploy_files(catalog: Data, recipe: Data, result: Result, *, dynamo: bool = False
                 ) -> dict[str, DeployFile]:
    return {fmt: deploy_file(catalog, recipe, result, fmt, dynamo=dynamo)
            for fmt in FILE_FORMATS}


def data_url(entry: DeployFile) -> str:
    """A `data:` URL of the file, for a download link that needs no script."""
    media = FILE_FORMATS[entry["format"]].media_type
    payload = base64.b64encode((entry["text"] or "").encode()).decode()
    return f"data:{media};base64,{payload}"
