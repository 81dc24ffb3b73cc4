"""Install lines that match their label (issue 35, point 5).

Every install block the site publishes is made of a brand's install line or image
(`recipes/hardware.yaml`, the vLLM-Omni form of `builder/vllm_release.omni_pip` for generation
models), the images a recipe names (`docker_image` anywhere in it) and the recipe's extra steps
(`dependencies`); `builder/commands/install.py` adds nothing else. So the rules are checked on
those sources, every one of them, and on the blocks actually rendered for each recipe's default
selection (both install methods), which shows the blocks are made of nothing else:

- each `pip install` names exact versions (`name==1.2.3`, a wheel URL, a VCS URL at a commit
  or tag, a checkout cloned at a tag), unless the step says why not (`unpinned:`); a brand's
  nightly line is exempt, since its label says it installs a nightly build;
- no step installs a vLLM other than the release its label names (`vllm==<release>`), unless it
  says why (`unpinned:`);
- each image is tagged, and not `latest`;
- each extra of `vllm[...]` or `vllm-omni[...]` exists in that release's metadata
  (`tests/data/release-extras.json`, compared with the parser environments by the
  `vllm_parser` test below).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builder import SelectionError, build
from builder.vllm_release import OMNI_VERSION, OMNI_VLLM_VERSION, VLLM_VERSION, omni_pip
from tests.recipes_data import ROOT, builder_catalog, builder_recipe, hf_ids
from tests.vllm_parser.envs import PYTHONS

EXTRAS_FILE = ROOT / "tests/data/release-extras.json"

VALUE_OPTIONS = {"--torch-backend", "--extra-index-url", "--index-url", "--index-strategy",
                 "--python", "-c", "--constraint", "-r", "--requirement", "-i", "-f",
                 "--find-links"}
"""Options of `pip install` / `uv pip install` that take a value (not a requirement)."""

EXACT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*(\[[A-Za-z0-9_,.-]+\])?==[0-9][0-9A-Za-z.+!-]*$")
VCS_AT = re.compile(r"^git\+https://\S+?\.git@(?P<ref>[0-9A-Za-z._/-]+)$")
MOVING_REFS = {"main", "master", "HEAD"}

UNTAGGED_ON_PURPOSE = {
    "eugr/spark-vllm-b12x:latest": (
        "DeepSeek-V4-Flash on DGX Spark: the reference recipe (tests/data/reference-deepseek-"
        "v4-flash.json, the authority for that recipe) names this community image's latest "
        "build; its dated nightly tags are not recorded as checked with that command"),
}
"""Images published with `latest` on purpose, each with why (issue 35 names none of them)."""


def extras() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(EXTRAS_FILE.read_text())
    return doc


def requirements(command: str) -> Iterator[tuple[str, bool]]:
    """(requirement, editable) for every package a `pip install` in `command` names."""
    for line in command.splitlines():
        for part in re.split(r"&&|;", line):
            words = shlex.split(part)
            if "pip" not in words or "install" not in words[words.index("pip"):]:
                continue
            rest = words[words.index("install", words.index("pip")) + 1:]
            i = 0
            while i < len(rest):
                word = rest[i]
                if word in VALUE_OPTIONS:
                    i += 2
                    continue
                if word in ("-e", "--editable"):
                    yield rest[i + 1], True
                    i += 2
                    continue
                if word.startswith("-"):
                    i += 1
                    continue
                yield word, False
                i += 1


def pinned(requirement: str, editable: bool, command: str) -> bool:
    """Whether `requirement` (a word after `pip install`) names one exact version."""
    if editable:
        # A checkout: pinned when the command clones it at a tag or commit.
        return bool(re.search(r"git clone [^&;\n]*--branch \S+", command)) and not re.search(
            r"--branch (main|master)\b", command)
    if " @ " in requirement:
        requirement = requirement.split(" @ ", 1)[1]
    if EXACT.match(requirement):
        return True
    match = VCS_AT.match(requirement)
    if match:
        return match["ref"] not in MOVING_REFS
    return bool(re.match(r"^https://\S+-[0-9][^/]*\.whl$", requirement))


def extras_of(requirement: str) -> tuple[str, list[str]]:
    """The package name and its extras (`vllm[audio]==0.33.0` → vllm, [audio])."""
    name = re.split(r"[=<>!~ @]", requirement, maxsplit=1)[0]
    match = re.match(r"^([A-Za-z0-9_.-]+)\[([^\]]+)\]$", name)
    if not match:
        return name, []
    return match[1], [e.strip() for e in match[2].split(",")]


def vllm_pins(requirement: str) -> str | None:
    """The release a requirement pins vLLM itself to (`vllm==0.20.0`, `vllm[audio]==0.20.0`)."""
    match = re.match(r"^vllm(\[[^\]]+\])?==([^,;\s]+)$", requirement)
    return match[2] if match else None


def problems(command: str, *, release: str, why_not: str | None = None) -> list[str]:
    """What is wrong with the `pip install`s of one install line or step."""
    out = []
    for requirement, editable in requirements(command):
        if not pinned(requirement, editable, command) and not why_not:
            out.append(f"{requirement!r} is not pinned to one version")
        pin = vllm_pins(requirement)
        if pin is not None and pin != release and not why_not:
            out.append(f"{requirement!r} installs vLLM {pin} under a label of vLLM {release}")
        name, wanted = extras_of(requirement)
        if name in extras():
            missing = sorted(set(wanted) - set(extras()[name]["extras"]))
            if missing:
                out.append(f"{requirement!r}: {name} {extras()[name]['version']} has no extra "
                           f"{', '.join(missing)}")
    return out


def image_problem(image: str) -> str | None:
    """Why an image reference is not pinned to a tag (or a digest), None when it is."""
    if "@sha256:" in image:
        return None
    name, _, tag = image.rpartition(":")
    if not name or "/" in tag:
        return f"{image}: no tag"
    if tag == "latest" or tag.startswith("latest-"):
        return f"{image}: tagged latest"
    return None


def images_in(node: Any) -> Iterator[str]:
    """Every `docker_image` value anywhere in a recipe (model, variants, overrides)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "docker_image":
                yield from value.values() if isinstance(value, dict) else [value]
            else:
                yield from images_in(value)
    elif isinstance(node, list):
        for item in node:
            yield from images_in(item)


