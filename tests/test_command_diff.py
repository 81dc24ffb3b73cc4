"""builder.diff.command_diff: reading pasted commands, one identity per option, the diff itself."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builder import SelectionError, build
from builder.diff.command_diff import (
    MAX_CHARS,
    CommandError,
    diff_commands,
    engine_options,
    option_identity,
    parse_argv,
    parse_command,
)
from tests.recipes_data import builder_catalog, builder_recipe, hf_ids, kept_builder

V41 = "deepseek-ai/DeepSeek-V4.1-Flash"


def entries(diff: dict) -> dict[str, dict]:
    """Every flag, env variable and JSON key of a diff by its key."""
    found = {diff["model"]["key"]: diff["model"]}
    for entry in [*diff["flags"], *diff["env"]]:
        found[entry["key"]] = entry
        found.update({key["key"]: key for key in entry["keys"]})
    return found


def diff_texts(recipe: str, command: str) -> dict:
    return diff_commands(parse_command(recipe), parse_command(command))


# ----------------------------------------------------------------------------- reading


def test_plain_serve_with_exports_prefixes_and_continuations() -> None:
    parsed = parse_command(
        "# set up\nexport HF_HOME=/data A=1\nB='two words' \\\n  vllm serve org/model \\\n"
        "  --tensor-parallel-size 2 \\\n  --speculative-config '{\"method\": \"dspark\"}'\n"
    )
    assert parsed["launcher"] == "vllm serve"
    assert parsed["model"] == "org/model"
    assert parsed["env"] == {"HF_HOME": "/data", "A": "1", "B": "two words"}
    assert parsed["args"] == ["--tensor-parallel-size", "2",
                              "--speculative-config", '{"method": "dspark"}']


def test_docker_run_env_and_entrypoints() -> None:
    default_entry = parse_command(
        "docker run --gpus all -e HF_TOKEN=x --env=A=1 -p 8000:8000 --ipc=host "
        "vllm/vllm-openai:v0.31.0 org/model --port 8000")
    assert default_entry["model"] == "org/model"
    assert default_entry["image"] == "vllm/vllm-openai:v0.31.0"
    assert default_entry["env"] == {"HF_TOKEN": "x", "A": "1"}
    vllm_entry = parse_command("docker run -d --entrypoint vllm img:1 serve org/model -tp 2")
    assert (vllm_entry["model"], vllm_entry["args"]) == ("org/model", ["-tp", "2"])
    bash_entry = parse_command(
        "docker run -e X=1 --entrypoint bash some/image -c \"exec vllm serve org/model "
        "--attention-config '{\\\"a\\\":1}'\"")
    assert bash_entry["image"] == "some/image"
    assert bash_entry["env"] == {"X": "1"}
    assert engine_options(bash_entry["args"])["--attention-config"][1] == {"a": 1}


def test_wrappers_and_python_launchers() -> None:
    for text in ("exec vllm serve m", "env -u X A=1 vllm serve m", "taskset -c 0-15 vllm serve m",
                 "numactl --cpunodebind=0 --membind 0 vllm serve m", "sudo -E vllm serve m",
                 "nohup vllm serve m &", "uv run vllm serve m",
                 "python3 -m vllm.entrypoints.openai.api_server --model m",
                 "python -m dynamo.vllm --model m --dyn-reasoning-parser x"):
        assert parse_command(text)["model"] == "m", text


@pytest.mark.parametrize(("text", "error"), [
    ("", "empty: paste a `vllm serve MODEL ...` command"),
    ("   \n\t ", "empty: paste a `vllm serve MODEL ...` command"),
    ("ls -la /tmp", "not a vllm serve command: no `vllm serve MODEL ...` (or docker run of it) "
                    "found"),
    ("vllm bench serve --model m", "not a vllm serve command: no `vllm serve MODEL ...` (or "
                                   "docker run of it) found"),
    ("docker run ubuntu:22.04 bash", "not a vllm serve command: no `vllm serve MODEL ...` (or "
                                     "docker run of it) found"),
    ("sglang serve --model-path m", "an SGLang command: only vLLM commands (`vllm serve MODEL "
                                    "...`) can be compared"),
    ("vllm serve m --x '{\"a\":1}", "unbalanced quotes: a ' or \" is never closed"),
    ('vllm serve "m', "unbalanced quotes: a ' or \" is never closed"),
    ("vllm serve m \\", "cannot split the text like a shell: no escaped character"),
    ("vllm serve --port 8000", "`vllm serve` without a model: give MODEL (or --model MODEL)"),
    ("vllm serve a\nvllm serve b", "2 vLLM engine commands found; paste one at a time"),
])
def test_garbage_is_one_line(text: str, error: str) -> None:
    with pytest.raises(CommandError) as caught:
        parse_command(text)
    assert str(caught.value) == error
    assert "\n" not in str(caught.value)


def test_a_megabyte_paste_is_refused_before_it_is_read() -> None:
    text = "vllm serve m " + "--x 1 " * (1 << 18)
    assert len(text) > 1_000_000
    with pytest.raises(CommandError) as caught:
        parse_command(text)
    assert str(caught.value) == (
        f"the text is {len(text):,} characters long; paste one command of at most "
        f"{MAX_CHARS:,} characters")


def test_just_under_the_limit_still_parses() -> None:
    text = "vllm serve m " + "--x 1 " * ((MAX_CHARS - 20) // 6)
    assert len(text) <= MAX_CHARS
    assert parse_command(text)["model"] == "m"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300) | st.lists(
    st.sampled_from(["vllm", "serve", "docker", "run", "-e", "--entrypoint", "bash", "-c", "'",
                     '"', "\\", "\n", ";", "&&", "|", "x=1", "--a", "{", "}", "m", "exec",
                     "python3", "-m", "dynamo.vllm", "--model", "env", "taskset", "numactl",
                     "--no-x", "-tp", "=", "$X", "#"]), max_size=40).map(" ".join))
def test_any_text_parses_or_fails_with_one_line(text: str) -> None:
    try:
        parsed = parse_command(text)
    except CommandError as error:
        assert str(error) and "\n" not in str(error)
        return
    engine_options(parsed["args"])  # never raises either


# ----------------------------------------------------------------------------- identity


@pytest.mark.parametrize(("a", "b"), [
    ("--max_num_seqs", "--max-num-seqs"),
    ("--no-enable-prefix-caching", "--disable-prefix-caching"),
    ("--enable-expert-parallel", "-ep"),
    ("--tensor-parallel-size", "-tp"),
    ("--speculative_config.method", "--speculative-config.method"),
])
def test_spellings_of_one_option(a: str, b: str) -> None:
    assert option_identity(a) == option_identity(b)


def test_no_x_is_x_turned_off() -> None:
    assert option_identity("--no-swa-bounded-replay") == ("--swa-bounded-replay", False)
    assert option_identity("--swa-bounded-replay") == ("--swa-bounded-replay", True)
    assert option_identity("--attention_config.indexer_kv_dtype") == (
        "--attention-config.indexer_kv_dtype", True)


def test_equal_spellings_give_an_empty_diff() -> None:
    diff = diff_texts(
        "vllm serve m --max-num-seqs 8 --tensor-parallel-size 2 --enable-prefix-caching "
        "--speculative-config '{\"method\":\"dspark\",\"num_speculative_tokens\":5}' "
        "--gpu-memory-utilization 0.90",
        "vllm serve m -tp=2 --max_num_seqs=8 --gpu-memory-utilization .9 "
        "--speculative-config.num_speculative_tokens 5 --speculative_config.method dspark "
        "--enable-prefix-caching")
    assert {k: e["status"] for k, e in entries(diff).items()} == {
        "model": "equal",
        "--max-num-seqs": "equal",
        "--tensor-parallel-size": "equal",
        "--prefix-caching": "equal",
        "--speculative-config": "equal",
        "--speculative-config.method": "equal",
        "--speculative-config.num_speculative_tokens": "equal",
        "--gpu-memory-utilization": "equal",
    }
    assert diff["distance"] == 0
    assert diff["summary"] == "same engine settings as the recipe"


def test_switch_turned_off_is_changed_and_shown_as_written() -> None:
    diff = diff_texts("vllm serve m --enable-prefix-caching --no-swa-bounded-replay",
                      "vllm serve m --no-enable-prefix-caching --swa-bounded-replay")
    found = entries(diff)
    assert found["--prefix-caching"]["status"] == "changed"
    assert (found["--prefix-caching"]["recipe"], found["--prefix-caching"]["command"]) == (
        "--enable-prefix-caching", "--no-enable-prefix-caching")
    assert found["--swa-bounded-replay"]["status"] == "changed"


def test_later_setting_wins() -> None:
    options = engine_options(["--max-num-seqs", "8", "--max_num_seqs=16"])
    assert options["--max-num-seqs"] == ("--max_num_seqs", "16")


def test_json_objects_are_compared_key_by_key() -> None:
    diff = diff_texts(
        "vllm serve m --speculative-config "
        "'{\"method\":\"dspark\",\"num_speculative_tokens\":5,\"enable_adaptive_verification\":true,"
        "\"extra\":{\"a\":1,\"b\":2}}'",
        "vllm serve m --speculative-config "
        "'{\"num_speculative_tokens\":5,\"method\":\"dspark\",\"enable_adaptive_verification\":false,"
        "\"extra\":{\"a\":1},\"new\":\"x\"}'")
    spec = entries(diff)["--speculative-config"]
    assert spec["status"] == "changed"
    assert {k["name"]: k["status"] for k in spec["keys"]} == {
        "method": "equal", "num_speculative_tokens": "equal",
        "enable_adaptive_verification": "changed", "extra.a": "equal", "extra.b": "removed",
        "new": "added"}
    assert diff["distance"] == 3  # one per differing key
    assert diff["counts"]["changed"] == 1


def test_missing_json_flag_weighs_its_keys() -> None:
    diff = diff_texts("vllm serve m", "vllm serve m --compilation-config "
                                      "'{\"mode\":\"VLLM_COMPILE\",\"cudagraph_mode\":\"FULL\"}'")
    assert entries(diff)["--compilation-config"]["status"] == "added"
    assert diff["distance"] == 2


def test_deployment_flags_and_env_are_apart_and_weigh_nothing() -> None:
    diff = diff_texts(
        "vllm serve m --port 8000",
        "CUDA_VISIBLE_DEVICES=0,1 HF_TOKEN=t VLLM_LOGGING_LEVEL=DEBUG OMP_NUM_THREADS=1 "
        "vllm serve m --host 0.0.0.0 --port 30000 --served-model-name x --api-key k "
        "--numa-bind --numa-bind-nodes 0 1 --disable-uvicorn-access-log --uvicorn-log-level "
        "warning --disable-log-requests --max-num-seqs 4")
    kinds = {k: (e["kind"], e["status"]) for k, e in entries(diff).items()}
    for key in ("--host", "--port", "--served-model-name", "--api-key", "--numa-bind",
                "--numa-bind-nodes", "--uvicorn-access-log", "--uvicorn-log-level",
                "--log-requests", "CUDA_VISIBLE_DEVICES", "HF_TOKEN", "VLLM_LOGGING_LEVEL"):
        assert kinds[key][0] == "deployment", key
    assert kinds["--max-num-seqs"] == ("engine", "added")
    assert kinds["OMP_NUM_THREADS"] == ("engine", "added")
    assert diff["counts"] == {"changed": 0, "added": 2, "removed": 0, "recipe_changed": 0,
                              "equal": 0, "deployment": 12}
    assert diff["distance"] == 1.5  # a flag (1) and a variable (½)
    assert diff["summary"] == "2 only in the command (+12 deployment-specific)"


def test_dynamo_worker_flags_are_their_own_kind() -> None:
    diff = diff_texts("vllm serve m --reasoning-parser r",
                      "python3 -m dynamo.vllm --model m --reasoning-parser r "
                      "--dyn-reasoning-parser r --router-mode kv --disaggregation-mode decode")
    kinds = {k: e["kind"] for k, e in entries(diff).items()}
    assert kinds["--dyn-reasoning-parser"] == kinds["--router-mode"] == "dynamo"
    assert kinds["--disaggregation-mode"] == "dynamo"
    assert diff["distance"] == 0


def test_model_and_image_differences() -> None:
    recipe = parse_argv(["vllm", "serve", "org/a", "--x", "1"])
    recipe["image"] = "vllm/vllm-openai:latest"
    command = parse_command("docker run vllm/vllm-openai:v1 org/b --x 1")
    diff = diff_commands(recipe, command)
    assert diff["model"]["status"] == "changed"
    assert diff["image"] is not None and diff["image"]["status"] == "changed"
    assert diff["image"]["kind"] == "deployment"
    assert diff["distance"] == 2
    assert diff["summary"].startswith("another model")


# ----------------------------------------------------------------------------- round trip


def _selections(hf_id: str) -> list[dict[str, str]]:
    """The selections every hardware × strategy resolves to (each given back explicitly)."""
    data, kept = builder_catalog(), kept_builder(hf_id)
    found = []
    for hw, strategy in itertools.product(data["hardware"], data["strategies"]):
        try:
            found.append(kept.resolve({"hardware": hw, "strategy": strategy}))
        except SelectionError:
            continue
    return found


def _docker_env(docker_argv: list[str]) -> dict[str, str]:
    """The environment a `docker run` argv gives its container: its own `-e` options (the
    Docker form passes HF_TOKEN through by name, and names a shared node's devices with
    `--gpus` instead of the visible-devices variable: issue 32)."""
    env = {}
    for flag, value in itertools.pairwise(docker_argv):
        if flag == "-e":
            name, eq, text = value.partition("=")
            env[name] = text if eq else f"${name}"
    return env


@pytest.mark.parametrize("hf_id", hf_ids())
def test_the_builders_own_text_diffs_as_equal(hf_id: str) -> None:
    """Every command the builder shows (pip and Docker form), pasted back, matches itself."""
    kept = kept_builder(hf_id)  # a fresh `build`'s commands; the pills are not read here
    checked = 0
    # Many selections show the same command (a form, its text and image): diffed once each.
    seen: dict[tuple, set[str]] = {}
    for selection in _selections(hf_id):
        result = kept.build(selection, unavailable=False)
        for block in result["commands"]:
            if block["argv"][:2] != ["vllm", "serve"]:
                continue
            # The Docker form names the container's paths (builder/commands/needed_files.py):
            # what follows its image is its own argv.
            docker = block["docker_argv"] or []
            inside = docker[docker.index(result["docker_image"]) + 1:] if docker else []
            inside = inside[2:] if inside[:2] == ["vllm", "serve"] else inside
            forms = [(block["argv"], block["shell"], block["env"]),
                     (["vllm", "serve", *inside], block["docker_text"], _docker_env(docker))]
            for argv, text, env in forms:
                if not text:
                    continue
                key = (tuple(argv), text, tuple(env.items()), result["docker_image"])
                statuses = seen.get(key)
                if statuses is None:
                    ours = parse_argv(argv, env)
                    ours["image"] = result["docker_image"]
                    diff = diff_commands(ours, parse_command(text))
                    statuses = seen[key] = {e["status"] for e in entries(diff).values()}
                assert statuses == {"equal"}, (selection, text)
                checked += 1
    assert checked > 0


def test_json_values_survive_as_objects() -> None:
    result = build(builder_catalog(), builder_recipe(V41),
                   {"hardware": "b300", "spec_decoding": "dspark"})
    serve = result["commands"][0]
    options = engine_options(parse_command(serve["shell"])["args"])
    assert options["--speculative-config"][1] == json.loads(
        serve["argv"][serve["argv"].index("--speculative-config") + 1])


def test_a_variable_passed_through_by_name_sets_nothing() -> None:
    """The page's Docker form passes HF_TOKEN through (`-e HF_TOKEN`, issue 32): pasted back,
    it is no difference from the recipe; a value given in the command still is."""
    base = "vllm serve Qwen/Qwen3-8B --max-model-len 8192"
    docker = ("docker run --gpus all --ipc=host -e HF_TOKEN vllm/vllm-openai:v0.33.0 "
              "Qwen/Qwen3-8B --max-model-len 8192")
    assert not [e for e in diff_commands(parse_command(base), parse_command(docker))["env"]
                if e["ours"] != e["theirs"]]
    named = docker.replace("-e HF_TOKEN", "-e HF_TOKEN=hf_x")
    assert [e["key"] for e in diff_commands(parse_command(base), parse_command(named))["env"]
            ] == ["HF_TOKEN"]
