"""The JSON endpoints of the built site: the reference shape, links that resolve, and the same
commands as the CLI."""

from __future__ import annotations

import contextlib
import io
import json
import posixpath
import random
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest

from builder.bridge import builder_input
from builder.commands.build import build
from tests.recipes_data import (
    RECIPES,
    ROOT,
    active_recipes,
    builder_catalog,
    builder_recipe,
    catalog,
    hf_ids,
)
from tests.sitebuild import BuiltSite
from vllm_recipes_cli.cli import main as cli_main

pytestmark = pytest.mark.site

REFERENCE = ROOT / "tests" / "data" / "reference-deepseek-v4-flash.json"
HF_ID = "deepseek-ai/DeepSeek-V4-Flash"
NOT_COMPARED = {"guide"}
"""`guide` is ours in our own words. (`source`, the repositories the reference's recipe comes
from, is published as the reference has it: issue 15, point 6.)"""
DIFFERENCES = {
    "meta.hardware": "format v2: tested hardware is `verified`, offered hardware `hardware`",
    "meta.slug": "format v2: derived from the model id unless written",
    "recommended_command.strategy_spec.description": "the strategy's description is in our own "
                                                      "words (prose is not copied)",
    "meta.related_recipes": "format v2: an empty list is not written",
    "model.default_frontend": "format v2: the default (rust) is not written",
    "model.flashinfer_autotune": "dropped: it changed no command",
    "model.install": "dropped: it repeated the brand's install commands",
    "variants.default.supported_hardware": "format v2: `hardware`, brand/generation keys",
    "variants.nvfp4.supported_hardware": "format v2: NVFP4 implies Blackwell; no list needed",
    "variants.dspark": "renamed preview_dspark: `dspark` is also a spec_decoding mode "
                       "(issue 10.6)",
    "variants.fp8.label": "says what the weights are: FP4+FP8 (Preview) (issue 10.6)",
    "features.spec_decoding.modes.dspark.variants": "the dspark variant is preview_dspark",
    "variants.ascend_w8a8.supported_hardware": "format v2: `hardware`",
    "variants.ascend_w8a8.tp": "`--tensor-parallel-size 8` is an argument of every strategy on "
                               "the 910C (DP2 + TP8), not the Tensor Parallel size",
    "variants.default.hardware_overrides.ascend_950": "keyed once by the generation ascend_a5",
    "variants.fp8.hardware_overrides.ascend_950": "keyed once by the generation ascend_a5",
    "hardware_notes.ascend_950": "the reference's anchors name no heading of our guide",
    "hardware_notes.ascend_910c": "the link is inline in the note's text",
    **{f"variants.{v}.hardware_overrides.dgx_spark_gb10": "the DGX Spark settings are written "
       "once, in the recipe's hardware_overrides (every checkpoint on Spark needs them)"
       for v in ("default", "fp8", "nvfp4")},
    "recommended_command.command": "API v1: the text the page's Copy copies, `export` lines "
                                   "of `env` first, continuation lines indented by two spaces",
    "recommended_command.docker_command": "API v1: the text the page's Copy copies (two-space "
                                          "indent)",
    "recommended_command.docker_argv": "issue 32: no --privileged (vLLM's Docker docs need "
                                       "none: --gpus and --ipc=host), and -e HF_TOKEN passes "
                                       "the token through by name for gated checkpoints",
}
"""Every key (dotted path, or a prefix of it) where our document differs from the reference,
with the reason. The test fails when this is not exactly the set of differing keys."""
LINK_KEYS = {"json", "recipe_json", "url", "page"}
LINK_MAPS = {"alternatives", "by_hardware", "models"}


def load(site: BuiltSite, path: str) -> Any:
    return json.loads((site.root / path.lstrip("/")).read_text(encoding="utf-8"))


def resolve(uri: str, link: str) -> str:
    """A link (relative to the document at site path `uri`) as a site path."""
    path = link.split("?")[0].split("#")[0]
    return posixpath.normpath(posixpath.join(posixpath.dirname(uri.lstrip("/")), path)) + (
        "/" if path.endswith("/") else "")


def follow(site: BuiltSite, path: str, start: str = "") -> Any:
    """The document at `path` (a link from the document at `start`; from the root when
    empty), through its `same_as` pointer when it is one (one hop: a pointer never points at
    another pointer)."""
    uri = resolve(start, path)
    doc = load(site, uri)
    if "same_as" in doc:
        doc = load(site, resolve(uri, doc["same_as"]))
        assert "same_as" not in doc
    return doc


def flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted key, value) of every leaf; lists are leaves."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from flatten(item, f"{prefix}.{key}" if prefix else key)
    else:
        yield prefix, value


