"""Checks of the deployment files (`--format`, builder/deployment/files.py) against their formats'
own definitions: the Compose Specification's JSON schema and the LeaderWorkerSet CRD's schema
(both vendored in tests/data/schemas/, see its README), Kubernetes' schemas through
kubernetes-validate, and vLLM's config-file rules."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any
from unittest import mock

import jsonschema
import kubernetes_validate
import kubernetes_validate.utils
import yaml

from tests.vllm_parser.envs import Parser

SCHEMAS = Path(__file__).resolve().parent / "data" / "schemas"
KUBERNETES_VERSION = "1.37.0"
LWS = ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet")


@cache
def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


@cache
def _validator(name: str) -> jsonschema.Draft7Validator:
    """A validator of one schema, made once per process (it keeps what it resolved)."""
    return jsonschema.Draft7Validator(_schema(name))


def compose_problems(text: str) -> list[str]:
    """Every way a Compose file breaks the Compose Specification's schema."""
    document = yaml.safe_load(text)
    validator = _validator("compose-spec.json")
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator.iter_errors(document)]


_schema_contents = cache(kubernetes_validate.utils.schema_contents)
"""kubernetes-validate's reading of one of its schema files, once per file per process:
its `validate` reads and parses its 1.8 MB definitions file again for every document (most
of this module's time); the schemas are only read (by `referencing` and `jsonschema`)."""


def kubernetes_problems(text: str) -> list[str]:
    """Every way the documents of a Kubernetes file break their kinds' schemas (strict: no
    unknown fields)."""
    with mock.patch.object(kubernetes_validate.utils, "schema_contents", _schema_contents):
        return _kubernetes_problems(text)


def _kubernetes_problems(text: str) -> list[str]:
    problems: list[str] = []
    for document in yaml.safe_load_all(text):
        kind = (document.get("apiVersion"), document.get("kind"))
        if kind == LWS:
            validator = _validator("lws-v0.10.0-leaderworkerset.json")
            problems += [f"LeaderWorkerSet {'/'.join(map(str, e.absolute_path))}: {e.message}"
                         for e in validator.iter_errors(document)]
            continue
        try:
            kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as error:
            problems.append(f"{kind[1]}: {error.message}")
    return problems


def config_argv(text: str) -> list[str]:
    """The command line `vllm serve --config FILE` makes of a config file, by vLLM 0.33.0's
    `FlexibleArgumentParser.load_config_file` rules (vllm/utils/argparse_utils.py): `true` is
    the bare flag, a list its items, a mapping its JSON, anything else `str(value)`."""
    args: list[str] = []
    for key, value in yaml.safe_load(text).items():
        if isinstance(value, bool):
            if value:
                args.append(f"--{key}")
        elif isinstance(value, list):
            args += [f"--{key}", *map(str, value)]
        elif isinstance(value, dict):
            args += [f"--{key}", json.dumps(value)]
        else:
            args += [f"--{key}", str(value)]
    return args


def vllm_parser_error(config: Path, parser: Parser) -> str | None:
    """vLLM's own verdict on `vllm serve --config CONFIG` (None: it accepts it), from the
    session's vLLM parser process (the `parser("vllm")` of every parser test)."""
    batch = {"path_flags": [], "commands": [
        {"argv": ["vllm", "serve", "--config", str(config)], "files": {}}]}
    (verdict,) = parser.ask(batch)
    return verdict["error"]
