"""`vllm-recipes port`: newer public fields are mapped or listed as TODO lines (never dropped
silently), and the draft records where it came from (`upstream: {path, commit}`).

The public snippets are cut down from newer public recipes (github.com/vllm-project/recipes):
GLM-5.3 (e46f53b), Qwen3.8-Flash-Next (bed5921), IFM/Jais-3-375B-A23B (e65fa1f),
RedHatAI/Kimi-K3-FP8-BLOCK (9ee11e8), MiniMax-M3 (54fa8a7), GLM-5.3-Flash (6848bd5),
google/gemma-4-E4B-it-assistant (e836991), DeepSeek-V4-Flash-Vision-Exp (227d496).
"""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.recipes_data import RECIPES, ROOT
from vllm_recipes.loader import load_catalog
from vllm_recipes_cli.port import aliases, draft, upstream_path

HARDWARE = yaml.safe_load((RECIPES / "hardware.yaml").read_text(encoding="utf-8"))
RESTRICTED = {h for h, spec in HARDWARE["hardware"].items() if spec.get("restricted")}
KEYS = {*HARDWARE["hardware"], *HARDWARE["brands"], *HARDWARE["generations"]}
STRATEGIES = {p.stem for p in (RECIPES / "strategies").glob("*.yaml")}
ALIASES = aliases(HARDWARE)

PUBLIC: dict[str, Any] = {
    "meta": {"title": "GLM-5.3", "slug": "glm-5.3", "provider": "GLM (Z-AI)",
             "description": "GLM-5.3", "date_added": "2026-08-28", "date_updated": "2026-08-30",
             "difficulty": "advanced", "tasks": ["text"],
             "hardware": {"b300": "verified", "ascend_950pr_8x": "verified"}},
    "model": {"model_id": "zai-org/GLM-5.3", "min_vllm_version": "0.28.0",
              "architecture": "moe", "parameter_count": "743B", "active_parameters": "39B",
              "context_length": 1048576, "base_args": ["--kv-cache-dtype", "fp8_e4m3"],
              "base_env": {}},
    "features": {"reasoning": {"description": "GLM reasoning parser",
                               "args": ["--reasoning-parser", "glm45"]}},
    "variants": {"default": {"precision": "fp8", "vram_minimum_gb": 893,
                             "description": "Native FP8 checkpoint"}},
    "compatible_strategies": ["single_node_tp", "single_node_tep"],
}


def port(**changes: Any) -> tuple[dict[str, Any], list[str]]:
    ours, todo, _ = port_noted(**changes)
    return ours, todo


def port_noted(**changes: Any) -> tuple[dict[str, Any], list[str], list[str]]:
    """(draft, TODO lines, notes) of PUBLIC with `changes` (`a__b`: key b of a)."""
    public = copy.deepcopy(PUBLIC)
    for path, value in changes.items():
        *parents, last = path.split("__")
        node = public
        for parent in parents:
            node = node.setdefault(parent, {})
        node[last] = value
    return draft(public, RESTRICTED, hardware_keys=KEYS, strategies=STRATEGIES,
                 hardware_aliases=ALIASES,
                 upstream={"path": "models/zai-org/GLM-5.3.yaml",
                           "commit": "e46f53b17dd4082edd2551a7b55a9db0325516ba"})


def todo_about(todo: list[str], prefix: str) -> str:
    (line,) = [t for t in todo if t.startswith(prefix)]
    return line


def test_a_plain_file_drafts_without_todo_and_records_its_upstream() -> None:
    ours, todo = port()
    assert todo == []
    assert ours["upstream"] == {"path": "models/zai-org/GLM-5.3.yaml",
                                "commit": "e46f53b17dd4082edd2551a7b55a9db0325516ba"}
    assert list(ours)[-1] == "upstream"
    assert ours["verified"] == ["b300", "ascend_950pr_8x"]


def test_an_unknown_field_is_a_todo_line_not_a_silent_drop() -> None:
    _, todo = port(brand_new_block={"x": 1}, model__sparse_kv=True,
                   variants__default__kv_layout="HND",
                   features__reasoning__companion_port=9)
    assert todo_about(todo, "brand_new_block: a public field the port does not know")
    assert todo_about(todo, "model.sparse_kv: a public field")
    assert todo_about(todo, "variants.default.kv_layout: a public field")
    assert todo_about(todo, "features.reasoning.companion_port: a public field")
    ours, _ = port(model__sparse_kv=True)
    assert "sparse_kv" not in ours["model"]


