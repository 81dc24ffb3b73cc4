"""Published serving configurations: the schema of `recipes/configurations/*.yaml` and its loader.

A configuration set is what one benchmark published for one model: its systems (each mapped to
our hardware id, or to the hardware that stands in for it), the featured categories, and every
configuration with its engine, roles and each role's exact command (argv plus environment).

Rules inside one file live in the models (`ConfigurationSet._consistent`); rules that need the
recipe tree — the model is a recipe, hardware ids exist, a vLLM command's parallel and
speculative flags agree with the structured fields, claimed flags are in the command — are
checked by `load_configurations`, which reports every problem as ``file: field: message``.

``python -m vllm_recipes.configurations`` prints the JSON Schema committed as
``recipes/configurations/schema.json``.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints, ValidationError, model_validator

from builder.diff.command_diff import CommandError, claim_key, engine_options, parse_argv

from . import schema
from .errors import InvalidRecipe
from .loader import Catalog
from .schema import EnvName, HfId, Identifier
from .validated import publish
from .yaml_source import read_yaml

__all__ = [
    "Configuration",
    "ConfigurationSet",
    "Role",
    "claim_key",
    "configuration_json_schema",
    "load_configurations",
]

DIRECTORY = "configurations"
"""Where configuration sets live inside the recipe tree."""

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9.-]*$")]
Claim = Annotated[str, StringConstraints(pattern=r"^(--[A-Za-z0-9][\w.-]*|\$[A-Za-z_]\w*)$")]
PositiveInt = Annotated[int, Field(ge=1)]
ENGINE_ROLES = ("serve", "prefill", "decode")


class Strict(BaseModel):
    """The recipe schema's base, restated here so linters see a pydantic model."""

    model_config = schema.Strict.model_config


class Source(Strict):
    name: str
    """The benchmark or catalogue the configurations come from (e.g. "AA-AgentPerf")."""
    publisher: str
    description: str


class System(Strict):
    display_name: str
    accelerators: PositiveInt
    """Accelerators in the whole system (8 for a node, 72 for an NVL72 rack)."""
    hardware: Identifier | None = None
    """Our hardware id for this system."""
    stand_in: Identifier | None = None
    """For a system the hardware catalog lacks: the hardware the builder join uses instead."""

    @model_validator(mode="after")
    def _one_hardware(self) -> System:
        if (self.hardware is None) == (self.stand_in is None):
            raise ValueError("give exactly one of hardware (ours) or stand_in (a substitute)")
        return self


class Engine(Strict):
    name: str
    """"vLLM" or "SGLang"."""
    version: str
    """The exact build string the benchmark reports."""
    image: str | None = None
    build: str | None = None
    """Which source tree, when it is not a release."""
    dynamo: str | None = None
    """NVIDIA Dynamo version, for configurations served through it."""
    rocm: str | None = None
    patches: list[str] = []
    """Pull requests or local patches applied over the version."""


class Weights(Strict):
    model: HfId
    revision: str | None = None


class SpeculativeDecoding(Strict):
    method: Identifier
    draft_tokens: PositiveInt
    draft_sampling: str | None = None
    rejection_sampling: str | None = None
    adaptive_verification: bool | None = None


class Docker(Strict):
    image: str
    options: list[str] = []
    """`docker run` options other than `-e` (in `env`) and `--entrypoint` (argv[0])."""


class Command(Strict):
    argv: Annotated[list[str], Field(min_length=1)]
    env: dict[EnvName, str] = {}
    docker: Docker | None = None
    """How the command was started in a container, when it was."""


class Parallelism(Strict):
    tp: PositiveInt = 1
    dp: PositiveInt = 1
    pp: PositiveInt = 1
    ep: PositiveInt | None = None
    """Expert-parallel size, when experts are spread (does not multiply the GPU count)."""


class Role(Strict):
    role: Literal["serve", "prefill", "decode", "frontend", "router", "etcd"]
    label: str
    count: PositiveInt
    """Instances of this role."""
    gpus: Annotated[int, Field(ge=0)]
    """GPUs per instance."""
    parallelism: Parallelism | None = None
    command: Command

    @model_validator(mode="after")
    def _gpus_match(self) -> Role:
        if (self.gpus > 0) != (self.parallelism is not None):
            raise ValueError("parallelism: give it exactly for roles that use GPUs")
        if self.parallelism is not None:
            p = self.parallelism
            if p.tp * p.dp * p.pp != self.gpus:
                raise ValueError(
                    f"parallelism: tp × dp × pp = {p.tp * p.dp * p.pp}, but gpus is {self.gpus}")
        return self


