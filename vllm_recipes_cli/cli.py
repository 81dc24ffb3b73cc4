"""The `vllm-recipes` command line.

    vllm-recipes HF_ID [KEY=VALUE ...] [--json | --explain | --format F] [--detect]
                                                      install block and commands (or a file)
    vllm-recipes --list [--json]                      every recipe and variant id
    vllm-recipes --version                            the tool's version and the catalogue's date
    vllm-recipes --detect                             the hardware= of this machine
    vllm-recipes run HF_ID [KEY=VALUE ...] [--dry-run]  print, then start, the serve command
    vllm-recipes verify [URL] [--model ID]            check a running server (health, models,
                                                      one request)
    vllm-recipes diff HF_ID [KEY=VALUE ...] --command CMD   a command against the recipe's
    vllm-recipes HF_ID --dynamo [KEY=VALUE ...] [--json]    NVIDIA Dynamo deployment steps
    vllm-recipes check [DIR]                          validate a recipe tree
    vllm-recipes schema                               print the recipe JSON Schema
    vllm-recipes upstream PUBLIC_CHECKOUT [--json]    what changed in the public catalogue

Every answer comes from a `Catalogue` (catalogue.py) and the builder functions the page and
the JSON endpoints call. In a checkout the catalogue is the YAML tree, validated by the loader
(or read back from the cache of an earlier run while no file has changed: answer_cache.py); an
installed tool reads the validated catalogue its wheel carries, with the standard library only.
A usage error or a selection that cannot be honoured exits with status 2 and one line; invalid
recipe data exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from builder.commands.deploy_types import deploy_type
from builder.commands.fit import NO_ESTIMATE, no_estimate
from builder.commands.install import install_text
from builder.deployment.files import FILE_FORMATS, deploy_file
from builder.errors import SelectionError, quoted
from builder.estimates.report import summary_line
from builder.types import Result
from vllm_recipes.api_contract import cli_document, cli_dynamo_document
from vllm_recipes.catalogue import PACKAGED_SCHEMA, Catalogue

from .cli_common import (
    CHECKOUT_ONLY,
    EPILOG,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    MAX_LISTED,
    RECIPES,
    Answer,
    ArgumentParser,
    answer,
    cut,
    dynamo_targets,
    load,
    model_id_problem,
    no_tree,
    not_a_tree,
    notice_line,
    parse_pairs,
    report,
    tool_version,
    usage,
)
from .errors import InvalidRecipe, UsageError

# The loader, schema, deployments and subcommands are imported where they are used: an
# answer from the cache or from the packaged catalogue needs none of them.

__all__ = ["Answer", "UsageError", "answer", "load", "main", "tool_version"]

def _list(catalogue: Catalogue, as_json: bool) -> int:
    if as_json:  # /models.json without its links (model_index.py)
        from vllm_recipes.model_index import cli_models_document

        document = cli_models_document(catalogue.catalog, catalogue.recipes.values())
        print(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        for row in catalogue.rows():
            suffix = f" (variant={row['variant']})" if "variant" in row else ""
            print(f"{row['hf_id']}\t{cut(row['title'], 200)}{suffix}")
    return 0


def check(argv: list[str]) -> int:
    parser = ArgumentParser(prog="vllm-recipes check",
                                     description="Validate a recipe tree exactly as the build "
                                     "does; print every problem as file:line: field: message.")
    parser.add_argument("dir", nargs="?", type=Path,
                        help="the recipe tree (hardware.yaml, strategies/, models/; default: "
                        "the checkout's recipes/)")
    parser.add_argument("--recipes", type=Path, metavar="DIR", help="the same as DIR")
    args = parser.parse_args(argv)
    if args.dir and args.recipes:
        return usage("check takes DIR or --recipes DIR, not both")
    args.dir = args.dir or args.recipes or RECIPES
    unusable = no_tree("vllm-recipes check", args.dir) or not_a_tree(args.dir)
    if unusable:
        return usage(unusable)
    from vllm_recipes.configurations import load_configurations
    from vllm_recipes.deployments import load_deployments_with_problems
    from vllm_recipes.loader import load_catalog_with_problems

    catalog, found = load_catalog_with_problems(args.dir)
    problems = [str(p) for p in found]
    problems += load_deployments_with_problems(args.dir)[1]
    if catalog is not None and not problems:  # what the build loads next
        try:
            load_configurations(catalog)
        except InvalidRecipe as error:
            problems += str(error).splitlines()
    for problem in problems[:MAX_LISTED]:
        print(cut(problem))
    if len(problems) > MAX_LISTED:
        print(f"... and {len(problems) - MAX_LISTED} more")
    if problems or catalog is None:
        print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''}", file=sys.stderr)
        return EXIT_PROBLEMS
    print(f"{len(catalog.recipes)} recipes, {len(catalog.hardware.hardware)} hardware, "
          f"{len(catalog.strategies)} strategies: no problems")
    return 0


def schema(argv: list[str]) -> int:
    ArgumentParser(prog="vllm-recipes schema",
                            description="Print the JSON Schema of recipe files.").parse_args(argv)
    if PACKAGED_SCHEMA.is_file():  # an installed tool: written by the wheel's build
        sys.stdout.write(PACKAGED_SCHEMA.read_text(encoding="utf-8"))
        return 0
    from vllm_recipes.schema import json_schema

    print(json.dumps(json_schema(), indent=2, sort_keys=True))
    return 0


def diff(argv: list[str]) -> int:
    from .cli_diff import main as diff_main  # `vllm-recipes diff ...`: see cli_diff.py

    return diff_main(argv)


def port(argv: list[str]) -> int:
    from .port import main as port_main  # a first draft from the public catalogue's format

    return port_main(argv)


def upstream(argv: list[str]) -> int:
    from .upstream import main as upstream_main  # what changed in the public catalogue

    return upstream_main(argv, RECIPES)


def run(argv: list[str]) -> int:
    from .run import main as run_main  # `vllm-recipes run ...`: see run.py

    return run_main(argv)


def verify(argv: list[str]) -> int:
    from .verify import main as verify_main  # `vllm-recipes verify ...`: see verify.py

    return verify_main(argv)


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "check": check, "schema": schema, "diff": diff, "port": port, "upstream": upstream,
    "run": run, "verify": verify}


def _no_estimate(catalogue: Catalogue, result: Result) -> str | None:
    """Why the selection has no fit estimate, where it is worth saying: a variant the facts do
    not cover, or GPUs asked of a recipe without facts."""
    why = no_estimate(catalogue.recipes[result["hf_id"]], result["selection"]["variant"])
    return why if why and (why != NO_ESTIMATE or "gpus" in result["selection"]) else None


def explain(catalogue: Catalogue, result: Result) -> str:
    """The commands with, under each option and variable, where it came from."""
    lines: list[str] = [f"# {result['summary']}"]
    fit = result.get("fit")
    if fit:
        lines += [f"# fit: {fit['line']}", f"#   facts: {fit['facts_file']}",
                  *(f"#   {line}" for line in fit["arithmetic"])]
    elif why := _no_estimate(catalogue, result):
        lines.append(f"# {why}")
    for command in result["commands"]:
        lines += ["", f"## {command['label']}", " ".join(command["argv"][:3])]
        for source in command["sources"]["args"]:
            lines.append(f"  {' '.join(source['option'])}")
            lines.append(f"      ← {_where(catalogue, source)}")
            for old in source["replaced"]:
                verb = "merged into" if old["merged"] else "replaced"
                lines.append(f"        {verb} {' '.join(old['option'])} from "
                             f"{_where(catalogue, old)}")
        for name, env_source in command["sources"]["env"].items():
            lines.append(f"  env {name}={env_source['value']}")
            lines.append(f"      ← {_where(catalogue, env_source)}")
    return "\n".join(lines) + "\n"


def _where(catalogue: Catalogue, origin: Any) -> str:
    line = catalogue.source_line(origin["file"], origin["path"])
    place = f"{origin['file']}:{line}" if line else origin["file"]
    return f"{place} {origin['path']} ({origin['layer']})"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show "→" or "é"
        if hasattr(stream, "reconfigure") and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")
    try:
        if argv and argv[0] in SUBCOMMANDS:
            return SUBCOMMANDS[argv[0]](argv[1:])
        return _serve(argv)
    except BrokenPipeError:  # `vllm-recipes --list | head`
        sys.stderr.close()
        return 0
    except UsageError as error:
        return usage(str(error))
    except InvalidRecipe as error:
        report(error)
        return EXIT_PROBLEMS
    except ModuleNotFoundError as error:
        if error.name not in CHECKOUT_ONLY:
            raise
        what = f"vllm-recipes {argv[0]}" if argv and argv[0] in SUBCOMMANDS else "this"
        return usage(f"{what} reads a recipe tree (--recipes DIR) and needs {error.name}, "
                     "which the installed tool does without; run it in a checkout (make "
                     "install), or install the tool with its [site] extra")


def _parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
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
    output.add_argument("--format", choices=list(FILE_FORMATS),
                        help="print a file instead of the command: " + "; ".join(
                            f"{fmt} ({spec.label}, {spec.filename})"
                            for fmt, spec in FILE_FORMATS.items()))
    parser.add_argument("--detect", action="store_true",
                        help="pick hardware= from this machine (nvidia-smi, amd-smi or "
                        "rocm-smi, npu-smi, $TPU_ACCELERATOR_TYPE, lscpu)")
    parser.add_argument("--list", action="store_true", help="list every recipe and variant id")
    parser.add_argument("--version", action="store_true",
                        help="print the tool's version and the catalogue's date")
    parser.add_argument("--dynamo", action="store_true",
                        help="print the steps that deploy the model with NVIDIA Dynamo on "
                        "Kubernetes; KEYs are framework, gpu and topology")
    parser.add_argument("--recipes", type=Path, default=RECIPES, help=argparse.SUPPRESS)
    return parser


def _serve(argv: list[str]) -> int:
    args = _parser().parse_intermixed_args(argv)
    if args.recipes != RECIPES or RECIPES.is_dir():  # (an installed tool has no tree)
        unusable = not_a_tree(args.recipes)
        if unusable:
            return usage(unusable)
    if args.version:
        if args.hf_id or args.pairs or args.list:
            return usage("--version takes no model id, KEY=VALUE or --list")
        catalogue = load(args.recipes)
        print(f"vllm-recipes {tool_version()} (catalogue {catalogue.date()}, "
              f"{len(catalogue.recipes)} recipes)")
        return 0
    if args.dynamo:
        return dynamo_main(args)
    if args.list:
        if args.hf_id or args.pairs or args.explain or args.format or args.detect:
            return usage("--list takes no model id or KEY=VALUE (only --json)")
        return _list(load(args.recipes), args.json)
    pairs = list(args.pairs)
    if args.detect:
        if any(pair.partition("=")[0] == "hardware" for pair in pairs):
            return usage("--detect picks hardware= itself; drop hardware= or --detect")
        from .detect import detect

        catalogue = load(args.recipes, args.hf_id)
        found = detect(catalogue.catalog)
        print(f"vllm-recipes: {found.line}", file=sys.stderr)
        chosen = [f"hardware={found.hardware}", *([f"gpus={found.gpus}"] if found.gpus else [])]
        if not args.hf_id:
            print(" ".join(chosen))
            return 0
        pairs += [pair for pair in chosen if pair.partition("=")[0] not in
                  {p.partition("=")[0] for p in pairs}]
    if not args.hf_id:
        return usage("HF_ID is required (see vllm-recipes --list)")
    problem = model_id_problem(args.hf_id)
    if problem:
        return usage(problem)
    catalogue = load(args.recipes, args.hf_id)
    try:
        done = answer(catalogue, args.hf_id, pairs, notice_line)
    except SelectionError as error:
        print(cut(str(error)), file=sys.stderr)
        return EXIT_USAGE
    result = done.result
    if args.json:
        _, variant_id = catalogue.find(args.hf_id)
        model_id = args.hf_id if variant_id != "default" else done.hf_id
        document = cli_document(catalogue.catalog, done.recipe, result, model_id=model_id,
                                query=done.query)
        print(json.dumps(document, indent=2, ensure_ascii=False))
    elif args.explain:
        sys.stdout.write(explain(catalogue, result))
    elif args.format:
        return _file(args, catalogue, done)
    else:
        install = result["install"][result["selection"]["install"]]
        sys.stdout.write(install_text(result["selection"]["install"], install) + "\n"
                         + result["copy_text"])
        fit = result.get("fit")
        if fit:  # what fits the GPUs (--explain says so where there is no estimate)
            print(f"vllm-recipes: {fit['line']}", file=sys.stderr)
        elif (why := _no_estimate(catalogue, result)) and why != NO_ESTIMATE:
            print(f"vllm-recipes: {why}", file=sys.stderr)
        # how fast: the estimate with its source, or "no estimate" and why
        print(f"vllm-recipes: {summary_line(result['performance'])}", file=sys.stderr)
    return 0


def _file(args: argparse.Namespace, catalogue: Catalogue, done: Answer) -> int:
    """`--format F`: the file for the selection (builder.deployment.files), or why there is none."""
    deploy = deploy_type(catalogue.catalog["strategies"][done.result["selection"]["strategy"]])
    dynamo = deploy.dynamo and done.hf_id in dynamo_targets(args.recipes, catalogue)
    entry = deploy_file(catalogue.catalog, done.recipe, done.result, args.format, dynamo=dynamo)
    if not entry["available"]:
        print(f"format: {entry['reason']}", file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(entry["text"] or "")
    return 0


def dynamo_main(args: argparse.Namespace) -> int:
    """`vllm-recipes HF_ID --dynamo [framework=...] [gpu=...] [topology=...] [--json]`: the
    steps that deploy a model's NVIDIA Dynamo target (builder.dynamo.targets, as the page)."""
    if args.explain:
        return usage("--explain is for vLLM commands; with --dynamo use --json")
    if args.format or args.detect:
        return usage("--dynamo prints its own Kubernetes steps; --format and --detect are for "
                      "vLLM selections")
    from builder.dynamo import targets as dynamo

    targets = dynamo_targets(args.recipes, load(args.recipes, args.hf_id))
    if args.list:
        for hf_id in targets:
            print(hf_id)
        return 0
    if not args.hf_id:
        return usage("HF_ID is required (see vllm-recipes --dynamo --list)")
    if args.hf_id not in targets:
        known = ", ".join(targets) or "none"
        print(cut(f"hf_id: no NVIDIA Dynamo deployments for {quoted(args.hf_id)} (models "
                   f"with some: {known})"), file=sys.stderr)
        return EXIT_USAGE
    try:
        query = parse_pairs(args.pairs, example="gpu=h200")
        result = dynamo.build(targets[args.hf_id], query)
    except SelectionError as error:
        print(cut(str(error)), file=sys.stderr)
        return EXIT_USAGE
    if args.json:  # the item of /<hf_id>/deployments.json for the selection
        document = cli_dynamo_document(args.hf_id, result)
        print(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(result["copy_text"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
