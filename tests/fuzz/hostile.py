"""Seeded hostile input for the fuzz suite (issue 24, point 9): URL queries, pill walks and
command lines, and the two answers they are compared with (the page's `page_state`, the
command line). Every generator takes a `random.Random`: a seed gives the same cases on every
machine, so a seed that once failed is a case of its own (each test keeps a `FAILED` list)."""

from __future__ import annotations

import contextlib
import functools
import io
import random
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from builder.commands.build import Builder
from builder.views.widget import page_state
from builder.vocabulary import FOREIGN_KEYS, is_foreign
from tests.recipes_data import builder_catalog, builder_recipe, catalog
from vllm_recipes_cli import answer_cache
from vllm_recipes_cli.cli import main as cli_main

NOTICE_MAX = 2_000
"""The longest notice a page may show (five items of at most 300 characters, and a rename)."""
ERROR_MAX = 2_048
"""The most a failed command line may print on standard error."""
JUNK = ("", "bogus", "constructor", "__proto__", "toString", "default\x00", "%00", "on off",
        "<script>alert(1)</script>", "\"'`", "é", "\u202e", " ", "\t", "-1", "0", "999",
        "ON", "Default", "true", "null", "None", "../../etc/passwd", "a" * 70, "🙂" * 10)


def junk(rng: random.Random) -> str:
    """A hostile string: one of JUNK, sometimes long (up to 100,000 characters)."""
    if rng.random() < 0.1:
        return rng.choice("xX'\\<\x00é") * rng.choice((61, 1_000, 100_000))
    return rng.choice(JUNK)


def model_ids() -> list[tuple[str, str, dict[str, str]]]:
    """(model id, recipe id, base) for every recipe that gives a command and every variant
    with its own model id: the pages a URL can open."""
    found = []
    for hf_id, recipe in catalog().recipes.items():
        if recipe.retired is not None:
            continue
        found.append((hf_id, hf_id, {}))
        for variant_id, variant in recipe.variants.items():
            if variant.model_id and variant.model_id != hf_id:
                found.append((variant.model_id, hf_id, {"variant": variant_id}))
    return found


@functools.cache
def builder(hf_id: str) -> Builder:
    """One per recipe, as the page's worker keeps one."""
    return Builder(builder_catalog(), builder_recipe(hf_id))


def url_pairs(rng: random.Random, hf_id: str) -> list[tuple[str, str]]:
    """A URL query for a recipe's page: mostly real keys and values, some junk, foreign keys
    and repeated keys (a key never holds `=`: the URL cannot give one the CLI could take)."""
    choices = dict(builder(hf_id).choices)
    # the earlier node-shaped ids are hardware values too (read as a GPU and a count), and a
    # recipe's count-qualified keys are not (`rtx_5090@2` is a key, never a selection value)
    choices["hardware"] = [*choices.get("hardware", []),
                           *builder_catalog().get("hardware_aliases", {}),
                           "rtx_5090@2", "h200@0", "rtx_4090@99999", "@2"]
    keys = list(choices)
    pairs: list[tuple[str, str]] = []
    for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 4, 7))):
        roll = rng.random()
        if roll < 0.55:
            key = rng.choice(keys)
            pairs.append((key, rng.choice(choices[key])))
        elif roll < 0.72:
            pairs.append((rng.choice(keys), junk(rng)))
        elif roll < 0.82:
            pairs.append((junk(rng).replace("=", ""), rng.choice((junk(rng), "on"))))
        elif roll < 0.9:
            pairs.append((rng.choice((*FOREIGN_KEYS, "dynamo_gpu")), junk(rng)))
        elif pairs:
            key = rng.choice(pairs)[0]
            pairs.append((key, rng.choice(choices.get(key) or [junk(rng)])))
    return pairs


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


def cli(*args: str) -> Run:
    """The command line in this process; an exception that escapes it is a traceback on
    standard error (status 1), as the interpreter would print it."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(list(args))
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 2
        except BaseException:  # reported as the interpreter would
            traceback.print_exc()
            code = 1
    return Run(code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def one_tree_key() -> Iterator[None]:
    """The answer cache's key of the recipe tree, worked out once: nothing changes the tree
    while a fuzz test runs (the key's walk over every file costs more than an answer)."""
    original = answer_cache.tree_key
    answer_cache.tree_key = functools.cache(original)  # type: ignore[assignment]
    try:
        yield
    finally:
        answer_cache.tree_key = original  # type: ignore[assignment]


def cli_answer(model_id: str, pairs: list[tuple[str, str]]) -> Run:
    """`vllm-recipes MODEL_ID key=value ...` for the pairs the page itself reads (the theme's
    and other widgets' keys are not the builder's: the CLI does not take them)."""
    return cli(model_id, *(f"{k}={v}" for k, v in pairs if not is_foreign(k)))


def page(hf_id: str, pairs: list[tuple[str, str]], base: dict[str, str]) -> dict[str, Any]:
    """What the page shows for its URL's pairs: a variant page sends its base under the URL's
    keys (recipe-builder.js withBase), and the base itself to fall back to."""
    given = {k for k, _ in pairs}
    query = [*((k, v) for k, v in base.items() if k not in given), *pairs]
    return page_state(builder_catalog(), builder_recipe(hf_id), query, builder(hf_id),
                      base=base)


def prints(run: Run, copy_text: str) -> bool:
    """Whether the CLI printed this command text (after the install block it starts with)."""
    return run.out == copy_text or run.out.endswith("\n" + copy_text)


def written_back(state: dict[str, Any], base: dict[str, str]) -> list[tuple[str, str]]:
    """The URL the page writes (recipe-builder.js writeURL): its honoured keys, less those
    equal to its base."""
    return [(k, v) for k, v in state["explicit"].items() if base.get(k) != v]


def agree(model_id: str, hf_id: str, base: dict[str, str],
          pairs: list[tuple[str, str]]) -> list[str]:
    """What is wrong with the page's and the CLI's answers to one URL, or []: a bounded
    notice; the same command where the CLI accepts the query; where it refuses it (exit 2),
    a notice on the page and the CLI's answer for what the page honoured; a reload of the URL
    the page writes shows the same."""
    problems: list[str] = []
    state = page(hf_id, pairs, base)
    notice = str(state["notice"])
    if len(notice) > NOTICE_MAX:
        problems.append(f"notice of {len(notice)} characters")
    run = cli_answer(model_id, pairs)
    if "Traceback" in run.err or run.code not in (0, 2):
        return [*problems, f"CLI exit {run.code}: {run.err[-300:]}"]
    if len(run.err.encode()) > ERROR_MAX:
        problems.append(f"CLI error of {len(run.err)} characters")
    shown = state["result"]["copy_text"]
    if run.code == 0:
        if "Ignored from the URL" in notice:
            problems.append(f"the CLI takes the query, the page drops some: {notice[:200]}")
        if not prints(run, shown):
            problems.append("the page's command is not the CLI's")
    else:
        if "Ignored from the URL" not in notice:
            problems.append(f"the CLI refuses the query ({run.err.strip()[:200]}), the page "
                            "says nothing")
        honoured = cli_answer(model_id, list(state["explicit"].items()))
        if honoured.code != 0 or not prints(honoured, shown):
            problems.append(f"the page shows what the CLI does not give for its own keys "
                            f"(exit {honoured.code}: {honoured.err.strip()[:200]})")
    again = page(hf_id, written_back(state, base), base)
    if again["result"]["copy_text"] != shown or written_back(again, base) != written_back(
            state, base):
        problems.append("a reload of the URL the page wrote shows another command")
    return problems