def test_reference_keys_match_except_listed_differences(built_site: BuiltSite) -> None:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    ours = dict(flatten(load(built_site, f"/{HF_ID}.json")))
    differing = {}
    for key, value in flatten(reference):
        if key.split(".")[0] in NOT_COMPARED:
            continue
        parts = key.split(".")
        is_link = parts[-1] in LINK_KEYS or parts[-2:-1] in [[m] for m in LINK_MAPS]
        # API v1: a link is relative to its document; the file it names is the same
        if key in ours and is_link and urljoin(f"/{HF_ID}.json", ours[key]) == value:
            continue
        if ours.get(key, "<missing>") != value:
            differing[key] = (value, ours.get(key, "<missing>"))
    explained = {k: next((d for d in DIFFERENCES if k.startswith(d)), None) for k in differing}
    unexplained = {k: v for k, v in differing.items() if explained[k] is None}
    assert not unexplained, "new differences from the reference:\n" + "\n".join(
        f"{k}: reference {v[0]!r}, ours {v[1]!r}" for k, v in unexplained.items()
    )
    gone = set(DIFFERENCES) - set(explained.values())
    assert not gone, "listed differences that are gone: " + ", ".join(sorted(gone))


def test_the_recipe_document_has_every_top_level_key_of_the_reference(
        built_site: BuiltSite) -> None:
    """A script written against the reference document finds each of its top-level keys
    (`opt_in_features` is worked out from the features' `opt_in`)."""
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    ours = load(built_site, f"/{HF_ID}.json")
    assert set(reference) - set(ours) == set()
    assert ours["opt_in_features"] == [
        fid for fid, f in builder_recipe(HF_ID)["features"].items() if f.get("opt_in") is True]


def test_reference_command_strings_are_the_page_copy_text(built_site: BuiltSite) -> None:
    """API v1: `command` is what the page copies, the `export` lines of `env` then the
    reference's command; both texts indent continuation lines by two spaces (v0: one)."""
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))["recommended_command"]
    ours = load(built_site, f"/{HF_ID}.json")["recommended_command"]
    exports = "".join(f"export {k}={v}\n" for k, v in reference["env"].items())
    assert ours["command"] == exports + reference["command"].replace("\n ", "\n  ")
    # Issue 32's container grant: the reference's --privileged goes, HF_TOKEN is passed by name.
    docker = reference["docker_command"].replace("--privileged ", "").replace(
        "\n -e ", "\n -e HF_TOKEN \\\n -e ", 1)
    assert ours["docker_command"] == docker.replace("\n ", "\n  ")


def _json_files(site: BuiltSite) -> list[Path]:
    skip = {"assets", "search", "api"}
    return sorted(
        p for p in site.root.rglob("*.json")
        if p.relative_to(site.root).parts[0] not in skip
    )


