"""The JSON Schema of every kind of document the JSON API publishes: the one place they are
written. The site publishes each at `/api/v1/schema/<kind>.json` (`published`); every
document names its own in `$schema` (`api_contract.finish`), and the tests validate every
JSON file of a build, and `vllm-recipes --json`, against them.

Strict where a script reads (`additionalProperties: false`), with these exceptions, each
said in its schema's description: a recipe's document carries the recipe's own fields
(described by /schema.json), the builder's catalog and the profiles in /strategies.json and
/hardware.json carry the catalog's fields, and a command block may gain fields. Two keys that
other work adds are declared here already, optional: `fit` (the sizing rule's answer, in
`recommended_command` and in the index rows) and `example_requests` (a request per task,
in `recommended_command`). `fewest_gpus` in /models.json maps a hardware id to the fewest of
its GPUs that hold the model by the fit rule (null for a model without memory facts).

Standard library only (no I/O): the installed command line imports it.
"""

from __future__ import annotations

from typing import Any

from .api_contract import API_VERSION

__all__ = ["SCHEMAS", "published"]

Schema = dict[str, Any]

_STR: Schema = {"type": "string"}
_INT: Schema = {"type": "integer"}
_LINK: Schema = {"type": "string", "format": "uri-reference",
                 "description": "a link relative to this document"}
_LINKS: Schema = {"type": "object", "additionalProperties": {"$ref": "#/$defs/link"}}
_STRINGS: Schema = {"type": "array", "items": _STR}
_STR_MAP: Schema = {"type": "object", "additionalProperties": _STR}
_OBJ: Schema = {"type": "object"}
_NULL_STR: Schema = {"type": ["string", "null"]}
_NUM_OR_NULL: Schema = {"type": ["number", "null"]}


def _strict(properties: Schema, required: list[str] | None = None, **more: Any) -> Schema:
    """An object with exactly these keys (`required`: all of them when None)."""
    return {"type": "object", "properties": properties,
            "required": list(properties) if required is None else required,
            "additionalProperties": False, **more}


_HEAD = {"api_version": {"const": API_VERSION}, "$schema": {"$ref": "#/$defs/link"}}

_BLOCK = {
    "type": "object",
    "description": "one command of the answer (a node, a pool, a router ...); may gain fields",
    "properties": {
        "role": _STR, "label": _STR, "argv": _STRINGS, "env": _STR_MAP, "text": _STR,
        "shell": _STR, "docker_argv": {"type": ["array", "null"], "items": _STR},
        "docker_text": _NULL_STR, "port": {"type": ["integer", "null"]}, "sources": _OBJ,
    },
    "required": ["role", "label", "argv", "env", "text", "shell", "docker_argv",
                 "docker_text", "port"],
}

_NUM: Schema = {"type": "number"}
_POINT = _strict({"concurrency": _INT, "ttft_ms": _NUM, "tpot_ms": _NUM,
                  "tokens_per_s_per_gpu": _NUM, "tokens_per_s_per_user": _NUM,
                  "memory_gb": _NUM})
_ESTIMATE_SOURCE = _strict({"tool": _STR, "version": _STR, "core_version": _STR,
                            "backend": _STR, "database_version": _STR, "label": _STR},
                           description="the estimate's source: the tool, its versions, the "
                                       "vLLM version of its kernel timings, the label its "
                                       "figures are shown with")
