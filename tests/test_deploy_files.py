"""Issue 27.4: `--format vllm-config|compose|k8s` (builder/deployment/files.py), checked against
the formats' own definitions (tests/deploy_checks.py): the Compose Specification's schema,
Kubernetes' schemas (kubernetes-validate), the LeaderWorkerSet CRD's schema, vLLM's
config-file rules and, where the parser environment exists, vLLM's own parser."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from builder import build
from builder.deployment.files import FILE_FORMATS, data_url, deploy_file, deploy_files
from builder.errors import SelectionError
from builder.types import Result
from builder.yaml_text import dump, dump_all
from tests.deploy_checks import (
    compose_problems,
    config_argv,
    kubernetes_problems,
    vllm_parser_error,
)
from tests.recipes_data import ROOT, builder_catalog, builder_recipe, hf_ids, kept_builder
from tests.vllm_parser.envs import Parsers

QWEN = "Qwen/Qwen3-8B"
FLASH = "deepseek-ai/DeepSeek-V4-Flash"


def files(hf_id: str, query: dict[str, str]) -> tuple[Result, dict[str, Any]]:
    catalog, recipe = builder_catalog(), builder_recipe(hf_id)
    result = kept_builder(hf_id).build(query)  # a fresh `build`'s result, byte for byte
    return result, deploy_files(catalog, recipe, result)


@cache
def samples() -> list[tuple[str, dict[str, str]]]:
    """Every recipe's default selection, and for every hardware id the first recipe that
    offers it (so each brand's devices and resources are exercised)."""
    catalog = builder_catalog()
    picked = [(hf_id, {}) for hf_id in hf_ids()]
    for hw_id in catalog["hardware"]:
        for hf_id in hf_ids():
            try:
                kept_builder(hf_id).resolve({"hardware": hw_id})
            except SelectionError:  # not offered there
                continue
            picked.append((hf_id, {"hardware": hw_id}))
            break
    return picked


def option_words(argv: list[str]) -> list[str]:
    """argv in the form a config file gives it back: `--flag=value` as two words, JSON
    objects re-serialized (vLLM parses both forms alike)."""
    out = []
    for token in argv:
        if token.startswith("--") and "=" in token:
            out += token.split("=", 1)
            continue
        if token.startswith("{"):
            token = json.dumps(json.loads(token))
        out.append(token)
    return out


# ---------------------------------------------------------------------------- the issue's


def test_qwen3_8b_on_h100_in_all_three_formats() -> None:
    result, made = files(QWEN, {"hardware": "h100"})
    serve = result["commands"][0]
    k8s = made["k8s"]
    assert k8s["available"] and kubernetes_problems(k8s["text"]) == []
    kinds = [d["kind"] for d in yaml.safe_load_all(k8s["text"])]
    assert kinds == ["PersistentVolumeClaim", "Deployment", "Service"]
    deployment = list(yaml.safe_load_all(k8s["text"]))[1]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["command"] + container["args"] == serve["argv"]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 1}  # TP1: one GPU
    assert container["readinessProbe"]["httpGet"]["path"] == "/health"
    assert container["livenessProbe"]["httpGet"]["path"] == "/health"
    assert {"name": "dshm", "emptyDir": {"medium": "Memory"}} in (
        deployment["spec"]["template"]["spec"]["volumes"])

    compose = made["compose"]
    assert compose["available"] and compose_problems(compose["text"]) == []
    service = yaml.safe_load(compose["text"])["services"]["vllm"]
    docker = serve["docker_argv"]
    image_at = docker.index(result["docker_image"])
    assert service["image"] == result["docker_image"]
    assert service["command"] == docker[image_at + 1:]
    assert service["ipc"] == "host" and service["ports"] == ["8000:8000"]
    # issue 32: the one GPU the command uses, not all of them, and nothing privileged
    assert service["deploy"]["resources"]["reservations"]["devices"] == [
        {"driver": "nvidia", "device_ids": ["0"], "capabilities": ["gpu"]}]
    assert "privileged" not in service
    assert service["environment"]["HF_TOKEN"] == "${HF_TOKEN:-}"  # by name, from the shell
    assert {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {
        "name": "hf-token", "key": "token", "optional": True}}} in container["env"]
    assert "~/.cache/huggingface:/root/.cache/huggingface" in service["volumes"]
    assert "/health" in " ".join(service["healthcheck"]["test"])

    config = made["vllm-config"]
    assert config["available"]
    assert config["usage"] == "VLLM_USE_RUST_FRONTEND=1 vllm serve --config vllm-config.yaml"
    assert config_argv(config["text"]) == ["--model", QWEN, *serve["argv"][3:]]


