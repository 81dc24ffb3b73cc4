"""The JSON API as a versioned contract (issue 36, points 1 and 2): every document carries
`api_version` and validates against the schema it names; `vllm-recipes --json` has the shape
of the site's file for the same selection; `command` is what the page copies; links are
relative and resolve under any sub-path; the indexes answer in one request; the API page's
examples run."""

from __future__ import annotations

import contextlib
import io
import json
import os
import posixpath
import re
import shlex
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache, partial
from http.client import HTTPConnection
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit
from xml.etree import ElementTree

import jsonschema
import jsonschema_rs
import pytest

from builder.commands.build import build, retired_reason
from site_plugins.recipes import api, indexes
from site_plugins.recipes.deployments import deployments_document
from site_plugins.recipes.indexes import FEED_SIZE, feed_entries
from site_plugins.recipes.renderings import render_recipe
from tests.recipes_data import ROOT, builder_catalog, builder_recipe, catalog
from tests.sitebuild import BuiltSite
from vllm_recipes.api_contract import (
    API_VERSION,
    CLI_ONLY,
    LINK_MAPS,
    LINKS,
    SCHEMA_DIR,
    SITE_ONLY,
    finish,
    relative,
)
from vllm_recipes.api_schemas import SCHEMAS, published
from vllm_recipes.history import Change, changes
from vllm_recipes.model_index import LINK_KEYS, cli_models_document
from vllm_recipes_cli.cli import main as cli_main
from vllm_recipes_cli.cli_common import dynamo_targets, load

V4 = "deepseek-ai/DeepSeek-V4-Flash"
MATRIX_RECIPES = (V4, "Qwen/Qwen-Image", "Qwen/Qwen3-8B", "BAAI/bge-m3")
"""Recipes whose every published selection the CLI comparison covers: single-node,
multi-node, prefill/decode and KV-store layouts, variants with their own model ids, a
vLLM-Omni task model, a small chat model and an embedding model."""
COMPACT_ONLY_LEAVES = {"recommended_command.strategy_spec", "recommended_command.hardware_profile",
                       "recommended_command.by_hardware", "recommended_command.commands",
                       "recommended_command.fit.facts",
                       "recommended_command.performance.curves"}
"""What a per-selection file leaves out that the recipe's document (and the CLI) has (the
fit's facts: a per-selection file names their file, `fit.facts_file`; the performance curves
of every workload)."""
CLI_KINDS = {"cli", "cli-models", "cli-dynamo", "cli-diff", "cli-upstream"}
"""What `vllm-recipes --json`, `--list --json`, `--dynamo --json`, `diff --json` and
`upstream --json` print (no site file has these shapes)."""
NOT_API = {"schema.json", "serve.json"}
"""JSON files of the site that are not API documents: the recipe files' JSON Schema (a
schema, as those under /api/v1/schema/ are) and `npx serve`'s configuration."""


def cli_json(*args: str) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main([*args, "--json"])
    assert code == 0, err.getvalue()
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


