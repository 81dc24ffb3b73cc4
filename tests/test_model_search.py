"""The home page's search (site_plugins/recipes/model_search.py), without a build: which models
a word finds, from the recipes' own fields, and the order they come in."""

from __future__ import annotations

import typing
from typing import Any

import pytest

from builder.vocabulary import OMNI_KINDS
from site_plugins.recipes.model_search import (
    TASK_WORDS,
    CardWords,
    card_words,
    compact,
    one_edit,
    rank,
)
from tests.recipes_data import active_recipes, builder_catalog, builder_recipe
from vllm_recipes.schema import Task


def found(query: str, cards: dict[str, CardWords]) -> list[str]:
    ids = list(cards)
    return [ids[i] for i, _ in rank(query, list(cards.values()))]


def scores(query: str, cards: dict[str, CardWords]) -> dict[str, int]:
    ids = list(cards)
    return {ids[i]: score for i, score in rank(query, list(cards.values()))}


@pytest.fixture(scope="module")
def real() -> dict[str, CardWords]:
    """Every active recipe's words (hardware left out: see `offered`)."""
    catalog = builder_catalog()
    return {hf_id: card_words(catalog, hf_id, builder_recipe(hf_id), [])
            for hf_id in active_recipes()}


def recipe(title: str, provider: str = "Acme", tasks: tuple[str, ...] = ("text",),
           precision: str = "bf16", **more: Any) -> dict[str, Any]:
    return {"meta": {"title": title, "provider": provider, "tasks": list(tasks)},
            "variants": {"default": {"precision": precision}}, **more}


def cards_of(*specs: tuple[str, dict[str, Any], list[str]]) -> dict[str, CardWords]:
    catalog = builder_catalog()
    return {hf_id: card_words(catalog, hf_id, data, runs_on) for hf_id, data, runs_on in specs}


# ------------------------------------------------------------------ the registry


def test_every_task_and_omni_kind_has_its_words() -> None:
    keys = set(typing.get_args(Task)) | set(OMNI_KINDS)
    assert set(TASK_WORDS) == keys
    assert not set(typing.get_args(Task)) & set(OMNI_KINDS)  # one namespace
    for key, words in TASK_WORDS.items():
        assert words and all(w == w.lower() for w in words), key


# ------------------------------------------------------------------ what a word finds


def with_task(task: str) -> set[str]:
    return {h for h, r in active_recipes().items() if task in r.meta.tasks}


def with_omni_kind(kind: str) -> set[str]:
    return {h for h, r in active_recipes().items()
            if r.omni is not None and any(t.kind == kind for t in r.omni.tasks.values())}


def test_embedding_finds_every_embedding_model_named_ones_first(
        real: dict[str, CardWords]) -> None:
    """Issue 36: "embedding" found 2 of the 4 embedding models (not BAAI/bge-m3)."""
    embedding = with_task("embedding")
    assert {"BAAI/bge-m3", "Qwen/Qwen3-Embedding-8B"} <= embedding and len(embedding) >= 4
    got = found("embedding", real)
    assert set(got) == embedding
    score = scores("embedding", real)
    # named "Embedding" (exact word of its name) before an embedding model by its task only
    assert score["Qwen/Qwen3-Embedding-8B"] < score["BAAI/bge-m3"]
    assert got.index("Qwen/Qwen3-Embedding-8B") < got.index("BAAI/bge-m3")


@pytest.mark.parametrize("word", ["speech", "Speech", "SPEECH"])
def test_speech_finds_recognition_and_synthesis_models(real: dict[str, CardWords],
                                                       word: str) -> None:
    """Issue 36: "speech" found nothing. Speech recognition (the audio task: Whisper) and
    speech synthesis (vLLM-Omni's text-to-speech kind) both."""
    want = with_task("audio") | with_omni_kind("tts")
    assert {"openai/whisper-large-v3", "Qwen/Qwen3-ASR-1.7B",
            "IndexTeam/IndexTTS-2.5"} <= want
    named = {h for h, r in active_recipes().items() if "speech" in compact(r.meta.title)}
    assert set(found(word, real)) == want | named


@pytest.mark.parametrize(("word", "task"), [("asr", "audio"), ("transcription", "audio"),
                                            ("embeddings", "embedding")])
def test_words_for_a_task(real: dict[str, CardWords], word: str, task: str) -> None:
    assert with_task(task) <= set(found(word, real))


def test_image_finds_vision_and_image_generation(real: dict[str, CardWords]) -> None:
    want = with_task("vision") | with_omni_kind("t2i") | with_omni_kind("i2i")
    assert {"Qwen/Qwen-Image", "zai-org/GLM-Image"} <= want
    assert want <= set(found("image", real))


