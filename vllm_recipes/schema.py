"""Pydantic models of the recipe YAML: the single definition of the data.

Every model forbids unknown keys, so a typo in a recipe is an error that names the key.
Cross-file references (a variant naming a hardware id that does not exist) are checked by
``loader.py``, which knows the hardware catalog; rules inside one file live here.

``python -m vllm_recipes.schema`` prints the JSON Schema committed as
``recipes/schema.json``.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

__all__ = [
    "Brand",
    "Feature",
    "HardwareCatalog",
    "HardwareOverride",
    "HardwareProfile",
    "KvOffload",
    "Mode",
    "PdConnector",
    "PdPool",
    "PdSettings",
    "Recipe",
    "Strategy",
    "Variant",
]

Identifier = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_]*$")]
Flag = Annotated[str, StringConstraints(pattern=r"^--?[A-Za-z0-9][A-Za-z0-9_.=-]*")]
EnvName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
HfId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")]
Support = Literal["verified", "supported", "experimental", "unsupported"]
SELECTION_KEYS = frozenset({
    "hardware", "variant", "strategy", "nodes", "pd_connector", "kv_offload", "frontend",
    "install",
})
"""The builder's own selection keys: no feature may take one of these names."""


class Strict(BaseModel):
    """Base of every model: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


# --------------------------------------------------------------------------- hardware


class Brand(Strict):
    display_name: str
    """Shown on pills and in `hardware_profile.brand` (e.g. "NVIDIA")."""
    primary: bool = False
    """Recipe-wide images and install commands are written for the primary brand."""
    default_image: str
    """Docker image used when neither the recipe nor a variant names one."""
    docker_device_args: list[str]
    """`docker run` arguments that expose the accelerators (e.g. `--gpus all`)."""
    docker_command_prefix: list[str] = []
    """Words after the image when the image has no `vllm serve` entrypoint."""
    visible_devices_env: EnvName
    """Environment variable that selects devices (CUDA_VISIBLE_DEVICES, ...)."""
    pip_install: str
    """Shell lines that install vLLM from pip for this brand."""


class Generation(Strict):
    brand: Identifier
    display_name: str


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
    """Accelerators in one node (or tray)."""
    memory_gb: Annotated[int, Field(ge=1)]
    """Memory per accelerator, GB."""


class HardwareCatalog(Strict):
    brands: dict[Identifier, Brand]
    generations: dict[Identifier, Generation]
    hardware: dict[Identifier, HardwareProfile]

    @model_validator(mode="after")
    def _keys_are_unambiguous(self) -> HardwareCatalog:
        seen: dict[str, str] = {}
        for kind, keys in (
            ("brand", self.brands),
            ("generation", self.generations),
            ("hardware id", self.hardware),
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
            if self.generations[hw.generation].brand != hw.brand:
                raise ValueError(
                    f"hardware.{hw_id}: generation {hw.generation!r} belongs to brand "
                    f"{self.generations[hw.generation].brand!r}, not {hw.brand!r}"
                )
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


class Strategy(Strict):
    name: Identifier
    deploy_type: Literal["single_node", "multi_node", "pd_cluster", "kv_store"]
    layout: Literal[
        "tp", "tep", "dep", "tp_dp", "tp_pp", "pd", "kv_store_centralized", "kv_store_distributed"
    ]
    """How the builder lays processes out over GPUs and nodes."""
    display_name: str
    short_label: str
    orientation: Literal["latency", "balanced", "throughput"]
    description: str
    hardware_match: HardwareMatch
    vllm_args: list[str] = []
    parallel_flag: Literal["--tensor-parallel-size", "--data-parallel-size"]


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

    extra_args: list[str] = []
    """Arguments appended to `vllm serve`; a flag set again replaces its earlier value."""
    extra_env: dict[EnvName, str] = {}
    docker_image: str | None = None
    install: InstallToggle | None = None
    parallel_size: Annotated[int, Field(ge=1)] | None = None
    """Replaces the strategy's parallel size (by default the hardware's GPU count)."""
    remove_args: list[Flag] = []
    """Flags removed from the command (with their values)."""
    when: dict[Identifier, Identifier] = {}
    """Feature values this override needs, e.g. `{spec_decoding: dspark, text_only: "on"}`
    (`on` means any mode); it is skipped unless every one holds."""


class ArgsOverride(Strict):
    args: list[str] = []
    env: dict[EnvName, str] = {}


class Mode(Strict):
    label: str
    description: str = ""
    args: list[str] = []
    env: dict[EnvName, str] = {}
    hardware: dict[str, Support] = {}
    """Support per hardware key; `unsupported` disables the mode there."""
    variants: list[Identifier] | None = None
    """Variants this mode is offered on (all when absent)."""
    hardware_overrides: dict[str, ArgsOverride] = {}
    """Replacement args/env for matching hardware (most specific key wins)."""


class Feature(Strict):
    description: str
    label: str | None = None
    args: list[str] = []
    env: dict[EnvName, str] = {}
    default_mode: Identifier | None = None
    modes: dict[Identifier, Mode] | None = None
    hardware: dict[str, Support] = {}
    """Support per hardware key; `unsupported` disables the feature there."""
    hardware_overrides: dict[str, ArgsOverride] = {}
    strategies: list[Identifier] | None = None
    """Strategies this feature is offered with (all when absent)."""

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
    model_id: HfId | None = None
    """Hugging Face id served by this variant (the recipe's model id when absent)."""
    label: str | None = None
    precision: str
    vram_minimum_gb: Annotated[int, Field(ge=1)]
    description: str = ""
    supported_hardware: list[str] | None = None
    """Hardware keys this variant runs on; when absent, the default variant's list, and
    without that the recipe's `meta.hardware`."""
    min_vllm_version: str | None = None
    docker_image: str | None = None
    default_modes: dict[Identifier, Identifier] = {}
    """Features switched on by default with this mode when this variant is selected."""
    tp: dict[str, Annotated[int, Field(ge=1)]] = {}
    """Tensor-parallel size per hardware key."""
    extra_args: list[str] = []
    extra_env: dict[EnvName, str] = {}
    hardware_overrides: dict[str, HardwareOverride] = {}
    strategy_overrides: dict[Identifier, dict[str, HardwareOverride]] = {}
    """Per strategy, overrides keyed by hardware key."""


class Install(Strict):
    command: str


class ModelInstall(Strict):
    pip: Install | None = None
    docker: Install | None = None


class Model(Strict):
    model_id: HfId
    min_vllm_version: str
    default_frontend: Literal["rust", "python"] = "rust"
    docker_image: dict[str, str] = {}
    """Docker image per hardware key (e.g. `amd`)."""
    architecture: Literal["moe", "dense"]
    parameter_count: str
    active_parameters: str | None = None
    context_length: Annotated[int, Field(ge=1)]
    flashinfer_autotune: bool = False
    base_args: list[str] = []
    base_env: dict[EnvName, str] = {}
    install: ModelInstall | None = None


# ------------------------------------------------------------- prefill/decode, KV offload

PdConnectorId = Literal["nixl", "mooncake"]
Port = Annotated[int, Field(ge=1, le=65535)]


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
    extra_args: list[str] = []
    """Arguments for this pool's server only; a flag set again replaces its earlier value."""
    extra_env: dict[EnvName, str] = {}
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
    extra_env: dict[EnvName, str] = {}
    """Environment of both pools when this connector is selected."""


class PdSettings(Strict):
    """Prefill/decode settings for hardware matching the key. Settings of several matching
    keys merge, the more specific key winning field by field."""

    prefill: PdPool | None = None
    decode: PdPool | None = None
    extra_args: list[str] = []
    """Arguments of both pools' servers (after the features, before each pool's own)."""
    extra_env: dict[EnvName, str] = {}
    remove_args: list[Flag] = []
    connectors: dict[PdConnectorId, PdConnector] | None = None
    """The connectors offered, first one the default (NIXL only when absent)."""
    docker_volumes: list[str] = []
    """Extra `-v` mounts of both pools' `docker run` (e.g. `/mnt/shared:/mnt/shared`)."""
    router_args: list[str] = []
    """Extra arguments of `vllm-router`."""


class KvOffload(Strict):
    """Sizes of the KV offload tiers (the `kv_offload` selection key)."""

    cpu_gib: Annotated[int, Field(ge=1)] = 64
    """Host memory for offloaded KV blocks, GiB (`--kv-offloading-size`)."""
    fs_root_dir: str = "/mnt/vllm-kv-cache"
    """Directory of the filesystem tier (mounted into the container as is)."""
    fs_threads: Annotated[int, Field(ge=1)] = 8
    """Read and write threads of the filesystem tier, each."""
    blocks_per_chunk: Annotated[int, Field(ge=1)] = 16
    """KV blocks per file of the filesystem tier."""


Task = Literal["text", "multimodal", "vision", "embedding", "audio", "reasoning", "tools"]


class Meta(Strict):
    title: str
    slug: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9.-]*$")]
    provider: str
    description: str
    date_added: Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}$")]
    date_updated: Annotated[str, StringConstraints(pattern=r"^\d{4}-\d{2}-\d{2}$")]
    tasks: list[Task]
    performance_headline: str = ""
    related_recipes: list[HfId] = []
    hardware: dict[Identifier, Support]
    """Hardware the recipe lists, with how well it is tested there."""


