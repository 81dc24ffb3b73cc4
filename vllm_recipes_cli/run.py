"""`vllm-recipes run HF_ID [KEY=VALUE ...] [--detect] [--dry-run]`: print the selection's serve
command in its pip form (`install=pip`), then start it in place of this process (the
command's environment set, `$VAR` and `~/` expanded as the shell would).

A selection of several servers (multi-node, prefill/decode, KV store) is printed, node by node,
and not started: those commands run on different machines. Exit status 2 with one line for
that, for a selection without a pip form, for an unset variable the command needs, and when
`vllm` is not on PATH.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from pathlib import Path

from builder.errors import SelectionError

from .cli_common import EXIT_USAGE, RECIPES, ArgumentParser, answer, load, notice_line
from .errors import UsageError

__all__ = ["main"]

_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def _expand(token: str, env: dict[str, str]) -> str:
    token = os.path.expanduser(token) if token.startswith("~/") else token
    missing = [name for name in _VAR.findall(token) if name not in env]
    if missing:
        raise UsageError(f"run: the command refers to ${missing[0]}; export it first")
    return _VAR.sub(lambda m: env[m.group(1)], token)


def main(argv: list[str]) -> int:
    parser = ArgumentParser(
        prog="vllm-recipes run",
        description="Print the pip-form serve command of a selection, then run it here.")
    parser.add_argument("hf_id", nargs="?", help="a recipe's or a variant's model id")
    parser.add_argument("pairs", nargs="*", metavar="KEY=VALUE")
    parser.add_argument("--dry-run", action="store_true", help="print the command only")
    parser.add_argument("--detect", action="store_true",
                        help="pick hardware= from this machine (see vllm-recipes --help)")
    parser.add_argument("--recipes", type=Path, default=RECIPES, help=argparse.SUPPRESS)
    args = parser.parse_intermixed_args(argv)
    if not args.hf_id:
        raise UsageError("run: HF_ID is required (see vllm-recipes --list)")
    pairs = list(args.pairs)
    if any(p.partition("=")[0] == "install" and p != "install=pip" for p in pairs):
        raise UsageError("run starts the pip form (install=pip); for Docker, run "
                         f"`vllm-recipes {args.hf_id} install=docker` and paste it")
    catalogue = load(args.recipes, args.hf_id)
    if args.detect:
        if any(p.partition("=")[0] == "hardware" for p in pairs):
            raise UsageError("--detect picks hardware= itself; drop hardware= or --detect")
        from .detect import detect

        found = detect(catalogue.catalog)
        print(f"vllm-recipes: {found.line}", file=sys.stderr)
        pairs.append(f"hardware={found.hardware}")
    try:
        result = answer(catalogue, args.hf_id, pairs, notice_line,
                        extra={"install": "pip"}).result
    except SelectionError as error:
        print(error, file=sys.stderr)
        return EXIT_USAGE
    sys.stdout.write(result["copy_text"])
    sys.stdout.flush()
    commands = result["commands"]
    if len(commands) > 1:
        if args.dry_run:
            return 0
        raise UsageError(f"run: {result['summary']} runs {len(commands)} commands on their own "
                         "machines; start each one there (run starts one server on this "
                         "machine)")
    if args.dry_run:
        return 0
    (command,) = commands
    env = {**os.environ}
    for name, value in command["env"].items():
        env[name] = _expand(value, env)
    words = [_expand(token, env) for token in command["argv"]]
    if shutil.which(words[0], path=env.get("PATH")) is None:
        steps = (result["install"]["pip"]["command"] or "").replace("\n", "; ")
        raise UsageError(f"run: {words[0]} is not on PATH; install vLLM first ({steps})")
    os.execvpe(words[0], words, env)
    return 0  # not reached: the server replaced this process