def test_flux_finds_flux_when_there_is_one(real: dict[str, CardWords]) -> None:
    flux = {h for h, r in active_recipes().items()
            if "flux" in compact(h) or "flux" in compact(r.meta.title)}
    assert set(found("flux", real)) == flux


@pytest.mark.parametrize("precision", ["fp8", "nvfp4", "mxfp4"])
def test_a_format_finds_every_model_with_a_variant_in_it(real: dict[str, CardWords],
                                                         precision: str) -> None:
    want = {h for h, r in active_recipes().items()
            if any(precision in v.precision.split("+") for v in r.variants.values())}
    assert len(want) >= 3
    assert want <= set(found(precision, real))
    assert want <= set(found(precision.upper(), real))


def test_old_ids_and_variant_ids_find_the_model(real: dict[str, CardWords]) -> None:
    assert active_recipes()["IFM/Jais-3-0.9B"].aliases == ["IFM/K2-Horizon-0.9B"]
    assert found("K2-Horizon-0.9B", real) == ["IFM/Jais-3-0.9B"]
    assert "deepseek-ai/DeepSeek-V4-Flash" in found("dspark", real)  # a variant's old id
    # a variant's own checkpoint id
    assert "deepseek-ai/DeepSeek-V4-Flash" in found("DeepSeek-V4-Flash-DSpark", real)


def test_hardware_words_find_the_models_offered_there() -> None:
    cards = cards_of(("a/Hopper", recipe("Hopper"), ["h100", "h200"]),
                     ("a/Amd", recipe("Amd"), ["mi300x", "mi355x"]),
                     ("a/Tpu", recipe("Tpu"), ["trillium"]))
    assert found("H100", cards) == ["a/Hopper"]
    assert found("mi300x", cards) == ["a/Amd"]
    assert found("MI300", cards) == ["a/Amd"]  # a prefix
    assert found("trillium", cards) == found("tpu", cards) == ["a/Tpu"]
    assert found("b200", cards) == []  # not offered there; no typo of "h200" either
    assert found("h100 mi300x", cards) == []  # every word must match


# ------------------------------------------------------------------ order


def test_names_before_tags_then_exact_prefix_part() -> None:
    cards = cards_of(
        ("z/Coder-Tagged", recipe("Tagged", tasks=("tools",)), []),      # tag, exact: "tools"
        ("z/Toolsmith", recipe("Toolsmith"), []),                         # name, prefix
        ("z/Tools", recipe("Tools"), []),                                  # name, exact
        ("z/Multitools", recipe("Multitools"), []),                       # name, inside
    )
    assert found("tools", cards) == ["z/Tools", "z/Toolsmith", "z/Multitools", "z/Coder-Tagged"]
    # ties keep the cards' order
    cards = cards_of(("b/One", recipe("One", tasks=("tools",)), []),
                     ("a/Two", recipe("Two", tasks=("tools",)), []))
    assert found("tool", cards) == ["b/One", "a/Two"]


def test_one_letter_typo_is_forgiven_only_when_nothing_matches(
        real: dict[str, CardWords]) -> None:
    assert set(found("embeding", real)) == set(found("embedding", real))
    assert set(found("speach", real)) == set(found("speech", real))
    assert "meta-llama/Llama-3.1-8B" in found("llana", real)  # one letter changed
    # a word that matches directly somewhere takes no typos: "mini" is not "ming"
    assert "inclusionAI/Ming-omni-tts-0.5B" not in found("mini", real)
    # digits are model numbers, not typos; three letters are too short
    assert not set(found("qwen3", real)) & {"Qwen/Qwen2.5-7B-Instruct"}
    assert found("bgx", real) == []
    # a typo ranks after every direct match of the same words (scores add up per word)
    cards = cards_of(("a/Gemma", recipe("Gemma"), []), ("a/Gamma", recipe("Gamma"), []))
    assert found("gemma", cards) == ["a/Gemma"]
    assert found("gemna", cards) == ["a/Gemma"]


@pytest.mark.parametrize(("a", "b", "want"), [
    ("speech", "speach", True),      # changed
    ("embeding", "embedding", True),  # dropped
    ("llama", "lllama", True),        # added
    ("abc", "abc", False),
    ("ab", "ba", False),              # two letters swapped: two edits
    ("h100", "h1000", True),
    ("kimi", "mimo", False),
    ("x", "", True),
])
def test_one_edit(a: str, b: str, want: bool) -> None:
    assert one_edit(a, b) is want
    assert one_edit(b, a) is want


def test_query_words_are_compacted_like_card_words(real: dict[str, CardWords]) -> None:
    assert found("Llama-3.1 8B", real) == found("llama3.1 8b", real)
    assert "meta-llama/Llama-3.1-8B" in found("llama_3.1", real)
    assert found("   ", real) == list(real)  # nothing typed: everything, in card order