def test_new_hardware_ids_are_known_and_unknown_ones_flagged() -> None:
    _, todo = port(meta__hardware={"rtx_pro_6000_8x": "verified", "max1550": "verified"})
    assert todo == ["meta.hardware: hardware 'max1550' is not in recipes/hardware.yaml; add it "
                    "(with its facts) or drop it"]


def test_a_strategy_this_catalogue_lacks_is_flagged() -> None:
    ours, todo = port(compatible_strategies=["single_node_tp", "single_node_dpa_tp",
                                             "single_node_xyz"])
    assert ours["strategies"] == ["single_node_tp", "single_node_dpa_tp", "single_node_xyz"]
    assert todo == ["compatible_strategies: 'single_node_xyz' is not a strategy of "
                    "recipes/strategies/; add the strategy or drop it"]


def test_top_level_default_hardware_is_read() -> None:
    ours, todo = port(default_hardware="b300")
    assert ours["default_hardware"] == "b300" and todo == []
    ours, todo = port(default_hardware="b300", meta__default_hardware="gb200")
    assert ours["default_hardware"] == "gb200"
    assert todo_about(todo, "default_hardware: meta says 'gb200', the top level 'b300'")


def test_kv_cache_strategy_hardware_gates_the_kv_store_strategies() -> None:
    ours, todo = port(kv_cache_strategy_hardware={
        "kv_store_distributed_mooncake": {"h200": "unsupported", "b300": "supported"},
        "kv_store_centralized_mooncake": {"h200": "unsupported"}})
    assert ours["strategies"] == ["single_node_tp", "single_node_tep",
                                  "kv_store_distributed_mooncake"]
    assert ours["strategy_hardware"] == {
        "kv_store_distributed_mooncake": {"h200": "unsupported", "b300": "supported"}}
    assert todo_about(todo, "kv_cache_strategy_hardware: the public site offers")


def test_a_features_extra_env_becomes_its_env() -> None:
    ours, todo = port(features__reasoning__extra_env={"VLLM_X": "0"})
    assert ours["features"]["reasoning"]["env"] == {"VLLM_X": "0"} and todo == []


def test_install_methods_empty_unknown_or_refused() -> None:
    # Empty methods are offered (the public site hides only `false`); Docker listed first is
    # its default tab, which ours cannot say.
    ours, todo = port(model__install={"docker": None, "pip": None})
    assert todo == ["model.install lists docker first: the public site opens its Docker tab "
                    "by default; here pip is the default unless pip is refused"]
    assert "hardware_overrides" not in ours
    ours, todo = port(model__install={"docker": {"note": "Use the image."},
                                      "pypi": {"note": "Use docker."}})
    assert ours["model"]["install_notes"] == {"docker": "Use the image."}
    assert todo_about(todo, "model.install.pypi: not an install method here")
    ours, todo = port(model__install={"docker": {"note": "Image only."}, "pip": False})
    assert ours["hardware_overrides"]["all"]["install"] == {"pip": False}
    assert not [t for t in todo if t.startswith("model.install")]


def test_missing_version_and_architecture_are_todo_lines() -> None:
    public = copy.deepcopy(PUBLIC)
    del public["model"]["min_vllm_version"], public["model"]["architecture"]
    del public["meta"]["date_added"]
    ours, todo, _ = draft(public, RESTRICTED)
    assert "min_vllm_version" not in ours["model"]
    assert todo_about(todo, "model.min_vllm_version: the public file gives none")
    assert todo_about(todo, "model.architecture: the public file gives none")
    assert todo_about(todo, "meta.date_added: the public file gives none")


def test_a_strategy_overrides_tp_outside_single_node_tp_is_flagged() -> None:
    ours, todo = port(strategy_overrides={"single_node_tep": {"tp": 8},
                                          "single_node_tp": {"tp": 4}})
    assert ours["strategy_overrides"] == {"single_node_tp": {"all": {"parallel_size": 4}}}
    assert todo_about(todo, "strategy_overrides.single_node_tep.tp 8: the public synthesis "
                            "reads `tp` for single_node_tp only")


