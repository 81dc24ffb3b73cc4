"""The `vllm-recipes` command line: `vllm-recipes HF_ID [KEY=VALUE ...] [--json]`.

It reads the validated recipe tree through the loader, then calls exactly the builder
functions the page and the JSON endpoints call.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from builder.api import build
from builder.errors import SelectionError

from .errors import InvalidRecipe
from .loader import load_catalog

EXIT_USAGE = 2
RECIPES = Path(__file__).resolve().parent.parent / "recipes"


def _parse_pairs(pairs: list[str]) -> dict[str, str]:
    query: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SelectionError(pair, "expected KEY=VALUE (for example hardware=h200)")
        if key in query:
            raise SelectionError(key, "given twice")
        query[key] = value
    return query


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["diff"]:  # `vllm-recipes diff ...`: see cli_diff.py
        from .cli_diff import main as diff_main

        return diff_main(words[1:])
    parser = argparse.ArgumentParser(
        prog="vllm-recipes",
        description="Print the command to serve a model with vLLM for a selection.",
        epilog="KEYs are the page's URL query keys: hardware, variant, strategy, nodes, "
        "frontend (rust|python), install (pip|docker), pd_connector (nixl|mooncake), "
        "kv_offload (off|cpu|fs), and each feature id of the recipe with on, off or a mode name.",
    )
    parser.add_argument("hf_id", nargs="?", help="a recipe's or a variant's model id")
    parser.add_argument("pairs", nargs="*", metavar="KEY=VALUE")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("--list", action="store_true", help="list every recipe and variant id")
    parser.add_argument("--recipes", type=Path, default=RECIPES, help=argparse.SUPPRESS)
    args = parser.parse_args(words)

    try:
        catalog = load_catalog(args.recipes)
    except InvalidRecipe as error:
        print(error, file=sys.stderr)
        return 1
    if args.list:
        for hf_id, recipe in catalog.recipes.items():
            print(f"{hf_id}\t{recipe.meta.title}")
            for variant_id, variant in recipe.variants.items():
                if variant.model_id and variant.model_id != hf_id:
                    print(f"{variant.model_id}\t{recipe.meta.title} (variant={variant_id})")
        return 0
    if not args.hf_id:
        parser.error("HF_ID is required (see --list)")
    try:
        hf_id, variant_id = catalog.find(args.hf_id)
    except KeyError:
        print(f"hf_id: unknown model {args.hf_id!r}; see vllm-recipes --list",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        query = _parse_pairs(args.pairs)
        if variant_id != "default" or args.hf_id != hf_id:
            if query.get("variant", variant_id) != variant_id:
                raise SelectionError(
                    "variant", f"{args.hf_id} is variant {variant_id!r}; drop variant= or "
                    f"use {hf_id}")
            query["variant"] = variant_id
        result = build(catalog.builder_catalog(), catalog.builder_recipe(hf_id), query)
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
