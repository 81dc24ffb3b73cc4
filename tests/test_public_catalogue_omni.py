"""Our default commands for the 25 vLLM-Omni recipes against the public catalogue's, option for
option, with the machinery of tests/test_public_catalogue.py.

`tests/golden/public/omni/sample.yaml` says how the golden files next to it were recorded: the
public catalogue (github.com/vllm-project/recipes, the commit of the text models' goldens)
publishes no JSON rendering for omni recipes, so each golden is what its model page shows on
first load, computed in Node by the public's own library functions that its command builder
calls for omni pages (`pickDefaultHardware`, `resolveOmniTasks`, `resolveOmniTaskForHardware`,
`resolveOmniCommand`, `computeDockerMeta`) on its own YAML. No code of this repository took part.
A person read several renderings against the public YAML before they were committed: Cosmos3-
Super-Text2Image (its `base_args` then `--omni`, Docker image `vllm/vllm-omni:cosmos3`),
LTX-2.5 (the recipe's `default_hardware: b300`, the first task's `--model-class-name` and the
B300 variant override's `--diffusion-attention-backend`), MiniMax-H3 (the task's local checkpoint
path as the served model, the Docker-first install) and stable-audio-open-1.0.

For each model we build ours for the empty query (our default) and compare:

- the selection: hardware, variant, task, install mode (pip or docker);
- the Docker image: ours where our Docker install is offered for that selection, else null;
  the public's is the image of its Docker tab, null where the recipe hides that tab;
- the `vllm serve` command: the served model, every option (as vLLM reads them, see
  `options` and `same`), every environment variable.

Our omni commands start vLLM-Omni's Python API server (`OMNI_FRONTEND` in
builder/commands/deploy_types.py; the builder refuses the Rust frontend for them), so the text
models' site-wide `VLLM_USE_RUST_FRONTEND` difference does not arise; were it to, it would be
an unlisted difference here.

`omni/differences.yaml` lists every difference that remains, in the format of the text models'
file, each citing the recipe line of the `# differs from the public catalogue:` comment that
explains it and the field it sits next to. The test fails when a difference appears that is not
listed, when a listed one is gone, when a cited line holds no such comment, and when the
comment is not next to the field named. The public's own commands are also checked against
vLLM's and vLLM-Omni's options, as tests/test_render_matrix.py checks ours.
"""

from __future__ import annotations

import json
import shlex
from functools import cache
from typing import Any

import pytest
import yaml

from builder import build
from tests.recipes_data import ROOT, builder_catalog, builder_recipe
from tests.test_public_catalogue import (
    GOLDEN,
    Key,
    assert_cited_comments,
    assert_listed,
    compare_command,
    index_differences,
)
from vllm_recipes.vllm_flags import check_tokens

OMNI = GOLDEN / "omni"
SELECTION = ("hardware", "variant", "task", "install")


@cache
def sample() -> list[str]:
    models: list[str] = yaml.safe_load((OMNI / "sample.yaml").read_text())["models"]
    return models


@cache
def golden(model: str) -> dict[str, Any]:
    return json.loads((OMNI / f"{model}.json").read_text())


@cache
def listed() -> dict[str, Any]:
    return yaml.safe_load((OMNI / "differences.yaml").read_text())


def omni_recipes() -> list[str]:
    """Our recipes with an `omni` block, by model id."""
    return sorted(path.relative_to(ROOT / "recipes/models").with_suffix("").as_posix()
                  for path in (ROOT / "recipes/models").glob("*/*.yaml")
                  if "omni" in yaml.safe_load(path.read_text()))


def compare(model: str, rendering: dict[str, Any]) -> dict[Key, tuple[Any, Any]]:
    """Ours for our default selection against the public's default rendering."""
    out: dict[Key, tuple[Any, Any]] = {}
    query = rendering["query"]
    assert query == "default"

    def differ(role: str, option: str, ours: Any, theirs: Any) -> None:
        out[(model, query, role, option)] = (ours, theirs)

    result = build(builder_catalog(), builder_recipe(model), {})
    for key in SELECTION:
        if result["selection"].get(key) != rendering["selection"][key]:
            differ("-", f"selection.{key}", result["selection"].get(key),
                   rendering["selection"][key])
    image = result["docker_image"] if result["install"]["docker"]["available"] else None
    if image != rendering["docker_image"]:
        differ("-", "docker image", image, rendering["docker_image"])
    mine = [c for c in result["commands"] if c["argv"][:2] == ["vllm", "serve"]]
    assert [c["role"] for c in mine] == ["serve"], result["commands"]
    (theirs,) = rendering["commands"]
    compare_command(mine[0], theirs, lambda option, a, b: differ("serve", option, a, b))
    return out


@cache
def found() -> dict[Key, tuple[Any, Any]]:
    return {k: v for model in sample() for r in golden(model)["renderings"]
            for k, v in compare(model, r).items()}


# --- the sample and its golden files ---------------------------------------------------------


def test_the_goldens_are_our_25_omni_recipes_from_the_text_goldens_commit() -> None:
    assert sorted(sample()) == omni_recipes()
    assert len(set(sample())) == len(sample()) == 25
    assert sorted(p.relative_to(OMNI).with_suffix("").as_posix()
                  for p in OMNI.glob("*/*.json")) == omni_recipes()
    commits = {golden(model)["public"]["commit"] for model in sample()}
    text = json.loads(next(GOLDEN.glob("*/*.json")).read_text())["public"]["commit"]
    assert commits == {text}
    assert text in (OMNI / "sample.yaml").read_text()


@pytest.mark.parametrize("model", sample())
def test_each_golden_is_one_default_omni_command(model: str) -> None:
    doc = golden(model)
    assert doc["model"] == model
    (rendering,) = doc["renderings"]
    assert rendering["query"] == "default"
    assert set(rendering["selection"]) == set(SELECTION)
    (command,) = rendering["commands"]
    assert command["role"] == "serve"
    assert command["argv"][:2] == ["vllm", "serve"] and command["argv"][-1] == "--omni"
    # argv is the public's text command split as a shell would read it.
    assert shlex.split(command["command"].replace(" \\\n  ", " ")) == command["argv"]


@pytest.mark.parametrize("model", sample())
def test_the_public_commands_use_known_options(model: str) -> None:
    # A public flag we match is a flag we render: it must be one `vllm serve --omni` takes.
    for rendering in golden(model)["renderings"]:
        for command in rendering["commands"]:
            assert check_tokens(command["argv"][3:], omni=True) == [], command["argv"]


# --- the comparison -------------------------------------------------------------------------


@pytest.mark.parametrize("model", sample())
def test_every_difference_is_listed_with_its_values(model: str) -> None:
    expected = {k: e for k, e in index_differences(listed()["differences"]).items()
                if k[0] == model}
    actual = {k: v for k, v in found().items() if k[0] == model}
    assert_listed(actual, expected)


def test_each_cited_line_is_a_differs_comment_next_to_its_field() -> None:
    assert_cited_comments(listed()["differences"])


def test_differences_are_listed_only_for_the_sample_and_their_defaults() -> None:
    assert set(listed()) == {"differences"}
    for key in index_differences(listed()["differences"]):
        assert key[0] in sample() and key[1] == "default", key
        assert key[2] in ("-", "serve"), key
