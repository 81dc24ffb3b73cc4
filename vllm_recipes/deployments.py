"""NVIDIA Dynamo deployment targets of a model: their pydantic schema and their loader.

One file per model, `recipes/deployments/<hf_org>/<hf_repo>.yaml`, beside the model's recipe
(`recipes/models/<hf_org>/<hf_repo>.yaml`, which must exist). Beyond the schema,
`check_deployments` checks: every framework × GPU × topology combination is either exactly one
target or covered by exactly one `unavailable` rule, never both; the defaults are a target;
targets, rules, notes, settings columns and performance rows name values that exist; every
settings row gives one value per column. Each problem is `file:line: field: message`.
`builder.dynamo.targets` turns the data into steps.

``python -m vllm_recipes.deployments`` prints the JSON Schema committed as
``recipes/deployments/schema.json``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from builder.dynamo.targets import DEPLOY_KINDS, KEYS, TOPOLOGIES

from .errors import InvalidRecipe
from .schema import HfId, Identifier
from .validated import publish, validate
from .yaml_source import Located, YamlFile, read_yaml

__all__ = [
    "DEPLOYMENTS_DIR",
    "Deployments",
    "DeploymentsSet",
    "check_deployments",
    "json_schema",
    "load_deployments",
    "load_deployments_with_problems",
]

DEPLOYMENTS_DIR = "deployments"
"""Folder of the deployment files inside the recipe tree."""

if TYPE_CHECKING:  # a Literal built at run time (from the tuples above) is str to a checker
    Topology: TypeAlias = str
    DeployKind: TypeAlias = str
else:
    Topology = Literal[TOPOLOGIES]
    DeployKind = Literal[tuple(DEPLOY_KINDS)]
ServiceName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")]
"""A Kubernetes service name (RFC 1123 label)."""
RepoPath = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)*$")]
"""A relative path inside the Dynamo recipes checkout."""
Positive = Annotated[int, Field(ge=1)]
Measure = Annotated[float, Field(gt=0)]


class Strict(BaseModel):
    """Base of every model here, as in `schema.py`: unknown keys are errors, values are
    immutable, field docstrings are editor hover text."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class Choice(Strict):
    label: str
    """Shown on the pill."""
    description: str = ""


class Gpu(Choice):
    node_arch: Literal["amd64", "arm64"]
    """CPU architecture of the worker nodes that carry this GPU."""


class Defaults(Strict):
    framework: Identifier
    gpu: Identifier
    topology: Topology


class Target(Strict):
    framework: Identifier
    gpu: Identifier
    topology: Topology
    gpus: Positive
    """GPUs the whole deployment uses."""
    layout: str
    """Its workers, e.g. "Two TP4 workers"."""
    configuration: str
    """A short summary of what the recipe configures."""
    deploy: DeployKind
    """`kustomize`: a Kustomize recipe rendered into the cluster Kustomization;
    `manifest`: a manifest applied with `kubectl apply -f`."""
    source: RepoPath
    """The recipe's Kustomization folder or manifest, relative to the Dynamo recipes."""
    frontend_service: ServiceName
    """The frontend's Kubernetes service, port-forwarded for the smoke test."""
    settings: Identifier | None = None
    """Column of `settings` that describes this target."""
    notes: list[str] = []
    smoke_test_note: str = ""
    """Said after the smoke-test request (what a good answer looks like here)."""


class Unavailable(Strict):
    """A combination that has no target; a key left out matches every value."""

    framework: Identifier | None = None
    gpu: Identifier | None = None
    topology: Topology | None = None
    reason: str
    """One sentence shown on the disabled pill and printed by the CLI."""

    @model_validator(mode="after")
    def _names_something(self) -> Unavailable:
        if all(getattr(self, key) is None for key in KEYS):
            raise ValueError(f"name at least one of {', '.join(KEYS)}")
        return self


class SmokeTest(Strict):
    path: Annotated[str, StringConstraints(pattern=r"^/")]
    prompt: str
    temperature: int | float
    """Written into the request as given (0 stays 0)."""
    max_tokens: Positive


class ModelCache(Strict):
    pvc: ServiceName
    access_mode: Literal["ReadWriteMany", "ReadWriteOnce", "ReadOnlyMany"]
    revision: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")]
    """The model snapshot the download Job pins."""


