"""What every `vllm-recipes` subcommand shares: the exit codes, loading the catalogue, one
query's answer, and one-line errors (`ArgumentParser`, `report`, `cut`). The subcommands
(`cli.py` and the `cli_*`, `run`, `verify`, `port`, `upstream` modules) import from here and
never from each other, so no module of the tool imports back the one that dispatches to it.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from builder.commands.build import build
from builder.commands.selection import canonical_query
from builder.errors import SelectionError, quoted
from builder.text_safety import printable
from builder.types import Data, Result
from builder.vocabulary import SELECTION_KEYS
from vllm_recipes.catalogue import Catalogue, from_loader, packaged

from . import answer_cache
from .errors import UsageError

# The loader, schema and deployments are imported where they are used: an answer from the
# cache or from the packaged catalogue needs none of them.

EXIT_PROBLEMS = 1
EXIT_USAGE = 2
MODEL_ID = re.compile(r"[A-Za-z0-9][\w.-]{0,95}/[\w.-]{1,96}")
"""What a model id looks like (a Hugging Face id, as `schema.HfId`, of at most 96 characters a
part); anything else is refused before a file is looked for."""
MAX_LISTED = 200
"""`check` lists at most this many problems, then says how many more there are."""
MAX_LINE = 500
"""The longest line an error prints (a problem quotes values at most 60 characters; paths and
the valid values it lists make up the rest)."""
RECIPES = Path(__file__).resolve().parent.parent / "recipes"
ALL = "*"
CHECKOUT_ONLY = ("pydantic", "yaml", "mkdocs")
"""What validating YAML needs and an installed tool does not have (check, schema, ...)."""
"""The cache's name for the whole catalogue (`--list`, `--version`)."""
KEYS_HELP = "\n".join(f"  {key.name:<13} {key.help}" for key in SELECTION_KEYS.values())
EPILOG = (
    "KEYs are the page's URL query keys:\n" + KEYS_HELP
    + "\n  <feature>     every feature id of the recipe: on, off or a mode name"
    "\n\nother commands:"
    "\n  vllm-recipes run HF_ID [KEY=VALUE ...] [--dry-run]   print the pip-form serve command, "
    "then run it"
    "\n  vllm-recipes verify [URL] [--model ID]   wait for /health, list /v1/models, send one "
    "request"
    "\n  vllm-recipes check [DIR]   validate a recipe tree (default: "
    "recipes/), one line per problem\n  vllm-recipes schema        print the recipe JSON Schema"
    "\n  vllm-recipes diff HF_ID [KEY=VALUE ...] --command CMD|-   compare a command with the "
    "recipe's"
    "\n  vllm-recipes upstream PUBLIC_CHECKOUT [--json]   what changed in the public catalogue "
    "since each recipe was ported"
)


def load(root: Path = RECIPES, model_id: str | None = None) -> Catalogue:
    """The catalogue to answer from: an installed tool's packaged one; in a checkout, the YAML
    tree's (the recipe `model_id` names, or all of it), validated by the loader or read back
    from the cache. InvalidRecipe when the tree does not validate."""
    if Path(root) == RECIPES and not RECIPES.is_dir():
        found = packaged()
        if found is None:
            raise UsageError(f"no recipe data: {RECIPES} does not exist and this install "
                             "carries no catalogue.json (reinstall the wheel)")
        return found
    problem = model_id_problem(model_id) if model_id is not None else None
    if problem:  # never a path out of the tree (`../../x`) or a file name of any length
        raise UsageError(problem)
    name = model_id or ALL
    key, entry = answer_cache.read(root, name)
    if entry is not None:
        try:
            return Catalogue.from_json(entry)
        except (KeyError, ValueError):
            pass  # an entry of another format: read the tree again
    from vllm_recipes.loader import UnknownModel, load_catalog, load_for

    try:
        catalogue = from_loader(load_catalog(root) if model_id is None
                                else load_for(root, model_id))
    except UnknownModel as error:  # no file mentions it as written (load_for)
        hint = (f"did you mean {error.suggestion}?" if error.suggestion
                else "see vllm-recipes --list")
        raise UsageError(f"hf_id: unknown model {quoted(model_id or '')}; {hint}") from None
    if model_id is None or _knows(catalogue, model_id):
        answer_cache.write(root, key, name, catalogue.to_json())
    return catalogue


def _knows(catalogue: Catalogue, model_id: str) -> bool:
    try:
        catalogue.find(model_id)
    except KeyError:
        return False
    return True


def dynamo_targets(root: Path, catalogue: Catalogue) -> dict[str, Data]:
    """The NVIDIA Dynamo deployments by model: the packaged ones, or the tree's."""
    if catalogue.dynamo or not Path(root).is_dir():
        return catalogue.dynamo
    from vllm_recipes.deployments import load_deployments

    deployments = load_deployments(root)
    return {hf_id: deployments.published(hf_id) for hf_id in deployments.by_model}