_NULL_INT: Schema = {"type": ["integer", "null"]}
_PERFORMANCE = _strict({
    "estimated": {"type": "boolean", "description": "an estimate covers the command's layout"},
    "line": {"type": "string", "description": "the estimate in words, or \"no estimate\" "
             "and why"},
    "source": {"oneOf": [{"type": "null"}, _ESTIMATE_SOURCE],
               "description": "who made the estimates; `label` goes with every figure"},
    "workload": {"oneOf": [{"type": "null"}, _strict({"name": _STR, "isl": _INT,
                                                      "osl": _INT})]},
    "layout": {"oneOf": [{"type": "null"}, _strict({
        "gpus": _INT, "tp": _INT, "pp": _INT, "dp": _INT, "ep": _INT, "weights": _STR,
        "kv_cache": _STR, "checkpoint": _STR, "system": _STR, "strategy": _STR,
        "kv_cache_dtype": _STR})]},
    "point": {"oneOf": [{"type": "null"}, _POINT]},
    "profile": {"oneOf": [{"type": "null"}, _strict({
        "name": _STR, "why": _STR, "max_num_seqs": _INT,
        "tunes": {"type": "array", "items": _STR, "description": "the settings the profile "
                  "picks (the ones the estimates vary)"},
        "not_modelled": {"type": "object", "additionalProperties": _STR, "description":
                         "vLLM scheduler flags the profile leaves as the command has them, "
                         "each with why"}})]},
    "measured": {"type": "array", "description": "points measured on this hardware, each "
                 "with its source and the estimate of the same layout, workload and "
                 "concurrency", "items": _strict({
                     "hardware": _STR, "gpus": _NULL_INT, "tp": _NULL_INT, "dp": _NULL_INT,
                     "layout": _STR, "workload": _STR, "isl": _INT, "osl": _INT,
                     "concurrency": _INT, "tokens_per_s_per_gpu": _NUM,
                     "tokens_per_s_per_user": _NUM, "ttft_ms": _NUM, "source": _STR,
                     "estimate": {"oneOf": [{"type": "null"}, _POINT]},
                     "error_pct": _NUM_OR_NULL})},
    "errors": {"type": ["string", "null"], "description": "the estimates' error against the "
               "measured points"},
    "curves": {"type": ["object", "null"], "description": "every workload's points of the "
               "layout (complete answers only)", "additionalProperties": _strict({
                   "isl": _INT, "osl": _INT, "points": {"type": "array", "items": _POINT}})},
}, ["estimated", "line", "source", "workload", "layout", "point", "profile", "measured",
    "errors"])
_BY_GPU = {"type": "array", "description": "which GPU for this model: each hardware whose "
           "default command has an estimate, at the default workload, most tokens/s per GPU "
           "first", "items": _strict({
               "hardware": _STR, "display_name": _STR, "gpus": _INT, "tp": _INT, "dp": _INT,
               "concurrency": _INT, "tokens_per_s_per_gpu": _NUM,
               "tokens_per_s_per_user": _NUM, "ttft_ms": _NUM,
               "label": {"type": "string", "description": "the estimate's source"}})}

_COMMAND_PROPERTIES: Schema = {
    "selection": {"type": "object", "required": ["hardware", "variant", "strategy", "nodes",
                                                 "frontend", "install"],
                  "properties": {"nodes": _INT}},
    "hardware": _STR, "strategy": _STR, "variant": _STR,
    "node_count": {"type": "integer", "minimum": 1},
    "deploy_type": _STR,
    "env": _STR_MAP,
    "docker_image": _STR,
    "command": {"type": "string", "description": "what the page's Copy copies: the `export` "
                "lines of `env`, then the command"},
    "argv": _STRINGS,
    "docker_command": _NULL_STR,
    "docker_argv": {"type": ["array", "null"], "items": _STR},
    "strategy_spec": _OBJ,
    "hardware_profile": _strict({
        "brand": _STR, "generation": _STR, "compute_arch": _STR, "display_name": _STR,
        "description": _STR, "gpu_count": _INT, "vram_gb": {"type": "number"},
        "multi_node": {"type": "boolean"}}),
    "alternatives": {"$ref": "#/$defs/links"},
    "by_hardware": {"$ref": "#/$defs/links"},
    "model_id": _STR, "frontend": _STR, "install": _STR,
    "features": _STR_MAP,
    "query": _STR_MAP,
    "page": {"$ref": "#/$defs/link"},
    "summary": _STR,
    "commands": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/block"}},
    "install_commands": {"type": "object", "required": ["pip", "docker"]},
    "vllm_version": _STR,
    "notes": {"type": "array", "items": _strict(
        {"title": _STR, "body": _STR,
         "link": _strict({"label": _STR, "href": {
             "type": "string", "description": "a section of the model page (#anchor)"}})},
        ["title", "body"])},
    "request": {"type": ["object", "null"]},
    "unavailable": {"type": "object", "additionalProperties": _STR_MAP},
    "copy_text": _STR,
    "fit": {"description": "the sizing rule's answer (added by the sizing work)"},
    "example_requests": {"description": "a request per task (added by the requests work)"},
    "performance": _PERFORMANCE,
}
_COMPACT = ["selection", "hardware", "strategy", "variant", "node_count", "deploy_type", "env",
            "docker_image", "command", "argv", "docker_command", "docker_argv", "alternatives",
            "model_id", "frontend", "install", "features", "query", "page", "summary",
            "install_commands", "vllm_version", "notes", "request", "performance"]