class Detail(Strict):
    label: str
    value: str


class RecipeClaims(Strict):
    """What a configuration says about the recipe it started from, as option references:
    `--flag`, `--flag.json_key` or `$ENV_VAR`."""

    recipe: str | None = None
    """The recipe revision it names, when it names one."""
    kept: list[Claim] = []
    """Recipe settings it says it kept."""
    changed: list[Claim] = []
    """Settings it says it changed or added on purpose."""


class Configuration(Strict):
    id: Slug
    system: Identifier
    gpus_used: PositiveInt
    framework: Literal["vllm", "sglang"]
    orchestrator: Literal["dynamo"] | None = None
    serving: Literal["aggregated", "disaggregated"]
    precision: Annotated[str, StringConstraints(pattern=r"^[A-Z0-9]+$")]
    submitter: str
    date: datetime.date
    featured: list[Identifier] = []
    """Featured categories (keys of `featured_categories`) this configuration is the pick of."""
    engine: Engine
    weights: Weights | None = None
    speculative_decoding: SpeculativeDecoding | None = None
    roles: Annotated[list[Role], Field(min_length=1)]
    details: list[Detail] = []
    notes: str
    recipe_claims: RecipeClaims | None = None

    @model_validator(mode="after")
    def _roles_add_up(self) -> Configuration:
        used = sum(role.count * role.gpus for role in self.roles)
        if used != self.gpus_used:
            raise ValueError(f"gpus_used: {self.gpus_used}, but the roles use {used}")
        kinds = {role.role for role in self.roles}
        split = {"prefill", "decode"} <= kinds
        if split != (self.serving == "disaggregated"):
            raise ValueError("serving: disaggregated exactly when there are prefill and decode "
                             "roles")
        if not kinds & set(ENGINE_ROLES):
            raise ValueError("roles: no serve, prefill or decode role")
        return self


class ConfigurationSet(Strict):
    source: Source
    model: HfId
    """The recipe these configurations serve."""
    featured_categories: dict[Identifier, str]
    """Category id → label, in display order."""
    systems: dict[Identifier, System]
    """In display order."""
    configurations: list[Configuration]

    @model_validator(mode="after")
    def _consistent(self) -> ConfigurationSet:
        seen: set[str] = set()
        picks: dict[tuple[str, str], str] = {}
        for index, config in enumerate(self.configurations):
            where = f"configurations.{index}"
            if config.id in seen:
                raise ValueError(f"{where}.id: {config.id!r} is used twice")
            seen.add(config.id)
            system = self.systems.get(config.system)
            if system is None:
                raise ValueError(f"{where}.system: unknown system {config.system!r} "
                                 f"(systems: {', '.join(self.systems)})")
            if config.gpus_used > system.accelerators:
                raise ValueError(f"{where}.gpus_used: {config.gpus_used} is more than the "
                                 f"{system.accelerators} of {system.display_name}")
            for category in config.featured:
                if category not in self.featured_categories:
                    raise ValueError(f"{where}.featured: unknown category {category!r}")
                other = picks.setdefault((config.system, category), config.id)
                if other != config.id:
                    raise ValueError(f"{where}.featured: {other!r} is already the "
                                     f"{category} pick of {config.system}")
        return self


# ----------------------------------------------------------------------------- loading


def _read(path: Path, display: str) -> Any:
    """The file's data, read as recipes are (`yaml_source.read_yaml`: bounded, duplicate keys
    refused, dates kept as text so pydantic reports an impossible one as a field error)."""
    return read_yaml(path, display).data


def _validate(data: Any, display: str) -> ConfigurationSet:
    try:
        return ConfigurationSet.model_validate(data)
    except ValidationError as error:
        lines = []
        for problem in error.errors():
            loc = ".".join(str(part) for part in problem["loc"])
            message = problem["msg"]
            if problem["type"] == "extra_forbidden":
                message = "unknown key (not in the schema; check the spelling)"
            elif problem["type"] == "value_error":
                message = message.removeprefix("Value error, ")
            lines.append(f"{display}: {loc}: {message}" if loc else f"{display}: {message}")
        raise InvalidRecipe("\n".join(lines)) from None


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(Path(root).parent))
    except ValueError:
        return str(path)


