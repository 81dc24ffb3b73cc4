"""The builder's vocabularies, one registry each: selection keys, frontends, install methods,
prefill/decode KV connectors, KV offload tiers, command roles, companion processes (the
router), precision rules.

Everything that lists these (the page's rows and labels, the CLI's help, the README and the
API page, the schema's reserved names) reads them from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "COMPANIONS",
    "CONNECTORS",
    "FOREIGN_KEYS",
    "FOREIGN_PREFIXES",
    "FRONTENDS",
    "INSTALL_METHODS",
    "OFF",
    "OFFLOAD_TIERS",
    "OMNI_KINDS",
    "ON",
    "PRECISION_HARDWARE",
    "PROFILES",
    "ROLES",
    "SELECTION_KEYS",
    "SERVE_PORT",
    "CompanionKind",
    "Connector",
    "Frontend",
    "OffloadTier",
    "OmniKind",
    "Profile",
    "SelectionKey",
    "feature_label",
    "is_foreign",
]

OFF, ON = "off", "on"
SERVE_PORT = 8000
"""`vllm serve`'s port when no `--port` is given."""


@dataclass(frozen=True)
class SelectionKey:
    name: str
    label: str
    """The row's label on the page."""
    help: str
    """One line for the CLI's help, the README and the API page."""


SELECTION_KEYS: dict[str, SelectionKey] = {
    key.name: key
    for key in (
        SelectionKey("hardware", "Hardware", "a hardware id (h200, b200, mi355x, ...)"),
        SelectionKey("variant", "Variant", "a checkpoint of the recipe (default, fp8, ...)"),
        SelectionKey("task", "Task", "what a vLLM-Omni model generates (t2i, t2v, ...), where it "
                                     "serves several"),
        SelectionKey("gpus", "GPUs", "how many GPUs of one node the command uses (1 up to the "
                                     "node's most; default: the fewest that fit the model)"),
        SelectionKey("strategy", "Strategy", "a serving strategy (single_node_tp, ...)"),
        SelectionKey("nodes", "Nodes", "node count, for multi-node and KV-store strategies"),
        SelectionKey("pd_connector", "KV connector",
                     "nixl|mooncake: the KV connector of prefill/decode disaggregation"),
        SelectionKey("kv_offload", "KV offload",
                     "off|cpu|fs: KV cache offloading, where the recipe offers it"),
        SelectionKey("profile", "Profile",
                     "balanced|latency|throughput: the layout and --max-num-seqs the "
                     "performance estimates pick (balanced: the recipe's command)"),
        SelectionKey("frontend", "Frontend", "rust|python: vLLM's OpenAI API frontend"),
        SelectionKey("install", "Install", "pip|docker: how vLLM is installed"),
    )
}
"""The builder's own selection keys; every feature id of a recipe is a key too (on, off or a
mode name)."""

FOREIGN_KEYS = ("h", "q")
"""URL keys the theme sets (mkdocs-material: `h` highlights search terms, `q` a search)."""
FOREIGN_PREFIXES = ("dynamo_",)
"""URL key prefixes of other widgets on a model page (the Dynamo deployment widget)."""


def is_foreign(key: str) -> bool:
    """A URL key of the theme or of another widget: the builder's page leaves it alone, and a
    recipe may not name a feature so (it could never be toggled from the page's URL)."""
    return key in FOREIGN_KEYS or key.startswith(FOREIGN_PREFIXES)


@dataclass(frozen=True)
class Frontend:
    label: str
    env: dict[str, str]


FRONTENDS: dict[str, Frontend] = {
    "rust": Frontend("Rust", {"VLLM_USE_RUST_FRONTEND": "1"}),
    "python": Frontend("Python", {}),
}

@dataclass(frozen=True)
class Profile:
    label: str
    """The pill's text."""
    goal: str
    """What it maximises among the estimated layouts ("" for balanced: the recipe's command)."""


PROFILES: dict[str, Profile] = {
    "balanced": Profile("Balanced", ""),
    "latency": Profile("Latency", "tokens/s per user"),
    "throughput": Profile("Throughput", "tokens/s per GPU"),
}
"""Workload profiles (the `profile` key); the first is the default and keeps the recipe's
command as it is (`builder.estimates.profiles` says what the others pick)."""

INSTALL_METHODS: dict[str, str] = {"pip": "pip", "docker": "Docker"}
"""Install method → its label."""


@dataclass(frozen=True)
class Connector:
    label: str
    config: dict[str, Any]
    """The default `--kv-transfer-config` object."""
    port_env: str
    """The variable that sets the connector's per-server side-channel / bootstrap port."""
    ports: tuple[int, int]
    """Base ports of the prefill and the decode pool."""
    package: str
    """The pip package that provides it."""
    host_env: str | None = None
    """The variable that sets the address the side channel listens on (across hosts)."""