def tool_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("vllm-recipes")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Answer:
    hf_id: str
    recipe: Data
    result: Result
    query: dict[str, str] = field(default_factory=dict)
    """The query the result answers (URL keys; `variant` pinned for a variant's model id)."""


def resolve(catalogue: Catalogue, model_id: str, pairs: list[str],
            notice: Callable[[str], None]) -> tuple[str, Data, dict[str, str]]:
    """(recipe hf_id, recipe, query) for a model id and KEY=VALUE words: an alias or an
    earlier variant id is read as the id now, with a notice; a variant's own model id starts
    from its variant, which `variant=` may replace (builder.commands.build: the page's rule too).
    UsageError for an unknown model, SelectionError for a bad pair."""
    problem = model_id_problem(model_id)
    if problem:
        raise UsageError(problem)
    try:
        hf_id, variant_id = catalogue.find(model_id)
    except KeyError:
        known = catalogue.suggest(model_id) if len(catalogue.recipes) > 1 else None
        hint = f"did you mean {known}?" if known else "see vllm-recipes --list"
        raise UsageError(f"hf_id: unknown model {quoted(model_id)}; {hint}") from None
    recipe = catalogue.recipes[hf_id]
    if model_id in recipe.get("aliases", ()):
        notice(f"{model_id} is now {hf_id}; showing {hf_id}")
    query, renamed = canonical_query(recipe, parse_pairs(pairs), catalogue.catalog)
    for line in renamed:
        notice(line)
    if variant_id != "default":  # the base; the query's own variant= overrides it
        query = {"variant": variant_id, **query}
    return hf_id, recipe, query


def answer(catalogue: Catalogue, model_id: str, pairs: list[str],
           notice: Callable[[str], None], extra: dict[str, str] | None = None) -> Answer:
    """The builder's result for a model id and KEY=VALUE words (`extra`: keys the command
    itself sets, after the user's), as `vllm-recipes HF_ID` prints it."""
    hf_id, recipe, query = resolve(catalogue, model_id, pairs, notice)
    return Answer(hf_id, recipe, build(catalogue.catalog, recipe, {**query, **(extra or {})}),
                  query)


def notice_line(text: str) -> None:
    print(cut(f"vllm-recipes: notice: {text}"), file=sys.stderr)


def parse_pairs(pairs: list[str], example: str = "hardware=h200") -> dict[str, str]:
    query: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SelectionError(pair, f"expected KEY=VALUE (for example {example})")
        if key in query:
            raise SelectionError(key, "given twice")
        query[key] = value
    return query


class ArgumentParser(argparse.ArgumentParser):
    """argparse, with a usage error as one line (`prog: message (see prog --help)`), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, cut(f"{self.prog}: {message} (see {self.prog} --help)") + "\n")


def cut(line: str, limit: int = MAX_LINE) -> str:
    """One output line for a terminal, at most `limit` characters (a value quoted in it may be
    huge), every character that does not print escaped (an ESC, a line break, a bidi
    control: builder.text_safety)."""
    return printable(line, limit)


def not_a_tree(root: Path) -> str | None:
    """Why `root` is no recipe tree (a usage error), or None."""
    try:
        if (root / "hardware.yaml").exists():
            return None
    except OSError as error:
        return f"--recipes: {error.strerror}"
    return f"{cut(str(root), 200)}: not a recipe tree (no hardware.yaml)"


def no_tree(prog: str, root: Path) -> str | None:
    """For a subcommand that reads a recipe tree: the one line an installed tool (no tree
    beside it) says when none was given, or None."""
    if Path(root) == RECIPES and not RECIPES.is_dir():
        return (f"{prog} needs a recipe tree, which the installed tool does without: pass "
                "--recipes DIR (a checkout's recipes/)")
    return None


def usage(message: str) -> int:
    print(cut(f"vllm-recipes: {message}"), file=sys.stderr)
    return EXIT_USAGE


def report(error: Exception) -> None:
    """An error's lines on standard error, bounded as `check` bounds them."""
    lines = str(error).splitlines() or [type(error).__name__]
    for line in lines[:MAX_LISTED]:
        print(cut(line), file=sys.stderr)
    if len(lines) > MAX_LISTED:
        print(f"... and {len(lines) - MAX_LISTED} more", file=sys.stderr)


def model_id_problem(model_id: str) -> str | None:
    """Why `model_id` cannot name a recipe (a usage error), or None."""
    if not MODEL_ID.fullmatch(model_id):
        return (f"hf_id: {quoted(model_id)} is not a model id (ORG/NAME, e.g. Qwen/Qwen3-8B); "
                "see vllm-recipes --list")
    return None