def test_a_strategy_overrides_env_becomes_extra_env() -> None:
    ours, todo = port(strategy_overrides={"single_node_dep": {
        "extra_env": {"VLLM_PLE_CPU_OFFLOAD": "1"}, "env": {"NCCL_X": "1"}}})
    assert ours["strategy_overrides"]["single_node_dep"]["all"]["extra_env"] == {
        "NCCL_X": "1", "VLLM_PLE_CPU_OFFLOAD": "1"}
    assert todo_about(todo, "strategy_overrides.single_node_dep.env: written as extra_env")


def test_arguments_written_as_a_mapping_are_flagged() -> None:
    ours, todo = port(hardware_overrides={"xpu": {"extra_args": {"enforce_eager": True},
                                                  "extra_env": {"ZE_AFFINITY_MASK": "0"}}})
    assert ours["hardware_overrides"]["xpu"] == {"extra_env": {"ZE_AFFINITY_MASK": "0"}}
    assert todo_about(todo, "hardware_overrides.xpu.extra_args: {'enforce_eager': True} is not "
                            "a list of tokens")


def test_a_variants_install_toggle_and_an_install_note_are_kept_or_flagged() -> None:
    ours, todo = port(variants__default__hardware_overrides={
        "ascend_950pr_8x": {"docker_image": "quay.io/ascend/vllm-ascend:v0.23.0-a5",
                            "install": {"pip": False}}},
        hardware_overrides={"amd": {"install_note": "Use the ROCm image.",
                                    "extra_env": {"VLLM_ROCM_USE_AITER": "1"}}})
    assert ours["variants"]["default"]["hardware_overrides"]["ascend_950pr_8x"] == {
        "docker_image": "quay.io/ascend/vllm-ascend:v0.23.0-a5", "install": {"pip": False}}
    assert todo_about(todo, "hardware_overrides.amd.install_note: 'Use the ROCm image.'")
    assert ours["hardware_overrides"]["amd"] == {"extra_env": {"VLLM_ROCM_USE_AITER": "1"}}


def test_without_a_commit_the_draft_says_so() -> None:
    _, todo, _ = draft(copy.deepcopy(PUBLIC), RESTRICTED,
                       upstream={"path": "models/zai-org/GLM-5.3.yaml", "commit": ""})
    assert todo_about(todo, "upstream: no commit (pass --upstream-path / --upstream-commit)")


@pytest.mark.parametrize(("path", "expected"), [
    ("/src/recipes/models/zai-org/GLM-5.3.yaml", "models/zai-org/GLM-5.3.yaml"),
    ("models/Google/gemma-4-31B-it.yaml", "models/Google/gemma-4-31B-it.yaml"),
    ("/tmp/GLM-5.3.yaml", None),
    ("/src/models/zai-org/GLM-5.3.md", None),
])
def test_the_upstream_path_is_read_from_the_input_path(path: str, expected: str | None) -> None:
    assert upstream_path(Path(path)) == expected