CONNECTORS: dict[str, Connector] = {
    "nixl": Connector(
        "NIXL", {"kv_connector": "NixlConnector", "kv_role": "kv_both"},
        "VLLM_NIXL_SIDE_CHANNEL_PORT", (5557, 5558), "nixl", "VLLM_NIXL_SIDE_CHANNEL_HOST",
    ),
    "mooncake": Connector(
        "Mooncake", {"kv_connector": "MooncakeConnector", "kv_role": "kv_both"},
        "VLLM_MOONCAKE_BOOTSTRAP_PORT", (8998, 9889), "mooncake-transfer-engine",
    ),
}
"""Prefill/decode KV connectors (the `pd_connector` key); the first is the default."""


@dataclass(frozen=True)
class OffloadTier:
    label: str
    """The pill's text."""
    name: str
    """The tier's name in sentences."""
    support_key: str
    """Its key in a recipe's `kv_offload_support`."""


OFFLOAD_TIERS: dict[str, OffloadTier] = {
    "cpu": OffloadTier("CPU", "CPU offload", "offloading_cpu"),
    "fs": OffloadTier("CPU + filesystem", "Filesystem offload", "offloading_fs"),
}
"""KV offload tiers (the `kv_offload` key, besides `off`)."""

ROLES: dict[str, str] = {
    "serve": "Serve",
    "head": "Head node",
    "worker": "Worker nodes",
    "prefill": "Prefill",
    "decode": "Decode",
    "router": "Router",
    "master": "Mooncake master",
    "config": "Store config",
    "store": "Mooncake store",
}
"""Command roles → the tab label of their blocks."""

@dataclass(frozen=True)
class CompanionKind:
    """A process the builder starts beside vLLM servers (its role is a key of `ROLES`)."""

    label: str
    """Its name in summaries and notes."""
    program: str
    """The executable its command starts with."""
    package: str
    """The pip package that installs it (outside the vLLM containers)."""
    port: int
    """Its own default port (where a layout does not pick one)."""


COMPANIONS: dict[str, CompanionKind] = {
    "router": CompanionKind("vLLM Router", "vllm-router", "vllm-router", 30000),
}
"""Companion processes by role: the router in front of prefill/decode pools, KV-store
instances and a strategy's engine (a strategy's `companion.role`)."""

PRECISION_HARDWARE: dict[str, str] = {"nvfp4": "blackwell", "fp4": "blackwell"}
"""Precisions that run on one hardware key only, unless a variant's `precision_hardware` says
otherwise: NVFP4 and FP4 weights need Blackwell's FP4 tensor cores."""


@dataclass(frozen=True)
class OmniKind:
    label: str
    endpoint: str
    """Where vLLM-Omni serves the task (the request example posts there)."""
    json_body: dict[str, Any] | None = None
    form: dict[str, Any] | None = None
    output: str | None = None
    """File the example writes the result to."""
    decode: str | None = None
    """Shell that turns the JSON response into the output file."""


_VIDEO_FORM = {"prompt": "A cinematic view of a futuristic city at sunset, smooth camera pan",
               "width": 832, "height": 480, "num_frames": 81, "fps": 16,
               "num_inference_steps": 40, "seed": 42}
_IMAGE_INPUT = {"input_reference": "@input.png"}

OMNI_KINDS: dict[str, OmniKind] = {
    "t2i": OmniKind(
        "Text → Image", "/v1/images/generations",
        json_body={"prompt": "a dragon flying over green mountains at sunset",
                   "size": "1024x1024", "seed": 42},
        output="output.png", decode="jq -r '.data[0].b64_json' | base64 -d"),
    "i2i": OmniKind(
        "Image → Image", "/v1/images/edits",
        form={"prompt": "Turn this photo into a watercolor painting", "image": "@input.png",
              "size": "1024x1024", "seed": 42},
        output="output.png", decode="jq -r '.data[0].b64_json' | base64 -d"),
    "t2v": OmniKind("Text → Video", "/v1/videos/sync", form=_VIDEO_FORM, output="output.mp4"),
    "i2v": OmniKind("Image → Video", "/v1/videos/sync", form={**_VIDEO_FORM, **_IMAGE_INPUT},
                    output="output.mp4"),
    "ti2v": OmniKind("Text + Image → Video", "/v1/videos/sync",
                     form={**_VIDEO_FORM, **_IMAGE_INPUT}, output="output.mp4"),
    "tts": OmniKind(
        "Text → Speech", "/v1/audio/speech",
        json_body={"input": "Hello! This voice was generated by vLLM-Omni.",
                   "response_format": "wav"},
        output="output.wav"),
    "t2a": OmniKind(
        "Text → Audio", "/v1/audio/generate",
        json_body={"input": "Rain on a tin roof, distant thunder", "audio_length": 10.0,
                   "num_inference_steps": 100, "seed": 42},
        output="output.wav"),
}
"""vLLM-Omni task kinds: the label, endpoint and a sample request (vLLM-Omni's online-serving
examples); a recipe's task may replace any of them."""


def feature_label(fid: str, feature: Mapping[str, Any]) -> str:
    """A feature's name for people: its `label`, else its id in words ("Spec decoding")."""
    return str(feature.get("label") or fid.replace("_", " ").capitalize())
