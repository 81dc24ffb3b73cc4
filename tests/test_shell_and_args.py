"""Shell quoting, option replacement and override precedence: the builder's small mechanics."""

from __future__ import annotations

import shlex
import subprocess

import pytest

from builder.arglist import ArgList, option_key
from builder.commands.compose import Context
from builder.commands.deploy_types import context
from builder.shell import command_text, env_lines, quote
from builder.types import Origin
from tests.recipes_data import builder_catalog

ORIGIN: Origin = {"file": "test", "path": "test", "layer": "test"}


@pytest.mark.parametrize(
    ("token", "quoted"),
    [
        ("fp8", "fp8"),
        ("--chat-template-kwargs.thinking=true", "--chat-template-kwargs.thinking=true"),
        ('{"method":"mtp","k":1}', '\'{"method":"mtp","k":1}\''),
        ("$HEAD_IP", '"$HEAD_IP"'),
        ("/usr/lib/libjemalloc.so.2:$LD_PRELOAD", '"/usr/lib/libjemalloc.so.2:$LD_PRELOAD"'),
        ("~/.cache/hf:/root/.cache/hf", "~/.cache/hf:/root/.cache/hf"),
        ("it's", "'it'\"'\"'s'"),
        ("$(rm -rf /)", "'$(rm -rf /)'"),
        ("", "''"),
    ],
)
def test_quote(token: str, quoted: str) -> None:
    assert quote(token) == quoted
    assert shlex.split(quoted) == [token]


def test_bash_expands_variables_but_not_json() -> None:
    argv = ["echo", "$HOME_DIR", '{"a":"$HOME_DIR"}']
    text = command_text(argv, 1)
    out = subprocess.run(["bash", "-c", text], env={"HOME_DIR": "/h"}, capture_output=True,
                         text=True, check=True).stdout
    assert out == '/h {"a":"$HOME_DIR"}\n'


def test_env_lines_are_valid_bash() -> None:
    script = env_lines({"A": "x y", "B": "$A:z", "C": '{"k":1}'})
    script += 'printf "%s|%s|%s" "$A" "$B" "$C"'
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout == 'x y|x y:z|{"k":1}'


def test_later_setting_replaces_value_and_position() -> None:
    args = ArgList()
    args.extend(["--a", "1", "--flag", "--b", "2"], ORIGIN)
    args.extend(["--a", "3"], ORIGIN)
    args.extend(["--no-flag"], ORIGIN)
    assert args.tokens() == ["--b", "2", "--a", "3", "--no-flag"]
    args.remove("--b")
    assert args.tokens() == ["--a", "3", "--no-flag"]


def test_option_identity() -> None:
    dotted = "--attention-config.indexer_kv_dtype"
    assert option_key("--attention_config.indexer_kv_dtype") == dotted
    assert option_key("--no-enable-prefix-caching") == option_key("--enable-prefix-caching")
    assert option_key("--x.y=true") == "--x.y"
    assert option_key("--attention-config") != option_key("--attention-config.backend")


def _ctx(recipe: dict, hardware: str) -> Context:
    selection = {"hardware": hardware, "variant": "default", "strategy": "single_node_tp",
                 "nodes": "1", "frontend": "python", "install": "pip"}
    return context(builder_catalog(), recipe, selection)


def _recipe(**overrides: object) -> dict:
    recipe = {
        "meta": {"tasks": ["text"]},
        "hardware": {"all": "unsupported", "hopper": "supported", "b200": "supported"},
        "model": {"model_id": "o/m", "architecture": "dense", "base_args": ["--x", "base"]},
        "variants": {"default": {"precision": "bf16", "vram_minimum_gb": 1}},
    }
    recipe.update(overrides)
    return recipe