def _tree(tmp_path: Path) -> Path:
    """A recipe tree with the real hardware and strategies and one recipe, to port into."""
    tree = tmp_path / "recipes"
    tree.mkdir()
    for name in ("hardware.yaml", "schema.json"):
        (tree / name).write_text((RECIPES / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tree / "strategies").mkdir()
    for path in (RECIPES / "strategies").glob("*.yaml"):
        (tree / "strategies" / path.name).write_text(path.read_text(encoding="utf-8"),
                                                     encoding="utf-8")
    (tree / "models").mkdir()
    return tree


def run_port(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", "port", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)


def test_the_command_writes_the_upstream_block_and_a_valid_draft(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    public = tmp_path / "public" / "models" / "zai-org" / "GLM-5.3.yaml"
    public.parent.mkdir(parents=True)
    public.write_text(yaml.safe_dump(PUBLIC), encoding="utf-8")
    out = run_port(str(public), "--recipes", str(tree), "--upstream-commit", "e46f53b")
    assert out.returncode == 0, out.stderr
    written = tree / "models" / "zai-org" / "GLM-5.3.yaml"
    text = written.read_text(encoding="utf-8")
    assert text.endswith("upstream:\n  path: models/zai-org/GLM-5.3.yaml\n  commit: e46f53b\n")
    assert "models/zai-org/GLM-5.3.yaml at e46f53b" in text.splitlines()[1]
    loaded = load_catalog(tree)  # the draft passes every check
    upstream = loaded.recipes["zai-org/GLM-5.3"].upstream
    assert upstream is not None and upstream.commit == "e46f53b"
    # An explicit path wins over the input's; a bad commit is refused in one line.
    other = tmp_path / "GLM.yaml"
    other.write_text(yaml.safe_dump(PUBLIC), encoding="utf-8")
    out = run_port(str(other), "--recipes", str(tree), "--force",
                   "--upstream-path", "models/zai-org/GLM-5.3.yaml", "--upstream-commit",
                   "e46f53b17dd4082edd2551a7b55a9db0325516ba")
    assert out.returncode == 0, out.stderr
    assert written.read_text(encoding="utf-8").endswith(
        "commit: e46f53b17dd4082edd2551a7b55a9db0325516ba\n")
    bad = run_port(str(other), "--recipes", str(tree), "--force", "--upstream-commit", "HEAD")
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        "vllm-recipes port: --upstream-commit: 'HEAD' is not 7 to 40 lower-case hex digits"]
    out = run_port(str(other), "--recipes", str(tree), "--force")
    text = written.read_text(encoding="utf-8")
    assert out.returncode == 0 and "\nupstream:" not in text
    assert "# TODO: upstream: no path or commit" in text


SEPARATORS = ["\n", "\r", "\r\n", "\x85", "\u2028", "\u2029", "\x0b", "\x1b[2J"]


@pytest.mark.parametrize("separator", SEPARATORS, ids=repr)
def test_a_line_separator_in_public_text_writes_no_key(tmp_path: Path, separator: str) -> None:
    """Issue 32.3: a line break of any kind in a public title or description stays inside
    its comment or string: the draft reads back with the same keys and the same text."""
    tree = _tree(tmp_path)
    public_data = copy.deepcopy(PUBLIC)
    public_data["meta"]["title"] = f"GLM{separator}pwned: 1{separator}# x"
    public_data["variants"]["default"]["description"] = f"FP8{separator}evil: 2"
    public_data["features"]["reasoning"]["description"] = f"a{separator}\nevil: 3"
    public = tmp_path / "GLM.yaml"
    public.write_text(yaml.safe_dump(public_data), encoding="utf-8")
    out = run_port(str(public), "--recipes", str(tree), "--upstream-path",
                   "models/zai-org/GLM-5.3.yaml", "--upstream-commit", "e46f53b")
    assert out.returncode == 0, out.stderr
    text = (tree / "models" / "zai-org" / "GLM-5.3.yaml").read_text(encoding="utf-8")
    loaded = yaml.safe_load(text)
    ours, _ = port(meta__title=public_data["meta"]["title"],
                   variants={"default": public_data["variants"]["default"]},
                   features=public_data["features"])
    assert set(loaded) == set(ours)
    assert loaded["meta"]["title"] == public_data["meta"]["title"]
    assert loaded["variants"]["default"]["description"] == f"FP8{separator}evil: 2"
    assert loaded["features"]["reasoning"]["description"] == f"a{separator}\nevil: 3"
    for line in text.split("\n"):  # no other line break, no escape reaches the file raw
        assert line.isprintable(), repr(line)


# --- the public format as of 2026-10 (issue 35): cut down from GLM-5.1 (0ed460b),
# MiMo-V2.6-Pro-RL (06f7667), Qwen3-8B (1fc9fda) and gemma-4-26B-A4B-it (03eb3d2) -------------


def test_default_frontend_is_ours_and_an_unknown_one_is_flagged() -> None:
    ours, todo = port(model__default_frontend="rust")
    assert ours["model"]["default_frontend"] == "rust" and todo == []
    ours, todo = port(model__default_frontend="grpc")
    assert "default_frontend" not in ours["model"]
    assert todo_about(todo, "model.default_frontend: 'grpc' is not a frontend here")


def test_an_unsupported_frontend_makes_the_other_the_default_and_says_so() -> None:
    note = "The pinned image predates the mimo parsers of the Rust frontend."
    ours, todo = port(model__frontends={"rust": {"status": "unsupported", "note": note}})
    assert ours["model"]["default_frontend"] == "python"
    line = todo_about(todo, "model.frontends.rust.status: unsupported; the draft defaults to "
                            "python (frontend=rust stays selectable here)")
    assert "predates the mimo parsers" in line
    _, todo = port(model__frontends={"rust": {"status": "deprecated"}})
    assert todo_about(todo, "model.frontends.rust.status: 'deprecated' is not a status")
    _, todo = port(model__frontends={"grpc": {"status": "unsupported"}})
    assert todo_about(todo, "model.frontends.grpc: 'grpc' is not a frontend here")


def test_a_features_env_is_ours() -> None:
    long_context = {"description": "YaRN to 1M tokens",
                    "args": ["--max-model-len", "1000000"],
                    "env": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}}
    ours, todo = port(features__long_context=long_context, opt_in_features=["long_context"])
    assert ours["features"]["long_context"] == {
        "description": "YaRN to 1M tokens", "opt_in": True,
        "args": ["--max-model-len", "1000000"],
        "env": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}}
    assert todo == []


