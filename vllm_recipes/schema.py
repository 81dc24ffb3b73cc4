"""Pydantic models of the recipe YAML (format v2): the single definition of the data.

Every model forbids unknown keys, so a typo in a recipe is an error that names the key. Rules
inside one file live here; cross-file references (a hardware key that does not exist, a
strategy id) are checked by ``checks.py``, which knows the hardware catalog and strategies.

Shorthands are normalised on the way in, so the builder sees one form of each thing:

- ``args`` (everywhere: features, modes, variants' ``extra_args``, overrides, PD pools) are a
  list of tokens or a mapping ``{--flag: value}``; a value written as a YAML mapping or list is
  a JSON value, kept as such so the builder can deep-merge it with the same flag set by another
  layer; numbers become strings; ``true`` in a mapping is a bare flag;
- a scalar ``tp: 8`` is ``tp: {all: 8}``; ``all`` names every hardware;
- dates may be quoted or not, and must be real calendar dates.

``vllm-recipes schema`` prints the JSON Schema committed as ``recipes/schema.json``.
"""

from __future__ import annotations

import datetime
import re
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from builder import vllm_release
from builder.arglist import is_flag
from builder.commands.deploy_types import DEPLOY_TYPES
from builder.errors import quoted
from builder.vocabulary import (
    COMPANIONS,
    CONNECTORS,
    FRONTENDS,
    INSTALL_METHODS,
    OFFLOAD_TIERS,
    OMNI_KINDS,
    SELECTION_KEYS,
    SERVE_PORT,
    is_foreign,
)

__all__ = [
    "Args",
    "Brand",
    "CheckpointFacts",
    "Companion",
    "Dependency",
    "FactsConfig",
    "Feature",
    "HardwareAlias",
    "HardwareCatalog",
    "HardwareOverride",
    "HardwareProfile",
    "KvOffload",
    "MeasuredPoint",
    "Mode",
    "ModelFacts",
    "PdConnector",
    "PdPool",
    "PdSettings",
    "PerformanceEstimates",
    "Recipe",
    "RecipePerformance",
    "Strategy",
    "Variant",
    "json_schema",
]

Identifier = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_]*$")]
HardwareKey = Annotated[str, StringConstraints(
    pattern=r"^(arch:[a-z0-9_]+|[a-z0-9][a-z0-9_]*(@[A-Za-z0-9_]*)?)$")]
"""`all`, a brand, a generation, `arch:<compute_arch>`, a hardware id, or a hardware id at a
GPU count (`rtx_5090@2`; `check` says what the count may be)."""
HardwareName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_]*(@[A-Za-z0-9_]*)?$")]
"""A hardware id, or a hardware id at a GPU count (`rtx_5090@2`)."""
Flag = Annotated[str, StringConstraints(pattern=r"^--?[A-Za-z][A-Za-z0-9_.=-]*$")]
EnvName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
MODEL_ID = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?"
                      r"/[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?")
"""A model id (recipe, variant, alias, related recipe): `org/name`, ASCII letters, digits,
`_`, `.` and `-`, each part starting with a letter or digit and not ending with `.` or `-`."""
SITE_FOLDERS = frozenset({"api", "assets", "configurations", "javascripts", "search",
                          "strategies", "stylesheets"})
"""The site's own top-level folders: a model id's org is never one of them (in any case),
or its pages and files would land among the site's (tests/test_pages.py keeps this whole)."""
FILE_SUFFIXES = (".json", ".md", ".html", ".htm", ".txt", ".xml", ".gz", ".br", ".js", ".mjs",
                 ".css", ".wasm", ".zip", ".map", ".svg", ".png", ".ico")
"""Suffixes of files the site serves: no part of a model id ends with one (`Qwen/Qwen3-8B.json`
is the JSON file of `Qwen/Qwen3-8B`; `api/index.html` would be the API page)."""


def _model_id(value: str) -> str:
    """A model id names one folder of the site, under the site, and nothing else of it."""
    if not MODEL_ID.fullmatch(value) or ".." in value:
        raise ValueError(
            f"{quoted(value)} is not a model id: ORG/NAME in ASCII letters, digits, `_`, `.` "
            "and `-`, each part starting with a letter or digit, no `..`")
    org, name = value.split("/")
    if org.lower() in SITE_FOLDERS:
        raise ValueError(f"{quoted(value)}: {org!r} is a folder of the site itself; a model "
                         "id's org cannot be " + ", ".join(sorted(SITE_FOLDERS)))
    for part in (org, name):
        if part.lower().endswith(FILE_SUFFIXES):
            raise ValueError(f"{quoted(value)}: {part!r} ends like a file the site serves "
                             f"({part[part.rindex('.'):]})")
    return value


HfId = Annotated[str, AfterValidator(_model_id), WithJsonSchema({
    "type": "string", "pattern": f"^{MODEL_ID.pattern}$",
    "description": "A Hugging Face model id, ORG/NAME (ASCII)."})]
Support = Literal["verified", "supported", "experimental", "unsupported"]
Offer = Literal["supported", "experimental", "unsupported"]
# Vocabularies the builder's registries hold, read from them (one source of truth): a Literal
# of the registry's keys, which pydantic checks and the JSON schema lists. A static checker
# cannot follow a Literal built at run time, so it sees them as strings.
if TYPE_CHECKING:
    InstallMethod: TypeAlias = str
    DeployTypeId: TypeAlias = str
    FrontendId: TypeAlias = str
    OffloadSupportKey: TypeAlias = str
    CompanionRole: TypeAlias = str
    PdConnectorId: TypeAlias = str
    OmniKind: TypeAlias = str
else:
    InstallMethod = Literal[tuple(INSTALL_METHODS)]
    """An install method: `builder.vocabulary.INSTALL_METHODS`."""
    DeployTypeId = Literal[tuple(DEPLOY_TYPES)]
    """A deploy type: `builder.commands.deploy_types.DEPLOY_TYPES`."""
    FrontendId = Literal[tuple(FRONTENDS)]
    """A frontend: `builder.vocabulary.FRONTENDS`."""
    OffloadSupportKey = Literal[tuple(t.support_key for t in OFFLOAD_TIERS.values())]
    """A KV offload tier's key in `kv_offload_support`: `builder.vocabulary.OFFLOAD_TIERS`."""
    CompanionRole = Literal[tuple(COMPANIONS)]
    """A companion process kind: `builder.vocabulary.COMPANIONS`."""
    PdConnectorId = Literal[tuple(CONNECTORS)]
    """A prefill/decode KV connector: `builder.vocabulary.CONNECTORS`."""
    OmniKind = Literal[tuple(OMNI_KINDS)]
    """A vLLM-Omni task kind: `builder.vocabulary.OMNI_KINDS`."""
Port = Annotated[int, Field(ge=1, le=65535)]

PRECISIONS = (
    "bf16", "fp16", "fp32", "fp8", "fp4", "nvfp4", "mxfp4", "mxfp8", "int2", "int4", "int8",
    "w4a16", "w8a8", "w4a8", "awq", "gptq", "gguf",
)
"""Precision words; a mixed checkpoint joins them with `+` (`mxfp4+mxfp8`)."""


def _date(value: Any) -> str:
    """A real calendar date, written YYYY-MM-DD (quoted or not)."""
    if isinstance(value, datetime.date):
        return value.isoformat()
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError(f"{value!r} is not a date written YYYY-MM-DD")
    try:
        datetime.date.fromisoformat(value)
    except ValueError as error:
        raise ValueError(f"{value!r} is not a real calendar date ({error})") from None
    return value


def _precision(value: str) -> str:
    unknown = [part for part in value.split("+") if part not in PRECISIONS]
    if unknown:
        raise ValueError(
            f"unknown precision {'+'.join(unknown)!r} (use {', '.join(PRECISIONS)}, joined with "
            "+ for mixed checkpoints)"
        )
    return value


def _named(value: str) -> str:
    if not value.strip():
        raise ValueError("is empty; give the name people see")
    return value