# --- the rules themselves -------------------------------------------------------------------


def test_the_rules_catch_what_issue_35_found() -> None:
    release = VLLM_VERSION
    assert problems("uv pip install librosa soundfile", release=release) == [
        "'librosa' is not pinned to one version", "'soundfile' is not pinned to one version"]
    assert problems('uv pip install "vllm[audio]==0.33.0"', release=release) == []
    assert problems('uv pip install "vllm[audio]==0.20.0"', release=release) == [
        "'vllm[audio]==0.20.0' installs vLLM 0.20.0 under a label of vLLM 0.33.0"]
    assert problems('uv pip install "vllm[audoi]==0.33.0"', release=release) == [
        "'vllm[audoi]==0.33.0': vllm 0.33.0 has no extra audoi"]
    clone = ("git clone https://github.com/vllm-project/vllm-omni.git && cd vllm-omni && "
             "uv pip install -e . vllm==0.18.0")
    assert problems(clone, release=release) == [
        "'.' is not pinned to one version",
        "'vllm==0.18.0' installs vLLM 0.18.0 under a label of vLLM 0.33.0"]
    assert problems(clone, release=release, why_not="a reason") == []
    assert problems("uv pip install git+https://github.com/x/y.git@v2.1.1.post3 "
                    "--no-build-isolation", release=release) == []
    assert problems("uv pip install git+https://github.com/x/y.git", release=release)
    assert problems("uv pip install -U 'transformers>=5.4.0'", release=release)
    assert image_problem("quay.io/ascend/vllm-ascend:latest") is not None
    assert image_problem("vllm/vllm-openai-cpu:latest-x86_64") is not None
    assert image_problem("vllm/vllm-openai") is not None
    assert image_problem("localhost:5000/vllm") is not None
    assert image_problem("vllm/vllm-openai-rocm:nightly-9204424") is None


# --- every source of an install block --------------------------------------------------------