def test_docker_serve_command_and_install_toggle_of_an_override() -> None:
    ours, todo = port(variants__default__hardware_overrides={"dgx_spark_gb10": {
        "docker_image": "eugr/spark-vllm:nightly-20260704", "docker_serve_command": "vllm serve",
        "install": {"pip": False}}})
    assert ours["variants"]["default"]["hardware_overrides"]["dgx_spark_gb10"] == {
        "docker_image": "eugr/spark-vllm:nightly-20260704",
        "docker_command_prefix": ["vllm", "serve"], "install": {"pip": False}}
    assert todo == []
    ours, todo = port(hardware_overrides={"amd": {"install": {"wheel": False},
                                                  "docker_serve_command": 3}})
    assert "amd" not in ours.get("hardware_overrides", {})
    assert todo_about(todo, "hardware_overrides.amd.install: {'wheel': False} is not")
    assert todo_about(todo, "hardware_overrides.amd.docker_serve_command: 3 is not a command")


def test_a_draft_with_the_newer_fields_validates_and_renders(tmp_path: Path) -> None:
    from builder import build

    public = copy.deepcopy(PUBLIC)
    public["meta"]["hardware"] = {"dgx_spark_gb10": "verified", "b300": "verified"}
    public["model"]["frontends"] = {"rust": {"status": "unsupported", "note": "no parsers"}}
    public["variants"]["default"]["vram_minimum_gb"] = 60
    public["variants"]["default"]["hardware_overrides"] = {"dgx_spark_gb10": {
        "docker_image": "eugr/spark-vllm:nightly-20260704", "docker_serve_command": "vllm serve",
        "install": {"pip": False}}}
    public["features"]["long_context"] = {"description": "longer", "env": {
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}, "args": ["--max-model-len", "1000000"]}
    public["opt_in_features"] = ["long_context"]
    tree = _tree(tmp_path)
    source = tmp_path / "public" / "models" / "zai-org" / "GLM-5.3.yaml"
    source.parent.mkdir(parents=True)
    source.write_text(yaml.safe_dump(public), encoding="utf-8")
    out = run_port(str(source), "--recipes", str(tree), "--upstream-commit", "e46f53b")
    assert out.returncode == 0, out.stderr
    loaded = load_catalog(tree)  # the draft passes every check
    result = build(loaded.builder_catalog(), loaded.builder_recipe("zai-org/GLM-5.3"),
                   {"hardware": "dgx_spark_gb10", "install": "docker", "long_context": "on"})
    assert result["selection"]["frontend"] == "python"
    assert not result["install"]["pip"]["available"]
    (serve,) = [c for c in result["commands"] if c["argv"][:2] == ["vllm", "serve"]]
    docker = serve["docker_argv"]
    image = docker.index("eugr/spark-vllm:nightly-20260704")
    assert docker[image + 1:image + 4] == ["vllm", "serve", "zai-org/GLM-5.3"]
    assert serve["env"]["VLLM_ALLOW_LONG_MAX_MODEL_LEN"] == "1"


# --- earlier node-shaped hardware ids (issue 33): `hardware_aliases` of recipes/hardware.yaml --