def test_most_specific_key_wins_whatever_the_layer() -> None:
    recipe = _recipe(
        hardware_overrides={"h200": {"extra_args": ["--x", "id"]},
                            "nvidia": {"extra_args": ["--x", "brand"]}},
    )
    recipe["variants"]["default"]["hardware_overrides"] = {
        "hopper": {"extra_args": ["--x", "generation"]},
        "arch:sm90": {"extra_args": ["--x", "arch"]},
    }
    args = ArgList()
    _ctx(recipe, "h200").apply_overrides(args)
    assert args.get("--x") == ("id",)
    args = ArgList()
    _ctx(recipe, "h100").apply_overrides(args)  # no exact key for h100: arch wins
    assert args.get("--x") == ("arch",)


def test_variant_settings_beat_brand_wide_overrides_only() -> None:
    recipe = _recipe(hardware_overrides={"nvidia": {"extra_env": {"E": "brand"}},
                                         "b200": {"extra_env": {"E": "id"}}})
    recipe["variants"]["default"]["extra_env"] = {"E": "variant"}
    assert _ctx(recipe, "h200").env().values()["E"] == "variant"
    assert _ctx(recipe, "b200").env().values()["E"] == "id"


def test_strategy_overrides_apply_only_to_their_strategy() -> None:
    recipe = _recipe(strategy_overrides={"single_node_dep": {"h200": {"parallel_size": 4}}})
    assert _ctx(recipe, "h200").parallel_size()[0] == 1  # auto-fit: 1 GB fits one GPU
    recipe = _recipe(strategy_overrides={"single_node_tp": {"h200": {"parallel_size": 4}}})
    assert _ctx(recipe, "h200").parallel_size()[0] == 4


def test_frontend_env() -> None:
    catalog = builder_catalog()
    selection = {"hardware": "h200", "variant": "default", "strategy": "single_node_tp",
                 "nodes": "1", "frontend": "rust", "install": "pip"}
    rust = context(catalog, _recipe(), selection).env()
    assert rust.values() == {"VLLM_USE_RUST_FRONTEND": "1"}
    assert context(catalog, _recipe(), {**selection, "frontend": "python"}).env().values() == {}


def test_an_override_with_when_applies_only_while_its_features_hold() -> None:
    recipe = _recipe(hardware_overrides={
        "h200": {"extra_args": ["--x", "tuned"], "when": {"spec": "on", "mode_feature": "m2"}},
    })
    ctx = _ctx(recipe, "h200")
    for spec, mode, expected in (("off", "m2", "base"), ("on", "m1", "base"), ("on", "m2", "tuned"),
                                 ("mtp", "m2", "tuned")):
        ctx = context(builder_catalog(), recipe,
                      {**ctx.selection, "spec": spec, "mode_feature": mode})
        args = ctx.base_options()
        ctx.apply_overrides(args)
        assert args.get("--x") == (expected,), (spec, mode)


@pytest.mark.parametrize("head_len", [1, 2, 3])
def test_docker_form_puts_one_option_per_line_whatever_the_commands_own_layout(
        head_len: int) -> None:
    """`with_docker` reuses the option lines of a serve command's text when its first line is
    `vllm serve MODEL`, and lays them out again otherwise: the result is the same."""
    from builder.commands.compose import tool_command
    from builder.commands.docker import with_docker

    argv = ["vllm", "serve", "o/m", "--x", "1", "--json", '{"a": 1}', "--flag"]
    command = tool_command("serve", argv, label="serve", port=8000, head_len=head_len)
    docker = with_docker(_ctx(_recipe(), "h200"), command)
    full = command_text(argv, 3)
    options = full[full.index(" \\\n"):]
    assert docker["docker_text"].endswith(options)
    assert docker["docker_text"].count("o/m") == 1
    assert shlex.split(docker["docker_text"].replace("\\\n", " "))[-len(argv) + 2:] == argv[2:]
    assert docker["docker_argv"][-len(argv) + 3:] == argv[3:]


def test_a_selection_error_survives_pickling() -> None:
    """A build's worker processes hand errors back to the build by pickling them."""
    import pickle

    from builder.errors import SelectionError

    error = pickle.loads(pickle.dumps(SelectionError("hardware", "not offered on X")))
    assert (error.key, error.reason, str(error)) == ("hardware", "not offered on X",
                                                    "hardware: not offered on X")