_FULL = [*_COMPACT, "strategy_spec", "hardware_profile", "by_hardware", "commands"]
_CLI = [key for key in _FULL if key not in ("alternatives", "by_hardware", "page")] + [
    "unavailable", "copy_text"]


def _command(required: list[str]) -> Schema:
    return _strict(_COMMAND_PROPERTIES, required)


_MODEL_ROW = _strict({
    "hf_id": _STR, "title": _STR, "provider": _STR, "tasks": _STRINGS,
    "parameters": _NULL_STR, "parameters_b": _NUM_OR_NULL,
    "active_parameters": _NULL_STR, "active_parameters_b": _NUM_OR_NULL,
    "architecture": _NULL_STR, "context_length": {"type": ["integer", "null"]},
    "date_added": _NULL_STR, "date_updated": _NULL_STR,
    "variants": {"type": "array", "items": _strict({
        "id": _STR, "label": _STR, "precision": _NULL_STR, "model_id": _NULL_STR})},
    "precisions": _STRINGS,
    "hardware": _STRINGS,
    "fewest_gpus": {"type": ["object", "null"],
                    "additionalProperties": {"type": "integer", "minimum": 1},
                    "description": "hardware id → the fewest of its GPUs that hold the model "
                                   "by the fit rule (null: no memory facts)"},
    "fit": {"description": "the sizing rule's answer (added by the sizing work)"},
    "retired": {"type": ["object", "null"], "required": ["reason"]},
    "url": {"$ref": "#/$defs/link"}, "json": {"$ref": "#/$defs/link"},
    "recipe": _STR, "variant": _STR,
}, ["hf_id", "title", "provider", "tasks", "parameters", "parameters_b", "active_parameters",
    "active_parameters_b", "variants", "precisions", "hardware", "fewest_gpus", "retired",
    "url", "json"])

_FACETS = _strict({k: {"type": "object", "additionalProperties": _INT}
                   for k in ("tasks", "precisions", "hardware", "provider")})

_INDEX_ROW = _strict({
    "recipe": _STR, "variant": _STR, "model_id": _STR, "precision": _NULL_STR,
    "strategy": _STR, "nodes": {"type": "integer", "minimum": 1},
    "gpus": {"type": ["integer", "null"], "minimum": 1,
             "description": "GPUs the one `vllm serve` takes; null for several servers"},
    "summary": _STR, "json": {"$ref": "#/$defs/link"}, "page": {"$ref": "#/$defs/link"},
    "fit": {"description": "the sizing rule's answer (added by the sizing work)"},
}, ["recipe", "variant", "model_id", "precision", "strategy", "nodes", "gpus", "summary",
    "json", "page"])