@pytest.mark.parametrize(("hf_id", "query"), samples(),
                         ids=lambda v: v if isinstance(v, str) else ",".join(v.values()))
def test_every_file_made_validates(hf_id: str, query: dict[str, str]) -> None:
    result, made = files(hf_id, query)
    assert set(made) == set(FILE_FORMATS)
    for fmt, entry in made.items():
        assert entry["available"] == (entry["text"] is not None) == (entry["reason"] is None)
        if not entry["available"]:
            assert entry["reason"] and "\n" not in entry["reason"]
            continue
        text = entry["text"]
        assert text.startswith(f"# {result['hf_id']}: {result['summary']}\n")
        if fmt == "k8s":
            assert kubernetes_problems(text) == [], text
        elif fmt == "compose":
            assert compose_problems(text) == [], text
        else:
            (serve,) = result["commands"]
            assert option_words(config_argv(text)) == option_words(
                ["--model", *serve["argv"][2:3], *serve["argv"][3:]])


def test_every_brand_s_docker_devices_have_compose_keys() -> None:
    """The Compose service is the `docker run` form translated option by option: AMD's
    devices, groups and security options, Ascend's devices and mounts, the TPU's host
    network (which publishes no ports)."""
    _, amd = files(QWEN, {"hardware": "mi300x"})
    service = yaml.safe_load(amd["compose"]["text"])["services"]["vllm"]
    assert service["devices"] == ["/dev/kfd", "/dev/dri"]
    assert service["group_add"] == ["video"]
    assert service["security_opt"] == ["seccomp=unconfined"]
    assert "deploy" not in service
    k8s = list(yaml.safe_load_all(amd["k8s"]["text"]))[1]
    limits = k8s["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert list(limits) == ["amd.com/gpu"]
    _, tpu = files("google/gemma-4-26B-A4B-it", {"hardware": "trillium"})
    service = yaml.safe_load(tpu["compose"]["text"])["services"]["vllm"]
    assert service["network_mode"] == "host" and "ports" not in service
    assert not tpu["k8s"]["available"]
    assert tpu["k8s"]["reason"] == ("no Kubernetes device-plugin resource is recorded for TPU "
                                    "(TPU v6e (Trillium))")


def test_refusals_say_why() -> None:
    _, pd = files(FLASH, {"hardware": "h200", "variant": "fp8", "strategy": "pd_cluster"})
    assert not any(entry["available"] for entry in pd.values())
    assert "NVIDIA Dynamo" in pd["k8s"]["reason"]
    catalog, recipe = builder_catalog(), builder_recipe(FLASH)
    result = build(catalog, recipe, {"hardware": "h200", "variant": "fp8",
                                     "strategy": "pd_cluster"})
    with_dynamo = deploy_file(catalog, recipe, result, "k8s", dynamo=True)
    assert with_dynamo["reason"] == (
        "prefill/decode disaggregation on Kubernetes is NVIDIA Dynamo's job: see the Dynamo "
        f"targets (vllm-recipes {FLASH} --dynamo)")
    _, multi = files(FLASH, {"hardware": "h200", "strategy": "multi_node_dep", "nodes": "2"})
    assert multi["compose"]["reason"].startswith("Compose runs containers on one host")
    assert multi["k8s"]["available"]
    _, omni = files("Qwen/Qwen-Image", {})
    assert omni["vllm-config"]["reason"] == "not offered for vLLM-Omni servers; use the command"


# ---------------------------------------------------------------------------- multi-node


def _stub_vllm(bin_dir: Path) -> None:
    """A `vllm` that prints its argv and the environment variables the commands set, as
    JSON, instead of serving."""
    bin_dir.mkdir(exist_ok=True)
    stub = bin_dir / "vllm"
    stub.write_text(f"#!{sys.executable}\nimport json, os, sys\n"
                    "print(json.dumps({'argv': ['vllm', *sys.argv[1:]], 'env': dict(os.environ)"
                    "}))\n")
    stub.chmod(stub.stat().st_mode | stat.S_IEXEC)


def _run_container(container: dict[str, Any], bin_dir: Path, env: dict[str, str]
                   ) -> dict[str, Any]:
    """Run a container's command the way the kubelet does (command + args; `$(VAR)` is not
    used), with the stub `vllm` first on PATH."""
    argv = [*container["command"], *container["args"]]
    if argv[0] == "vllm":
        argv[0] = str(bin_dir / "vllm")
    out = subprocess.run(argv, env={"PATH": f"{bin_dir}:/usr/bin:/bin", **env},
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


KIMI = "moonshotai/Kimi-K2-Instruct"


@pytest.mark.parametrize(("hf_id", "strategy", "nodes"), [
    (FLASH, "multi_node_dep", "2"), (FLASH, "multi_node_dep", "3"), (KIMI, "multi_node_tp", "2"),
    (KIMI, "multi_node_tp_pp", "4")])
def test_a_leaderworkerset_runs_each_node_s_command(tmp_path: Path, hf_id: str, strategy: str,
                                                   nodes: str) -> None:
    """The leader runs node 0's command and the one worker template, filled in from
    LWS_WORKER_INDEX, runs node r's command on worker r; $HEAD_IP is the leader's address."""
    result, made = files(hf_id, {"hardware": "h200", "strategy": strategy, "nodes": nodes})
    assert kubernetes_problems(made["k8s"]["text"]) == []
    docs = list(yaml.safe_load_all(made["k8s"]["text"]))
    lws = next(d for d in docs if d["kind"] == "LeaderWorkerSet")
    template = lws["spec"]["leaderWorkerTemplate"]
    assert template["size"] == int(nodes)
    for pod in (template["leaderTemplate"]["spec"], template["workerTemplate"]["spec"]):
        as_pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}, "spec": pod}
        assert kubernetes_problems(dump(as_pod)) == []  # the pod templates, strictly
    service = next(d for d in docs if d["kind"] == "Service")
    assert service["spec"]["selector"]["role"] == "leader"
    _stub_vllm(tmp_path / "bin")
    leader_ip = "10.1.2.3"
    for rank, command in enumerate(result["commands"]):
        spec = template["leaderTemplate" if rank == 0 else "workerTemplate"]["spec"]
        (container,) = spec["containers"]
        ran = _run_container(container, tmp_path / "bin",
                             {"LWS_LEADER_ADDRESS": leader_ip, "LWS_WORKER_INDEX": str(rank)})
        expected = [t.replace("$HEAD_IP", leader_ip) for t in command["argv"]]
        assert ran["argv"] == expected, rank
        for name, value in command["env"].items():
            assert ran["env"][name] == value
        gpus = container["resources"]["limits"]["nvidia.com/gpu"]
        assert gpus == 8  # every GPU of each H200 node


