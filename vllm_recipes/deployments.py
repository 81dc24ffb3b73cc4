"""NVIDIA Dynamo deployment targets of a model: their pydantic schema and their loader.

One file per model, `recipes/deployments/<hf_org>/<hf_repo>.yaml`, beside the model's recipe
(`recipes/models/<hf_org>/<hf_repo>.yaml`, which must exist). Rules inside one file are
checked here: every framework × GPU × topology combination is either exactly one target or
covered by exactly one `unavailable` rule, never both; targets, settings columns and
performance rows name values that exist. `builder.dynamo` turns the data into steps.

``python -m vllm_recipes.deployments`` prints the JSON Schema committed as
``recipes/deployments/schema.json``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from builder.dynamo import DEPLOY_KINDS, KEYS, TOPOLOGIES

from .errors import InvalidRecipe
from .loader import _display, _read_yaml, _validate, publish
from .schema import HfId, Identifier

__all__ = [
    "DEPLOYMENTS_DIR",
    "Deployments",
    "DeploymentsSet",
    "json_schema",
    "load_deployments",
]

DEPLOYMENTS_DIR = "deployments"
"""Folder of the deployment files inside the recipe tree."""

Topology = Literal[TOPOLOGIES]  # type: ignore[valid-type]
DeployKind = Literal[tuple(DEPLOY_KINDS)]  # type: ignore[valid-type]
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

    def problems(self) -> list[str]:
        """Rows that do not give exactly one value per column (checked by `Deployments`, so
        that the message names the full path)."""
        found = []
        for number, row in enumerate(self.rows):
            if set(row.values) != set(self.columns):
                missing = sorted(set(self.columns) - set(row.values))
                extra = sorted(set(row.values) - set(self.columns))
                found.append(
                    f"settings.rows.{number}.values: needs exactly the columns "
                    f"({', '.join(self.columns)}); missing {missing}, unknown {extra}"
                )
        return found


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

    def _known(self, key: str) -> dict[str, Any]:
        return {"framework": self.frameworks, "gpu": self.gpus,
                "topology": self.topologies}[key]

    @model_validator(mode="after")
    def _consistent(self) -> Deployments:
        def check_names(where: str, item: Any) -> None:
            for key in KEYS:
                value = getattr(item, key)
                values = value if isinstance(value, list) else [value]
                for name in values:
                    if name is not None and name not in self._known(key):
                        raise ValueError(
                            f"{where}.{key}: unknown {key} {name!r} (known: "
                            f"{', '.join(self._known(key))})"
                        )

        check_names("defaults", self.defaults)
        for number, target in enumerate(self.targets):
            check_names(f"targets.{number}", target)
            if target.settings and target.settings not in self.settings.columns:
                raise ValueError(f"targets.{number}.settings: unknown column "
                                 f"{target.settings!r}")
        for number, rule in enumerate(self.unavailable):
            check_names(f"unavailable.{number}", rule)
        for number, note in enumerate(self.prerequisites):
            check_names(f"prerequisites.{number}.when", note.when)
        for number, frontend in enumerate(self.resources.frontend):
            for gpu in frontend.gpus:
                if gpu not in self.gpus:
                    raise ValueError(f"resources.frontend.{number}.gpus: unknown gpu {gpu!r}")
        for problem in self.settings.problems():
            raise ValueError(problem)
        self._check_coverage()
        self._check_performance()
        return self

    def _check_coverage(self) -> None:
        """Every combination is one target or one rule's, never both, never neither."""
        targets: dict[tuple[str, str, str], int] = {}
        for number, target in enumerate(self.targets):
            combo = (target.framework, target.gpu, target.topology)
            if combo in targets:
                raise ValueError(f"targets.{number}: same framework, gpu and topology as "
                                 f"targets.{targets[combo]}")
            targets[combo] = number
        for framework in self.frameworks:
            for gpu in self.gpus:
                for topology in self.topologies:
                    combo = (framework, gpu, topology)
                    rules = [n for n, r in enumerate(self.unavailable)
                             if all(getattr(r, k) in (None, v)
                                    for k, v in zip(KEYS, combo, strict=True))]
                    name = "/".join(combo)
                    if combo in targets and rules:
                        raise ValueError(f"unavailable.{rules[0]}: covers {name}, which is "
                                         f"targets.{targets[combo]}")
                    if combo not in targets and not rules:
                        raise ValueError(f"{name} is neither a target nor covered by an "
                                         "unavailable rule (add one with its reason)")
                    if len(rules) > 1:
                        raise ValueError(f"unavailable.{rules[1]}: {name} is already covered "
                                         f"by unavailable.{rules[0]}")
        defaults = (self.defaults.framework, self.defaults.gpu, self.defaults.topology)
        if defaults not in targets:
            raise ValueError(f"defaults: {'/'.join(defaults)} is not a target")

    def _check_performance(self) -> None:
        seen: dict[tuple[str, str, str], int] = {}
        targets = {(t.framework, t.gpu, t.topology) for t in self.targets}
        for number, row in enumerate(self.performance.rows):
            combo = (row.framework, row.gpu, row.topology)
            if combo not in targets:
                raise ValueError(f"performance.rows.{number}: {'/'.join(combo)} is not a "
                                 "target")
            if combo in seen:
                raise ValueError(f"performance.rows.{number}: {'/'.join(combo)} is already "
                                 f"performance.rows.{seen[combo]}")
            seen[combo] = number
        if not self.performance.rows:
            raise ValueError("performance.rows: give at least one measured row")


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

    Raises InvalidRecipe with one `path: field: message` line per problem."""
    root = Path(root)
    problems: list[str] = []
    by_model: dict[str, Deployments] = {}
    paths: dict[str, Path] = {}
    for path in sorted((root / DEPLOYMENTS_DIR).glob("*/*.yaml")):
        display = _display(path, root)
        try:
            data = _validate(Deployments, _read_yaml(path, display), display)
        except InvalidRecipe as error:
            problems.append(str(error))
            continue
        expected = f"{path.parent.name}/{path.stem}"
        if data.model_id != expected:
            problems.append(f"{display}: model_id: {data.model_id!r} must match the file path "
                            f"({expected!r})")
            continue
        if not (root / "models" / f"{expected}.yaml").is_file():
            problems.append(f"{display}: model_id: no recipe for {expected!r} (expected "
                            f"models/{expected}.yaml)")
            continue
        by_model[expected] = data
        paths[expected] = path
    if problems:
        raise InvalidRecipe("\n".join(problems))
    return DeploymentsSet(by_model, paths)


def json_schema() -> dict[str, object]:
    """The JSON Schema of a deployments file."""
    return Deployments.model_json_schema()


def _main() -> None:
    text = json.dumps(json_schema(), indent=2, sort_keys=True)
    print(re.sub(r"[ \t]+$", "", text, flags=re.M))


if __name__ == "__main__":
    _main()
