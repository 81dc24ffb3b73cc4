"""The JSON API's contract: its version, the shape of a command's answer, and its links.

Every JSON document the site publishes, and `vllm-recipes … --json`, is made here or passes
through `finish`, so that:

- it carries `api_version` (API_VERSION; the shape before versions was v0, see docs/api.md)
  and `$schema`, a link to its JSON Schema under `/api/v1/schema/` (api_schemas.py);
- every link in it (the keys of LINKS, and the values of the maps of LINK_MAPS) is relative
  to the document itself, as a link in a page is: a copy of the site under any path works,
  and `urllib.parse.urljoin(document_url, link)` gives the file.

`recommended_command` is the answer for one selection, the same for the site's files and the
command line: its `command` is the text the page's Copy button copies (the environment's
`export` lines, then the command), `argv` and `env` the same command as structured fields.

Standard library only: the installed command line imports it.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

from builder.commands.build import typed_selection
from builder.commands.selection import node_memory_gb
from builder.dynamo.targets import KEYS as DYNAMO_KEYS
from builder.types import Result

if TYPE_CHECKING:
    from builder.diff.compare import Comparison
    from builder.dynamo.targets import DynamoResult
from builder.views.dynamo import url_key

__all__ = ["API_VERSION", "CLI_ONLY", "LINKS", "LINK_MAPS", "SCHEMA_DIR", "SITE_ONLY",
           "cli_diff_document", "cli_document", "cli_dynamo_document", "dynamo_deployment",
           "finish",
           "hardware_profile", "recommended_command", "relative"]

API_VERSION = 1
"""Bumped by every change a script written against the previous version could trip on."""
SCHEMA_DIR = f"api/v{API_VERSION}/schema"
"""Where the JSON Schemas are published, relative to the site root."""
LINKS = frozenset({"$schema", "_schema", "json", "recipe_json", "url", "page", "same_as",
                   "catalogue", "builder_url", "home_page_url", "feed_url"})
"""Keys whose string value is a link to a file or page of the site."""
LINK_MAPS = frozenset({"alternatives", "by_hardware", "models", "links"})
"""Keys whose value maps ids to links."""
SHARED_KEYS = ("strategy_spec", "hardware_profile", "by_hardware")
"""Keys of `recommended_command` that per-selection files leave out."""
SITE_ONLY = {
    "$schema": "a link into the site: the command line has no site",
    "recipe_json": "a link into the site",
    "recommended_command.alternatives": "links into the site",
    "recommended_command.by_hardware": "links into the site",
    "recommended_command.page": "a link into the site",
    "title": "a variant's document names its recipe's title (the command line's --list has it)",
}
"""Keys a site's document has and `vllm-recipes --json` has not, and why."""
CLI_ONLY = {
    "recommended_command.unavailable": "the choices that cannot be picked next to the "
                                       "selection, with why: the page shows them as disabled "
                                       "pills; the site's files do not repeat them",
    "recommended_command.copy_text": "every block of the answer as the page's Copy all copies "
                                     "it (`command` is the primary block's)",
}
"""Keys `vllm-recipes --json` has and a site's document has not, and why. (A per-selection
file also leaves out the keys a recipe's document has in full: `strategy_spec`,
`hardware_profile`, `by_hardware`, each block's `sources`, `commands` for one command, and
the performance curves of every workload.)"""

Data = dict[str, Any]


def _primary(result: Result) -> Data:
    """The command a single-command consumer wants: `vllm serve`, or the head node's."""
    commands = result["commands"]
    for role in ("serve", "head"):
        for command in commands:
            if command["role"] == role:
                return dict(command)
    return dict(commands[0])


def hardware_profile(catalog: Data, hw_id: str, nodes: int) -> Data:
    hw = catalog["hardware"][hw_id]
    return {
        "brand": catalog["brands"][hw["brand"]]["display_name"],
        "generation": hw["generation"],
        "compute_arch": hw["compute_arch"],
        "display_name": hw["display_name"],
        "description": hw["description"],
        "gpu_count": hw["gpu_count"],
        "vram_gb": node_memory_gb(hw),
        "multi_node": nodes > 1,
    }