def _strategy_list(value: list[str]) -> list[str]:
    if not value:
        raise ValueError("lists no strategy; name at least one, or leave `strategies` out for "
                         "the default list")
    twice = sorted({sid for sid in value if value.count(sid) > 1})
    if twice:
        raise ValueError(f"{', '.join(twice)} listed twice")
    return value


Date = Annotated[str, BeforeValidator(_date)]
Precision = Annotated[str, AfterValidator(_precision)]


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""A line break (NEL, U+2028 and U+2029 too), a tab or another control character (C0 or C1,
ESC and CSI among them): never part of a command-line word (the shell text would break the
line, a terminal would obey it, `docker_argv` would hold it as is)."""


def _one_line(value: str) -> str:
    """A command-line word, an environment value, an image, a path: printable, one line."""
    if _CONTROL.search(value):
        raise ValueError(f"{quoted(value)} holds a line break or another control character; "
                         "write it on one line")
    return value


OneLine = Annotated[str, AfterValidator(_one_line)]
"""Text that goes into a command as one word (see `_one_line`)."""

SHELL_VARIABLES = frozenset({"PATH", "IFS", "ENV", "BASH_ENV", "CDPATH", "HOME", "SHELL",
                             "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND"})
"""Variables that decide which programs a shell runs, or run code of their own."""
LOADER_PREFIXES = ("LD_", "DYLD_", "PYTHON")
"""Prefixes of variables that decide which libraries or Python code a process loads."""
HARMLESS_VARIABLES = frozenset({
    "LD_PRELOAD",  # checked by value: system libraries only (`_env`)
    "PYTHONNOUSERSITE", "PYTHONSAFEPATH", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
    "PYTHONHASHSEED", "PYTHONFAULTHANDLER", "PYTHONUTF8", "PYTHONIOENCODING"})
"""Names with a LOADER_PREFIXES prefix that load nothing (or, PYTHONNOUSERSITE and
PYTHONSAFEPATH, less)."""
SYSTEM_LIBRARY = re.compile(r"/(?:usr/)?lib(?:64)?/[\w.+-]+(?:/[\w.+-]+)*\.so(?:\.[0-9]+)*")
"""A shared library of the system (`/usr/lib/aarch64-linux-gnu/libjemalloc.so.2`): what
`LD_PRELOAD` may name (vendors' docs preload an allocator)."""


def _env_name(name: str) -> str:
    """A variable a recipe may set: not one that picks the programs, libraries or Python code
    `vllm-recipes run` and a pasted command start (`run` would start another `vllm`)."""
    upper = name.upper()
    if upper not in HARMLESS_VARIABLES and (upper in SHELL_VARIABLES
                                            or upper.startswith(LOADER_PREFIXES)):
        raise ValueError(f"{name} decides which programs, libraries or Python code run (PATH, "
                         "LD_*, PYTHON*, ...); a recipe may not set it")
    return name


def _env(env: dict[str, str]) -> dict[str, str]:
    """`LD_PRELOAD` names system libraries only (and may keep the caller's, `$LD_PRELOAD`)."""
    for name, value in env.items():
        if name.upper() != "LD_PRELOAD":
            continue
        for part in value.split(":"):
            if part not in ("$LD_PRELOAD", "${LD_PRELOAD}") and not SYSTEM_LIBRARY.fullmatch(part):
                raise ValueError(f"{name}: {quoted(part)} is not a system library (/usr/lib/...so "
                                 "or /lib/...so); a recipe may preload only those")
    return env


RecipeEnvName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$"),
                          AfterValidator(_env_name)]
Env = Annotated[dict[RecipeEnvName, OneLine], AfterValidator(_env)]
"""The environment a recipe sets: names as `_env_name`, values one line (`_one_line`)."""

IMAGE = re.compile(
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]+)?/)?"  # registry[:port]/
    r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"  # name
    r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?")  # :tag, @digest
"""A Docker image reference (Docker's grammar: `[registry[:port]/]name[:tag][@digest]`)."""


def _image(value: str) -> str:
    if not IMAGE.fullmatch(value):
        raise ValueError(f"{quoted(value)} is not a Docker image reference "
                         "([REGISTRY/]NAME[:TAG][@sha256:DIGEST])")
    return value


Image = Annotated[str, AfterValidator(_image)]


def _json_words(value: Any, where: str) -> None:
    """Every string of a JSON value (keys too) is one line (it is part of one word)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                _one_line(item)
            except ValueError as error:
                raise ValueError(f"{where}: {error}") from None
        elif isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            stack += item


def _token(value: Any, where: str) -> str:
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{where}: {value!r} is not a command-line token (quote it)")
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        try:
            return _one_line(value)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
    raise ValueError(f"{where}: {value!r} is not a command-line token")


def _args(value: Any) -> list[Any]:
    """Normalise `args` to a token list whose JSON values are dicts/lists (see module doc)."""
    if value is None:
        return []
    if isinstance(value, dict):
        tokens: list[Any] = []
        for flag, item in value.items():
            if not isinstance(flag, str) or not is_flag(flag):
                raise ValueError(f"{flag!r} is not a flag (a mapping's keys are --flags)")
            if item is True:
                tokens.append(flag)
            elif item is False or item is None:
                raise ValueError(
                    f"{flag}: write `true` for a bare flag; to drop a flag set by another layer "
                    "use remove_args"
                )
            elif isinstance(item, dict | list):
                _json_words(item, flag)
                tokens += [flag, item]
            else:
                tokens += [flag, _token(item, flag)]
        return tokens
    if not isinstance(value, list):
        raise ValueError("args must be a list of tokens or a mapping of --flag: value")
    tokens = []
    for index, item in enumerate(value):
        if isinstance(item, dict | list):
            if not tokens or not isinstance(tokens[-1], str) or not is_flag(tokens[-1]):
                raise ValueError(f"item {index}: a JSON value must follow its --flag")
            _json_words(item, tokens[-1])
            tokens.append(item)
        else:
            tokens.append(_token(item, f"item {index}"))
    return tokens


Args = Annotated[list[str | dict[str, Any] | list[Any]], BeforeValidator(_args)]
"""Command-line arguments: a token list or a `{--flag: value}` mapping (see module doc)."""


def _keyed(value: Any) -> Any:
    """`tp: 8` means `tp: {all: 8}`."""
    return {"all": value} if isinstance(value, int) and not isinstance(value, bool) else value


def _refuse_moved(data: Any, moved: dict[str, str]) -> Any:
    """Keys of the public catalogue's format (and of format v1), with where they went."""
    if isinstance(data, dict):
        for key, hint in moved.items():
            if key in data:
                raise ValueError(f"{key}: {hint}")
    return data