def test_a_command_that_needs_the_shell_runs_through_it(tmp_path: Path) -> None:
    """DeepSeek-V4-Flash on Ascend 910C extends $LD_PRELOAD: its Deployment runs the command
    through `sh -c`, exports first, and the variable comes out as the shell makes it."""
    result, made = files(FLASH, {"hardware": "ascend_910c"})
    (serve,) = result["commands"]
    assert any("$" in value for value in serve["env"].values())
    assert kubernetes_problems(made["k8s"]["text"]) == []
    deployment = list(yaml.safe_load_all(made["k8s"]["text"]))[1]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["/bin/sh", "-c"]
    _stub_vllm(tmp_path / "bin")
    ran = _run_container(container, tmp_path / "bin", {"LD_PRELOAD": "/x.so"})
    assert ran["argv"] == serve["argv"]
    assert ran["env"]["LD_PRELOAD"] == serve["env"]["LD_PRELOAD"].replace("$LD_PRELOAD", "/x.so")


# ---------------------------------------------------------------------------- vLLM's parser


@pytest.mark.vllm_parser
def test_vllm_parser_accepts_the_config_file(tmp_path: Path, parser: Parsers) -> None:
    """`vllm serve --config vllm-config.yaml` through vLLM 0.33.0's own parser, with the
    parser check of tests/vllm_parser/, in its process (like every vllm_parser test, it needs
    `make parser-envs`, and fails without it; `make test-fast` leaves it out)."""
    _, made = files(QWEN, {"hardware": "h100"})
    config = tmp_path / "vllm-config.yaml"
    config.write_text(made["vllm-config"]["text"], encoding="utf-8")
    assert vllm_parser_error(config, parser("vllm")) is None


# ---------------------------------------------------------------------------- the CLI


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)