_DEPLOYMENT = {
    "type": "object",
    "description": "one NVIDIA Dynamo framework × GPU × topology combination: when "
                   "available, its target, steps and measured row (`page`: on the site only)",
    "properties": {
        "framework": _STR, "gpu": _STR, "topology": _STR, "available": {"type": "boolean"},
        "reason": _NULL_STR, "query": _STR_MAP, "page": {"$ref": "#/$defs/link"},
        "summary": _STR, "target": _OBJ, "steps": {"type": "array", "items": _strict({
            "id": _STR, "title": _STR, "text": _STR, "commands": {"type": "array"},
            "shell": _STR})},
        "copy_text": _STR, "prerequisites": {"type": "array", "items": _STR_MAP},
        "settings": {"type": ["object", "null"]}, "performance": {"type": ["object", "null"]},
        "comparison": {"type": ["object", "null"]},
    },
    "required": ["framework", "gpu", "topology", "available", "reason", "query"],
    "additionalProperties": False,
    "if": {"properties": {"available": {"const": True}}},
    "then": {"required": ["summary", "target", "steps", "copy_text", "prerequisites",
                          "settings", "performance", "comparison"]},
}


def _without_links(schema: Schema) -> Schema:
    """`schema` (an object's, strict) without the links into a site (`url`, `json`)."""
    keep = {k: v for k, v in schema["properties"].items() if k not in ("url", "json")}
    return {**schema, "properties": keep,
            "required": [k for k in schema["required"] if k in keep]}


