"""`vllm-recipes diff HF_ID [KEY=VALUE ...] --command "<cmd>" [--json]`: a vLLM command against
the builder's command for a selection, flag by flag (`builder.diff.compare`, the function the page's
"Compare your command" box runs). `--command -` reads the command from standard input.

Exit status: 0 with the diff printed (whether or not anything differs), 1 when the recipe data
does not validate, 2 with one line on standard error for an unknown model, key or value, or a
text that is not one `vllm serve` command.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from builder.diff.command_diff import MAX_CHARS, CommandDiff, CommandError, ValueDiff
from builder.diff.compare import Comparison, compare
from builder.errors import SelectionError
from builder.text_safety import printable

from .cli_common import (
    EXIT_USAGE,
    RECIPES,
    ArgumentParser,
    UsageError,
    cut,
    load,
    model_id_problem,
    not_a_tree,
    notice_line,
    report,
    resolve,
)
from .errors import InvalidRecipe

__all__ = ["format_comparison", "main"]

ARROW = "→"
MAX_DIFF_LINE = 4000
"""The longest line of the text diff (a JSON value of a flag, quoted whole up to this)."""


def _value(text: str | None) -> str:
    return "(not set)" if text is None else text or '""'


def _line(entry: ValueDiff, *, env: bool = False, indent: str = "  ") -> list[str]:
    """`changed  --flag: 4 → 8`; a switch as `removed  --flag → (not set)`; JSON keys below."""
    name = f"env {entry['name']}" if env else entry["name"]
    recipe, command = entry["recipe"], entry["command"]
    if any(v is not None and v.startswith("-") and v.lstrip("-") for v in (recipe, command)):
        head = f"{_value(recipe)} {ARROW} {_value(command)}"  # a switch: its flag is its value
    else:
        head = f"{name}: {_value(recipe)} {ARROW} {_value(command)}"
    lines = [f"{indent}{entry['status']:<8} {head}"]
    if entry["status"] == "changed":
        for key in entry["keys"]:
            if key["status"] != "equal":
                lines.append(f"{indent}{'':<8}   .{key['name']} ({key['status']}): "
                             f"{_value(key['recipe'])} {ARROW} {_value(key['command'])}")
    return lines


def format_comparison(comparison: Comparison) -> str:
    """The diff as text: what differs, then deployment-specific entries, then what is equal."""
    diff: CommandDiff = comparison["diff"]
    out = [f"Compared with the builder's {comparison['against']} command for "
           f"{comparison['summary']}",
           f"Differences: {diff['summary']}"]
    rows = [(diff["model"], False), *((e, False) for e in diff["flags"]),
            *((e, True) for e in diff["env"])]
    for entry, env in rows:
        if entry["kind"] != "deployment" and entry["status"] != "equal":
            out += _line(entry, env=env)
    deployment = [(e, env) for e, env in rows if e["kind"] == "deployment"
                  and e["status"] != "equal"]
    if diff["image"] is not None and diff["image"]["status"] != "equal":
        deployment.append((diff["image"], False))
    if deployment:
        out.append("Deployment-specific (host, port, names, logging, NUMA binding, devices):")
        for entry, env in deployment:
            out += _line(entry, env=env)
    same = [e["name"] for e, _ in rows if e["kind"] != "deployment" and e["status"] == "equal"]
    if same:
        out.append(f"Same as the recipe: {', '.join(same)}")
    # A pasted command's text may hold anything: escaped, each line bounded.
    return "\n".join(printable(line, MAX_DIFF_LINE) for line in out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="vllm-recipes diff",
        description="Compare a vLLM command with the recipe's command for a selection.",
        epilog="KEYs are the model page's URL query keys (see `vllm-recipes --help`).",
    )
    parser.add_argument("hf_id", help="a recipe's or a variant's model id")
    parser.add_argument("pairs", nargs="*", metavar="KEY=VALUE")
    parser.add_argument("--command", required=True, metavar="CMD",
                        help='the command to compare, quoted; "-" reads it from stdin')
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    parser.add_argument("--recipes", type=Path, default=RECIPES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    tree = args.recipes != RECIPES or RECIPES.is_dir()  # (an installed tool has no tree)
    problem = (not_a_tree(args.recipes) if tree else None) or model_id_problem(args.hf_id)
    if problem:
        print(f"vllm-recipes diff: {problem}", file=sys.stderr)
        return EXIT_USAGE
    text = sys.stdin.read(MAX_CHARS + 1) if args.command == "-" else args.command
    try:
        catalogue = load(args.recipes, args.hf_id)
        _, recipe, query = resolve(catalogue, args.hf_id, args.pairs, notice_line)
        comparison = compare(catalogue.catalog, recipe, query, text)
    except InvalidRecipe as error:
        report(error)
        return 1
    except UsageError as error:  # an unknown model, with the right letter case if it has one
        print(cut(str(error)), file=sys.stderr)
        return EXIT_USAGE
    except SelectionError as error:
        print(cut(str(error)), file=sys.stderr)
        return EXIT_USAGE
    except CommandError as error:
        print(cut(f"command: {error}"), file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(comparison, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(format_comparison(comparison))
    return 0