def _links(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in LINK_KEYS and isinstance(item, str):
                yield item
            elif key in LINK_MAPS and isinstance(item, dict):
                yield from (v for v in item.values() if isinstance(v, str))
            else:
                yield from _links(item)
    elif isinstance(value, list):
        for item in value:
            yield from _links(item)


def _target(site: BuiltSite, uri: str, link: str) -> Path:
    assert not link.startswith("/"), link  # relative to the document (API v1)
    path = resolve(uri, link)
    target = site.root / path
    return target / "index.html" if path.endswith("/") else target


@dataclass(frozen=True)
class _Read:
    """What the tests below read of one JSON file of the site (each test walked and parsed
    all of them, ~220 MB, on its own)."""
    path: Path
    links: tuple[str, ...]
    """`_links` of the document."""
    keys: frozenset[str] | None
    """The document's keys (None: not an object)."""
    command_keys: frozenset[str] | None
    """`set(doc["recommended_command"])` (None: it has none)."""
    rendering: bool
    """A rendering of a selection: its `recommended_command` has the `query`."""


@cache
def _read_all(site_root: Path) -> tuple[_Read, ...]:
    """Every file of `_json_files`, parsed once per test process."""
    found = []
    for path in _json_files(BuiltSite(site_root, "")):
        data = json.loads(path.read_text(encoding="utf-8"))
        is_dict = isinstance(data, dict)
        found.append(_Read(
            path, tuple(_links(data)), frozenset(data) if is_dict else None,
            frozenset(data["recommended_command"]) if is_dict and "recommended_command" in data
            else None,
            is_dict and "query" in data.get("recommended_command", {})))
    return tuple(found)


def test_every_path_named_in_json_exists(built_site: BuiltSite) -> None:
    checked = 0
    for read in _read_all(built_site.root):
        path = read.path
        for link in read.links:
            if link.startswith(("https://", "http://")):  # a file fetched from elsewhere
                continue
            uri = path.relative_to(built_site.root).as_posix()
            assert _target(built_site, uri, link).is_file(), f"{uri}: {link} is not in site/"
            checked += 1
    assert checked > 500


def test_recipe_documents_have_the_reference_shape(built_site: BuiltSite) -> None:
    reference = json.loads(REFERENCE.read_text(encoding="utf-8"))
    for hf_id in hf_ids():
        doc = load(built_site, f"/{hf_id}.json")
        assert doc["hf_id"] == hf_id
        assert set(reference["recommended_command"]) <= set(doc["recommended_command"])
        assert set(doc) >= set(builder_recipe(hf_id)) | {"hf_id", "recommended_command"}


def test_recipe_document_feeds_the_builder_like_the_recipe(built_site: BuiltSite) -> None:
    """The page's builder loads /<hf_id>.json minus page-only keys: same results."""
    data = load(built_site, "/builder-catalog.json")
    assert data.pop("api_version") == 1
    assert data.pop("$schema") == "api/v1/schema/builder-catalog.json"
    assert data == builder_catalog()
    for hf_id in hf_ids():
        doc = load(built_site, f"/{hf_id}.json")
        recipe = builder_input(doc)
        assert build(data, recipe, {}) == build(builder_catalog(), builder_recipe(hf_id), {})


def test_alternatives_and_by_hardware_follow_the_builder(built_site: BuiltSite) -> None:
    for hf_id in hf_ids():
        command = load(built_site, f"/{hf_id}.json")["recommended_command"]
        result = build(builder_catalog(), builder_recipe(hf_id), {})
        blocked = result["unavailable"].get("strategy", {})
        expected = [s for s in builder_catalog()["strategies"]
                    if s not in blocked and s != command["strategy"]]
        assert list(command["alternatives"]) == expected
        for sid, path in command["alternatives"].items():
            assert follow(built_site, path, f"{hf_id}.json")["recommended_command"][
                "strategy"] == sid
        for hw_id, path in command["by_hardware"].items():
            other = follow(built_site, path, f"{hf_id}.json")["recommended_command"]
            assert (other["hardware"], other["variant"]) == (hw_id, command["variant"])
        order = list(builder_catalog()["hardware"])
        assert list(command["by_hardware"]) == sorted(command["by_hardware"], key=order.index)


def test_models_json_lists_recipes_and_variant_ids(built_site: BuiltSite) -> None:
    rows = load(built_site, "/models.json")["models"]
    ids = [row["hf_id"] for row in rows]
    assert len(ids) == len(set(ids))
    for hf_id, recipe in active_recipes().items():
        assert hf_id in ids
        for variant in recipe.variants.values():
            if variant.model_id and variant.model_id != hf_id:
                assert variant.model_id in ids
    for row in rows:
        assert set(row) >= {"hf_id", "title", "provider", "url", "json"}
        doc = load(built_site, row["json"])
        if row["retired"]:
            assert "recommended_command" not in doc and doc["retired"]["reason"]
            continue
        if "same_as" in doc:  # the default variant's own id points at the recipe's document
            assert row["variant"] == "default"
            doc = load(built_site, resolve(row["json"], doc["same_as"]))
            assert doc["hf_id"] == row["recipe"]
            continue
        assert doc.get("recipe", doc["hf_id"]) == row.get("recipe", row["hf_id"])
        assert doc["recommended_command"]["model_id"] == (
            row["hf_id"] if "variant" in row else doc["recommended_command"]["model_id"]
        )


def test_variant_documents_are_pinned_to_their_variant(built_site: BuiltSite) -> None:
    for hf_id, recipe in active_recipes().items():
        doc = load(built_site, f"/{hf_id}.json")
        for variant_id, variant in recipe.variants.items():
            link = doc["variants"][variant_id].get("json")
            if variant.model_id is None or variant.model_id == hf_id:
                assert link is None
                continue
            assert resolve(f"{hf_id}.json", link) == f"{variant.model_id}.json"
            command = follow(built_site, link, f"{hf_id}.json")["recommended_command"]
            assert command["variant"] == variant_id
            assert command["model_id"] == variant.model_id


def test_catalog_wide_files(built_site: BuiltSite) -> None:
    strategies = load(built_site, "/strategies.json")["strategies"]
    assert list(strategies) == list(builder_catalog()["strategies"])
    for sid, strategy in strategies.items():
        assert load(built_site, strategy["json"])["name"] == sid
    hardware = load(built_site, "/hardware.json")
    assert list(hardware["hardware"]) == list(builder_catalog()["hardware"])
    for hw in hardware["hardware"].values():
        assert hw["vram_gb"] == hw["gpu_count"] * hw["memory_gb"]
    schema = (RECIPES / "schema.json").read_text(encoding="utf-8")
    assert (built_site.root / "schema.json").read_text(encoding="utf-8") == schema


# ------------------------------------------------------------------ JSON argv == CLI argv


def _renderings(site_root: Path) -> list[Path]:
    return [read.path for read in _read_all(site_root) if read.rendering]


def _cli_call(doc: dict[str, Any]) -> list[str] | None:
    """`vllm-recipes` arguments for the document's selection, or None if the CLI
    cannot name it (a variant without a model id, on a recipe whose id names a variant)."""
    command = doc["recommended_command"]
    hf_id, query = doc.get("recipe", doc["hf_id"]), dict(command["query"])
    variant = command["variant"]
    model_id = catalog().recipes[hf_id].variants[variant].model_id
    if "variant" not in query and catalog().find(hf_id) == (hf_id, "default"):
        name = hf_id
    elif model_id:
        name = model_id  # the CLI pins the variant for a variant's model id
        query.pop("variant", None)
    elif catalog().find(hf_id) == (hf_id, "default"):
        name = hf_id
    else:
        return None
    return [sys.executable, "-m", "vllm_recipes_cli", name, *(f"{k}={v}" for k, v in query.items()),
            "--json"]


def in_process(call: list[str]) -> subprocess.CompletedProcess[str]:
    """What `call` (`python -m vllm_recipes_cli ...`) gives, from the CLI's `main` run here."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(call[3:])
    return subprocess.CompletedProcess(call, code, out.getvalue(), err.getvalue())


def test_sampled_renderings_match_the_cli(built_site: BuiltSite) -> None:
    candidates = _renderings(built_site.root)
    assert len(candidates) > 100
    calls = []
    for path in random.Random(20).sample(candidates, len(candidates)):
        doc = json.loads(path.read_text(encoding="utf-8"))
        call = _cli_call(doc)
        if call is not None:
            calls.append((path, doc, call))
        if len(calls) == 20:
            break

    # The first as a user runs it (a process of its own); the others through the same
    # `main` in this process (a Python start-up with our imports is ~1 s each).
    runs = [subprocess.run(calls[0][2], cwd=ROOT, capture_output=True, text=True, check=False),
            *(in_process(call) for _, _, call in calls[1:])]
    assert len(calls) == 20
    for (path, doc, call), cli in zip(calls, runs, strict=True):
        where = f"{path.relative_to(built_site.root)} vs {' '.join(call[2:])}"
        assert cli.returncode == 0, f"{where}: {cli.stderr}"
        result = json.loads(cli.stdout)["recommended_command"]
        command = doc["recommended_command"]
        blocks = command.get("commands") or [command]  # one command: `argv` is all of it
        assert [c["argv"] for c in blocks] == [c["argv"] for c in result["commands"]], where
        assert command["argv"] in [c["argv"] for c in result["commands"]], where
        assert command["docker_argv"] in [c["docker_argv"] for c in result["commands"]], where
        assert result["selection"]["strategy"] == command["strategy"], where
        assert result["selection"]["hardware"] == command["hardware"], where


def _documented_fields() -> tuple[set[str], set[str]]:
    """The `recommended_command` fields the API page's table names, and those it marks
    *full only* (absent from per-selection files)."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    table = text.split("<!-- recommended-command-fields -->")[1].split("<!-- /")[0]
    fields: set[str] = set()
    full_only: set[str] = set()
    for row in (line for line in table.splitlines() if line.startswith("| `")):
        cells = [c.strip() for c in row.strip("|").split("|")]
        names = {n.strip("` ") for n in cells[0].split(",")}
        fields |= names
        if cells[2].startswith("*full only*"):
            full_only |= names
    return fields, full_only


def test_the_api_page_documents_every_recommended_command_field(built_site: BuiltSite) -> None:
    fields, full_only = _documented_fields()
    assert {"selection", "command", "by_hardware"} <= fields
    seen_full: set[str] = set()
    seen_compact: set[str] = set()
    for read in _read_all(built_site.root):
        path, doc = read.path, read.keys
        if doc is None or "recommended_command" not in doc:
            continue
        keys = set(read.command_keys or ())
        assert keys <= fields, f"{path}: undocumented {sorted(keys - fields)}"
        assert "widget_html" not in doc, path
        if "title" in doc:  # a variant's document
            assert set(doc) == {"api_version", "$schema", "hf_id", "recipe", "variant", "title",
                                "recipe_json", "recommended_command"}, path
        elif "recipe_json" in doc:  # a per-selection file (of the recipe or of a variant id)
            own = {"api_version", "$schema", "hf_id", "recipe_json", "recommended_command"}
            assert set(doc) in (own, own | {"recipe", "variant"}), path
            assert not keys & full_only, f"{path}: has {sorted(keys & full_only)}"
            seen_compact |= keys
            continue
        else:
            assert {"hf_id", "meta", "model", "variants", "file", "guide"} <= set(doc), path
            assert "title" not in doc, path
        assert fields <= keys | {"commands"}, path
        seen_full |= keys
    assert seen_full == fields
    assert seen_compact == fields - full_only
