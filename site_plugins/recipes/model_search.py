"""The home page's model search: the words each card is found by, and the ranking rule.

Made at build time for each card, two lists of words (`card_words`), written into the card
(`data-names`, `data-tags`, space-separated; `docs/javascripts/browse.js` matches them as
`rank` below does, and a browser test checks that the two agree):
- names: the model id, its repository name, the title, the provider, the variants' checkpoint
  ids and the recipe's old ids (`aliases`), each whole and cut into words at `-`, `_`, `/` and
  spaces;
- tags: the words of the model's tasks and of its vLLM-Omni task kinds (`TASK_WORDS`: "speech"
  finds speech recognition and speech synthesis), its precisions ("fp8", "nvfp4"), its variant
  ids and their old ids, and the hardware the builder has a command for (id, name and the
  name's words: "h100", "mi300x", "trillium").
Every word is `compact` (lower-cased, `-`, `_` and whitespace removed), as is the query.

Matching: the query is cut at whitespace; every query word must match a word of the card.
A query word matches a card word by the first that holds of
  0 exact (the same word), 1 prefix (the card word starts with it),
  2 part of a name (inside a names word only; tags are matched whole or by prefix),
  3 typo (one letter added, dropped or changed; only for query words of 4 or more letters
    without digits, since "qwen2" is not a typo of "qwen3" nor "h200" of "h100", and only
    when no card matches that query word in one of the ways above).
A query word scores way + (4 for a tags word, 0 for a names word): any match of a name comes
before a match of a tag, and within each, exact before prefix before part; a card scores the
sum over the query words. Cards are shown best score first (ties keep the chosen sort's order),
so models named "…-Embedding…" come before those that are embedding models by their task.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "FUZZY_MIN",
    "TASK_WORDS",
    "CardWords",
    "card_words",
    "compact",
    "one_edit",
    "query_words",
    "rank",
    "word_score",
]

Data = dict[str, Any]

EXACT, PREFIX, PART, TYPO = range(4)
"""The ways a query word matches a card word, best first."""
TAG = 4
"""What a tags word adds to a match's score (more than any way of matching a name)."""
FUZZY_MIN = 4
"""Typos are forgiven in query words of at least this many letters."""

TASK_WORDS: dict[str, tuple[str, ...]] = {
    # meta.tasks
    "text": ("text", "chat", "llm"),
    "multimodal": ("multimodal", "vlm"),
    "vision": ("vision", "image", "vlm", "visual"),
    "embedding": ("embedding", "embeddings", "embed", "retrieval", "vector"),
    "audio": ("audio", "speech", "asr", "transcription", "transcribe", "stt"),
    "reasoning": ("reasoning", "thinking"),
    "tools": ("tools", "tool", "function", "agent"),
    "omni": ("omni", "generation"),
    "rerank": ("rerank", "reranker", "reranking", "score", "scoring"),
    "completion": ("completion", "completions", "base"),
    # vLLM-Omni task kinds (builder.vocabulary.OMNI_KINDS)
    "t2i": ("image", "t2i", "text-to-image", "diffusion"),
    "i2i": ("image", "i2i", "edit", "editing"),
    "t2v": ("video", "t2v", "text-to-video"),
    "i2v": ("video", "i2v", "image-to-video"),
    "ti2v": ("video", "ti2v"),
    "tts": ("speech", "tts", "voice", "text-to-speech", "audio"),
    "t2a": ("audio", "sound", "t2a"),
}
"""The words people type for a task: a recipe's `meta.tasks` and the kinds of its vLLM-Omni
tasks, one registry (a test checks it names every task and every kind)."""


def compact(text: str) -> str:
    """Lower-cased, without `-`, `_` and whitespace: the form search words take."""
    return re.sub(r"[-_\s]+", "", text.lower())