SCHEMAS: dict[str, Schema] = {
    "recipe": {
        "description": "/<hf_id>.json: a recipe's document; besides these keys, the recipe's "
                       "own fields (model, variants, features, ...: see /schema.json)",
        "type": "object",
        "properties": {**_HEAD, "hf_id": _STR, "meta": _OBJ, "model": _OBJ, "variants": _OBJ,
                       "guide": _STR, "opt_in_features": _STRINGS,
                       "recommended_command": _command(_FULL), "performance_by_gpu": _BY_GPU},
        "required": [*_HEAD, "hf_id", "meta", "recommended_command", "model", "variants",
                     "guide", "opt_in_features"],
    },
    "variant": {"description": "/<variant_model_id>.json: a variant with its own model id",
                **_strict({**_HEAD, "hf_id": _STR, "recipe": _STR, "variant": _STR,
                           "title": _STR, "recipe_json": {"$ref": "#/$defs/link"},
                           "recommended_command": _command(_FULL)})},
    "rendering": {"description": "/<id>/hw/<hw>.json, /<id>/strategies/<s>.json, "
                                 "/<id>/hw/<hw>/strategies/<s>.json: one selection's answer",
                  **_strict({**_HEAD, "hf_id": _STR, "recipe": _STR, "variant": _STR,
                             "recipe_json": {"$ref": "#/$defs/link"},
                             "recommended_command": _command(_COMPACT)},
                            [*_HEAD, "hf_id", "recipe_json", "recommended_command"])},
    "pointer": {"description": "a per-selection file whose answer another file holds: fetch "
                               "`same_as`",
                **_strict({**_HEAD, "hf_id": _STR, "query": _STR_MAP,
                           "same_as": {"$ref": "#/$defs/link"}, "vllm_version": _STR})},
    "alias": {"description": "/<old id>.json: where a recipe is now",
              **_strict({**_HEAD, "hf_id": _STR, "alias_of": _STR,
                         "recipe_json": {"$ref": "#/$defs/link"}, "notice": _STR})},
    "retired": {"description": "/<hf_id>.json of a retired recipe: no command, and why",
                **_strict({**_HEAD, "hf_id": _STR, "meta": _OBJ,
                           "retired": {"type": "object", "required": ["reason"]},
                           "model": _OBJ, "guide": _STR})},
    "cli": {"description": "what `vllm-recipes MODEL_ID ... --json` prints: a recipe's or "
                           "variant's answer for the selection, complete, without links",
            **_strict({"api_version": {"const": API_VERSION}, "hf_id": _STR, "recipe": _STR,
                       "variant": _STR, "recommended_command": _command(_CLI)},
                      ["api_version", "hf_id", "recommended_command"])},
    "models": {"description": "/models.json: every model id, with facets, and their counts",
               **_strict({**_HEAD, "count": _INT, "facets": _FACETS,
                          "models": {"type": "array", "items": _MODEL_ROW}})},
    "cli-models": {"description": "what `vllm-recipes --list --json` prints: /models.json "
                                  "without its links (`$schema`, each row's `url` and `json`)",
                   **_strict({"api_version": {"const": API_VERSION}, "count": _INT,
                              "facets": _FACETS,
                              "models": {"type": "array",
                                         "items": _without_links(_MODEL_ROW)}})},
    "cli-dynamo": {"description": "what `vllm-recipes HF_ID --dynamo ... --json` prints: the "
                                  "item of /<hf_id>/deployments.json's `targets` for the "
                                  "selection (without `page`), and the values that cannot be "
                                  "picked next to it, with why",
                   **_strict({"api_version": {"const": API_VERSION}, "hf_id": _STR,
                              "deployment": {"$ref": "#/$defs/deployment"},
                              "unavailable": {"type": "object",
                                              "additionalProperties": _STR_MAP}})},
    "hardware-index": {
        "description": "/hardware-index.json: each hardware id, the models and variants "
                       "that run there",
        **_strict({**_HEAD, "hardware": {"type": "object", "additionalProperties": _strict({
            "display_name": _STR, "brand": _STR, "generation": _STR, "gpu_count": _INT,
            "memory_gb": {"type": "number"},
            "models": {"type": "array", "items": _INDEX_ROW}})}})},
    "taxonomy": {"description": "/taxonomy.json: the vocabularies of the choices",
                 **_strict({**_HEAD, **{k: _OBJ for k in (
                     "brands", "generations", "hardware", "strategies", "features", "tasks",
                     "precisions")}})},
    "feed": {"description": "/feed.json: a JSON Feed 1.1 of recipe changes (our keys start "
                            "with _)",
             **_strict({"_api_version": {"const": API_VERSION},
                        "_schema": {"$ref": "#/$defs/link"},
                        "version": {"const": "https://jsonfeed.org/version/1.1"},
                        "title": _STR, "home_page_url": {"$ref": "#/$defs/link"},
                        "feed_url": {"$ref": "#/$defs/link"},
                        "items": {"type": "array", "maxItems": 50, "items": _strict({
                            "id": _STR, "url": {"$ref": "#/$defs/link"}, "title": _STR,
                            "content_text": _STR, "date_published": {
                                "type": "string", "format": "date-time"},
                            "date_modified": {"type": "string", "format": "date-time"},
                            "_recipe": _strict({"hf_id": _STR,
                                                "json": {"$ref": "#/$defs/link"},
                                                "commit": _NULL_STR})})}})},
    "builder-catalog": {"description": "/builder-catalog.json: the catalog the builder takes "
                                       "(the page loads it); its fields are the builder's",
                        "type": "object", "properties": dict(_HEAD),
                        "required": [*_HEAD, "brands", "generations", "hardware",
                                     "strategies"]},
    "strategies": {"description": "/strategies.json: the serving strategies",
                   **_strict({**_HEAD, "strategies": {
                       "type": "object", "additionalProperties": {
                           "type": "object", "required": ["name", "deploy_type", "json"],
                           "properties": {"json": {"$ref": "#/$defs/link"}}}}})},
    "strategy": {"description": "/strategies/<s>.json: a strategy's profile and the models "
                                "that offer it",
                 "type": "object", "properties": {**_HEAD, "models": {"$ref": "#/$defs/links"}},
                 "required": [*_HEAD, "name", "deploy_type", "models"]},
    "hardware": {"description": "/hardware.json: brands, generations and hardware profiles, "
                                "and which models run on each",
                 **_strict({**_HEAD, "brands": _OBJ, "generations": _OBJ,
                            "hardware_aliases": {"type": "object", "additionalProperties": _strict(
                                {"hardware": _STR, "gpus": _INT})},
                            "hardware": {
                     "type": "object", "additionalProperties": {
                         "type": "object", "required": ["display_name", "vram_gb", "models"],
                         "properties": {"models": {"$ref": "#/$defs/links"}}}}})},
    "deployments": {"description": "/<hf_id>/deployments.json: NVIDIA Dynamo targets",
                    **_strict({**_HEAD, "hf_id": _STR, "page": {"$ref": "#/$defs/link"},
                               "default": _OBJ, "recommended": {"type": ["object", "null"]},
                               "targets": {"type": "array",
                                           "items": {"$ref": "#/$defs/deployment"}},
                               "performance": _OBJ, "settings": {}, "data": _OBJ})},
    "cli-diff": {"description": "what `vllm-recipes diff HF_ID ... --command CMD --json` "
                                "prints: the comparison the page's Compare box shows",
                 **_strict({"api_version": {"const": API_VERSION}, "hf_id": _STR,
                            "query": _STR_MAP,
                            "selection": _COMMAND_PROPERTIES["selection"],
                            "summary": _STR, "against": _STR, "role": _STR,
                            "diff": _strict({
                                "model": {"$ref": "#/$defs/value_diff"},
                                "image": {"oneOf": [{"type": "null"},
                                                    {"$ref": "#/$defs/value_diff"}]},
                                "flags": {"type": "array",
                                          "items": {"$ref": "#/$defs/value_diff"}},
                                "env": {"type": "array",
                                        "items": {"$ref": "#/$defs/value_diff"}},
                                "counts": {"type": "object", "additionalProperties": _INT},
                                "distance": {"type": "number"}, "summary": _STR})})},
    "cli-upstream": {"description": "what `vllm-recipes upstream CHECKOUT --json` prints: "
                                    "what changed in the public catalogue since each "
                                    "recipe was ported",
                     **_strict({"api_version": {"const": API_VERSION}, "checkout": _STR,
                                "head": _NULL_STR,
                                **{k: {"type": "array", "items": _STR_MAP} for k in (
                                    "new", "removed", "retired_removed", "unknown")},
                                "changed": {"type": "array", "items": _strict({
                                    "hf_id": _STR, "path": _STR, "commits": _INT,
                                    "changes": {"type": "object",
                                                "additionalProperties": _STRINGS},
                                    "now": _NULL_STR, "recorded": _NULL_STR})}})},
    "widget-states": {
        "description": "/<model_id>/states.json: what the model page's command builder shows "
                       "one click from the page's own selection (builder.views.widget."
                       "neighbours), which the page fetches: `states` maps a click's query "
                       "(JSON pairs) to its explicit selection and its HTML, each piece the "
                       "index of a part or [first, last] of a run of parts. For the page: "
                       "the HTML changes with the page",
        **_strict({**_HEAD, "hf_id": _STR, "parts": _STRINGS, "states": {
            "type": "object", "additionalProperties": _strict({
                "explicit": _STR_MAP, "html": {"type": "array", "items": {
                    "oneOf": [{"type": "integer", "minimum": 0},
                              {"type": "array", "items": {"type": "integer", "minimum": 0},
                               "minItems": 2, "maxItems": 2}]}}})}})},
    "configurations": {"description": "/configurations.json, /<hf_id>/configurations.json: "
                                      "published serving configurations",
                       **_strict({**_HEAD, "count": _INT, "sources": {"type": "array"},
                                  "featured_categories": _OBJ, "systems": _OBJ,
                                  "configurations": {"type": "array", "items": _OBJ}})},
}
"""Kind → schema (without the shared `$defs`, which `published` adds)."""

_VALUE_DIFF: Schema = _strict({
    "key": _STR, "name": _STR,
    "status": {"enum": ["equal", "changed", "added", "removed", "recipe_changed"]},
    "kind": _STR, "recipe": _NULL_STR, "command": _NULL_STR,
    "keys": {"type": "array", "items": {"$ref": "#/$defs/value_diff"}}})
_DEFS: Schema = {"link": _LINK, "links": _LINKS, "block": _BLOCK, "deployment": _DEPLOYMENT,
                 "value_diff": _VALUE_DIFF}


def published(kind: str, schema: Schema | None = None) -> Schema:
    """The schema of `kind` as a standalone JSON Schema document (draft 2020-12)."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": f"vLLM Recipes API v{API_VERSION}: {kind}",
            **(schema if schema is not None else SCHEMAS[kind]), "$defs": _DEFS}
