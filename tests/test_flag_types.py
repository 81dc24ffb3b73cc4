"""`vllm_recipes.flag_types`: the reader of option types from vLLM's source, on a small package
laid out as vLLM's is (its rules, one by one), and the checks `check` makes with what it wrote."""

from __future__ import annotations

import textwrap

import pytest

from vllm_recipes.flag_types import TYPE_KEYS, read_types, without_types
from vllm_recipes.vllm_flags import check_tokens, serve_flags

ARG_UTILS = '''
class EngineArgs:
    @staticmethod
    def add_cli_args(parser):
        cache_kwargs = get_kwargs(CacheConfig)
        group.add_argument("--gpu-memory-utilization", **cache_kwargs["gpu_memory_utilization"])
        group.add_argument("--kv-cache-dtype", **cache_kwargs["cache_dtype"])
        group.add_argument("--max-num-seqs", **{**cache_kwargs["max_num_seqs"], "default": None})
        group.add_argument("--max-num-batched-tokens", **cache_kwargs["max_num_batched_tokens"])
        group.add_argument("--mode", **cache_kwargs["mode"])
        vllm_kwargs = get_kwargs(VllmConfig)
        vllm_kwargs["speculative_config"]["type"] = optional_type(json.loads)
        group.add_argument("--speculative-config", "-sc", **vllm_kwargs["speculative_config"])
        group.add_argument("--hf-overrides", **vllm_kwargs["hf_overrides"])
        group.add_argument("--count", type=int, default=None)
'''
CONFIG = '''
CacheDType = Literal["auto", "fp8"]
Mode = Literal["a", "b"]


def is_known_kv_cache_dtype(name):
    return name in KV_CACHE_DTYPES


@config
class CacheConfig:
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1)
    cache_dtype: CacheDType | str = "auto"
    max_num_seqs: int = Field(default=128, ge=1)
    max_num_batched_tokens: int | None = None
    mode: Mode = "a"


@config
class SpeculativeConfig:
    num_speculative_tokens: int = Field(default=None, gt=0)
    method: str | None = None
    sizes: list[int] = field(default_factory=list)


@config
class VllmConfig:
    speculative_config: SpeculativeConfig | None = None
    hf_overrides: dict[str, Any] | str | None = None
'''
FLAGS = {flag: {"takes_value": True, "dest": dest} for flag, dest in (
    ("--gpu-memory-utilization", "gpu_memory_utilization"), ("--kv-cache-dtype", "cache_dtype"),
    ("--max-num-seqs", "max_num_seqs"), ("--max-num-batched-tokens", "max_num_batched_tokens"),
    ("--mode", "mode"), ("--speculative-config", "speculative_config"),
    ("-sc", "speculative_config"), ("--hf-overrides", "hf_overrides"), ("--count", "count"),
    ("--unknown", "unknown"))}


@pytest.fixture(scope="module")
def types(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    package = tmp_path_factory.mktemp("src") / "vllm"
    for name, text in (("engine/arg_utils.py", ARG_UTILS), ("config/cache.py", CONFIG)):
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return read_types(package, FLAGS)


def test_numbers_and_their_ranges(types: dict[str, dict[str, object]]) -> None:
    assert types["--gpu-memory-utilization"] == {
        "value_type": "float", "exclusive_minimum": 0, "maximum": 1,
        "type_source": "vllm/config/cache.py CacheConfig.gpu_memory_utilization"}
    assert types["--max-num-seqs"]["minimum"] == 1  # through **{**kwargs["x"], ...}
    assert types["--max-num-batched-tokens"] == {
        "value_type": "int", "human_readable": True, "nullable": True,
        "type_source": "vllm/config/cache.py CacheConfig.max_num_batched_tokens"}
    assert types["--count"] == {"value_type": "int"}  # an explicit type=int


def test_text_values(types: dict[str, dict[str, object]]) -> None:
    # A `Literal | str` field with its validator in the source: the Literal's values.
    assert types["--kv-cache-dtype"]["known_values"] == ["auto", "fp8"]
    assert types["--mode"]["value_type"] == "str"
    assert "known_values" not in types["--mode"]  # argparse's own choices cover a Literal
    assert types["--hf-overrides"]["value_type"] == "json"
    assert types["--hf-overrides"]["text_allowed"] is True
    assert "--unknown" not in types


def test_json_options_and_their_keys(types: dict[str, dict[str, object]]) -> None:
    spec = types["--speculative-config"]
    assert spec["value_type"] == "json" and spec["nullable"] is True
    assert spec["json_key_types"] == {  # plain types only: pydantic reads lists itself
        "num_speculative_tokens": {"value_type": "int", "exclusive_minimum": 0},
        "method": {"value_type": "str", "nullable": True}}
    assert types["-sc"] == spec


@pytest.mark.parametrize(("tokens", "problem"), [
    (["--max-model-len", "abc"], "--max-model-len: 'abc' is not a whole number"),
    (["--max-model-len", "32k"], None),
    (["--max-model-len", "auto"], None),
    (["--max-num-seqs", "-5"], "--max-num-seqs: -5 is less than 1, the least vLLM accepts"),
    (["--gpu-memory-utilization", "7.5"],
     "--gpu-memory-utilization: 7.5 is more than 1, the most vLLM accepts"),
    (["--gpu-memory-utilization", "0"],
     "--gpu-memory-utilization: 0 is not more than 0; vLLM needs more"),
    (["--gpu-memory-utilization", "nan"], "--gpu-memory-utilization: 'nan' is not a number"),
    (["--speculative-config", {"method": "mtp", "num_speculative_tokens": -1}],
     "--speculative-config: num_speculative_tokens: -1 is not more than 0; vLLM needs more"),
    (["--speculative-config", '{"method": "mtp", "num_speculative_tokens": "2"}'], None),
    (["--speculative-config.num_speculative_tokens", "0"],
     "--speculative-config.num_speculative_tokens: 0 is not more than 0; vLLM needs more"),
    (["--kernel-config.enable_flashinfer_autotune=False"], None),  # pydantic reads "False"
    (["--hf-overrides", "nope"], None),  # text is allowed (a path)
    (["--speculative-config", "nope"], "--speculative-config: value is not JSON: 'nope'"),
    (["--limit-mm-per-prompt", "nope"], "--limit-mm-per-prompt: 'nope' is not JSON"),
    (["-tp", "x"], "-tp: 'x' is not a whole number"),
])
def test_check_tokens_uses_the_types(tokens: list[object], problem: str | None) -> None:
    assert [p for _, p in check_tokens(tokens)] == ([problem] if problem else [])


def test_the_committed_file_adds_keys_to_vllms() -> None:
    """The type keys are added beside vLLM's parser data, never in place of it: without them
    the file is the parser's list (tests/vllm_parser compares it with the live parser), and
    every key it has is the parser's or one of TYPE_KEYS."""
    ours = serve_flags()
    assert sum("value_type" in spec for spec in ours.values()) > 400
    parser_keys = {"choices", "dest", "nargs", "takes_value", "json_keys",
                   "json_keys_checked_at_parse"}
    for flag, spec in ours.items():
        assert set(spec) <= parser_keys | set(TYPE_KEYS), flag
        assert {"choices", "dest", "nargs", "takes_value"} <= set(spec), flag
    assert without_types(ours) == {f: {k: v for k, v in s.items() if k in parser_keys}
                                   for f, s in ours.items()}
