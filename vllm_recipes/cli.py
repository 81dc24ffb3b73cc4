"""The `vllm-recipes` command line.

    vllm-recipes HF_ID [KEY=VALUE ...] [--json | --explain]   the command for a selection
    vllm-recipes --list [--json]                               every recipe and variant id
    vllm-recipes check [DIR]                                   validate a recipe tree
    vllm-recipes schema                                        print the recipe JSON Schema
    vllm-recipes diff HF_ID [KEY=VALUE ...] --command CMD      a command against the recipe's
    vllm-recipes HF_ID --dynamo [KEY=VALUE ...] [--json]       NVIDIA Dynamo deployment steps

It reads the recipe tree through the loader (or the validated data cached from an earlier run
while no file has changed: `answer_cache.py`), then calls exactly the builder functions the
page and the JSON endpoints call. A usage error or a selection that cannot be honoured exits with
status 2 and one line; invalid recipe data exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from builder.api import build, published
from builder.errors import SelectionError
from builder.vocabulary import SELECTION_KEYS

from . import answer_cache
from .errors import InvalidRecipe

if TYPE_CHECKING:
    from .loader import Catalog

# The loader, schema and deployments are imported where they are used: an answer from the
# cache (answer_cache.py) needs none of them.

__all__ = ["main"]

EXIT_PROBLEMS = 1
EXIT_USAGE = 2
RECIPES = Path(__file__).resolve().parent.parent / "recipes"
KEYS_HELP = "\n".join(f"  {key.name:<13} {key.help}" for key in SELECTION_KEYS.values())
EPILOG = (
    "KEYs are the page's URL query keys:\n" + KEYS_HELP
    + "\n  <feature>     every feature id of the recipe: on, off or a mode name"
    "\n\nother commands:\n  vllm-recipes check [DIR]   validate a recipe tree (default: "
    "recipes/), one line per problem\n  vllm-recipes schema        print the recipe JSON Schema"
    "\n  vllm-recipes diff HF_ID [KEY=VALUE ...] --command CMD|-   compare a command with the "
    "recipe's"
)


def _parse_pairs(pairs: list[str], example: str = "hardware=h200") -> dict[str, str]:
    query: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SelectionError(pair, f"expected KEY=VALUE (for example {example})")
        if key in query:
            raise SelectionError(key, "given twice")
        query[key] = value
    return query


def _usage(message: str) -> int:
    print(f"vllm-recipes: {message}", file=sys.stderr)
    return EXIT_USAGE


def _list(catalog: Catalog, as_json: bool) -> int:
    rows: list[dict[str, str]] = []
    for hf_id, recipe in catalog.recipes.items():
        rows.append({"hf_id": hf_id, "title": recipe.meta.title})
        for variant_id, variant in recipe.variants.items():
            if variant.model_id and variant.model_id != hf_id:
                rows.append({"hf_id": variant.model_id, "title": recipe.meta.title,
                             "recipe": hf_id, "variant": variant_id})
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        for row in rows:
            suffix = f" (variant={row['variant']})" if "variant" in row else ""
            print(f"{row['hf_id']}\t{row['title']}{suffix}")
    return 0


def check(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="vllm-recipes check",
                                     description="Validate a recipe tree exactly as the build "
                                     "does; print every problem as file:line: field: message.")
    parser.add_argument("dir", nargs="?", type=Path, default=RECIPES,
                        help="the recipe tree (hardware.yaml, strategies/, models/)")
    args = parser.parse_args(argv)
    if not (args.dir / "hardware.yaml").is_file():
        return _usage(f"{args.dir}: not a recipe tree (no hardware.yaml)")
    from .deployments import load_deployments_with_problems
    from .loader import load_catalog_with_problems

    catalog, problems = load_catalog_with_problems(args.dir)
    problems = [*problems, *load_deployments_with_problems(args.dir)[1]]
    for problem in problems:
        print(problem)
    if problems or catalog is None:
        print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}", file=sys.stderr)
        return EXIT_PROBLEMS
    print(f"{len(catalog.recipes)} recipes, {len(catalog.hardware.hardware)} hardware, "
          f"{len(catalog.strategies)} strategies: no problems")
    return 0


def schema(argv: list[str]) -> int:
    argparse.ArgumentParser(prog="vllm-recipes schema",
                            description="Print the JSON Schema of recipe files.").parse_args(argv)
    from .schema import json_schema

    print(json.dumps(json_schema(), indent=2, sort_keys=True))
    return 0


def diff(argv: list[str]) -> int:
    from .cli_diff import main as diff_main  # `vllm-recipes diff ...`: see cli_diff.py

    return diff_main(argv)


def port(argv: list[str]) -> int:
    from .port import main as port_main  # a first draft from the public catalogue's format

    return port_main(argv)


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "check": check, "schema": schema, "diff": diff, "port": port}


def explain(catalog: Catalog, hf_id: str, result: dict[str, Any]) -> str:
    """The commands with, under each option and variable, where it came from."""
    lines: list[str] = [f"# {result['summary']}"]
    for command in result["commands"]:
        lines += ["", f"## {command['label']}", " ".join(command["argv"][:3])]
        for source in command["sources"]["args"]:
            lines.append(f"  {' '.join(source['option'])}")
            lines.append(f"      ← {_where(catalog, hf_id, source)}")
            for old in source["replaced"]:
                verb = "merged into" if old["merged"] else "replaced"
                lines.append(f"        {verb} {' '.join(old['option'])} from "
                             f"{_where(catalog, hf_id, old)}")
        for name, source in command["sources"]["env"].items():
            lines.append(f"  env {name}={source['value']}")
            lines.append(f"      ← {_where(catalog, hf_id, source)}")
    return "\n".join(lines) + "\n"


def _where(catalog: Catalog, hf_id: str, origin: dict[str, Any]) -> str:
    line = catalog.source_line(hf_id, origin["file"], origin["path"])
    place = f"{origin['file']}:{line}" if line else origin["file"]
    return f"{place} {origin['path']} ({origin['layer']})"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        if argv and argv[0] in SUBCOMMANDS:
            return SUBCOMMANDS[argv[0]](argv[1:])
        return _serve(argv)
    except BrokenPipeError:  # `vllm-recipes --list | head`
        sys.stderr.close()
        return 0


def _serve(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="vllm-recipes",
        description="Print the command to serve a model with vLLM for a selection.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("hf_id", nargs="?", help="a recipe's or a variant's model id")
    parser.add_argument("pairs", nargs="*", metavar="KEY=VALUE")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the full result as JSON")
    output.add_argument("--explain", action="store_true",
                        help="print each option and variable with the file, line and YAML "
                             "path that set it")
    parser.add_argument("--list", action="store_true", help="list every recipe and variant id")
    parser.add_argument("--dynamo", action="store_true",
                        help="print the steps that deploy the model with NVIDIA Dynamo on "
                        "Kubernetes; KEYs are framework, gpu and topology")
    parser.add_argument("--recipes", type=Path, default=RECIPES, help=argparse.SUPPRESS)
    args = parser.parse_intermixed_args(argv)
    if args.dynamo:
        return dynamo_main(args)

    if args.list:
        if args.hf_id or args.pairs or args.explain:
            return _usage("--list takes no model id or KEY=VALUE (only --json)")
        from .loader import load_catalog

        try:
            return _list(load_catalog(args.recipes), args.json)
        except InvalidRecipe as error:
            print(error, file=sys.stderr)
            return EXIT_PROBLEMS
    if not args.hf_id:
        return _usage("HF_ID is required (see vllm-recipes --list)")
    catalog = None
    key, entry = answer_cache.read(args.recipes, args.hf_id)
    if entry is None or args.explain:  # --explain names files and lines: the loader has them
        from .loader import load_for

        try:
            catalog = load_for(args.recipes, args.hf_id)
        except InvalidRecipe as error:
            print(error, file=sys.stderr)
            return EXIT_PROBLEMS
        try:
            hf_id, variant_id = catalog.find(args.hf_id)
        except KeyError:
            return _usage(f"hf_id: unknown model {args.hf_id!r}; see vllm-recipes --list")
        entry = {"hf_id": hf_id, "variant": variant_id,
                 "catalog": catalog.builder_catalog(), "recipe": catalog.builder_recipe(hf_id)}
        answer_cache.write(args.recipes, key, args.hf_id, entry)
    hf_id, variant_id = entry["hf_id"], entry["variant"]
    try:
        query = _parse_pairs(args.pairs)
        if variant_id != "default":
            if query.get("variant", variant_id) != variant_id:
                raise SelectionError(
                    "variant", f"{args.hf_id} is variant {variant_id!r}; drop variant= or "
                    f"use {hf_id}")
            query["variant"] = variant_id
        result = build(entry["catalog"], entry["recipe"], query)
    except SelectionError as error:
        print(error, file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(published(result), indent=2, ensure_ascii=False))
    elif args.explain:
        assert catalog is not None
        sys.stdout.write(explain(catalog, hf_id, dict(result)))
    else:
        sys.stdout.write(result["copy_text"])
    return 0


def dynamo_main(args: argparse.Namespace) -> int:
    """`vllm-recipes HF_ID --dynamo [framework=...] [gpu=...] [topology=...] [--json]`: the
    steps that deploy a model's NVIDIA Dynamo target (builder.dynamo, as the page)."""
    if args.explain:
        return _usage("--explain is for vLLM commands; with --dynamo use --json")
    from builder import dynamo

    from .deployments import load_deployments

    try:
        deployments = load_deployments(args.recipes)
    except InvalidRecipe as error:
        print(error, file=sys.stderr)
        return EXIT_PROBLEMS
    if args.list:
        for hf_id in deployments.by_model:
            print(hf_id)
        return 0
    if not args.hf_id:
        return _usage("HF_ID is required (see vllm-recipes --dynamo --list)")
    if args.hf_id not in deployments.by_model:
        known = ", ".join(deployments.by_model) or "none"
        print(f"hf_id: no NVIDIA Dynamo deployments for {args.hf_id!r} (models with some: "
              f"{known})", file=sys.stderr)
        return EXIT_USAGE
    try:
        query = _parse_pairs(args.pairs, example="gpu=h200")
        result = dynamo.build(deployments.published(args.hf_id), query)
    except SelectionError as error:
        print(error, file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(result["copy_text"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