def _pieces(text: str) -> list[str]:
    """The text whole and its words (cut at `-`, `_`, `/`, brackets and whitespace)."""
    words = [w for w in re.split(r"[-_/\s()]+", text.lower()) if w]
    return [compact(text), *words]


@dataclass(frozen=True)
class CardWords:
    names: tuple[str, ...]
    tags: tuple[str, ...]


def _unique(words: Iterable[str], drop: Iterable[str] = ()) -> tuple[str, ...]:
    dropped = set(drop)
    return tuple(w for w in dict.fromkeys(words) if w and w not in dropped)


def _hardware_words(spec: Mapping[str, Any], hw_id: str) -> list[str]:
    name = spec["display_name"]
    words = [compact(hw_id), re.sub(r"[^0-9a-z]+", "", name.lower())]
    # "RTX PRO 6000 8×" → rtx, pro, 6000 (a count of cards is not a word people search for)
    words += [w for w in _pieces(name)[1:] if not re.fullmatch(r"\d+×", w)]
    return words


def card_words(catalog: Mapping[str, Any], hf_id: str, recipe: Mapping[str, Any],
               runs_on: Sequence[str]) -> CardWords:
    """The words a card is found by (see the module's docstring)."""
    meta = recipe["meta"]
    variants: Mapping[str, Any] = recipe["variants"]
    names: list[str] = []
    for text in (hf_id, hf_id.rsplit("/", 1)[-1], meta["title"], meta["provider"],
                 *(v["model_id"] for v in variants.values() if v.get("model_id")),
                 *recipe.get("aliases", ())):
        names += _pieces(text)
    tags: list[str] = []
    kinds = [task["kind"] for task in (recipe.get("omni") or {}).get("tasks", {}).values()]
    for task in (*meta["tasks"], *kinds):
        tags += (compact(w) for w in TASK_WORDS.get(task, (task,)))
    for vid, variant in variants.items():
        tags += (part for part in variant["precision"].split("+"))
        if vid != "default":
            tags += _pieces(vid)
        for alias in variant.get("aliases", ()):
            tags += _pieces(alias)
    for hw_id in runs_on:
        tags += _hardware_words(catalog["hardware"][hw_id], hw_id)
    unique_names = _unique(names)
    return CardWords(unique_names, _unique((compact(t) for t in tags), unique_names))


def query_words(query: str) -> list[str]:
    return [w for w in (compact(part) for part in query.split()) if w]


def one_edit(a: str, b: str) -> bool:
    """`a` and `b` differ by exactly one letter added, dropped or changed."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i + (len(a) == len(b)):] == b[i + 1:]


def _fuzzy(word: str) -> bool:
    return len(word) >= FUZZY_MIN and not any(c.isdigit() for c in word)


def word_score(word: str, card: CardWords, typos: bool) -> int | None:
    """How well `card` matches one query word (lower is better), None if it does not."""
    best: int | None = None
    for cls, words in ((0, card.names), (1, card.tags)):
        for candidate in words:
            if candidate == word:
                way = EXACT
            elif candidate.startswith(word):
                way = PREFIX
            elif cls == 0 and word in candidate:
                way = PART
            elif typos and one_edit(word, candidate):
                way = TYPO
            else:
                continue
            score = way + TAG * cls
            if best is None or score < best:
                best = score
    return best


def rank(query: str, cards: Sequence[CardWords]) -> list[tuple[int, int]]:
    """(index, score) of the cards that match `query`, best first, ties in card order."""
    words = query_words(query)
    scores: list[int | None] = [0] * len(cards)
    for word in words:
        per_card = [word_score(word, card, typos=False) for card in cards]
        if _fuzzy(word) and all(s is None for s in per_card):
            per_card = [word_score(word, card, typos=True) for card in cards]
        scores = [None if total is None or s is None else total + s
                  for total, s in zip(scores, per_card, strict=True)]
    found = [(i, s) for i, s in enumerate(scores) if s is not None]
    return sorted(found, key=lambda item: item[1])