class Recommended(Strict):
    hardware: Identifier
    """Hardware of the default command."""
    strategies: list[Identifier] = []
    """Strategy preference: the first available one is the default for any hardware."""


class Recipe(Strict):
    meta: Meta
    model: Model
    features: dict[Identifier, Feature] = {}
    opt_in_features: list[Identifier] = []
    """Features that are off until the user turns them on."""
    exclusive_features: list[list[Identifier]] = []
    """Groups of features of which at most one may be on."""
    variants: dict[Identifier, Variant]
    recommended: Recommended
    kv_offload_support: dict[Literal["offloading_cpu", "offloading_fs"], Support] = {}
    """KV offload tiers this recipe offers (the `kv_offload` selection key: off, cpu, fs)."""
    kv_offload: KvOffload | None = None
    """Sizes of the offload tiers (the builder's defaults when absent)."""
    pd: dict[str, PdSettings] = {}
    """Prefill/decode disaggregation settings per hardware key (pools, connectors, router)."""
    strategy_hardware: dict[Identifier, dict[str, Support]] = {}
    """Per strategy, support per hardware key (overrides the strategy's own matching)."""
    hardware_overrides: dict[str, HardwareOverride] = {}
    strategy_overrides: dict[Identifier, dict[str, HardwareOverride]] = {}
    """Per strategy, overrides keyed by hardware key."""
    hardware_notes: dict[Identifier, HardwareNote] = {}
    guide: str = ""

    @model_validator(mode="after")
    def _internal_references(self) -> Recipe:
        if "default" not in self.variants:
            raise ValueError("variants: a recipe needs a variant named 'default'")
        for feature_id in self.opt_in_features:
            if feature_id not in self.features:
                raise ValueError(f"opt_in_features: unknown feature {feature_id!r}")
        for group in self.exclusive_features:
            if len(group) < 2:
                raise ValueError("exclusive_features: a group needs at least two features")
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
        for feature_id in self.features:
            if feature_id in SELECTION_KEYS:
                raise ValueError(
                    f"features.{feature_id}: the name is a selection key of its own; rename it"
                )
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
        for where, override in self._overrides():
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

    def _overrides(self) -> list[tuple[str, HardwareOverride]]:
        """Every hardware override in the recipe, with where it stands."""
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


def json_schema() -> dict[str, object]:
    """The JSON Schema of a recipe file, with the hardware catalog and strategies as $defs."""
    schema = Recipe.model_json_schema()
    defs = schema.setdefault("$defs", {})
    for model in (HardwareCatalog, Strategy):
        sub = model.model_json_schema()
        defs.update(sub.pop("$defs", {}))
        defs[model.__name__] = sub
    return schema


def _main() -> None:
    text = json.dumps(json_schema(), indent=2, sort_keys=True)
    print(re.sub(r"[ \t]+$", "", text, flags=re.M))


if __name__ == "__main__":
    _main()