class Strict(BaseModel):
    """Base of every model: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


# --------------------------------------------------------------------------- hardware


class Brand(Strict):
    display_name: str
    """Shown on pills and in `hardware_profile.brand` (e.g. "NVIDIA")."""
    primary: bool = False
    """Recipe-wide images (a variant's `docker_image`) are written for the primary brand."""
    default_image: Image
    """Docker image used when neither the recipe nor a variant names one."""
    nightly_image: Image | None = None
    """Image used instead of `default_image` when a recipe needs a nightly build."""
    docker_device_args: list[OneLine]
    """`docker run` arguments that expose the accelerators, the least the vendor's docs ask
    for (say which in a comment); `{gpus}` is filled in with the devices each command uses
    (`all`, or `"device=0,1"`: builder/commands/docker.py)."""
    docker_rdma_args: list[OneLine] = []
    """`docker run` arguments a layout that spans nodes adds for RDMA (its devices and
    capabilities), with the vendor's source in a comment."""
    docker_command_prefix: list[OneLine] = []
    """Words after the image when the image has no `vllm serve` entrypoint."""
    visible_devices_env: EnvName | None = None
    """Environment variable that selects devices (CUDA_VISIBLE_DEVICES, ...); none on CPUs."""
    pip_install: str | None = None
    """Shell lines that install vLLM from pip for this brand (none: Docker only)."""
    pip_install_nightly: str | None = None
    """Shell lines that install a nightly vLLM (when a recipe needs one)."""
    device: str = "GPU"
    """What one accelerator is called in summaries (GPU, NPU, TPU chip, NUMA node)."""
    build: str | None = None
    """The build `default_image` and `pip_install` install when it is not the checked vLLM
    release (a plugin released on its own line); shown beside the command."""

    @field_validator("default_image", "nightly_image", "pip_install", "pip_install_nightly",
                     mode="before")
    @classmethod
    def _release(cls, value: Any) -> Any:
        """`{vllm_version}` is the release the commands are checked with (builder/vllm_release);
        filled in before the image is checked as an image reference."""
        return vllm_release.fill(value) if isinstance(value, str) else value


class Generation(Strict):
    brand: Identifier
    display_name: str
    kubernetes_resource: str | None = None
    """The extended resource its accelerators are requested as on Kubernetes (the vendor's
    device plugin: `nvidia.com/gpu`, `amd.com/gpu`, ...). Without it the Kubernetes file is
    not offered for its hardware (a CPU brand, one without `visible_devices_env`, needs none)."""


def _pattern(value: Any) -> Any:
    if isinstance(value, str):
        try:
            re.compile(value)
        except re.error as error:
            raise ValueError(f"{value!r} is not a regular expression ({error})") from None
    return value


DetectPattern = Annotated[str, BeforeValidator(_pattern)]
"""A regular expression for a device name (see `HardwareProfile.detect`)."""


class HardwareProfile(Strict):
    brand: Identifier
    """Key of an entry in `brands`."""
    generation: Identifier
    """Key of an entry in `generations` (hopper, blackwell, cdna3, ...)."""
    compute_arch: Identifier
    """Compute architecture (sm90, sm100, gfx942, ...); recipes match it as `arch:<value>`."""
    display_name: str
    description: str
    gpu_count: Annotated[int, Field(ge=1, le=64)]
    """Accelerators in one node (or tray); NUMA nodes of a CPU host."""
    memory_gb: Annotated[int, Field(ge=1)]
    """Memory per accelerator, GB (host memory per NUMA node on a CPU host)."""
    max_gpus: Annotated[int, Field(ge=1, le=64)] | None = None
    """Most of these GPUs one node holds: the `gpus` selection's upper bound (`gpu_count`
    when absent). `gpu_count` is the count a command assumes when no `gpus` is given."""
    memory_bandwidth_gb_s: Annotated[int, Field(ge=1)] | None = None
    """Memory bandwidth per accelerator, GB/s (the vendor's datasheet)."""
    interconnect: Literal["nvlink", "xgmi", "pcie", "ici", "hccs", "none"] | None = None
    """How the accelerators of one node talk to each other."""
    formats: list[Literal["fp16", "bf16", "fp8", "mxfp8", "nvfp4", "mxfp4", "int8", "int4"]] = []
    """Weight and KV-cache formats the tensor cores run natively (FP8: Ada, Hopper and newer;
    NVFP4 and MXFP4: Blackwell; AMD's CDNA 3 FP8, CDNA 4 MXFP4)."""
    restricted: bool = False
    """Offered only by recipes that name it (workstations, TPUs, CPUs, NPUs)."""
    scalable: bool = True
    """False for machines that cannot join a multi-node deployment (a single workstation)."""
    aiconfigurator_system: Identifier | None = None
    """NVIDIA AIConfigurator's name for this hardware (`h200_sxm`, `l40s`, ...), where its
    pinned release (requirements-aiconfigurator.lock) holds a vLLM performance database for
    it: `make estimates` estimates the hardware's cells there (recipes/performance/). Absent:
    no estimate, and COVERAGE.md says why."""
    detect: list[DetectPattern] = []
    """`vllm-recipes --detect`: regular expressions (case-insensitive, searched) for the
    device name the brand's tool reports (nvidia-smi, amd-smi / rocm-smi, npu-smi, the TPU
    accelerator type, lscpu's model name). A machine is this hardware when a pattern matches
    and it has `gpu_count` devices; failing an exact count, a node (`scalable`) also matches
    another count, said in a notice, and a fixed box (`scalable: false`) does not."""


class HardwareAlias(Strict):
    """An earlier node-shaped hardware id (`rtx_4090_2x`): a GPU of the registry and a count.
    `hardware=rtx_4090_2x` reads as `hardware=rtx_4090 gpus=2`, with a notice naming them."""

    hardware: Identifier
    """Key of the GPU's entry in `hardware`."""
    gpus: Annotated[int, Field(ge=1, le=64)]
    """How many of them the earlier id meant (within the GPU's `max_gpus`)."""


class HardwareCatalog(Strict):
    brands: dict[Identifier, Brand]
    generations: dict[Identifier, Generation]
    hardware: dict[Identifier, HardwareProfile]
    hardware_aliases: dict[Identifier, HardwareAlias] = {}
    """Earlier node-shaped ids → a GPU and a count; recipes name the GPU (`check` refuses an
    alias as a recipe key), selections may still give the alias."""

    @model_validator(mode="after")
    def _keys_are_unambiguous(self) -> HardwareCatalog:
        seen: dict[str, str] = {"all": "reserved key"}
        for kind, keys in (
            ("brand", self.brands),
            ("generation", self.generations),
            ("hardware id", self.hardware),
            ("hardware alias", self.hardware_aliases),
        ):
            for key in keys:
                if key in seen:
                    raise ValueError(f"{key!r} is both a {seen[key]} and a {kind}")
                seen[key] = kind
        for gen_id, gen in self.generations.items():
            if gen.brand not in self.brands:
                raise ValueError(f"generations.{gen_id}.brand: unknown brand {gen.brand!r}")
        for hw_id, hw in self.hardware.items():
            if hw.brand not in self.brands:
                raise ValueError(f"hardware.{hw_id}.brand: unknown brand {hw.brand!r}")
            if hw.generation not in self.generations:
                raise ValueError(
                    f"hardware.{hw_id}.generation: unknown generation {hw.generation!r}"
                )
            if hw.max_gpus is not None and hw.max_gpus < hw.gpu_count:
                raise ValueError(f"hardware.{hw_id}.max_gpus: {hw.max_gpus} is fewer than its "
                                 f"gpu_count ({hw.gpu_count})")
            if self.generations[hw.generation].brand != hw.brand:
                raise ValueError(
                    f"hardware.{hw_id}: generation {hw.generation!r} belongs to brand "
                    f"{self.generations[hw.generation].brand!r}, not {hw.brand!r}"
                )
        for alias_id, alias in self.hardware_aliases.items():
            target = self.hardware.get(alias.hardware)
            if target is None:
                raise ValueError(f"hardware_aliases.{alias_id}.hardware: unknown hardware id "
                                 f"{alias.hardware!r}")
            most = target.max_gpus or target.gpu_count
            if alias.gpus > most:
                raise ValueError(f"hardware_aliases.{alias_id}.gpus: {alias.gpus} is more than "
                                 f"{alias.hardware}'s {most}")
        return self


# -------------------------------------------------------------------------- strategies


class HardwareMatch(Strict):
    min_gpus: Annotated[int, Field(ge=1)] = 1
    max_gpus: Annotated[int, Field(ge=1)] | None = None
    multi_node: bool = False
    """True for strategies that span several nodes."""
    architecture: Literal["moe", "dense"] | None = None
    """Only offered for models of this architecture."""
    only_when_oversize: bool = False
    """Only offered when the model does not fit on one node of the chosen hardware."""

    @model_validator(mode="after")
    def _range(self) -> HardwareMatch:
        if self.max_gpus is not None and self.max_gpus < self.min_gpus:
            raise ValueError(f"max_gpus: {self.max_gpus} is less than min_gpus "
                             f"({self.min_gpus}): no hardware would match")
        return self


DERIVED_COMPANION_FLAGS = ("--port", "--worker-urls", "--intra-node-data-parallel-size")
"""A router companion's flags the builder sets from the engine command (never written)."""


class Companion(Strict):
    """A process the strategy starts beside its `vllm serve` on the same node: a router in
    front of the engine. The builder adds its port and what it reads from the engine command
    (the engine's URL and its data-parallel size)."""

    role: CompanionRole
    """What it is: a key of the builder's `COMPANIONS` registry (`router`: vLLM Router)."""
    start: Literal["before", "after"] = "after"
    """Started before the engine, or after the engine answers `/health`."""
    port: Port
    """The port clients connect to; the engine keeps the `--port` of the strategy's args."""
    args: Args = []
    """Its own arguments besides the ones the builder derives (`--policy`, `--host`, ...)."""
    description: str
    """One or two sentences on what it does here (shown with the start order)."""

    @model_validator(mode="after")
    def _no_derived_flags(self) -> Companion:
        for token in self.args:
            if isinstance(token, str) and token.split("=", 1)[0] in DERIVED_COMPANION_FLAGS:
                raise ValueError(f"args: {token.split('=', 1)[0]} is set by the builder "
                                 "(the port field, or read from the engine command)")
        return self


class Strategy(Strict):
    name: Identifier
    deploy_type: DeployTypeId
    layout: Literal[
        "tp", "tep", "dep", "dpa_tp", "tp_dp", "tp_pp", "pd", "kv_store_centralized",
        "kv_store_distributed", "omni",
    ]
    """How the builder lays processes out over GPUs and nodes (`dpa_tp`: one data-parallel
    attention rank per GPU, the MoE experts split over all of them by tensor parallelism)."""
    display_name: str
    short_label: str
    orientation: Literal["latency", "balanced", "throughput"]
    description: str
    hardware_match: HardwareMatch
    vllm_args: Args = []
    remove_args: list[Flag] = []
    """Flags removed from its `vllm serve` after every layer of the recipe (with their values),
    e.g. expert parallelism that a recipe's `base_args` turn on."""
    parallel_flag: Literal["--tensor-parallel-size", "--data-parallel-size"] | None = None
    """The flag that carries the strategy's parallel size (none: the server sets its own)."""
    kv_offload: bool = True
    """False: KV cache offloading (the `kv_offload` key) is not offered with this strategy."""
    companion: Companion | None = None
    """A process started beside the engine (a router in front of it): single-node only."""

    @model_validator(mode="after")
    def _companion_fits(self) -> Strategy:
        if self.companion is None:
            return self
        if not DEPLOY_TYPES[self.deploy_type].companion:
            raise ValueError("companion: only single-node strategies start a companion")
        tokens = [str(t) for t in self.vllm_args]
        engine = (int(tokens[tokens.index("--port") + 1]) if "--port" in tokens[:-1]
                  else SERVE_PORT)
        if engine == self.companion.port:
            raise ValueError(f"companion.port: {engine} is the engine's port too; give the "
                             "engine another `--port` in vllm_args")
        return self


# ----------------------------------------------------------------------------- recipes


class Link(Strict):
    label: str
    href: str


class HardwareNote(Strict):
    title: str
    body: str
    link: Link | None = None


class InstallToggle(Strict):
    pip: bool = True
    """False hides the pip install path (Docker only)."""
    docker: bool = True


class HardwareOverride(Strict):
    """Settings that apply when the selected hardware matches the key."""

    extra_args: Args = []
    """Arguments added to `vllm serve`; a flag set again replaces its earlier value, and a JSON
    value written as a mapping is merged key by key into the one set before."""
    extra_env: Env = {}
    docker_image: Image | None = None
    docker_command_prefix: list[OneLine] | None = None
    """Words after the image when this override's image has no `vllm serve` entrypoint
    (`[vllm, serve]`); replaces the brand's `docker_command_prefix`."""
    install: InstallToggle | None = None
    parallel_size: Annotated[int, Field(ge=1)] | None = None
    """Replaces the strategy's parallel size (see the builder's auto-fit rule)."""
    remove_args: list[Flag] = []
    """Flags removed from the command (with their values)."""
    when: dict[Identifier, Identifier] = {}
    """Feature values this override needs, e.g. `{spec_decoding: dspark, text_only: "on"}`
    (`on` means any mode); it is skipped unless every one holds."""
    host_memory_gb: Annotated[int, Field(ge=1)] | None = None
    """GB of the variant's weights these settings keep in host memory (CPU offload), so the
    GPUs need to hold only the rest (checked by `vllm-recipes check`)."""


class ArgsOverride(Strict):
    args: Args = []
    env: Env = {}


class Mode(Strict):
    label: str
    description: str = ""
    args: Args = []
    env: Env = {}
    hardware: dict[HardwareKey, Support] = {}
    """Support per hardware key; `unsupported` disables the mode there."""
    variants: list[Identifier] | None = None
    """Variants this mode is offered on (all when absent)."""
    hardware_overrides: dict[HardwareKey, ArgsOverride] = {}
    """Args/env applied on top of the mode's on matching hardware (the most specific key), by
    the rule of every layer: a flag replaces, a JSON mapping merges."""


class Feature(Strict):
    description: str
    label: str | None = None
    """Pill text (the id, capitalised, when absent)."""
    args: Args = []
    env: Env = {}
    default_mode: Identifier | None = None
    modes: dict[Identifier, Mode] | None = None
    hardware: dict[HardwareKey, Support] = {}
    """Support per hardware key; `unsupported` disables the feature there."""
    hardware_overrides: dict[HardwareKey, ArgsOverride] = {}
    """Args/env applied on top of the feature's on matching hardware (the most specific key),
    by the rule of every layer: a flag replaces, a JSON mapping merges."""
    strategies: list[Identifier] | None = None
    """Strategies this feature is offered with (all when absent)."""
    opt_in: bool | list[HardwareKey] = False
    """Off until the user turns it on: everywhere (`true`) or on the hardware keys listed."""

    @model_validator(mode="after")
    def _modes_are_consistent(self) -> Feature:
        if self.modes is not None:
            if not self.modes:
                raise ValueError("modes: must name at least one mode")
            if self.args:
                raise ValueError("args: a feature with modes takes its args from the modes")
            if self.default_mode is not None and self.default_mode not in self.modes:
                raise ValueError(
                    f"default_mode: {self.default_mode!r} is not one of the modes "
                    f"({', '.join(self.modes)})"
                )
        elif self.default_mode is not None:
            raise ValueError("default_mode: only a feature with modes has a default mode")
        return self


class Variant(Strict):
    @model_validator(mode="before")
    @classmethod
    def _moved_keys(cls, data: Any) -> Any:
        return _refuse_moved(data, {
            "supported_hardware": "renamed `hardware` (a list of hardware keys)",
        })

    model_id: HfId | None = None
    """Hugging Face id served by this variant (the recipe's model id when absent)."""
    label: str | None = None
    """Pill text: say what the weights are (e.g. "FP4+FP8 (preview)")."""
    precision: Precision
    vram_minimum_gb: Annotated[int, Field(ge=1)]
    """Memory the weights need with headroom, GB; decides fits, auto-fit and node counts."""
    description: str = ""
    hardware: list[HardwareKey] | None = None
    """Hardware keys this variant runs on (every hardware the recipe offers when absent)."""
    precision_hardware: list[HardwareKey] | None = None
    """Hardware this precision runs on, where it differs from the builder's rule (NVFP4 and
    FP4 weights run on Blackwell only)."""
    min_vllm_version: str | None = None
    docker_image: Image | None = None
    default_modes: dict[Identifier, Identifier] = {}
    aliases: list[Identifier] = []
    """Earlier ids of this variant (`variant=<old>` still works, with a notice that names
    this id): for a variant renamed after links to it were published."""
    """Features switched on by default with this mode when this variant is selected."""
    tp: Annotated[dict[HardwareKey, Annotated[int, Field(ge=1)]], BeforeValidator(_keyed)] = {}
    """Tensor-parallel size of single-node Tensor Parallel per hardware key (`tp: 8` for all)."""
    extra_args: Args = []
    extra_env: Env = {}
    hardware_overrides: dict[HardwareKey, HardwareOverride] = {}
    strategy_overrides: dict[Identifier, dict[HardwareKey, HardwareOverride]] = {}
    """Per strategy, overrides keyed by hardware key."""


class Model(Strict):
    model_id: HfId
    min_vllm_version: str
    default_frontend: FrontendId | None = None
    """The frontend selected by default; absent: Python for vLLM-Omni recipes (its routes are
    served by its own API server), else Rust."""
    docker_image: dict[HardwareKey, Image] = {}
    """Docker image per hardware key (e.g. `amd`)."""
    architecture: Literal["moe", "dense"]
    parameter_count: str
    active_parameters: str | None = None
    context_length: Annotated[int, Field(ge=1)] | None = None
    """Tokens of context (none for generation models without a text context)."""
    nightly: bool = False
    """Needs a nightly vLLM: the brands' nightly pip install and images."""
    install_notes: dict[InstallMethod, str] = {}
    """One sentence per install method, shown with its command (why an image, a version)."""
    base_args: Args = []
    base_env: Env = {}


class Dependency(Strict):
    """An install step besides vLLM itself (a newer transformers, an extra package, ...)."""

    note: str
    """What the step is for, one sentence."""
    command: str
    """Shell line(s) to run in the vLLM environment."""
    optional: bool = False
    """Only needed for part of the model's features (said in the note)."""
    unpinned: str | None = None
    """Why the step installs a package without pinning its version (a nightly build kept as it
    is, a main-branch checkout), or a vLLM other than the release its label names; every other
    `pip install` names exact versions (tests/test_install_lines.py)."""
    hardware: list[HardwareKey] = ["all"]
    """Hardware keys the step is for."""
    install: list[InstallMethod] = ["pip"]
    """Install methods that need it (a step for Docker runs inside the container)."""
    provides: list[str] = []
    """Paths a command may name (`--deploy-config`, `--chat-template`, ...) that the step
    leaves where `vllm serve` starts (see builder/commands/needed_files.py)."""

    @field_validator("command", mode="before")
    @classmethod
    def _release(cls, value: Any) -> Any:
        """`{vllm_version}` is the checked release, as in the brands' install lines (an extra of
        vLLM installed at the release already there: `"vllm[audio]=={vllm_version}"`)."""
        return vllm_release.fill(value) if isinstance(value, str) else value


ParserKind = Literal["tool_call_parser", "reasoning_parser"]
DOWNLOAD_URL = (r"^https://[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]{1,5})?"
                r"(?:/[A-Za-z0-9._~%!$&()*+,;=:@/-]*)?(?:\?[A-Za-z0-9._~%!$&()*+,;=:@/?-]*)?$")
"""An https URL of RFC 3986's characters, without a fragment, quote, brace, backslash or
space (the install block quotes it for the shell all the same: builder.shell.quote)."""
FILE_NAME = r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$"
"""A file's name in the directory `vllm serve` starts from (no path, no shell character)."""


def _download(value: str) -> str:
    if not re.fullmatch(DOWNLOAD_URL, value):
        raise ValueError(f"{quoted(value)} is not an https:// URL of plain URL characters (no "
                         "space, quote, backtick, brace, backslash or #fragment)")
    return value


def _file_name(value: str) -> str:
    if not re.fullmatch(FILE_NAME, value):
        raise ValueError(f"{quoted(value)} is not a file name (letters, digits, _ . -; no "
                         "path)")
    return value


DownloadUrl = Annotated[str, AfterValidator(_download),
                        WithJsonSchema({"type": "string", "pattern": DOWNLOAD_URL})]
FileName = Annotated[str, AfterValidator(_file_name),
                     WithJsonSchema({"type": "string", "pattern": FILE_NAME})]


class RecipeFile(Strict):
    """A file a command names (a parser plugin, a chat template) that is fetched from a URL
    into the directory `vllm serve` starts from; the Docker form mounts it."""

    download: DownloadUrl
    """Where the file is fetched from (pinned where the host allows it): an https URL."""
    note: str
    """What the file is for, one sentence (shown with its install step)."""
    registers: dict[ParserKind, list[str]] = {}
    """The parser names the file registers when `--tool-parser-plugin` or
    `--reasoning-parser-plugin` loads it (so `--tool-call-parser NAME` may name them)."""


# ------------------------------------------------------------- prefill/decode, KV offload



class PdPool(Strict):
    """One pool (prefill or decode) of a prefill/decode cluster. Unset fields take the
    builder's defaults: as many whole nodes as the model needs, TEP for MoE models and TP for
    dense ones, every GPU of each node, port 8000 (prefill) / 8001 (decode)."""

    nodes: Annotated[int, Field(ge=1, le=16)] | None = None
    """Nodes (trays) this pool spans; one vLLM server across all of them."""
    layout: Literal["tp", "tep", "dep"] | None = None
    """How the pool's server uses its GPUs: tensor, tensor + expert, or data + expert parallel."""
    gpus_per_node: Annotated[int, Field(ge=1, le=64)] | None = None
    """GPUs of each node the pool uses (all of them when absent)."""
    devices: list[Annotated[int, Field(ge=0)]] | None = None
    """Device ids the pool uses when it shares its node with the other pool; sets the brand's
    visible-devices variable (CUDA_VISIBLE_DEVICES, ...). Implies `gpus_per_node`."""
    port: Port | None = None
    """The pool's API port (`--port`)."""
    extra_args: Args = []
    """Arguments for this pool's server only; a flag set again replaces its earlier value."""
    extra_env: Env = {}
    remove_args: list[Flag] = []
    """Flags removed from this pool's server (with their values)."""

    @model_validator(mode="after")
    def _devices_match_count(self) -> PdPool:
        if self.devices is not None:
            if len(set(self.devices)) != len(self.devices):
                raise ValueError("devices: a device is listed twice")
            if self.gpus_per_node is not None and self.gpus_per_node != len(self.devices):
                raise ValueError(
                    f"gpus_per_node: {self.gpus_per_node} but {len(self.devices)} devices listed"
                )
            if self.nodes is not None and self.nodes > 1:
                raise ValueError("devices: only a single-node pool can name its devices")
        return self


class PdConnector(Strict):
    """A KV connector offered for prefill/decode on matching hardware."""

    kv_transfer_config: dict[str, Any] | None = None
    """The `--kv-transfer-config` JSON object of both pools (the builder's default when
    absent: `{"kv_connector":"NixlConnector","kv_role":"kv_both"}` or the Mooncake one)."""
    extra_env: Env = {}
    """Environment of both pools when this connector is selected."""


class PdSettings(Strict):
    """Prefill/decode settings for hardware matching the key. Settings of several matching
    keys merge, the more specific key winning field by field."""

    prefill: PdPool | None = None
    decode: PdPool | None = None
    extra_args: Args = []
    """Arguments of both pools' servers (after the features, before each pool's own)."""
    extra_env: Env = {}
    remove_args: list[Flag] = []
    connectors: dict[PdConnectorId, PdConnector] | None = None
    """The connectors offered, first one the default (NIXL only when absent)."""
    docker_volumes: list[OneLine] = []
    """Extra `-v` mounts of both pools' `docker run` (e.g. `/mnt/shared:/mnt/shared`)."""
    router_args: Args = []
    """Extra arguments of `vllm-router`."""


class KvOffload(Strict):
    """Sizes of the KV offload tiers (the `kv_offload` selection key)."""

    cpu_gib: Annotated[int, Field(ge=1)] = 64
    """Host memory for offloaded KV blocks, GiB (`--kv-offloading-size`)."""
    fs_root_dir: OneLine = "/mnt/vllm-kv-cache"
    """Directory of the filesystem tier (mounted into the container as is)."""
    fs_threads: Annotated[int, Field(ge=1)] = 8
    """Read and write threads of the filesystem tier, each."""
    blocks_per_chunk: Annotated[int, Field(ge=1)] = 16
    """KV blocks per file of the filesystem tier."""


Task = Literal["text", "multimodal", "vision", "embedding", "audio", "reasoning", "tools",
               "omni", "rerank", "completion"]
"""What a model does. `rerank`: scores documents against a query (`/v1/rerank`);
`completion`: a text model without a chat template (`/v1/completions`). The request example
under the command follows them (builder/commands/requests.py)."""
ModelPath = Annotated[str, StringConstraints(pattern=r"^([A-Za-z0-9][\w.-]*/[\w.-]+|/\S+)$")]
"""A Hugging Face id, or an absolute path on the host (a checkpoint served from disk)."""


class OmniRequest(Strict):
    """A request that exercises a served generation task, shown under the command: a JSON
    body or form fields posted to `endpoint` (the task kind's defaults when absent), or a
    whole `curl` command written out."""

    endpoint: Annotated[str, StringConstraints(pattern=r"^/\S*$")] | None = None
    json_body: dict[str, Any] | None = None
    """JSON posted as the body."""
    form: dict[str, str | int | float] | None = None
    """Form fields (`-F key=value`; a value `@path` uploads a file)."""
    output: str | None = None
    """File the response is written to."""
    curl: str | None = None
    """A whole `curl ...` command, used as written (shell lines before it may set variables
    or comment, e.g. `export FIRST_FRAME=...`)."""

    @model_validator(mode="after")
    def _one_form(self) -> OmniRequest:
        if self.curl is not None and (self.json_body or self.form or self.endpoint):
            raise ValueError("curl: a written-out curl takes no endpoint, json_body or form")
        if self.json_body is not None and self.form is not None:
            raise ValueError("form: a request has a JSON body or form fields, not both")
        if self.curl is not None and not any(
            line.lstrip().startswith("curl ") for line in self.curl.splitlines()
        ):
            raise ValueError("curl: has no line that starts with `curl `")
        return self


class OmniTaskOverride(Strict):
    """A task's settings on matching hardware (most specific key wins)."""

    label: str | None = None
    model_id: ModelPath | None = None
    vram_minimum_gb: Annotated[int, Field(ge=1)] | None = None
    extra_args: Args = []
    request: OmniRequest | None = None


class OmniTask(Strict):
    kind: OmniKind
    """What it generates: t2i, i2i (image editing), t2v, i2v, ti2v (video), t2a (speech,
    audio)."""
    label: str | None = None
    """Pill text (the kind's label when absent)."""
    description: str = ""
    model_id: ModelPath | None = None
    """The checkpoint served for this task (the variant's when absent)."""
    vram_minimum_gb: Annotated[int, Field(ge=1)] | None = None
    extra_args: Args = []
    request: OmniRequest | None = None
    hardware_overrides: dict[HardwareKey, OmniTaskOverride] = {}


class Omni(Strict):
    """A generation model served by vLLM-Omni (`vllm serve ... --omni`)."""

    tasks: dict[Identifier, OmniTask]
    """The tasks it serves (a Task pill when there are several), the default first."""
    port: Port | None = None
    """The server's `--port` (vLLM's 8000 when absent)."""


class Meta(Strict):
    @model_validator(mode="before")
    @classmethod
    def _moved_keys(cls, data: Any) -> Any:
        return _refuse_moved(data, {
            "hardware": "offered hardware is the top-level `hardware:`, tested hardware the "
            "top-level `verified:` list",
            "default_hardware": "write `default_hardware:` at the top level",
            "difficulty": "not used by this site; drop it",
        })

    title: Annotated[str, AfterValidator(_named)]
    slug: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$")] | None = None
    """URL-friendly name (the model id's repo part, lower-cased, when absent)."""
    provider: str
    description: str
    date_added: Date
    """The model's date, not ours: when it joined the public catalogue (its file's
    `date_added`) or, for a model beyond it, its release. Cite the source in a comment on the
    line (`# public catalogue: models/<org>/<repo>.yaml@<commit>` or `# release: <URL>`); the
    home page's Newest order and New badge read it."""
    date_updated: Date
    """When this recipe last changed (ours)."""
    tasks: list[Task]
    performance_headline: str = ""
    related_recipes: list[HfId] = []


class SourceRepo(Strict):
    """Where a published copy of this recipe lives (the reference's `source` object)."""

    source: str
    repo: str
    ref: str
    sha: str
    path: str
    edit_url: str


class Source(SourceRepo):
    overlays: list[SourceRepo] = []


class Upstream(Strict):
    """Where in the public catalogue (github.com/vllm-project/recipes) this recipe was ported
    from: `vllm-recipes upstream` reports what changed there since."""

    path: Annotated[str, StringConstraints(pattern=r"^models/[\w.-]+/[\w.-]+\.yaml$")]
    """The public file, `models/<org>/<repo>.yaml` (its own spelling, e.g. `Google/`)."""
    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{7,40}$")]
    """The public commit the port read (the file's newest version at the time)."""


class Retired(Strict):
    """A model this site no longer gives a command for; its page stays and says why."""

    reason: Annotated[str, StringConstraints(min_length=1, max_length=300)]
    """One sentence: why there is no command (e.g. the vLLM release that dropped it)."""
    since_vllm: str | None = None
    """The vLLM release from which the model no longer runs."""


class FactsConfig(Strict):
    """The architecture numbers of a model's `config.json` the fit rule reads (a multimodal
    model: its text model's)."""

    num_hidden_layers: Annotated[int, Field(ge=1)]
    num_attention_heads: Annotated[int, Field(ge=1)]
    num_key_value_heads: Annotated[int, Field(ge=1)]
    """KV heads (= `num_attention_heads` when the config gives none)."""
    head_dim: Annotated[int, Field(ge=1)]
    """The config's `head_dim`, else `hidden_size / num_attention_heads`."""
    hidden_size: Annotated[int, Field(ge=1)]
    vocab_size: Annotated[int, Field(ge=1)] | None = None
    """Not read by the fit rule (embeddings are counted in `parameters`); give it when sourced."""
    max_position_embeddings: Annotated[int, Field(ge=1)] | None = None
    """The context vLLM serves by default (the recipe's `context_length` when absent)."""
    kv_lora_rank: Annotated[int, Field(ge=1)] | None = None
    """MLA models: the rank of the latent KV cache."""
    qk_rope_head_dim: Annotated[int, Field(ge=0)] | None = None
    """MLA models: the rotary part kept beside the latent."""
    index_head_dim: Annotated[int, Field(ge=1)] | None = None
    """DeepSeek sparse attention (DeepSeek V3.2, GLM-5): the indexer's key width; vLLM keeps
    an FP8 key of it, with a 4-byte scale per 128 values, per token per layer."""
    num_experts: Annotated[int, Field(ge=1)] | None = None
    """MoE models: routed experts per MoE layer."""
    sliding_window: Annotated[int, Field(ge=1)] | None = None
    """Tokens a sliding-window layer attends to."""
    sliding_window_layers: Annotated[int, Field(ge=1)] | None = None
    """How many layers use the sliding window."""
    linear_attention_layers: Annotated[int, Field(ge=1)] | None = None
    """Layers with a constant-size state instead of a KV cache (Mamba, Gated DeltaNet)."""
    linear_state_bytes: Annotated[int, Field(ge=1)] | None = None
    """State bytes per sequence of one such layer."""

    @model_validator(mode="after")
    def _pairs(self) -> FactsConfig:
        for first, second in (("kv_lora_rank", "qk_rope_head_dim"),
                              ("sliding_window", "sliding_window_layers"),
                              ("linear_attention_layers", "linear_state_bytes")):
            if (getattr(self, first) is None) != (getattr(self, second) is None):
                raise ValueError(f"{first} and {second} go together: give both or neither")
        special = (self.sliding_window_layers or 0) + (self.linear_attention_layers or 0)
        if special > self.num_hidden_layers:
            raise ValueError(f"sliding_window_layers + linear_attention_layers ({special}) "
                             f"exceed num_hidden_layers ({self.num_hidden_layers})")
        if self.num_attention_heads % self.num_key_value_heads:
            raise ValueError(f"num_key_value_heads ({self.num_key_value_heads}) must divide "
                             f"num_attention_heads ({self.num_attention_heads})")
        return self


class CheckpointFacts(Strict):
    """The architecture and size of one checkpoint (a variant of another model size)."""

    config: FactsConfig
    parameters: Annotated[float, Field(gt=0)]
    """Total parameters (the model card or the safetensors index)."""
    active_parameters: Annotated[float, Field(gt=0)] | None = None
    """MoE: parameters active per token."""
    encoder_parameters: Annotated[float, Field(ge=0)] | None = None
    """Vision/audio encoder parameters, kept whole on every GPU."""


class ModelFacts(CheckpointFacts):
    """`recipes/facts/<org>/<repo>.yaml`: what the fit rule (`builder/sizing`) knows of a
    recipe's default checkpoint. Every variant shares it (it differs in precision only),
    except a variant of another model size: `variants` gives its own facts, `not_covered`
    says why it has none (`vllm-recipes check` refuses a variant of another size named in
    neither; see `checks_sizes.other_checkpoint`)."""

    weights_gb: dict[Identifier, Annotated[float, Field(gt=0)]] = {}
    """The checkpoint's stated size in GB (10^9 bytes) per variant id; without it the builder
    computes parameters x bytes per weight of the variant's precision."""
    variants: dict[Identifier, CheckpointFacts] = {}
    """Per variant id, the facts of a variant whose checkpoint is another model size or
    architecture than the default's (each number with its source)."""
    not_covered: dict[Identifier, Annotated[str, StringConstraints(min_length=1,
                                                                   max_length=300)]] = {}
    """Per variant id, why these facts do not describe that variant's checkpoint (another
    model size, unsourced): it gets no fit estimate and is sized as without facts."""
    same_architecture: list[Identifier] = []
    """Variants whose model id the size-token rule cannot compare with the default's (no
    size in the names, another name) declared to be the default's architecture (a fine-tune
    or requantization; say the source in a comment): they share these facts."""

    @model_validator(mode="after")
    def _one_coverage(self) -> ModelFacts:
        for vid in self.variants.keys() & self.not_covered.keys():
            raise ValueError(f"variant {vid!r} is both in variants and in not_covered")
        for vid in set(self.same_architecture) & (self.variants.keys() | self.not_covered.keys()):
            raise ValueError(f"variant {vid!r} is declared the same architecture and given "
                             "other facts")
        return self


class EstimateSource(Strict):
    """Who made the estimates: the tool, its versions, the label shown with every figure."""

    tool: str
    version: str
    core_version: str
    backend: str
    database_version: str | None = None
    """The vLLM version of the kernel timings the tool estimates from (when every cell's
    is the same; each cell has its own)."""
    label: str | None = None
    """What every estimate is shown with ("estimated by NVIDIA AIConfigurator ..."), when
    every cell's is the same (each cell has its own)."""


class EstimateWorkload(Strict):
    isl: Annotated[int, Field(ge=1)]
    """Input tokens per request."""
    osl: Annotated[int, Field(ge=1)]
    """Output tokens per request."""


Figure = Annotated[float, Field(ge=0)]


class EstimatePoint(Strict):
    concurrency: Annotated[int, Field(ge=1)]
    """Requests in flight at once, over all the layout's replicas."""
    ttft_ms: Figure
    tpot_ms: Figure
    tokens_per_s_per_gpu: Figure
    tokens_per_s_per_user: Figure
    memory_gb: Figure


class EstimateCell(Strict):
    """One hardware x variant x layout x workload, with a ladder of concurrencies."""

    hardware: Identifier
    system: str
    """The tool's name of the system (`recipes/hardware.yaml`'s `aiconfigurator_system`)."""
    variant: Identifier
    strategy: Identifier
    checkpoint: HfId
    gpus: Annotated[int, Field(ge=1)]
    tp: Annotated[int, Field(ge=1)]
    pp: Annotated[int, Field(ge=1)]
    dp: Annotated[int, Field(ge=1)]
    ep: Annotated[int, Field(ge=1)]
    weights: str
    kv_cache: str
    kv_cache_dtype: str
    """The command's `--kv-cache-dtype` ("auto" when it sets none)."""
    moe_weights: str | None = None
    """A MoE model's expert weights format."""
    database_version: str
    """The vLLM version of the kernel timings this cell was estimated from."""
    label: str
    """What this cell's figures are shown with ("estimated by NVIDIA AIConfigurator ...")."""
    workload: Identifier
    points: list[EstimatePoint]

    @model_validator(mode="after")
    def _layout(self) -> EstimateCell:
        if self.tp * self.pp * self.dp != self.gpus:
            raise ValueError(f"gpus: {self.gpus} is not tp x pp x dp ({self.tp} x {self.pp} x "
                             f"{self.dp})")
        users = [p.concurrency for p in self.points]
        if users != sorted(set(users)):
            raise ValueError(f"points: concurrencies must rise ({users})")
        return self


class PerformanceEstimates(Strict):
    """`recipes/performance/<org>/<repo>.json` (made by `make estimates`): a recipe's
    performance estimates (see builder/estimates/estimates.py)."""

    model: HfId
    source: EstimateSource
    workloads: dict[Identifier, EstimateWorkload]
    default_workload: Identifier
    cells: list[EstimateCell]

    @model_validator(mode="after")
    def _workloads(self) -> PerformanceEstimates:
        if self.default_workload not in self.workloads:
            raise ValueError(f"default_workload: {self.default_workload!r} is not among the "
                             f"workloads ({', '.join(self.workloads)})")
        for number, cell in enumerate(self.cells):
            if cell.workload not in self.workloads:
                raise ValueError(f"cells.{number}.workload: {cell.workload!r} is not among the "
                                 f"workloads ({', '.join(self.workloads)})")
        return self


class MeasuredPoint(Strict):
    """A point measured on real hardware (read from a deployments file's performance table)."""

    hardware: Identifier
    gpus: Annotated[int, Field(ge=1)] | None
    tp: Annotated[int, Field(ge=1)] | None
    """None where the layout is not one `vllm serve` (prefill/decode disaggregated)."""
    dp: Annotated[int, Field(ge=1)] | None
    layout: str
    workload: str
    isl: Annotated[int, Field(ge=1)]
    osl: Annotated[int, Field(ge=1)]
    concurrency: Annotated[int, Field(ge=1)]
    tokens_per_s_per_gpu: Figure
    tokens_per_s_per_user: Figure
    ttft_ms: Figure
    source: str


class RecipePerformance(Strict):
    """What the loader gathers of a recipe's performance: its estimates and measured points."""

    estimates: PerformanceEstimates | None = None
    measured: list[MeasuredPoint] = []
    missing: dict[Identifier, dict[Identifier, str]] = {}
    """Variant -> hardware id -> why it has no estimate (`recipes/performance/coverage.json`)."""
    measured_note: str | None = None
    """Why the measured points have no estimate beside them (the coverage's word)."""


class Recipe(Strict):
    meta: Meta
    model: Model
    upstream: Upstream | None = None
    """Where the public catalogue's copy of this recipe is (set by `vllm-recipes port`)."""
    aliases: list[HfId] = []
    """Other model ids that lead here (a renamed model's old ids): the CLI, the page's URL and
    the JSON answer for them with a notice that names this recipe's id."""
    retired: Retired | None = None
    """Set when the model no longer runs on vLLM: no command, the reason instead."""
    hardware: dict[HardwareKey, Offer] = {}
    """Hardware this recipe offers, adjusting the default: every hardware of the catalog that
    is not `restricted`. `all: unsupported` starts from nothing; naming a restricted id offers
    it. Each variant then narrows this with its own `hardware` and its precision."""
    verified: list[HardwareName] = []
    """Hardware ids the recipe was tested on (a check mark on the pill); offered. `id@N`: tested
    on N of that GPU (offered at that count, its default there unless the plain id is listed
    too)."""
    default_hardware: Identifier | None = None
    """Hardware of the default command (else B200 for Blackwell-only weights, else H200, else
    the first offered)."""
    strategies: Annotated[list[Identifier], AfterValidator(_strategy_list)] | None = None
    """Strategies offered, in order of preference (the first available one is the default).
    When absent: single-node Tensor Parallel for embedding models, otherwise every single- and
    multi-node strategy that suits the architecture."""
    strategy_hardware: dict[Identifier, dict[HardwareKey, Support]] = {}
    """Per strategy, support per hardware key (beats the strategy's own hardware rules)."""
    features: dict[Identifier, Feature] = {}
    exclusive_features: list[list[Identifier]] = []
    """Groups of features of which at most one may be on."""
    variants: dict[Identifier, Variant]
    dependencies: list[Dependency] = []
    files: dict[FileName, RecipeFile] = {}
    """Files the commands name by these paths, each fetched by an install step (see
    builder/commands/needed_files.py)."""
    kv_offload_support: dict[OffloadSupportKey, Support] = {}
    """KV offload tiers this recipe offers (the `kv_offload` selection key: off, cpu, fs)."""
    kv_offload: KvOffload | None = None
    """Sizes of the offload tiers (the builder's defaults when absent)."""
    pd: dict[HardwareKey, PdSettings] = {}
    """Prefill/decode layouts per hardware key (pools, connectors, router); prefill/decode is
    offered only on hardware a key here names."""
    hardware_overrides: dict[HardwareKey, HardwareOverride] = {}
    strategy_overrides: dict[Identifier, dict[HardwareKey, HardwareOverride]] = {}
    """Per strategy, overrides keyed by hardware key."""
    omni: Omni | None = None
    """Generation models (images, video, speech) served by vLLM-Omni."""
    hardware_notes: SkipJsonSchema[dict[HardwareName, HardwareNote]] = {}
    """Filled from the guide's `## Hardware notes` section (see `guide.py`), not the YAML."""
    facts: SkipJsonSchema[ModelFacts | None] = None
    """Filled from `recipes/facts/<org>/<repo>.yaml` (see `loader.py`), not the YAML."""
    performance: SkipJsonSchema[RecipePerformance | None] = None
    """Filled from `recipes/performance/<org>/<repo>.json` and the measured points of
    `recipes/deployments/<org>/<repo>.yaml` (see `loader.py`), not the YAML."""
    source: Source | None = None
    """Where the published copy of this recipe lives (shown in the JSON)."""

    @model_validator(mode="before")
    @classmethod
    def _moved_keys(cls, data: Any) -> Any:
        return _refuse_moved(data, MOVED_KEYS)

    @model_validator(mode="after")
    def _internal_references(self) -> Recipe:
        if "default" not in self.variants:
            raise ValueError("variants: a recipe needs a variant named 'default'")
        for group in self.exclusive_features:
            if len(group) < 2:
                raise ValueError("exclusive_features: a group needs at least two features")
            twice = sorted({fid for fid in group if group.count(fid) > 1})
            if twice:
                raise ValueError(f"exclusive_features: {', '.join(twice)} listed twice in a "
                                 "group")
            for feature_id in group:
                if feature_id not in self.features:
                    raise ValueError(f"exclusive_features: unknown feature {feature_id!r}")
        for variant_id, variant in self.variants.items():
            for feature_id, mode_id in variant.default_modes.items():
                feature = self.features.get(feature_id)
                if feature is None:
                    raise ValueError(
                        f"variants.{variant_id}.default_modes: unknown feature {feature_id!r}"
                    )
                if feature.modes is None or mode_id not in feature.modes:
                    raise ValueError(
                        f"variants.{variant_id}.default_modes.{feature_id}: unknown mode "
                        f"{mode_id!r}"
                    )
        renamed: dict[str, str] = {}
        for variant_id, variant in self.variants.items():
            for alias in variant.aliases:
                if alias in self.variants or alias in renamed:
                    raise ValueError(
                        f"variants.{variant_id}.aliases: {alias!r} is already the id of "
                        f"variant {renamed.get(alias, alias)!r}")
                renamed[alias] = variant_id
        for feature_id in self.features:
            if feature_id in SELECTION_KEYS:
                raise ValueError(
                    f"features.{feature_id}: the name is a selection key of its own; rename it"
                )
            if is_foreign(feature_id):
                raise ValueError(
                    f"features.{feature_id}: the name is a URL key of the site or another "
                    "widget on the page (the page could never set it); rename it")
        if self.kv_offload is not None and not self.kv_offload_support:
            raise ValueError("kv_offload: sizes given but kv_offload_support offers no tier")
        for feature_id, feature in self.features.items():
            for mode_id, mode in (feature.modes or {}).items():
                for variant_id in mode.variants or []:
                    if variant_id not in self.variants:
                        raise ValueError(
                            f"features.{feature_id}.modes.{mode_id}.variants: unknown variant "
                            f"{variant_id!r}"
                        )
        for where, override in self.overrides():
            for feature_id, value in override.when.items():
                feature = self.features.get(feature_id)
                if feature is None:
                    raise ValueError(f"{where}.when: unknown feature {feature_id!r}")
                allowed = ["on", "off", *(feature.modes or {})]
                if value not in allowed:
                    raise ValueError(
                        f"{where}.when.{feature_id}: {value!r} is not one of "
                        f"{', '.join(allowed)}"
                    )
        return self

    def overrides(self) -> list[tuple[str, HardwareOverride]]:
        """Every hardware override in the recipe, with its YAML path."""
        found = [(f"hardware_overrides.{k}", o) for k, o in self.hardware_overrides.items()]
        for sid, mapping in self.strategy_overrides.items():
            found += [(f"strategy_overrides.{sid}.{k}", o) for k, o in mapping.items()]
        for vid, variant in self.variants.items():
            found += [(f"variants.{vid}.hardware_overrides.{k}", o)
                      for k, o in variant.hardware_overrides.items()]
            for sid, mapping in variant.strategy_overrides.items():
                found += [(f"variants.{vid}.strategy_overrides.{sid}.{k}", o)
                          for k, o in mapping.items()]
        return found


MOVED_KEYS = {
    "facts": "memory facts live in recipes/facts/<org>/<repo>.yaml (see FACTS in CONTRIBUTING)",
    "performance": "performance estimates live in recipes/performance/<org>/<repo>.json "
                   "(made by `make estimates`)",
    "guide": "the guide moved to a Markdown file beside the YAML (<repo>.md)",
    "hardware_notes": "hardware notes moved to the guide: a `## Hardware notes` section of "
                      "<repo>.md with a `### <hardware id>: <title>` heading per note",
    "compatible_strategies": "write the offered strategies as `strategies:` (first = default)",
    "opt_in_features": "write `opt_in: true` on each feature that is off by default",
    "hardware_opt_in_features": "write `opt_in: [<hardware keys>]` on the feature",
    "recommended": "write `default_hardware:` and the strategy order in `strategies:`",
    "default_strategy": "put the default strategy first in `strategies:`",
    "strategy_min_gpus": "give the variant's vram_minimum_gb; node counts follow from it",
}


def json_schema() -> dict[str, object]:
    """The JSON Schema of a recipe file, with the hardware catalog and strategies as $defs."""
    schema = Recipe.model_json_schema()
    defs = schema.setdefault("$defs", {})
    for model in (HardwareCatalog, Strategy, ModelFacts):
        sub = model.model_json_schema()
        defs.update(sub.pop("$defs", {}))
        defs[model.__name__] = sub
    return schema
