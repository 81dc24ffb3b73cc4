"""Our commands against the public catalogue's, option for option, for every recipe shared with it.

The shared recipes are the non-Omni ones ported from the public catalogue
(github.com/vllm-project/recipes): each records the public file and commit it came from
(`upstream`). `tests/golden/public/sample.yaml` says how the golden files next to it were
recorded from the public catalogue's own JSON API at that commit: its default selection and its
selection on each GPU of the sample's `hardware` list (H200, B200, MI355X, H100, GB200, MI300X)
that it offers for the model. `newer/` holds the same for recipes ported from later public
commits (its own `sample.yaml` names the files and commits of that tree). For each recorded
rendering we build ours for the same query (nothing, or `hardware=<id>`) and compare:

- the selection: hardware, variant, strategy, node count; where we do not offer the public's
  GPU at all, that refusal is the one difference (`selection.hardware`);
- the Docker image;
- per `vllm serve` command (serve; head and worker N; prefill and decode): the served model,
  every option, every environment variable. Where our strategy or node count is not the
  public's (a listed difference), the commands compared are ours for the public's selection.

Options compare as vLLM reads them: order does not matter, `_` and `-` in a flag name are one,
a short alias is its long flag, and a JSON value equals a JSON value with the same content
(key order and spacing aside); every other value must be the same string. A bare flag's value
is `true`; an option one side does not set is `null`.

`differences.yaml` lists every difference that remains, each with the recipe line whose
`# differs from the public catalogue:` comment explains it and the field that comment sits next
to (directly above the field's key, or first inside the field's block). The test fails when a
difference appears that is not listed, when a listed one is gone, when a cited line holds no
such comment, and when the comment is not next to the field named. Its `site_wide` entries are
differences of the site itself (not of one recipe): each names the place that decides it and
is checked on every rendering.

The golden files are the public catalogue's own output, not ours: its publishing script
(`scripts/build-recipes-api.mjs`, which calls its `src/lib/command-synthesis.js`) was run with
Node on a `git archive` of github.com/vllm-project/recipes at the commit `sample.yaml` names,
and the `recommended_command` of each model's JSON (`/<hf_id>.json`, `/<hf_id>/hw/<hw>.json`)
was written here unchanged apart from the layout; `sample.yaml` gives the steps. No code of
this repository took part, and re-running the steps gives the same files byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from builder import SelectionError, build
from builder.arglist import SHORT_FLAGS
from tests.recipes_data import ROOT, builder_catalog, builder_recipe, catalog

GOLDEN = ROOT / "tests/golden/public"
NEWER = GOLDEN / "newer"
"""Recipes ported from public commits after the first one: their own golden files and tree."""
MARKER = "# differs from the public catalogue"

Key = tuple[str, str, str, str]
"""(model, query, command, option): query is `default` or a hardware id; command is `-` for
the selection and the image; option is `selection.<key>`, `docker image`, `model`, a flag,
or `env <NAME>`."""


@cache
def settings(directory: Path) -> dict[str, Any]:
    """A golden directory's `sample.yaml`: the public commit (or tree) and the GPUs queried."""
    doc: dict[str, Any] = yaml.safe_load((directory / "sample.yaml").read_text())
    return doc


def golden_directories() -> list[Path]:
    return [d for d in (GOLDEN, NEWER) if (d / "sample.yaml").is_file()]


@cache
def golden_files() -> dict[str, Path]:
    """Every golden file by its model id (`<org>/<repo>.json` under a golden directory)."""
    out: dict[str, Path] = {}
    for directory in golden_directories():
        for path in sorted(directory.glob("*/*.json")):
            model = path.relative_to(directory).with_suffix("").as_posix()
            assert model not in out, f"two golden files for {model}"
            out[model] = path
    return out


@cache
def shared() -> dict[str, tuple[str, str]]:
    """Our recipes that came from the public catalogue and give a `vllm serve` command (no
    vLLM-Omni block, not retired): model id → (public file, public commit)."""
    return {hf_id: (r.upstream.path, r.upstream.commit)
            for hf_id, r in catalog().recipes.items()
            if r.upstream is not None and r.omni is None and r.retired is None}