def test_a_node_shaped_id_becomes_its_gpu_at_the_count_wherever_a_key_is_written() -> None:
    ours, todo, notes = port_noted(
        meta__hardware={"b300": "verified", "rtx_5090": "verified", "rtx_5090_2x": "verified",
                        "rtx_pro_6000_4x": "supported", "rtx_4090_2x": "unsupported"},
        model__docker_image={"nvidia": "vllm/vllm-openai:v0.28.0",
                             "rtx_5090_2x": "vllm/vllm-openai:qwen38"},
        hardware_opt_in_features={"rtx_5090_2x": ["reasoning"]},
        hardware_overrides={"rtx_pro_6000_4x": {"extra_env": {"NCCL_P2P_DISABLE": "1"}}},
        variants__default__supported_hardware=["b300", "rtx_5090", "rtx_5090_2x"],
        variants__default__tp={"default": 1, "rtx_5090_2x": 2},
        variants__default__hardware_overrides={"rtx_5090_2x": {"extra_args": ["--enforce-eager"]}},
        strategy_overrides={"single_node_tp": {
            "tp": {"rtx_pro_6000_4x": 4},
            "hardware_overrides": {"rtx_4090_2x": {"extra_args": ["--max-num-seqs", "8"]}}}},
        features__reasoning__hardware_overrides={"rtx_5090_2x": {"args": ["--x"]}})
    assert ours["verified"] == ["b300", "rtx_5090", "rtx_5090@2"]
    # rtx_pro_6000 is restricted: offered by naming it, here at its count
    assert ours["hardware"] == {"rtx_4090@2": "unsupported", "rtx_pro_6000@4": "supported"}
    assert ours["model"]["docker_image"] == {"nvidia": "vllm/vllm-openai:v0.28.0",
                                             "rtx_5090@2": "vllm/vllm-openai:qwen38"}
    assert ours["features"]["reasoning"]["opt_in"] == ["rtx_5090@2"]
    assert ours["features"]["reasoning"]["hardware_overrides"] == {"rtx_5090@2": {"args": ["--x"]}}
    assert ours["hardware_overrides"] == {"rtx_pro_6000@4": {
        "extra_env": {"NCCL_P2P_DISABLE": "1"}}}
    variant = ours["variants"]["default"]
    assert variant["hardware"] == ["b300", "rtx_5090", "rtx_5090@2"]
    assert variant["tp"] == {"all": 1, "rtx_5090@2": 2}
    assert variant["hardware_overrides"] == {"rtx_5090@2": {"extra_args": ["--enforce-eager"]}}
    assert ours["strategy_overrides"]["single_node_tp"] == {
        "rtx_pro_6000@4": {"parallel_size": 4},
        "rtx_4090@2": {"extra_args": ["--max-num-seqs", "8"]}}
    assert not any(k in yaml.safe_dump(ours) for k in ("_2x", "_4x"))
    assert not [t for t in todo if "is not in recipes/hardware.yaml" in t]
    assert notes[0] == ("rtx_5090_2x (public) is rtx_5090@2 here (hardware_aliases in "
                        "recipes/hardware.yaml): meta.hardware, model.docker_image, "
                        "hardware_opt_in_features, "
                        "features.reasoning.hardware_overrides, variants.default.supported_hardware"
                        ", variants.default.tp, variants.default.hardware_overrides")
    assert [n.split(" (public)")[0] for n in notes] == [
        "rtx_5090_2x", "rtx_pro_6000_4x", "rtx_4090_2x"]


def test_where_no_count_is_read_a_node_shaped_id_is_its_gpu_with_a_todo_line() -> None:
    ours, todo, notes = port_noted(
        meta__default_hardware="rtx_5090_2x",
        meta__hardware={"rtx_5090_2x": "verified"},
        strategy_hardware={"single_node_tep": {"rtx_pro_6000_2x": "unsupported",
                                               "b300": "supported"}})
    assert ours["default_hardware"] == "rtx_5090"
    assert ours["verified"] == ["rtx_5090@2"]
    assert ours["strategy_hardware"] == {"single_node_tep": {"b300": "supported",
                                                             "rtx_pro_6000": "unsupported"}}
    assert todo_about(todo, "strategy_hardware.single_node_tep.rtx_pro_6000_2x: rtx_pro_6000_2x "
                            "is rtx_pro_6000@2 here, and a GPU count is not read here")
    assert todo_about(todo, "meta.default_hardware: rtx_5090_2x is rtx_5090@2 here; the "
                            "draft's default is rtx_5090")
    assert notes == ["rtx_5090_2x (public) is rtx_5090@2 here (hardware_aliases in "
                     "recipes/hardware.yaml): meta.hardware"]