def recommended_command(
    catalog: Data,
    recipe: Data,
    result: Result,
    *,
    query: dict[str, str],
    alternatives: dict[str, str] | None = None,
    by_hardware: dict[str, str] | None = None,
    page: str | None = None,
    full: bool = True,
) -> Data:
    """The answer for one builder result: the published reference's fields, plus what a
    script needs to reproduce it (`query`, `features`, every command block).

    `command`/`argv`/`env`/`docker_*` are the primary command (`vllm serve`, or the head
    node's when there are several): `command` is what the page's Copy copies (`export` lines,
    then the command), `docker_command` the `docker run` form the page copies. `commands` has
    every block of the result. `full` keeps every block's `sources` and `commands` even for
    one command; the many per-selection files leave out both and what is the same in all of
    them (`SHARED_KEYS`). Links (`alternatives`, `by_hardware`, `page`) are left out when None
    (the command line has no site)."""
    selection = result["selection"]
    serve = _primary(result)
    nodes = int(selection["nodes"])
    strategy = catalog["strategies"][selection["strategy"]]
    command: Data = {
        "selection": typed_selection(selection),
        "hardware": selection["hardware"],
        "strategy": selection["strategy"],
        "variant": selection["variant"],
        "node_count": nodes,
        "deploy_type": strategy["deploy_type"],
        "env": serve["env"],
        "docker_image": result["docker_image"],
        "command": serve["shell"],
        "argv": serve["argv"],
        "docker_command": serve["docker_text"],
        "docker_argv": serve["docker_argv"],
        "strategy_spec": strategy,
        "hardware_profile": hardware_profile(catalog, selection["hardware"], nodes),
        "alternatives": alternatives,
        "by_hardware": by_hardware,
        "model_id": result["model_id"],
        "frontend": selection["frontend"],
        "install": selection["install"],
        "features": {fid: selection[fid] for fid in recipe.get("features", {})},
        "query": query,
        "page": page,
        "summary": result["summary"],
        "commands": _blocks(result, full),
        "install_commands": result["install"],
        "vllm_version": result["vllm_version"],
        "notes": result["notes"],
        "request": result["request"],
        "example_requests": result["example_requests"],
        # What fits the GPUs (None without memory facts); the per-selection files name the
        # facts file instead of repeating the facts (the recipe's document has them).
        "fit": (result["fit"] if full or not result["fit"] else
                {k: v for k, v in result["fit"].items() if k != "facts"}),
        # How fast (estimates and measured points, each with its source); the per-selection
        # files leave out the curves of every workload (the recipe's document has them).
        "performance": (result["performance"] if full else
                        {k: v for k, v in result["performance"].items() if k != "curves"}),
    }
    if not full:  # the same in every file of a tree: in the recipe's document and catalogs
        for key in SHARED_KEYS:
            command.pop(key)
    dropped = {"commands", "alternatives", "by_hardware", "page"}
    return {key: value for key, value in command.items()
            if not (key in dropped and value is None)}


def _blocks(result: Result, full: bool) -> list[Any] | None:
    """Every block; a compact file: without `sources`, and none for one command."""
    if full:
        return list(result["commands"])
    if len(result["commands"]) == 1:
        return None
    return [{k: v for k, v in c.items() if k != "sources"} for c in result["commands"]]


def cli_document(catalog: Data, recipe: Data, result: Result, *, model_id: str,
                 query: dict[str, str]) -> Data:
    """What `vllm-recipes MODEL_ID … --json` prints: the site's document for the same
    selection (`hf_id`, and `recipe`/`variant` for a variant's own model id), complete (every
    block with its `sources`), without the links into a site (SITE_ONLY) and with what only
    the command line has (CLI_ONLY)."""
    hf_id = recipe["model"]["model_id"]
    variant = result["selection"]["variant"]
    command = recommended_command(catalog, recipe, result, query=query, full=True)
    command["unavailable"] = result["unavailable"]
    command["copy_text"] = result["copy_text"]
    return {
        "api_version": API_VERSION,
        "hf_id": model_id,
        **({"recipe": hf_id, "variant": variant} if model_id != hf_id else {}),
        "recommended_command": command,
    }