class FrontendResources(Strict):
    gpus: list[Identifier]
    """GPUs whose targets use these requests."""
    cpu_cores: Positive
    memory_gib: Positive


class WorkerResources(Strict):
    gpus: Positive
    cpu_cores: Positive
    memory_gib: Positive
    ephemeral_storage_gib: Positive
    shared_memory_gib: Positive


class Resources(Strict):
    frontend: list[FrontendResources]
    worker: WorkerResources
    note: str = ""


class Condition(Strict):
    """Where a note applies: each key lists the values it applies to (none: every value)."""

    framework: list[Identifier] = []
    gpu: list[Identifier] = []
    topology: list[Topology] = []


class Prerequisite(Strict):
    title: str
    text: str
    when: Condition = Condition()


class SettingsRow(Strict):
    label: str
    values: dict[Identifier, str]
    """Column id → value; `code` spans in backticks."""


class Settings(Strict):
    columns: dict[Identifier, str]
    """Column id → heading."""
    rows: list[SettingsRow]
    notes: list[str] = []


class PerformanceRow(Strict):
    framework: Identifier
    gpu: Identifier
    topology: Topology
    recipe: str
    """How the measured deployment was laid out, e.g. "Aggregated (2 × TP4)"."""
    concurrency: Positive
    output_tok_s_per_gpu: Measure
    """System output tokens per second per GPU (reasoning tokens included)."""
    user_tok_s_p50: Measure
    ttft_p50_ms: Measure
    ttft_p90_ms: Measure


class Performance(Strict):
    workload: str
    notes: str = ""
    rows: list[PerformanceRow]


class Deployments(Strict):
    """The Dynamo deployment targets of one model."""

    model_id: HfId
    """The recipe's model id; the file is `deployments/<model_id>.yaml`."""
    summary: str
    frameworks: dict[Identifier, Choice]
    gpus: dict[Identifier, Gpu]
    topologies: dict[Topology, Choice]
    defaults: Defaults
    targets: list[Target]
    unavailable: list[Unavailable] = []
    frontend_port: Annotated[int, Field(ge=1, le=65535)]
    smoke_test: SmokeTest
    model_cache: ModelCache
    kustomize_version: Annotated[str, StringConstraints(pattern=r"^\d+\.\d+\.\d+$")]
    resources: Resources
    prerequisites: list[Prerequisite] = []
    settings: Settings
    performance: Performance


def _combo(item: Any) -> tuple[str, str, str]:
    return (item.framework, item.gpu, item.topology)


def check_deployments(data: Deployments, source: YamlFile) -> list[Located]:
    """Problems of a schema-valid deployments file that involve several of its parts."""
    problems: list[Located] = []

    def bad(loc: tuple[Any, ...], message: str) -> None:
        problems.append(source.problem(loc, message))

    known: dict[str, Any] = {"framework": data.frameworks, "gpu": data.gpus,
                             "topology": data.topologies}

    def need(where: tuple[Any, ...], item: Any) -> bool:
        ok = True
        for key in KEYS:
            value = getattr(item, key)
            for index, name in enumerate(value if isinstance(value, list) else [value]):
                if name is not None and name not in known[key]:
                    loc = (*where, key, index) if isinstance(value, list) else (*where, key)
                    bad(loc, f"unknown {key} {name!r} (known: {', '.join(known[key])})")
                    ok = False
        return ok

    need(("defaults",), data.defaults)
    targets: dict[tuple[str, str, str], int] = {}
    for number, target in enumerate(data.targets):
        if not need(("targets", number), target):
            continue
        if target.settings and target.settings not in data.settings.columns:
            bad(("targets", number, "settings"), f"unknown column {target.settings!r} (known: "
                f"{', '.join(data.settings.columns)})")
        if _combo(target) in targets:
            bad(("targets", number), "same framework, gpu and topology as "
                f"targets[{targets[_combo(target)]}]")
        targets.setdefault(_combo(target), number)
    rules_ok = all([need(("unavailable", n), rule) for n, rule in enumerate(data.unavailable)])
    for number, note in enumerate(data.prerequisites):
        need(("prerequisites", number, "when"), note.when)
    for number, frontend in enumerate(data.resources.frontend):
        for index, gpu in enumerate(frontend.gpus):
            if gpu not in data.gpus:
                bad(("resources", "frontend", number, "gpus", index), f"unknown gpu {gpu!r}")
    for number, row in enumerate(data.settings.rows):
        missing = [c for c in data.settings.columns if c not in row.values]
        for column in row.values:
            if column not in data.settings.columns:
                bad(("settings", "rows", number, "values", column), "not a column (known: "
                    f"{', '.join(data.settings.columns)})")
        if missing:
            bad(("settings", "rows", number, "values"), f"no value for {', '.join(missing)}")
    if rules_ok and not problems:
        _check_coverage(data, targets, bad)
    if problems:  # the rest would only repeat the problems above
        return problems
    measured: dict[tuple[str, str, str], int] = {}
    for number, measured_row in enumerate(data.performance.rows):
        where = ("performance", "rows", number)
        combo = _combo(measured_row)
        if combo not in targets:
            bad(where, f"{'/'.join(combo)} is not a target")
        elif combo in measured:
            bad(where, f"{'/'.join(combo)} is already performance.rows[{measured[combo]}]")
        measured.setdefault(combo, number)
    return problems