# Cut down from the public models/Qwen/Qwen3.8-27B.yaml (015a26c): its hardware list and the
# variants naming rtx_5090_2x; the FP8 variant's `tp` map is added here to reach a tp map.
PUBLIC_27B: dict[str, Any] = {
    "meta": {"title": "Qwen3.8-27B", "provider": "Qwen", "description": "Qwen3.8-27B",
             "date_added": "2026-08-14", "date_updated": "2026-09-10", "tasks": ["text"],
             "hardware": {"gb300": "verified", "rtx_5090": "verified",
                          "rtx_5090_2x": "verified"}},
    "model": {"model_id": "Qwen/Qwen3.8-27B", "min_vllm_version": "0.17.0",
              "architecture": "dense", "parameter_count": "27B", "active_parameters": "27B",
              "context_length": 262144, "base_args": [], "base_env": {}},
    "variants": {
        "default": {"precision": "bf16", "vram_minimum_gb": 67},
        "fp8": {"model_id": "Qwen/Qwen3.8-27B-FP8", "precision": "fp8", "vram_minimum_gb": 38,
                "supported_hardware": ["h200", "b200", "gb300", "rtx_5090", "rtx_5090_2x"],
                "tp": {"rtx_5090_2x": 2}},
        "nvfp4": {"model_id": "Inferact/Qwen3.8-27B-NVFP4", "precision": "nvfp4",
                  "vram_minimum_gb": 32,
                  "supported_hardware": ["b200", "gb300", "rtx_5090", "rtx_5090_2x"]}},
    "compatible_strategies": ["single_node_tp"],
}


def test_a_public_recipe_on_rtx_5090_2x_drafts_rtx_5090_at_2_and_passes_check(
        tmp_path: Path) -> None:
    from builder import build

    tree = _tree(tmp_path)
    source = tmp_path / "public" / "models" / "Qwen" / "Qwen3.8-27B.yaml"
    source.parent.mkdir(parents=True)
    source.write_text(yaml.safe_dump(PUBLIC_27B, sort_keys=False), encoding="utf-8")
    out = run_port(str(source), "--recipes", str(tree), "--upstream-commit", "015a26c")
    assert out.returncode == 0, out.stderr
    assert out.stdout.endswith(": 0 TODO lines\n")
    text = (tree / "models" / "Qwen" / "Qwen3.8-27B.yaml").read_text(encoding="utf-8")
    header = [line for line in text.splitlines() if line.startswith("# Note: ")]
    assert header == ["# Note: rtx_5090_2x (public) is rtx_5090@2 here (hardware_aliases in "
                      "recipes/hardware.yaml): meta.hardware, variants.fp8.supported_hardware, "
                      "variants.nvfp4.supported_hardware, variants.fp8.tp"]
    body = yaml.safe_load(text)
    assert body["verified"] == ["gb300", "rtx_5090", "rtx_5090@2"]
    assert body["variants"]["fp8"]["hardware"][-1] == "rtx_5090@2"
    assert body["variants"]["fp8"]["tp"] == {"rtx_5090@2": 2}
    assert "rtx_5090_2x" not in text.replace(header[0], "")
    check = subprocess.run([sys.executable, "-m", "vllm_recipes_cli", "check", str(tree)],
                           cwd=ROOT, capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    loaded = load_catalog(tree)
    result = build(loaded.builder_catalog(), loaded.builder_recipe("Qwen/Qwen3.8-27B"),
                   {"hardware": "rtx_5090", "gpus": "2", "variant": "fp8"})
    (serve,) = [c for c in result["commands"] if c["argv"][:2] == ["vllm", "serve"]]
    tp = serve["argv"].index("--tensor-parallel-size")
    assert serve["argv"][tp + 1] == "2"