def test_every_brand_install_line_and_image_is_pinned() -> None:
    found = []
    for brand_id, brand in builder_catalog()["brands"].items():
        for key in ("default_image", "nightly_image"):
            problem = brand.get(key) and image_problem(brand[key])
            if problem:
                found.append(f"{brand_id}.{key}: {problem}")
        # Whatever the brand's line installs, its label says: the checked release, or `build`.
        if brand.get("pip_install"):
            for problem in problems(brand["pip_install"], release=VLLM_VERSION,
                                    why_not=brand.get("build")):
                found.append(f"{brand_id}.pip_install: {problem}")
            for problem in problems(omni_pip(brand["pip_install"]), release=OMNI_VLLM_VERSION,
                                    why_not=brand.get("build")):
                found.append(f"{brand_id}.pip_install as vLLM-Omni's: {problem}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("hf_id", hf_ids())
def test_every_recipe_install_step_and_image_is_pinned(hf_id: str) -> None:
    recipe = builder_recipe(hf_id)
    release = OMNI_VLLM_VERSION if recipe.get("omni") else VLLM_VERSION
    found = [f"image {p}" for image in images_in(recipe)
             if image not in UNTAGGED_ON_PURPOSE and (p := image_problem(image))]
    for n, step in enumerate(recipe.get("dependencies", [])):
        found += [f"dependencies[{n}]: {p}" for p in problems(
            step["command"], release=release, why_not=step.get("unpinned"))]
    assert not found, "\n".join(found)


def test_the_published_blocks_are_made_of_those_sources_only() -> None:
    """The default selection of every recipe, both install methods, as the site renders them:
    the same rules hold on the text (so no other source slipped in)."""
    catalog = builder_catalog()
    checked = 0
    for hf_id in hf_ids():
        recipe = builder_recipe(hf_id)
        try:
            result = build(catalog, recipe, {})
        except SelectionError:
            continue
        release = OMNI_VLLM_VERSION if recipe.get("omni") else VLLM_VERSION
        reasons = {s["command"]: s.get("unpinned") for s in recipe.get("dependencies", [])}
        for method, choice in result["install"].items():
            if not choice["available"]:
                continue
            checked += 1
            label = choice["checked_with"]
            assert label.startswith(f"checked with vLLM {VLLM_VERSION}") or label.startswith(
                f"checked with vLLM-Omni {OMNI_VERSION} on vLLM {OMNI_VLLM_VERSION}"), label
            if method == "docker":
                image = choice["command"].removeprefix("docker pull ")
                assert image in UNTAGGED_ON_PURPOSE or image_problem(image) is None, (
                    hf_id, image)
                continue
            # The label names the build the install line installs when it is not the release.
            other_build = label.split("installs ", 1)[1] if "installs " in label else None
            assert not problems(choice["command"], release=release, why_not=other_build), (
                hf_id, choice["command"])
            for step in choice["dependencies"]:
                assert not problems(step["command"], release=release,
                                    why_not=reasons.get(step["command"])), (hf_id, step)
    assert checked > 300, checked


# --- the extras file is what the parser environments' metadata says ---------------------------


@pytest.mark.vllm_parser
def test_the_extras_file_is_what_the_installed_releases_provide() -> None:
    import subprocess

    script = ("import importlib.metadata as m, json, sys; d = m.distribution(sys.argv[1]); "
              "print(json.dumps({'version': d.version, 'extras': sorted(set("
              "d.metadata.get_all('Provides-Extra') or []))}))")
    for kind, dist in (("vllm", "vllm"), ("omni", "vllm-omni")):
        python = PYTHONS[kind]
        if not Path(python).is_file():
            pytest.fail(f"no parser environment at {python}: run `make parser-envs`")
        out = subprocess.run([python, "-c", script, dist], capture_output=True, text=True,
                             check=True, env={"VLLM_TARGET_DEVICE": "cpu"}).stdout
        assert extras()[dist] == json.loads(out), dist
    assert extras()["vllm"]["version"] == VLLM_VERSION
    assert extras()["vllm-omni"]["version"] == OMNI_VERSION