def dynamo_deployment(result: DynamoResult, combo: Data, page: str | None = None) -> Data:
    """One NVIDIA Dynamo target's answer (`builder.dynamo.targets.build` for `combo`): an item
    of `targets` in /<hf_id>/deployments.json (with its `page`), and what
    `vllm-recipes HF_ID --dynamo … --json` prints under `deployment` (without)."""
    measured = [{k: v for k, v in row.items() if k != "selected"}
                for row in result["performance"] if row["selected"]]
    return {
        **combo,
        "query": {url_key(key): value for key, value in result["selection"].items()},
        **({"page": page} if page is not None else {}),
        "summary": result["summary"],
        "target": result["target"],
        "steps": result["steps"],
        "copy_text": result["copy_text"],
        "prerequisites": result["prerequisites"],
        "settings": result["settings"],
        "performance": measured[0] if measured else None,
        "comparison": result["comparison"],
    }


def cli_dynamo_document(hf_id: str, result: DynamoResult) -> Data:
    """What `vllm-recipes HF_ID --dynamo … --json` prints: the site's item of the selection
    (`dynamo_deployment`, with `available` and `reason` as in `targets`), and what only the
    command line has: the values that cannot be picked next to the selection, with why."""
    combo = {**{key: result["selection"][key] for key in DYNAMO_KEYS},
             "available": True, "reason": None}
    return {"api_version": API_VERSION, "hf_id": hf_id,
            "deployment": dynamo_deployment(result, combo),
            "unavailable": result["unavailable"]}


def cli_diff_document(comparison: Comparison) -> Data:
    """What `vllm-recipes diff … --json` prints: the comparison the page's "Compare your
    command" box shows (`builder.diff.compare`), its `selection` typed as in
    `recommended_command.selection`."""
    return {"api_version": API_VERSION, **comparison,
            "selection": typed_selection(comparison["selection"])}


def relative(link: str, uri: str) -> str:
    """`link` (a path from the site root, with a query or fragment or not; a directory ends
    with `/`) as a link from the document at `uri` (a path from the site root)."""
    path, hash_, fragment = link.partition("#")
    path, question, query = path.partition("?")
    directory = path.endswith("/") or path == ""
    target = posixpath.relpath(path.rstrip("/") or ".", posixpath.dirname(uri) or ".")
    if directory:
        target = "./" if target == "." else target + "/"
    return target + question + query + hash_ + fragment


def _link(text: Any, uri: str, base: str) -> Any:
    if isinstance(text, str) and text.startswith(base):
        return relative(text[len(base):], uri)
    return text


def _relativize(value: Any, uri: str, base: str) -> Any:
    # Only a dict or a list is walked (a leaf outside LINKS is kept as it is, without a call:
    # the site's widget-state files hold tens of thousands of them).
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in LINKS:
                out[key] = _link(item, uri, base)
            elif key in LINK_MAPS and isinstance(item, dict):
                out[key] = {k: _link(v, uri, base) if isinstance(v, str)
                            else _relativize(v, uri, base)
                            for k, v in item.items()}
            elif isinstance(item, (dict, list)):
                out[key] = _relativize(item, uri, base)
            else:
                out[key] = item
        return out
    if isinstance(value, list):
        return [_relativize(item, uri, base) if isinstance(item, (dict, list)) else item
                for item in value]
    return value


def finish(document: Data, uri: str, kind: str, base: str = "/") -> Data:
    """A site document ready to write at `uri` (from the site root): `api_version` and
    `$schema` (its schema, `kind`) first, and every link that starts with `base` (the
    site-absolute form the producers make) relative to `uri`. A JSON Feed (`kind` "feed")
    names them `_api_version` and `_schema`: that format's own keys are its own."""
    schema = f"{base}{SCHEMA_DIR}/{kind}.json"
    head = ({"_api_version": API_VERSION, "_schema": schema} if kind == "feed"
            else {"api_version": API_VERSION, "$schema": schema})
    return _relativize({**head, **document}, uri, base)