def _check_coverage(data: Deployments, targets: dict[tuple[str, str, str], int],
                    bad: Any) -> None:
    """Every combination is one target or one rule's, never both, never neither."""
    for framework in data.frameworks:
        for gpu in data.gpus:
            for topology in data.topologies:
                combo = (framework, gpu, topology)
                rules = [n for n, rule in enumerate(data.unavailable)
                         if all(getattr(rule, key) in (None, value)
                                for key, value in zip(KEYS, combo, strict=True))]
                name = "/".join(combo)
                if combo in targets and rules:
                    bad(("unavailable", rules[0]),
                        f"covers {name}, which is targets[{targets[combo]}]")
                elif combo not in targets and not rules:
                    bad(("unavailable",), f"{name} is neither a target nor covered by a rule "
                        "(add one with its reason)")
                elif len(rules) > 1:
                    bad(("unavailable", rules[1]),
                        f"{name} is already covered by unavailable[{rules[0]}]")
    if _combo(data.defaults) not in targets:
        bad(("defaults",), f"{'/'.join(_combo(data.defaults))} is not a target")


@dataclass(frozen=True)
class DeploymentsSet:
    """Every deployments file of a recipe tree, validated."""

    by_model: dict[str, Deployments]
    paths: dict[str, Path]

    def published(self, hf_id: str) -> dict[str, Any]:
        """The data as the builder takes it (and the site publishes it)."""
        return publish(self.by_model[hf_id])


def load_deployments(root: Path) -> DeploymentsSet:
    """Load `root/deployments/*/*.yaml` (root is the `recipes/` folder).

    Raises InvalidRecipe with one `file:line: field: message` line per problem."""
    loaded, problems = load_deployments_with_problems(root)
    if problems:
        raise InvalidRecipe("\n".join(problems))
    return loaded


def load_deployments_with_problems(root: Path) -> tuple[DeploymentsSet, list[str]]:
    """The valid deployment files, and one `file:line: field: message` per problem."""
    root = Path(root)
    problems: list[str] = []
    by_model: dict[str, Deployments] = {}
    paths: dict[str, Path] = {}
    for path in sorted((root / DEPLOYMENTS_DIR).glob("*/*.yaml")):
        display = str(path.relative_to(root.parent))
        try:
            source = read_yaml(path, display)
        except InvalidRecipe as error:
            problems.append(str(error))
            continue
        data, found = validate(Deployments, source)
        if data is None:
            problems += [str(p) for p in found]
            continue
        expected = f"{path.parent.name}/{path.stem}"
        if data.model_id != expected:
            found.append(source.problem(("model_id",), f"{data.model_id!r} must match the "
                                                       f"file path ({expected!r})"))
        elif not (root / "models" / f"{expected}.yaml").is_file():
            found.append(source.problem(("model_id",), f"no recipe for {expected!r} "
                                                       f"(expected models/{expected}.yaml)"))
        found += check_deployments(data, source)
        if found:
            problems += [str(p) for p in found]
            continue
        by_model[expected] = data
        paths[expected] = path
    return DeploymentsSet(by_model, paths), problems


def json_schema() -> dict[str, object]:
    """The JSON Schema of a deployments file."""
    return Deployments.model_json_schema()


def _main() -> None:
    text = json.dumps(json_schema(), indent=2, sort_keys=True)
    print(re.sub(r"[ \t]+$", "", text, flags=re.M))


if __name__ == "__main__":
    _main()