def load_configurations(catalog: Catalog) -> list[ConfigurationSet]:
    """Every configuration set under `<recipes>/configurations/`, validated against the
    catalog; InvalidRecipe lists every problem, one `file: field: message` a line."""
    problems: list[str] = []
    sets: list[ConfigurationSet] = []
    for path in sorted((Path(catalog.root) / DIRECTORY).glob("*.yaml")):
        display = _display(path, catalog.root)
        try:
            data = _validate(_read(path, display), display)
        except InvalidRecipe as error:
            problems.append(str(error))
            continue
        found = check_configurations(data, catalog)
        problems += [f"{display}: {problem}" for problem in found]
        if not found:
            sets.append(data)
    if problems:
        raise InvalidRecipe("\n".join(problems))
    return sets


def check_configurations(data: ConfigurationSet, catalog: Catalog) -> list[str]:
    """Cross-file rules, as `field: message` lines."""
    problems: list[str] = []
    if data.model not in catalog.recipes:
        problems.append(f"model: {data.model!r} is not a recipe")
    for sid, system in data.systems.items():
        for field in ("hardware", "stand_in"):
            hw_id = getattr(system, field)
            if hw_id is not None and hw_id not in catalog.hardware.hardware:
                problems.append(f"systems.{sid}.{field}: unknown hardware id {hw_id!r}")
    for index, config in enumerate(data.configurations):
        for r, role in enumerate(config.roles):
            where = f"configurations.{index}.roles.{r}"
            if config.framework == "vllm" and role.role in ENGINE_ROLES:
                problems += [f"{where}.command: {p}" for p in _check_vllm(config, role)]
        if config.recipe_claims is not None:
            problems += [f"configurations.{index}.recipe_claims.kept: {p}"
                         for p in _check_claims(config)]
    return problems


def _check_vllm(config: Configuration, role: Role) -> list[str]:
    try:
        parsed = parse_argv(role.command.argv, role.command.env)
        options = engine_options(parsed["args"])
    except CommandError as error:
        return [str(error)]
    problems = []
    p = role.parallelism or Parallelism()
    for flag, want in (("--tensor-parallel-size", p.tp), ("--data-parallel-size", p.dp),
                       ("--pipeline-parallel-size", p.pp)):
        written = options.get(flag, ("", "1"))[1]
        if not (isinstance(written, str) and written.isdecimal()):
            problems.append(f"{flag}: {written!r} is not a number")
            continue
        got = int(written)
        if got != want:
            problems.append(f"{flag} is {got}, parallelism says {want}")
    spec = options.get("--speculative-config", ("", None))[1]
    declared = config.speculative_decoding
    if declared is None:
        if spec is not None:
            problems.append("has --speculative-config, speculative_decoding is null")
    elif not isinstance(spec, dict):
        problems.append("no JSON --speculative-config, speculative_decoding says there is one")
    else:
        pairs: tuple[tuple[str, object], ...] = (
                 ("method", declared.method), ("num_speculative_tokens", declared.draft_tokens),
                 ("draft_sample_method", declared.draft_sampling),
                 ("rejection_sample_method", declared.rejection_sampling),
                 ("enable_adaptive_verification", declared.adaptive_verification))
        for key, said in pairs:
            if said is not None and spec.get(key) != said:
                problems.append(f"--speculative-config {key} is {spec.get(key)!r}, "
                                f"speculative_decoding says {said!r}")
    return problems


def _check_claims(config: Configuration) -> list[str]:
    """Every `kept` claim names an option or variable the engine commands set."""
    assert config.recipe_claims is not None
    keys: set[str] = set()
    for role in config.roles:
        if role.role not in ENGINE_ROLES:
            continue
        parsed = parse_argv(role.command.argv, role.command.env)
        for key, (_, value) in engine_options(parsed["args"]).items():
            keys.add(key)
            if isinstance(value, dict):
                keys |= {f"{key}.{k}" for k in value}
        keys |= {f"${name}" for name in parsed["env"]}
    return [f"{claim!r} is not set by the configuration's command"
            for claim in config.recipe_claims.kept if claim_key(claim) not in keys]


def publish_set(data: ConfigurationSet) -> dict[str, Any]:
    """The JSON form of a validated set: exactly the keys the YAML author wrote."""
    return publish(data)


def configuration_json_schema() -> dict[str, Any]:
    return ConfigurationSet.model_json_schema()


def _main() -> None:
    text = json.dumps(configuration_json_schema(), indent=2, sort_keys=True)
    print(re.sub(r"[ \t]+$", "", text, flags=re.M))


if __name__ == "__main__":
    _main()