@cache
def validator(kind: str) -> jsonschema.protocols.Validator:
    schema = published(kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@cache
def fast_validator(kind: str) -> jsonschema_rs.Draft202012Validator:
    """The same schema in jsonschema-rs (Rust; the site's thousands of files take a second,
    not half a minute): checked once by Python's jsonschema (`validator`), formats not
    asserted as Python's jsonschema asserts none without a format checker, never a download.
    `test_the_fast_validator_rejects_what_jsonschema_rejects` holds the two to one verdict."""
    validator(kind)
    return jsonschema_rs.Draft202012Validator(published(kind), validate_formats=False,
                                              offline=True)


@cache
def recipe_files(hf_id: str) -> dict[str, dict[str, Any]]:
    """Site path → document of every JSON file of one recipe, made as the build makes them."""
    catalog_data, recipe = builder_catalog(), builder_recipe(hf_id)
    renderings = render_recipe(catalog_data, recipe)
    return {uri: json.loads(text) for uri, text in
            api.recipe_endpoints(catalog_data, recipe, "guide", renderings, "/")}


def join(uri: str, link: str) -> str:
    """A link of the document at site path `uri`, as a site path."""
    return posixpath.normpath(posixpath.join(posixpath.dirname(uri), link.split("?")[0]
                                             .split("#")[0])) + ("/" if link.endswith("/") else "")


def follow(files: dict[str, dict[str, Any]], uri: str) -> tuple[str, dict[str, Any]]:
    doc = files[uri]
    if "same_as" in doc:
        uri = join(uri, doc["same_as"])
        doc = files[uri]
    return uri, doc


def differences(site: Any, cli: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """(dotted key, "site only" | "cli only" | "differs") for every key where the two
    differ; lists are compared item by item (same length), values that are equal agree."""
    if isinstance(site, dict) and isinstance(cli, dict):
        for key in site.keys() | cli.keys():
            where = f"{path}.{key}" if path else key
            if key not in cli:
                yield where, "site only"
            elif key not in site:
                yield where, "cli only"
            else:
                yield from differences(site[key], cli[key], where)
    elif isinstance(site, list) and isinstance(cli, list) and len(site) == len(cli):
        for a, b in zip(site, cli, strict=True):
            yield from differences(a, b, f"{path}[]" if path else "[]")
    elif site != cli:
        yield path, "differs"


def cli_call(doc: dict[str, Any]) -> list[str]:
    """`vllm-recipes` words for a site document's selection (a variant's files: its id)."""
    command = doc["recommended_command"]
    query = dict(command["query"])
    name = doc["hf_id"]
    if "recipe" in doc:  # a variant's own model id pins the variant
        query.pop("variant", None)
    return [name, *(f"{k}={v}" for k, v in query.items())]


# ------------------------------------------------------------------ contract, without a site


def test_every_schema_is_a_valid_json_schema() -> None:
    for kind in SCHEMAS:
        validator(kind)
    assert {"recipe", "variant", "rendering", "pointer", "alias", "retired", "models",
            "hardware-index", "taxonomy", "feed", *CLI_KINDS} <= set(SCHEMAS)


@pytest.mark.parametrize("hf_id", MATRIX_RECIPES)
def test_cli_json_is_the_static_rendering_of_the_same_selection(hf_id: str) -> None:
    """Over every published selection of the recipe: `vllm-recipes … --json` and the site's
    file agree on every key they share; the keys only one of them has are the documented
    ones (SITE_ONLY, CLI_ONLY, and what a per-selection file leaves out)."""
    files = recipe_files(hf_id)
    allowed_site = set(SITE_ONLY)
    allowed_cli = set(CLI_ONLY) | COMPACT_ONLY_LEAVES | {
        "recommended_command.commands[].sources"}
    compared = 0
    for uri in files:
        canonical, doc = follow(files, uri)
        if "recommended_command" not in doc or uri != canonical:
            continue
        ours = cli_json(*cli_call(doc))
        validator("cli").validate(ours)
        found = dict(differences(doc, ours))
        differing = {k for k, v in found.items() if v == "differs"}
        assert not differing, f"{uri}: {sorted(differing)}"
        site_only = {k for k, v in found.items() if v == "site only"}
        if uri == f"{hf_id}.json":  # the recipe's document also has the recipe's data
            site_only -= set(doc) - {"hf_id", "recommended_command"}
        cli_only = {k for k, v in found.items() if v == "cli only"}
        assert site_only <= allowed_site, f"{uri}: {sorted(site_only - allowed_site)}"
        assert cli_only <= allowed_cli, f"{uri}: {sorted(cli_only - allowed_cli)}"
        compared += 1
    assert compared >= 4


RETIRED = "pfnet/plamo-2-translate"
NEMOTRON = "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16"
"""Its default variant (NVFP4, Blackwell only) has a model id of its own."""


def without_links(row: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in row.items() if key not in LINK_KEYS}


@pytest.mark.parametrize("hf_id", [*MATRIX_RECIPES, RETIRED, NEMOTRON])
def test_list_json_rows_are_the_models_json_rows_without_links(hf_id: str) -> None:
    """`vllm-recipes --list --json` finds where a model has a command from the builder's
    resolver, the site from the files it publishes: the rows agree (the site's without its
    `url` and `json`)."""
    catalog_data, recipe = builder_catalog(), builder_recipe(hf_id)
    reason = retired_reason(recipe)
    if reason is not None:
        site = [indexes.retired_row(recipe, reason, "/")]
    else:
        site = indexes.model_rows(recipe, render_recipe(catalog_data, recipe), "/",
                                  indexes.fewest_by_variant(catalog_data, recipe))
    cli = cli_models_document(catalog_data, [recipe])
    validator("cli-models").validate(cli)
    assert cli["models"] == [without_links(row) for row in site]
    assert all(set(row) - set(cli_row) == set(LINK_KEYS)
               for row, cli_row in zip(site, cli["models"], strict=True))
    if hf_id in (V4, NEMOTRON):  # variants with their own ids, the default's among them
        assert len(site) >= 2 and site[1]["variant"] == "default"


def test_dynamo_json_is_the_deployments_json_item_of_the_selection() -> None:
    """`vllm-recipes HF_ID --dynamo … --json` for every available combination is the
    `targets` item of /<hf_id>/deployments.json without its `page` link."""
    targets = dynamo_targets(ROOT / "recipes", load(ROOT / "recipes"))
    compared = 0
    for hf_id, data in targets.items():
        site = deployments_document(hf_id, data, "/")
        validator("deployments").validate(finish(site, f"{hf_id}/deployments.json",
                                                 "deployments"))
        for item in site["targets"]:
            if not item["available"]:
                continue
            query = [f"{key}={item[key]}" for key in ("framework", "gpu", "topology")]
            ours = cli_json(hf_id, "--dynamo", *query)
            validator("cli-dynamo").validate(ours)
            assert ours["deployment"] == {k: v for k, v in item.items() if k != "page"}
            assert ours["api_version"] == API_VERSION and ours["hf_id"] == hf_id
            compared += 1
    assert compared >= 4


def test_command_is_the_text_the_page_copies_environment_included() -> None:
    """Issue 36: `jq -r .recommended_command.command` on DeepSeek-V4-Flash's MI355X file lost
    `VLLM_ROCM_USE_AITER=1`; now it is the serve block's copy text (exports, then command),
    and argv and env stay structured."""
    doc = recipe_files(V4)[f"{V4}/hw/mi355x.json"]
    command = doc["recommended_command"]
    assert command["command"].splitlines()[:2] == [
        "export VLLM_ROCM_USE_AITER=1", "export VLLM_USE_RUST_FRONTEND=1"]
    result = build(builder_catalog(), builder_recipe(V4), {"hardware": "mi355x"})
    serve = result["commands"][0]
    assert command["command"] == serve["shell"]
    assert command["env"] == serve["env"] == {"VLLM_ROCM_USE_AITER": "1",
                                              "VLLM_USE_RUST_FRONTEND": "1"}
    for hf_id in MATRIX_RECIPES:
        for uri, doc in recipe_files(hf_id).items():
            if "recommended_command" not in doc:
                continue
            command = doc["recommended_command"]
            lines = command["command"].split("\n")
            exports = [line for line in lines if line.startswith("export ")]
            assert [shlex.split(line) for line in exports] == [
                ["export", f"{k}={v}"] for k, v in command["env"].items()], uri
            rest = "\n".join(lines[len(exports):]).replace("\\\n", " ")
            assert shlex.split(rest) == command["argv"], uri


def test_links_are_relative_to_their_document() -> None:
    assert relative(f"{V4}.json", f"{V4}/hw/mi355x.json") == "../../DeepSeek-V4-Flash.json"
    assert relative("Qwen/Qwen3-8B/?hardware=h100#command", "models.json") == (
        "Qwen/Qwen3-8B/?hardware=h100#command")
    assert relative("", "Qwen/Qwen3-8B.json") == "../"
    files = recipe_files(V4)
    for uri, doc in files.items():
        assert doc["api_version"] == API_VERSION
        assert join(uri, doc["$schema"]).startswith(SCHEMA_DIR + "/"), uri
        for link in links(doc):
            assert not link.startswith(("/", "http:", "https:")), (uri, link)
            if link.endswith(".json") and not link.endswith("schema.json"):
                target = join(uri, link)
                assert target in files or target.startswith(SCHEMA_DIR) or target == (
                    f"{V4}.json"), (uri, link)


def test_the_reference_links_are_the_same_files_relative() -> None:
    """What v0 gave as a site-absolute path, v1 gives relative: the same file."""
    reference = json.loads((ROOT / "tests/data/reference-deepseek-v4-flash.json").read_text())
    ours = recipe_files(V4)[f"{V4}.json"]["recommended_command"]
    for key in ("alternatives", "by_hardware"):
        theirs = reference["recommended_command"][key]
        assert {k: urljoin(f"/{V4}.json", v) for k, v in ours[key].items()
                if k in theirs} == theirs


def test_history_gives_each_commit_per_file_with_its_date(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "recipes").mkdir(parents=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    git = partial(subprocess.run, cwd=repo, env=env, check=True, capture_output=True)
    git(["git", "init", "-q"])
    for day, (name, subject) in enumerate([("a.yaml", "add a"), ("b.yaml", "add b"),
                                           ("a.yaml", "tune a")], start=1):
        path = repo / "recipes" / name
        path.write_text(f"{path.read_text() if path.exists() else ''}{day}\n")
        git(["git", "add", "-A"])
        stamp = f"2026-11-0{day}T12:00:00+00:00"
        git(["git", "commit", "-qm", subject], env={**env, "GIT_COMMITTER_DATE": stamp,
                                                   "GIT_AUTHOR_DATE": stamp})
    found = changes(repo / "recipes")
    assert [(c.path.name, c.date, c.subject) for c in found] == [
        ("a.yaml", "2026-11-03T12:00:00+00:00", "tune a"),
        ("b.yaml", "2026-11-02T12:00:00+00:00", "add b"),
        ("a.yaml", "2026-11-01T12:00:00+00:00", "add a")]
    assert all(re.fullmatch(r"[0-9a-f]{40}", c.commit) for c in found)
    assert changes(tmp_path / "elsewhere") == []  # not a checkout (no such folder either)


def test_feed_entries_are_the_newest_changes_or_the_recipes_dates() -> None:
    paths = {"o/a": Path("/r/o/a.yaml"), "o/b": Path("/r/o/b.yaml")}
    titles = {"o/a": "A", "o/b": "B"}
    found = [Change(Path("/r/o/a.md"), "2026-11-03T00:00:00+00:00", "guide", "c3"),
             Change(Path("/r/o/a.yaml"), "2026-11-03T00:00:00+00:00", "guide", "c3"),
             Change(Path("/r/o/b.yaml"), "2026-11-02T00:00:00+00:00", "b", "c2"),
             Change(Path("/r/other.yaml"), "2026-11-04T00:00:00+00:00", "x", "c4")]
    entries = feed_entries(found, paths, titles, {})
    assert [(e.hf_id, e.commit) for e in entries] == [("o/a", "c3"), ("o/b", "c2")]
    fallback = feed_entries([], paths, titles, {"o/a": "2026-10-01", "o/b": "2026-10-02"})
    assert [(e.hf_id, e.date[:10], e.commit) for e in fallback] == [
        ("o/b", "2026-10-02", ""), ("o/a", "2026-10-01", "")]
    many = [Change(Path("/r/o/a.yaml"), f"2026-11-01T00:00:{i:02d}+00:00", "s", f"c{i}")
            for i in range(60)]
    assert len(feed_entries(many, paths, titles, {})) == FEED_SIZE


# ------------------------------------------------------------------ the built site


def site_json(site: BuiltSite) -> list[Path]:
    return [site.root / uri for uri in site_json_uris(site.root)]


@cache
def site_json_uris(root: Path) -> tuple[str, ...]:
    """The site path of every API document of a built site, in path order (one walk of the
    folders; the tests that read every document share it)."""
    found: list[tuple[str, ...]] = []
    for folder, folders, names in os.walk(root):
        parts = Path(folder).relative_to(root).parts
        if not parts:
            folders[:] = [name for name in folders if name not in ("assets", "search")]
        found += [(*parts, name) for name in names if name.endswith(".json")]
    uris = ("/".join(parts) for parts in sorted(found))
    return tuple(uri for uri in uris if not uri.startswith(SCHEMA_DIR) and uri not in NOT_API)


def links(value: Any) -> Iterator[str]:
    """The site links in a document (`keyed_links` without their keys)."""
    return (link for _, link in keyed_links(value))


@cache
def published_file(path: Path) -> Any:
    """A schema file of the site, read once (thousands of documents name each)."""
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.site
def test_every_json_file_validates_against_the_schema_it_names(built_site: BuiltSite) -> None:
    kinds: dict[str, int] = {}
    with_env = 0
    for path in site_json(built_site):
        uri = path.relative_to(built_site.root).as_posix()
        doc = json.loads(path.read_text(encoding="utf-8"))
        version, schema = ("_api_version", "_schema") if uri == "feed.json" else (
            "api_version", "$schema")
        assert doc.get(version) == API_VERSION, uri
        target = join(uri, doc[schema])
        kind = posixpath.basename(target).removesuffix(".json")
        assert target == f"{SCHEMA_DIR}/{kind}.json" and kind in SCHEMAS, uri
        assert published_file(built_site.root / target) == published(kind), kind
        if not fast_validator(kind).is_valid(doc):
            error = next(fast_validator(kind).iter_errors(doc))
            pytest.fail(f"{uri}: {error.message} at {error.instance_path}")
        kinds[kind] = kinds.get(kind, 0) + 1
        command = doc.get("recommended_command")
        if command:  # the page's copy text: an `export` line per variable of `env` first
            exports = command["command"].split("\n")[:len(command["env"])]
            assert [line.partition("=")[0] for line in exports] == [
                f"export {name}" for name in command["env"]], uri
            with_env += bool(command["env"])
    assert set(kinds) == set(SCHEMAS) - CLI_KINDS, sorted(set(SCHEMAS) - set(kinds))
    assert with_env > 3000  # (v0 left the environment out of 3,267 of 3,510 files)
    assert sum(kinds.values()) > 3000


WRONG_TYPE = {str: 0, int: "0", float: "0", bool: "true", type(None): [], list: "[]",
              dict: "{}"}
"""A value of another JSON type for a value of each type."""


def smallest_of_each_kind(site: BuiltSite) -> dict[str, str]:
    """Schema kind → the site path of the smallest JSON file naming it (every file names its
    schema among its first keys; only those first bytes are read)."""
    named = re.compile(rb'"_?\$?schema": ?"[^"]*/([\w-]+)\.json"')
    found: dict[str, tuple[int, str]] = {}
    for path in site_json(site):
        with path.open("rb") as file:
            match = named.search(file.read(300))
        size = path.stat().st_size
        if match and (kind := match.group(1).decode()) and size < found.get(kind, (size + 1,))[0]:
            found[kind] = size, path.relative_to(site.root).as_posix()
    return {kind: uri for kind, (_, uri) in found.items()}


def shortened(doc: Any, accepts: Callable[[Any], bool]) -> Any:
    """A copy of a document with every list cut to its first two items, and every object to
    its first two keys where the copy is still one that `accepts` (a map of hardware ids, not
    an object's required keys): the same shapes, less to validate."""
    copy = json.loads(json.dumps(doc))

    def cut(value: Any) -> None:
        if isinstance(value, list):
            del value[2:]
        elif isinstance(value, dict) and len(value) > 2:
            rest = {key: value.pop(key) for key in list(value)[2:]}
            if not accepts(copy):
                value.update(rest)  # (back in their order: after the first two)
        for item in value.values() if isinstance(value, dict) else (
                value if isinstance(value, list) else ()):
            cut(item)

    cut(copy)
    return copy


def to_the_deepest_object(doc: Any) -> list[dict[str, Any]]:
    """The non-empty objects from the document down to its deepest one (the first deepest)."""
    def deepest(value: Any, depth: int) -> tuple[int, list[dict[str, Any]]]:
        best: tuple[int, list[dict[str, Any]]] = (depth, [value]) if (
            isinstance(value, dict) and value) else (-1, [])
        items = value.values() if isinstance(value, dict) else (
            value if isinstance(value, list) else ())
        for item in items:
            below, chain = deepest(item, depth + 1)
            if below > best[0]:
                best = below, ([value, *chain] if isinstance(value, dict) and value else chain)
        return best
    return deepest(doc, 0)[1]


@pytest.mark.site
def test_the_fast_validator_rejects_what_jsonschema_rejects(built_site: BuiltSite) -> None:
    """jsonschema-rs (`fast_validator`, which validates every file of the site) judges as
    Python's jsonschema does. For each kind of site file, its smallest real document (lists
    cut to two items) and mutated copies of it: at every object from the top down to its
    deepest one, its first and its last key removed, and each of them given a value of another
    JSON type. Both
    validators give each copy the same errors (where, which keyword); each kind has a
    missing key rejected as `required` and a wrong type rejected as `type`."""
    chosen = smallest_of_each_kind(built_site)
    assert set(chosen) == set(SCHEMAS) - CLI_KINDS, sorted(set(SCHEMAS) - CLI_KINDS - set(chosen))
    for kind, uri in sorted(chosen.items()):
        doc = shortened(json.loads((built_site.root / uri).read_text(encoding="utf-8")),
                        fast_validator(kind).is_valid)

        def verdicts(doc: Any = doc, kind: str = kind) -> tuple[set[tuple[Any, ...]], ...]:
            python = {(*error.absolute_path, error.validator)
                      for error in validator(kind).iter_errors(doc)}
            rust = {(*error.instance_path, error.kind.name)
                    for error in fast_validator(kind).iter_errors(doc)}
            return python, rust

        assert verdicts() == (set(), set()), uri
        rejected: set[str] = set()
        for depth, node in enumerate(to_the_deepest_object(doc)):
            for key in list(node) if depth == 0 else dict.fromkeys([next(iter(node)),
                                                                   next(reversed(node))]):
                value = node.pop(key)
                python, rust = verdicts()
                assert python == rust, f"{uri}: without {key}: {python} != {rust}"
                rejected |= {found[-1] for found in python if found[-1] == "required"}
                node[key] = WRONG_TYPE[type(value)]
                python, rust = verdicts()
                assert python == rust, f"{uri}: {key} = {node[key]!r}: {python} != {rust}"
                rejected |= {found[-1] for found in python if found[-1] == "type"}
                node[key] = value
        assert rejected == {"required", "type"}, f"{kind} ({uri}): only {rejected}"


@pytest.mark.site
def test_jq_prints_the_environment_the_page_copies(built_site: BuiltSite) -> None:
    out = subprocess.run(["jq", "-r", ".recommended_command.command",
                          str(built_site.root / V4 / "hw/mi355x.json")],
                         capture_output=True, text=True, check=True).stdout
    assert "VLLM_ROCM_USE_AITER=1" in out


@pytest.fixture(scope="module")
def sub_path_site(built_site: BuiltSite, tmp_path_factory: pytest.TempPathFactory
                  ) -> Iterator[str]:
    """The built site at http://127.0.0.1:PORT/sub/path/, served by Python's http.server."""
    top = tmp_path_factory.mktemp("hosted")
    (top / "sub").mkdir()
    (top / "sub" / "path").symlink_to(built_site.root.resolve(), target_is_directory=True)

    class Quiet(SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keeps a connection for many requests

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(top)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/sub/path/"
    finally:
        server.shutdown()
        server.server_close()


class _Heads:
    """HEAD requests on a connection kept per thread (one connection per request cost more
    than the check itself); `close` closes them all."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.opened: list[HTTPConnection] = []

    def status(self, url: str) -> int:
        """The status for `url` once redirects are followed (as `urlopen` does)."""
        for _ in range(10):
            parts = urlsplit(url)
            connection = getattr(self.local, "connection", None)
            if connection is None or connection.host != parts.hostname or (
                    connection.port != parts.port):
                connection = self.local.connection = HTTPConnection(parts.netloc, timeout=30)
                self.opened.append(connection)
            connection.request("HEAD", parts.path + (f"?{parts.query}" if parts.query else ""))
            response = connection.getresponse()
            response.read()
            location = response.getheader("Location")
            if response.status not in (301, 302, 303, 307, 308) or not location:
                return int(response.status)
            url = urljoin(url, location)
        raise AssertionError(f"{url}: too many redirects")

    def close(self) -> None:
        for connection in self.opened:
            connection.close()


@pytest.mark.site
def test_every_link_in_every_json_file_resolves_under_a_sub_path(
        built_site: BuiltSite, sub_path_site: str) -> None:
    targets: dict[str, str] = {}
    kinds: set[str] = set()
    for path in site_json(built_site):
        uri = path.relative_to(built_site.root).as_posix()
        doc = json.loads(path.read_text(encoding="utf-8"))
        for key, link in keyed_links(doc):
            assert not link.startswith("/"), f"{uri}: {key} {link} is site-absolute"
            if urlsplit(link).scheme:
                continue  # a page elsewhere (a model card, a source repository)
            url = urljoin(sub_path_site + uri, link).split("#")[0]
            assert url.startswith(sub_path_site), f"{uri}: {link} leaves the site"
            targets.setdefault(url, f"{uri}: {key}")
            kinds.add(key)
    feed = ElementTree.parse(built_site.root / "feed.xml").getroot()
    for link in feed.iter("{http://www.w3.org/2005/Atom}link"):
        targets.setdefault(urljoin(sub_path_site + "feed.xml", link.attrib["href"]), "feed.xml")
    assert kinds >= {"$schema", "json", "recipe_json", "url", "page", "same_as",
                     "alternatives", "by_hardware", "models"}
    heads, urls = _Heads(), list(targets)
    shares = [urls[start::4] for start in range(4)]  # a thread's own share: no task per link
    try:
        with ThreadPoolExecutor(len(shares)) as pool:
            statuses = dict(zip((url for share in shares for url in share),
                                (code for codes in pool.map(
                                    lambda share: [heads.status(url) for url in share], shares)
                                 for code in codes), strict=True))
    finally:
        heads.close()
    broken = [f"{targets[url]} → {url}" for url, code in statuses.items() if code != 200]
    assert not broken, broken[:10]
    assert len(targets) > 3000


def keyed_links(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """(key, link) of every site link in a document; not in `example_requests`, whose `url`
    is the server's."""
    if isinstance(value, dict):
        for name, item in value.items():
            if name == "example_requests":
                continue
            if name in LINKS and isinstance(item, str):
                yield name, item
            elif name in LINK_MAPS and isinstance(item, dict):
                for link in item.values():
                    if isinstance(link, str):
                        yield name, link
                    else:
                        yield from keyed_links(link)
            else:
                yield from keyed_links(item)
    elif isinstance(value, list):
        for item in value:
            yield from keyed_links(item)


@pytest.mark.site
def test_models_json_has_the_facets_of_every_model(built_site: BuiltSite) -> None:
    document = json.loads((built_site.root / "models.json").read_text(encoding="utf-8"))
    rows = {row["hf_id"]: row for row in document["models"]}
    assert document["count"] == len(document["models"]) == len(rows)
    for hf_id, recipe in catalog().recipes.items():
        row = rows[hf_id]
        assert row["tasks"] == list(recipe.meta.tasks)
        assert row["parameters"] == recipe.model.parameter_count
        assert row["active_parameters"] == recipe.model.active_parameters
        assert [v["id"] for v in row["variants"]] == list(recipe.variants)
        # The fit rule's fewest GPUs per GPU model, null where it has no memory facts.
        assert (row["fewest_gpus"] is None) == (recipe.facts is None or recipe.retired is not None)
        assert (row["retired"] is not None) == (recipe.retired is not None)
        assert (row["hardware"] == []) == (recipe.retired is not None)
    # The count the CLI's refusal names ("smallest that fits: gpus=8") is the facet's.
    # A recipe row holds the fewest over its variants: Llama-3.1-70B's FP8 variant on 4× L4
    # (BF16 needs 8; the CLI's refusal on one L4 names both ways out).
    assert rows["meta-llama/Llama-3.1-70B-Instruct"]["fewest_gpus"]["l4"] == 4
    assert rows["Qwen/Qwen3-8B"]["fewest_gpus"]["l40s"] == 1
    assert rows[V4]["parameters_b"] == 284 and rows[V4]["active_parameters_b"] == 13
    assert "nvfp4" in rows["nvidia/DeepSeek-V4-Flash-NVFP4"]["precisions"]
    assert "BAAI/bge-m3" in [h for h, r in rows.items() if "embedding" in r["tasks"]]
    recipes = [r for r in document["models"] if "recipe" not in r]
    assert document["facets"]["hardware"]["h100"] == sum("h100" in r["hardware"]
                                                         for r in recipes)


@pytest.mark.site
def test_list_json_is_models_json_without_links(built_site: BuiltSite) -> None:
    """`vllm-recipes --list --json` (found from the builder) is the built /models.json (found
    from the files the site publishes) without its links: every row, every facet."""
    site = json.loads((built_site.root / "models.json").read_text(encoding="utf-8"))
    ours = cli_json("--list")
    validator("cli-models").validate(ours)
    assert ours == {"api_version": API_VERSION, "count": site["count"],
                    "facets": site["facets"],
                    "models": [without_links(row) for row in site["models"]]}


@pytest.mark.site
def test_which_models_run_on_one_h100_is_one_request(built_site: BuiltSite) -> None:
    index = json.loads((built_site.root / "hardware-index.json").read_text(encoding="utf-8"))
    assert list(index["hardware"]) == list(builder_catalog()["hardware"])
    one = [row for row in index["hardware"]["h100"]["models"] if row["gpus"] == 1]
    assert one and {"Qwen/Qwen3-8B"} <= {row["recipe"] for row in one}
    for row in one[:20]:  # the row's file holds the command it describes: one GPU
        target = join("hardware-index.json", row["json"])
        command = json.loads((built_site.root / target).read_text())["recommended_command"]
        assert command["hardware"] == "h100" and command["variant"] == row["variant"]
        assert "--tensor-parallel-size" not in command["argv"] or command["argv"][
            command["argv"].index("--tensor-parallel-size") + 1] == "1"


@pytest.mark.site
def test_the_feeds_hold_the_newest_recipe_changes_with_real_dates(built_site: BuiltSite) -> None:
    feed = json.loads((built_site.root / "feed.json").read_text(encoding="utf-8"))
    items = feed["items"]
    assert len(items) == FEED_SIZE
    dates = [item["date_published"] for item in items]
    assert dates == sorted(dates, reverse=True)
    # from git, not the build's day: the newest change to a recipe's own files (its YAML,
    # guide, facts, performance estimates, deployments: loader.recipe_sources; a change to
    # the hardware catalog or the strategies is no recipe's entry)
    newest = next(c for c in changes(ROOT / "recipes")
                  if any(c.path.is_relative_to(ROOT / "recipes" / folder) for folder in (
                      "models", "facts", "performance", "deployments"))
                  and c.path.name != "COVERAGE.md" and c.path.name != "coverage.json")
    assert dates[0] == newest.date
    atom = ElementTree.parse(built_site.root / "feed.xml").getroot()
    ns = "{http://www.w3.org/2005/Atom}"
    entries = atom.findall(f"{ns}entry")
    assert [e.find(f"{ns}id").text for e in entries] == [item["id"] for item in items]
    assert atom.find(f"{ns}updated").text == dates[0]


@pytest.mark.site
def test_taxonomy_has_every_vocabulary(built_site: BuiltSite) -> None:
    taxonomy = json.loads((built_site.root / "taxonomy.json").read_text(encoding="utf-8"))
    data = builder_catalog()
    assert list(taxonomy["hardware"]) == list(data["hardware"])
    assert list(taxonomy["strategies"]) == list(data["strategies"])
    features = {fid for hf_id in catalog().recipes
                for fid in builder_recipe(hf_id).get("features", {})}
    assert set(taxonomy["features"]) == features


# ------------------------------------------------------------------ the API page's examples


def api_examples() -> dict[str, str]:
    """kind → the shell example under its `<!-- api-example: KIND -->` mark on docs/api.md."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    found = re.findall(r"<!-- api-example: ([\w-]+) -->\s*```bash\n(.*?)```", text, re.S)
    examples = dict(found)
    assert len(examples) == len(found), "an endpoint with two examples"
    return examples


def test_the_api_page_has_one_example_per_endpoint() -> None:
    # (`upstream --json` needs a checkout of the public catalogue: tests/test_upstream.py)
    assert set(api_examples()) == set(SCHEMAS) - {"cli-upstream"}


@pytest.mark.site
def test_every_example_on_the_api_page_runs(sub_path_site: str) -> None:
    env = {**os.environ, "SITE": sub_path_site,
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for kind, example in api_examples().items():
        run = subprocess.run(["bash", "-euo", "pipefail", "-c", example], env=env, cwd=ROOT,
                             capture_output=True, text=True, check=False, timeout=120)
        assert run.returncode == 0, f"{kind}: {run.stderr}"
        assert run.stdout.strip(), f"{kind}: printed nothing"
        assert "null" not in run.stdout.split(), f"{kind}: {run.stdout}"