@cache
def sample() -> list[str]:
    """The models compared: every shared recipe that has a golden file."""
    return [model for model in golden_files() if model in shared()]


@cache
def golden(model: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(golden_files()[model].read_text())
    return doc


def hardware_of(model: str) -> list[str]:
    """The GPUs whose public rendering was recorded, where the public offers them."""
    hardware: list[str] = settings(golden_files()[model].parent.parent)["hardware"]
    return hardware


@cache
def listed() -> dict[str, Any]:
    return yaml.safe_load((GOLDEN / "differences.yaml").read_text())


def _flag(token: str) -> bool:
    return token.startswith("--") or (len(token) > 1 and token[0] == "-" and token[1].isalpha())


def _name(flag: str) -> str:
    head, dot, tail = flag.partition(".")
    head = SHORT_FLAGS.get(head, head).replace("_", "-")
    return head + dot + tail


def options(argv: list[str]) -> dict[str, Any]:
    """`vllm serve MODEL ...` → {flag: value}; a later setting of a flag replaces an earlier one."""
    assert argv[:2] == ["vllm", "serve"] and not _flag(argv[2]), argv
    out: dict[str, Any] = {}
    rest = argv[3:]
    i = 0
    while i < len(rest):
        token = rest[i]
        assert _flag(token), f"positional {token!r} after the model in {argv}"
        flag, eq, inline = token.partition("=")
        values = [inline] if eq else []
        i += 1
        while not eq and i < len(rest) and not _flag(rest[i]):
            values.append(rest[i])
            i += 1
        out[_name(flag)] = " ".join(values) if values else True
    return out


def same(ours: Any, theirs: Any) -> bool:
    if ours == theirs:
        return True
    if isinstance(ours, str) and isinstance(theirs, str) and ours[:1] in "[{":
        try:
            return bool(json.loads(ours) == json.loads(theirs))
        except ValueError:
            return False
    return False


def our_commands(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Our `vllm serve` commands by the golden files' role names."""
    out: dict[str, dict[str, Any]] = {}
    workers = 0
    for command in result["commands"]:
        if command["argv"][:2] != ["vllm", "serve"]:
            continue
        role = command["role"]
        if role == "worker":
            workers += 1
            role = f"worker {workers}"
        assert role not in out, f"two {role} commands"
        out[role] = command
    return out


@dataclass
class Comparison:
    """One public rendering against ours: the differences, and the commands compared."""

    differences: dict[Key, tuple[Any, Any]] = field(default_factory=dict)
    compared: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    """(role, our command, the public's) for each public command compared."""


def public_gpus(hw_id: str) -> dict[str, str]:
    """The public catalogue's node-shaped id (`rtx_pro_6000_4x`) as ours names it: a GPU of
    our registry and a count (our `hardware_aliases`); {} for an id we name alike."""
    alias = builder_catalog().get("hardware_aliases", {}).get(hw_id)
    return {"hardware": alias["hardware"], "gpus": str(alias["gpus"])} if alias else {}


def test_a_public_node_shaped_id_compares_as_our_gpu_and_count() -> None:
    assert public_gpus("rtx_pro_5000_4x") == {"hardware": "rtx_pro_5000", "gpus": "4"}
    assert public_gpus("rtx_pro_6000_4x") == {"hardware": "rtx_pro_6000", "gpus": "4"}
    assert public_gpus("h200") == {}


def compare(model: str, rendering: dict[str, Any]) -> Comparison:
    """Ours for the rendering's query against the public rendering."""
    out = Comparison()
    query = rendering["query"]

    def differ(role: str, option: str, ours: Any, theirs: Any) -> None:
        out.differences[(model, query, role, option)] = (ours, theirs)

    try:
        result = build(builder_catalog(), builder_recipe(model),
                       {} if query == "default" else {"hardware": query})
    except SelectionError as error:
        # We do not offer the public's GPU (or nothing at all): that is the one difference.
        differ("-", f"selection.{error.key}", "refused", query)
        return out
    theirs_sel = {**rendering["selection"], **public_gpus(rendering["selection"]["hardware"])}
    for key in ("hardware", "gpus", "variant", "strategy", "nodes"):
        if key in theirs_sel and result["selection"][key] != str(theirs_sel[key]):
            differ("-", f"selection.{key}", result["selection"][key], str(theirs_sel[key]))
    if result["docker_image"] != rendering["docker_image"]:
        differ("-", "docker image", result["docker_image"], rendering["docker_image"])
    public = {c["role"]: c for c in rendering["commands"]}
    mine = our_commands(result)
    if (result["selection"]["strategy"], result["selection"]["nodes"]) != (
            theirs_sel["strategy"], str(theirs_sel["nodes"])):
        # A listed difference of strategy or node count: the commands are compared with ours
        # for the public's selection, so that their options are still checked one by one; where
        # we refuse that selection, our own command is compared with the public's first one.
        try:
            mine = our_commands(build(builder_catalog(), builder_recipe(model), {
                "hardware": theirs_sel["hardware"], "variant": theirs_sel["variant"],
                "strategy": theirs_sel["strategy"], "nodes": str(theirs_sel["nodes"]),
                **public_gpus(rendering["selection"]["hardware"])}))
        except SelectionError as error:
            first = rendering["commands"][0]["role"]
            differ("-", "commands", f"refused: {error.key}", first)
            mine = {first: next(iter(mine.values()))}
    if "commands" not in {k[3] for k in out.differences} and list(mine) != list(public):
        differ("-", "commands", list(mine), list(public))
    for role in [r for r in public if r in mine]:
        out.compared.append((role, mine[role], public[role]))
        compare_command(mine[role], public[role],
                        lambda option, a, b, role=role: differ(role, option, a, b))
    return out


def compare_command(ours: dict[str, Any], theirs: dict[str, Any],
                    differ: Callable[[str, Any, Any], None]) -> None:
    """One `vllm serve` command against the public's: the served model, every option, every
    environment variable; `differ(option, ours, theirs)` is called for each difference."""
    ours_argv, theirs_argv = ours["argv"], theirs["argv"]
    if ours_argv[2] != theirs_argv[2]:
        differ("model", ours_argv[2], theirs_argv[2])
    a, b = options(ours_argv), options(theirs_argv)
    for flag in sorted(a.keys() | b.keys()):
        if not same(a.get(flag), b.get(flag)):
            differ(flag, a.get(flag), b.get(flag))
    env_a, env_b = ours["env"], theirs["env"]
    for name in sorted(env_a.keys() | env_b.keys()):
        if env_a.get(name) != env_b.get(name):
            differ(f"env {name}", env_a.get(name), env_b.get(name))


def renderings() -> Iterator[tuple[str, dict[str, Any]]]:
    for model in sample():
        for rendering in golden(model)["renderings"]:
            yield model, rendering


@cache
def comparisons() -> dict[tuple[str, str], Comparison]:
    return {(model, r["query"]): compare(model, r) for model, r in renderings()}


def found() -> dict[Key, tuple[Any, Any]]:
    return {k: v for c in comparisons().values() for k, v in c.differences.items()}


def expand(entry: dict[str, Any]) -> Iterator[Key]:
    commands = entry.get("commands", ["-"])
    for query in entry["selections"]:
        for command in commands:
            yield entry["model"], query, command, entry["option"]


def index_differences(entries: list[dict[str, Any]]) -> dict[Key, dict[str, Any]]:
    """A differences file's entries by the keys they hold for."""
    out: dict[Key, dict[str, Any]] = {}
    for entry in entries:
        for key in expand(entry):
            assert key not in out, f"differences.yaml lists {key} twice"
            out[key] = entry
    return out


def listed_differences() -> dict[Key, dict[str, Any]]:
    return index_differences(listed()["differences"])


SITE_WIDE_SCOPES = ("every command", "every multi-node command", "wherever these two values differ",
                    "wherever the fit rule sizes the command")
FIT_RULE = "builder/commands/fit.py"


def _public_value(command: dict[str, Any], option: str) -> Any:
    """What a public command sets for an option key (`env NAME` or a flag); None if nothing."""
    if option.startswith("env "):
        return command["env"].get(option.removeprefix("env "))
    return options(command["argv"]).get(option)


@cache
def site_wide() -> dict[Key, dict[str, Any]]:
    """The keys each `site_wide` entry applies to: every command of its scope, except where the
    public command already sets what ours does."""
    multi_node = {(m, r["query"]) for m, r in renderings()
                  if r["selection"]["deploy_type"] == "multi_node"}
    out: dict[Key, dict[str, Any]] = {}
    for entry in listed()["site_wide"]:
        assert entry["scope"] in SITE_WIDE_SCOPES, entry
        if entry["scope"] == "wherever the fit rule sizes the command":
            out |= _sized_by_the_fit_rule(entry)
            continue
        if entry["scope"] == "wherever these two values differ":
            # A value the site decides for every recipe that uses it (the pinned default image,
            # the pip form's path of a fetched vLLM file): listed where exactly these differ.
            for comparison in comparisons().values():
                for key, values in comparison.differences.items():
                    if key[3] == entry["option"] and values == (entry["ours"], entry["theirs"]):
                        out[key] = entry
            continue
        for (model, query), comparison in comparisons().items():
            if entry["scope"] == "every multi-node command" and (model, query) not in multi_node:
                continue
            frontend = catalog().recipes[model].model.default_frontend
            if frontend is not None and frontend == entry.get("except_default_frontend"):
                continue  # the recipe picks the frontend the entry's difference is about
            for role, _, theirs in comparison.compared:
                if _public_value(theirs, entry["option"]) == entry["ours"]:
                    continue  # the public sets the same thing there: no difference
                out[(model, query, role, entry["option"])] = entry
    return out


def _sized_by_the_fit_rule(entry: dict[str, Any]) -> dict[Key, dict[str, Any]]:
    """Keys where our value of one of the entry's `options` is the fit rule's (the command's
    source for the flag is `FIT_RULE`), and, for the selection keys it names (the strategy
    and node count the public picks for a GPU count ours sizes by memory), wherever a recipe
    with memory facts differs on them."""
    out: dict[Key, dict[str, Any]] = {}
    for (model, _query), comparison in comparisons().items():
        ours = {role: command for role, command, _ in comparison.compared}
        for key in comparison.differences:
            option = key[3]
            if option not in entry["options"]:
                continue
            if option.startswith("selection."):
                if catalog().recipes[model].facts is not None:
                    out[key] = entry
                continue
            command = ours.get(key[2])
            sources = command["sources"]["args"] if command else []
            if any(s["option"][0] == option and s["file"] == FIT_RULE for s in sources):
                out[key] = entry
    return out


# --- the sample and its golden files ---------------------------------------------------------


def test_every_shared_recipe_is_compared_with_goldens_of_its_public_commit() -> None:
    first = settings(GOLDEN)["commit"]
    at_first = {m for m, (_, commit) in shared().items() if commit == first}
    # Recipes move to newer/ as they take later public files (issue 35); all are compared.
    assert len(sample()) >= 150, len(sample())
    on_file = {m for m, path in golden_files().items() if path.parent.parent == GOLDEN}
    missing = sorted(at_first - on_file)
    assert not missing, f"shared recipes with no golden file: {missing}"
    for model in sample():
        path, commit = shared()[model]
        assert golden(model)["public"]["file"] == path, model
        assert golden(model)["public"]["commit"] == commit, model
    # A golden file of a recipe that is not (or no longer) shared compares nothing.
    stray = sorted(m for m in golden_files() if m not in shared()
                   and not (m in catalog().recipes and catalog().recipes[m].retired))
    assert not stray, f"golden files of no shared recipe: {stray}"


def test_newer_goldens_name_the_tree_they_were_rendered_from() -> None:
    if not (NEWER / "sample.yaml").is_file():
        pytest.skip("no recipe ported from a later public commit has golden files yet")
    tree = settings(NEWER)["tree"]
    assert tree["base"] == settings(GOLDEN)["commit"]
    files = {f["path"]: f["commit"] for f in tree["files"]}
    for model, path in golden_files().items():
        if path.parent.parent != NEWER:
            continue
        public = golden(model)["public"]
        assert files.get(public["file"]) == public["commit"], (model, public)


@pytest.mark.parametrize("model", sample())
def test_each_golden_holds_the_default_and_every_offered_gpu(model: str) -> None:
    doc = golden(model)
    assert doc["model"] == model
    assert set(doc["offered"]) <= set(hardware_of(model))
    assert [r["query"] for r in doc["renderings"]] == ["default", *doc["offered"]]
    for rendering in doc["renderings"]:
        if rendering["query"] != "default":
            assert rendering["selection"]["hardware"] == rendering["query"]
        for command in rendering["commands"]:
            assert command["argv"][:3] == ["vllm", "serve", command["argv"][2]]


def test_the_comparison_reaches_every_kind_of_command() -> None:
    deploy = {r["selection"]["deploy_type"] for _, r in renderings()}
    assert {"single_node", "multi_node"} <= deploy, deploy
    queried = {r["query"] for _, r in renderings()}
    assert set(settings(GOLDEN)["hardware"]) | {"default"} <= queried, queried
    compared = sum(1 for c in comparisons().values() if c.compared)
    # newer/ goldens query three GPUs, the first snapshot six: the count drops as recipes move.
    assert compared >= 900, compared


# --- the comparison -------------------------------------------------------------------------


def test_options_are_read_as_vllm_reads_them() -> None:
    argv = ["vllm", "serve", "m", "-tp", "2", "--max_model_len=4096", "--enable-expert-parallel",
            "--attention_config.indexer_kv_dtype", "fp8", "--middleware", "a", "b",
            "--max-model-len", "8192"]
    assert options(argv) == {
        "--tensor-parallel-size": "2", "--max-model-len": "8192",
        "--enable-expert-parallel": True, "--attention-config.indexer_kv_dtype": "fp8",
        "--middleware": "a b"}
    assert same('{"a": 1, "b": [2]}', '{"b":[2],"a":1}')
    assert not same('{"a": 1}', '{"a": 2}') and not same("0.9", "0.90")


@pytest.mark.parametrize("model", sample())
def test_every_difference_is_listed_with_its_values(model: str) -> None:
    expected = {k: e for k, e in listed_differences().items() if k[0] == model}
    expected |= {k: e for k, e in site_wide().items() if k[0] == model}
    actual = {k: v for k, v in found().items() if k[0] == model}
    assert_listed(actual, expected)


def assert_listed(actual: dict[Key, tuple[Any, Any]], expected: dict[Key, dict[str, Any]]) -> None:
    """The differences found are exactly the listed ones, with the listed values."""
    unlisted = sorted(set(actual) - set(expected))
    assert not unlisted, "not in differences.yaml:\n" + "\n".join(
        f"  {k}: ours {actual[k][0]!r}, theirs {actual[k][1]!r}" for k in unlisted)
    gone = sorted(set(expected) - set(actual))
    assert not gone, f"listed in differences.yaml but no longer different: {gone}"
    for key, entry in expected.items():
        if "ours" in entry:  # the fit rule's entry holds for whatever sizes it picks
            assert actual[key] == (entry["ours"], entry["theirs"]), key


def test_site_wide_differences_come_from_where_they_say() -> None:
    assert listed()["site_wide"]
    for entry in listed()["site_wide"]:
        assert entry["why"].strip() and (ROOT / entry["decided_in"]).is_file(), entry
        if entry["scope"] == "wherever the fit rule sizes the command":
            assert entry["decided_in"] == FIT_RULE, entry  # and each flag's source says so
            continue
        if not entry["option"].startswith("env "):
            # An image or a path: the deciding module names the value it makes.
            decided = (ROOT / entry["decided_in"]).read_text(encoding="utf-8")
            assert any(word in decided for word in ("VLLM_VERSION", "basename")), entry
            continue
        name = entry["option"].removeprefix("env ")
        for (model, query), comparison in comparisons().items():
            for role, command, _ in comparison.compared:
                if (model, query, role, entry["option"]) not in site_wide():
                    continue
                if entry["ours"] is None:
                    assert name not in command["env"], (model, query, role)
                else:
                    source = command["sources"]["env"][name]
                    assert source["file"] == entry["decided_in"], (model, query, role, source)


def _key_lines(node: yaml.Node, path: str, out: dict[int, str]) -> None:
    """The YAML path of the first key on each line of a recipe (0-based line numbers)."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            here = f"{path}.{key.value}" if path else str(key.value)
            out.setdefault(key.start_mark.line, here)
            _key_lines(value, here, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _key_lines(item, f"{path}[{i}]", out)


def differs_comments_in(text: str) -> dict[int, tuple[str, bool]]:
    """Each `# differs from the public catalogue:` comment of a recipe, by its first line
    (1-based): the path of the key right below the comment, and whether that key is the first
    of its block (then the comment also stands at the head of the block's parent)."""
    lines = text.splitlines()
    keys: dict[int, str] = {}
    _key_lines(yaml.compose(text, Loader=yaml.SafeLoader), "", keys)
    first_keys = {min(n for n, k in keys.items() if k.rpartition(".")[0] == parent)
                  for parent in {k.rpartition(".")[0] for k in keys.values()}}
    out: dict[int, tuple[str, bool]] = {}
    for n, line in enumerate(lines):
        if not line.lstrip().startswith(MARKER):
            continue
        below = n + 1
        while below < len(lines) and lines[below].lstrip().startswith("#"):
            below += 1
        assert below in keys, f"line {n + 1}: the comment is not followed by a field"
        out[n + 1] = (keys[below], below in first_keys)
    return out


@cache
def differs_comments(path: str) -> dict[int, tuple[str, bool]]:
    return differs_comments_in((ROOT / path).read_text())


def test_each_cited_line_is_a_differs_comment_next_to_its_field() -> None:
    assert_cited_comments(listed()["differences"])


def assert_cited_comments(entries: list[dict[str, Any]]) -> None:
    """Each entry's `comment` (file:line) starts a differs comment in the model's recipe, and
    that comment sits next to the entry's `field`."""
    assert entries
    for entry in entries:
        path, _, line = entry["comment"].rpartition(":")
        assert path == f"recipes/models/{entry['model']}.yaml", entry["comment"]
        assert (ROOT / path).is_file(), entry["comment"]
        comments = differs_comments(path)
        field_ = entry["field"]
        where = [n for n, (key, first) in comments.items()
                 if key == field_ or (first and key.rpartition(".")[0] == field_)]
        assert int(line) in comments, (
            f"{entry['comment']}: no differs comment starts there; the one next to {field_} "
            f"starts at line(s) {where}")
        assert int(line) in where, (
            f"{entry['comment']}: the comment sits next to {comments[int(line)][0]}, "
            f"not {field_}")


def test_differs_comments_are_found_next_to_their_fields() -> None:
    # The helper the test above relies on, on a small recipe-like file.
    text = """a: 1
# differs from the public catalogue: top.
b:
  # differs from the public catalogue: head of b.
  c: {d: 1}
  e:
  - f: 2
    # differs from the public catalogue: g.
    # still the same comment.
    g: 3
"""
    found_ = differs_comments_in(text)
    assert found_ == {2: ("b", False), 4: ("b.c", True), 8: ("b.e[0].g", False)}


def test_differences_are_listed_once_and_only_for_the_sample() -> None:
    models = set(sample())
    queries = {m: [r["query"] for r in golden(m)["renderings"]] for m in models}
    for key in listed_differences():
        assert key[0] in models and key[1] in queries[key[0]], key
