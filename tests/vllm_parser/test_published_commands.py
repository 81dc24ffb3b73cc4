"""Every `vllm serve` command the site publishes goes through vLLM's own parser (vLLM-Omni's for
`--omni` commands), and our flag lists are what those parsers say.

The commands are every rendering of the render matrix (`tests/test_render_matrix.py`: every
variant × hardware × strategy × task, with default features, every feature on and every mode)
and every argv of every JSON endpoint (the renderings of `site_plugins/recipes/renderings.py`
whose results `api.py` writes, the functions the build calls). Each is checked in the form a
user runs it: `argv` where the pip install lays out its files, the Docker form (`vllm serve` +
what follows the image) where the image and its mounts do. `check_argv.py` runs in the parser
environments that `make parser-envs` installs (`requirements-parser*.lock`); without them these
tests fail (the fast suite deselects the `vllm_parser` marker; `make test` never does). Every
test here shares one check_argv.py process per parser environment: the session fixture `parser`
(tests/vllm_parser/envs.py).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from builder.vllm_release import VLLM_VERSION
from site_plugins.recipes.renderings import render_recipe
from tests.recipes_data import builder_catalog, builder_recipe, hf_ids, kept_builder
from tests.serve_forms import form_key, forms
from tests.test_render_matrix import serve_forms
from tests.vllm_parser.envs import OMNI_VERSION, PYTHONS, Parsers
from vllm_recipes.flag_types import read_types, with_types, without_types
from vllm_recipes.vllm_flags import FLAGS_FILE, OMNI_FLAGS_FILE

pytestmark = pytest.mark.vllm_parser

# --- what the site publishes ------------------------------------------------------------------


def endpoints(hf_id: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(site path, result) of every JSON file of the recipe that has a command: the
    renderings `render_recipe` gives the build (`api.recipe_endpoints` writes each one's
    result; a `same_as` file points at a rendering that is here), by the recipe's kept
    `Builder` (a fresh one's answers, byte for byte)."""
    renderings = render_recipe(builder_catalog(), builder_recipe(hf_id), kept_builder(hf_id))
    for tree in renderings.trees.values():
        for rendering in tree:
            if rendering.same_as is None:
                yield rendering.uri, rendering.result


@cache
def published(hf_id: str) -> dict[tuple[str, tuple[str, ...], str], dict[str, Any]]:
    """Every distinct command (parser, argv, files) with the first place it is published:
    the render matrix's (`serve_forms`: the walk tests/test_render_matrix.py checks, read
    from it where this process has walked the recipe), then the endpoints'."""
    recipe = builder_recipe(hf_id)
    found: dict[tuple[str, tuple[str, ...], str], dict[str, Any]] = {}
    for key, where, method in serve_forms(hf_id):
        found[key] = {"where": where, "method": method, "argv": list(key[1]),
                      "files": json.loads(key[2])}
    for uri, result in endpoints(hf_id):
        for method, argv, files in forms(recipe, result):
            key = form_key(argv, files)
            found.setdefault(key, {"where": f"/{uri}", "method": method, "argv": argv,
                                   "files": files})
    return found


def _recipe_file(hf_id: str) -> str:
    return f"recipes/models/{hf_id}.yaml"


@pytest.mark.parametrize("hf_id", hf_ids())
def test_every_published_command_passes_vllms_own_parser(hf_id: str, parser: Parsers) -> None:
    commands = published(hf_id)
    assert commands, f"{hf_id}: no vllm serve command found"
    refused = []
    for kind in ("vllm", "omni"):
        mine = [entry for key, entry in commands.items() if key[0] == kind]
        if not mine:
            continue
        errors = parser(kind).check([{"argv": e["argv"], "files": e["files"]} for e in mine])
        name = f"vLLM {VLLM_VERSION}" if kind == "vllm" else f"vLLM-Omni {OMNI_VERSION}"
        refused += [f"{_recipe_file(hf_id)}: {e['where']} ({e['method']}): {name} says: "
                    f"{error}\n    {' '.join(e['argv'])}"
                    for e, error in zip(mine, errors, strict=True) if error]
    assert not refused, f"{len(refused)} refused:\n" + "\n".join(refused[:15])


def test_the_parser_refuses_what_vllm_refuses(parser: Parsers) -> None:
    """The checker is not a rubber stamp: a misspelt flag, a bad choice, an unknown JSON key,
    a missing file and an unregistered parser are each refused, with vLLM's words."""
    model = ["vllm", "serve", "test-org/m"]
    cases = {
        "unrecognized arguments": [*model, "--tensor-parallel", "2"],
        "invalid choice": [*model, "--all2all-backend", "nope"],
        "not fields of SpeculativeConfig": [*model, "--speculative-config", '{"methd": "mtp"}'],
        "appears path-like, but doesn't exist": [*model, "--chat-template", "examples/x.jinja"],
        "invalid tool call parser": [*model, "--enable-auto-tool-choice",
                                     "--tool-call-parser", "nano_v3"],
        "invalid reasoning parser": [*model, "--reasoning-parser", "nano_v3"],
    }
    errors = parser("vllm").check([{"argv": argv} for argv in cases.values()])
    for expected, error in zip(cases, errors, strict=True):
        assert error is not None and expected in error, (expected, error)
    plugin = {"p.py": {"reasoning_parser": ["nano_v3"]}}
    ok = parser("vllm").check([
        {"argv": [*model, "--reasoning-parser-plugin", "p.py", "--reasoning-parser", "nano_v3"],
         "files": plugin},
        {"argv": [*model, "--chat-template", "t.jinja"], "files": {"t.jinja": {}}},
        {"argv": [*model, "--reasoning-parser", "nano_v3"]},  # the plugin is not loaded here
    ])
    assert ok[:2] == [None, None] and ok[2] is not None and "nano_v3" in ok[2]


def test_the_flag_lists_are_what_the_parsers_say(parser: Parsers) -> None:
    """`make flags` writes these files from the parsers (and adds each option's value type
    from the same release's source, `vllm_recipes/flag_types.py`); a bump of either release
    that changes an option shows here until the files are regenerated."""
    committed = json.loads(FLAGS_FILE.read_text(encoding="utf-8"))
    flags = parser("vllm").ask({"flags": True})
    assert without_types(committed) == flags, f"{FLAGS_FILE.name} is stale: run `make flags`"
    found = subprocess.run(
        [PYTHONS["vllm"], "-c", "import importlib.util, os; "
         "print(os.path.dirname(importlib.util.find_spec('vllm').origin))"],
        capture_output=True, text=True, check=True).stdout.strip()
    assert committed == with_types(flags, read_types(Path(found), flags)), (
        f"{FLAGS_FILE.name}: the value types are stale: run `make flags`")
    assert json.loads(OMNI_FLAGS_FILE.read_text(encoding="utf-8")) == parser("omni").ask(
        {"flags": True}), f"{OMNI_FLAGS_FILE.name} is stale: run `make flags`"


def test_checks_parser_names_are_vllms_registries(parser: Parsers) -> None:
    """`vllm-recipes check` refuses a `--tool-call-parser` / `--reasoning-parser` outside the
    names the flag list keeps (`registered_names`, read from vLLM's source by `make flags`):
    exactly the names vLLM's own registries hold when `validate_api_server_args` runs, the
    check this suite's parser applies to every published command (asked of that process)."""
    live = parser("vllm").ask({"registries": True})
    assert set(live) == {"--tool-call-parser", "--reasoning-parser"}, live
    committed = json.loads(FLAGS_FILE.read_text(encoding="utf-8"))
    for option, names in live.items():
        assert committed[option]["registered_names"] == names, option