def test_the_cli_prints_the_builder_s_file_or_one_line() -> None:
    _, made = files(QWEN, {"hardware": "h100"})
    for fmt in FILE_FORMATS:
        out = cli(QWEN, "hardware=h100", "--format", fmt)
        assert out.returncode == 0, out.stderr
        assert out.stdout == made[fmt]["text"]
    out = cli(FLASH, "hardware=h200", "strategy=multi_node_dep", "nodes=2", "--format",
              "compose")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("format: Compose runs containers on one host")
    assert out.stderr.count("\n") == 1
    pd = cli("deepseek-ai/DeepSeek-V4.1-Flash", "hardware=h200", "strategy=pd_cluster",
             "--format", "k8s")
    assert pd.returncode == 2
    assert pd.stderr == ("format: prefill/decode disaggregation on Kubernetes is NVIDIA "
                         "Dynamo's job: see the Dynamo targets (vllm-recipes "
                         "deepseek-ai/DeepSeek-V4.1-Flash --dynamo)\n")


def test_a_download_link_carries_the_file() -> None:
    import base64

    _, made = files(QWEN, {"hardware": "h100"})
    url = data_url(made["compose"])
    head, payload = url.split(",", 1)
    assert head == "data:application/yaml;base64"
    assert base64.b64decode(payload).decode() == made["compose"]["text"]


# ---------------------------------------------------------------------------- the emitter

TRICKY = ["yes", "No", "on", "null", "~", "", "1", "1.0", "0x1F", "1e3", "8000:8000", "a: b",
          "#x", "x #y", "-", "--flag", "-tp", "~/.cache", "é×", "line\nline", "two\n\nlines",
          " lead", "trail ", "\t", '"q"', "'q'", "{a: 1}", "[1]", "*x", "&x", "!x", "%x",
          "@x", "`x", "2026-01-01", "12:30", ".inf", "=", "<<", "?", "|", ">",
          "A\n", "--flag\n"]  # a word and a final line break (hypothesis found `A\n`)


def test_tricky_strings_come_back_as_they_were() -> None:
    data = {"strings": TRICKY, "keys": {s: s for s in TRICKY if s},
            "nested": [{"a": [], "b": {}, "c": [{"d": 1}]}, [1, [2]], None, True, 0.5]}
    assert yaml.safe_load(dump(data)) == data
    assert list(yaml.safe_load_all(dump_all([data, {"x": 1}]))) == [data, {"x": 1}]


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_string_comes_back_as_it_was(text: str) -> None:
    assert yaml.safe_load(dump({"k": text, "l": [text]})) == {"k": text, "l": [text]}



SEPARATORS = ["\n", "\r", "\x85", "\u2028", "\u2029", "\x0b", "\x1b", "\u202e", "\u200b"]


@pytest.mark.parametrize("separator", SEPARATORS, ids=repr)
def test_a_line_separator_in_a_label_or_value_injects_no_key(separator: str) -> None:
    """Issue 32.3: a variant label (in each file's header comment) and an environment value
    (in its data) holding a line separator or a character that does not print: every file
    re-parses to the same keys and values, and no line of it holds such a character."""
    import copy

    catalog, recipe = builder_catalog(), copy.deepcopy(builder_recipe(QWEN))
    variant = recipe["variants"]["default"]
    variant["label"] = f"BF16{separator}pwned: 1"
    variant["description"] = f"d{separator}pwned: 2"
    env_value = f"1{separator}pwned: 3"
    recipe["model"]["base_env"] = {**recipe["model"].get("base_env", {}), "X_TEST": env_value}
    result = build(catalog, recipe, {"hardware": "h100"})
    assert result["commands"][0]["env"]["X_TEST"] == env_value
    made = deploy_files(catalog, recipe, result)
    for fmt in FILE_FORMATS:
        text = made[fmt]["text"]
        assert made[fmt]["available"] and text, fmt
        for line in text.split("\n"):
            assert line.isprintable(), (fmt, line)
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
        assert not any("pwned" in key for key in _keys(docs)), fmt
        if fmt != "vllm-config":  # (a config file holds the arguments only)
            assert any(env_value in value for value in _strings(docs)), fmt


def _keys(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [str(k) for k in data] + [k for v in data.values() for k in _keys(v)]
    return [k for v in data for k in _keys(v)] if isinstance(data, list) else []


def _strings(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [s for v in data.values() for s in _strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return [data] if isinstance(data, str) else []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from([*SEPARATORS, "a", " ", ":", "#", "-", "é"])))
def test_any_comment_stays_a_comment(text: str) -> None:
    from builder.yaml_text import comment_lines

    assert yaml.safe_load(comment_lines(text) + "k: 1\n") == {"k": 1}
