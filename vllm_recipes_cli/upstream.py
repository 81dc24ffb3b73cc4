"""`vllm-recipes upstream PUBLIC_CHECKOUT`: what changed in the public catalogue since each
recipe was ported.

A recipe ported from the public catalogue (github.com/vllm-project/recipes) records where from:
`upstream: {path, commit}`. This reads a checkout of the public repository (its `models/` tree,
and `git log` where the checkout is a git tree) and reports:

- **new**: public model files no recipe came from, whose model id is not ours either (not a
  recipe, a variant's model id or an alias);
- **removed**: recipes whose public file is gone (a retired recipe is listed apart: handled);
- **changed**: recipes whose public file has commits after the recorded one, with a field-level
  summary of the file then and now (args, env, hardware, variants, strategies, other);
- **unknown**: recipes whose recorded commit the checkout does not have (an older or shallow
  checkout), and every recipe's change status when the checkout is not a git tree.

A checkout can also be a tree assembled from stored versions of the public files (each file at
its own commit, as an index of public files holds them): its `MANIFEST.txt` names each file's
commit, one `<path> <commit>` line per file (`#` starts a comment; further columns are notes).
A recipe whose recorded commit is the one the manifest names is up to date; one whose recorded
commit differs is changed, compared field by field where the checkout's git history has the
recorded version, and otherwise listed with both commits.

Exit status: 0 when nothing is new, removed or changed; 1 when something is; 2 on bad input.
"""

from __future__ import annotations

import datetime
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from builder.text_safety import printable

from .cli_common import MAX_LINE, ArgumentParser, no_tree, usage
from .errors import InvalidRecipe

__all__ = ["Changed", "Report", "field_changes", "main", "report"]

EXIT_NEWS = 1
EXIT_USAGE = 2
MAX_FILE_BYTES = 1 << 20
"""A public model file larger than this is not read (no real recipe comes near it)."""
MAX_CHANGES = 12
"""Field changes listed per recipe in the text output (then "and N more")."""
VALUE_CHARS = 60
SHOWN_ID = 200
"""The most characters of a public file's model id the report shows (escaped: a public file
is anyone's text; builder.text_safety)."""
SHOWN_PATH = 300
CATEGORIES = ("args", "env", "hardware", "variants", "strategies", "other")


@dataclass
class Changed:
    hf_id: str
    path: str
    commits: int
    """Commits to the public file after the recorded one (0 when only a manifest says)."""
    changes: dict[str, list[str]] = field(default_factory=dict)
    """Category → "added x" / "removed x" / "changed x: a → b" lines."""
    now: str | None = None
    """The commit the checkout's manifest names for the file (a tree of stored versions)."""
    recorded: str | None = None
    """The recorded commit, when it is not in the checkout's history (fields not compared)."""


@dataclass
class Report:
    checkout: str
    head: str | None
    """The checkout's commit (None when it is not a git tree)."""
    new: list[dict[str, str]] = field(default_factory=list)
    removed: list[dict[str, str]] = field(default_factory=list)
    retired_removed: list[dict[str, str]] = field(default_factory=list)
    changed: list[Changed] = field(default_factory=list)
    unknown: list[dict[str, str]] = field(default_factory=list)

    @property
    def news(self) -> bool:
        return bool(self.new or self.removed or self.changed)


class UpstreamError(Exception):
    """Bad input: the checkout or the recipe tree cannot be read (one line)."""


# ---------------------------------------------------------------- reading the checkout


def _git(checkout: Path, *args: str) -> str | None:
    """`git -C checkout args` output, or None when git fails (not a tree, unknown commit)."""
    try:
        run = subprocess.run(["git", "-C", str(checkout), *args], capture_output=True,
                             check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    # Bytes as file names are: a name that is not UTF-8 keeps its bytes (surrogateescape).
    return os.fsdecode(run.stdout) if run.returncode == 0 else None


def _commits_since(checkout: Path, commit: str) -> dict[str, int] | str:
    """How many commits after `commit` touched each file of `models/` (one `git log`), or why
    they cannot be counted: the checkout lacks `commit`, or its HEAD does not descend from it
    (a checkout older than the port, or a commit of a pull request the branch never merged)."""
    if _git(checkout, "cat-file", "-e", f"{commit}^{{commit}}") is None:
        return "the checkout lacks the recorded commit"
    if _git(checkout, "merge-base", "--is-ancestor", commit, "HEAD") is None:
        return "the recorded commit is not in the history of the checkout's HEAD"
    log = _git(checkout, "log", "--format=", "--name-only", f"{commit}..HEAD", "--", "models")
    counts: dict[str, int] = {}
    for line in (log or "").splitlines():
        if line.strip():
            counts[line.strip()] = counts.get(line.strip(), 0) + 1
    return counts


MANIFEST = "MANIFEST.txt"


def read_manifest(checkout: Path) -> dict[str, str]:
    """`MANIFEST.txt` of a tree of stored versions: public path → the commit of the version
    the tree holds (empty without one; a line that is not `<path> <commit> ...` is skipped)."""
    text = _public_text(checkout / MANIFEST)
    found: dict[str, str] = {}
    for line in (text or "").splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) >= 2 and all(c in "0123456789abcdef" for c in words[1].lower()):
            found[words[0]] = words[1].lower()
        if len(found) > 100_000:
            break
    return found


def _by_manifest(checkout: Path, row: dict[str, str], now: str, git: bool) -> Changed | None:
    """A recipe whose recorded commit is not the one the manifest names: its changes field by
    field when the checkout's git history has the recorded version (None when the data is the
    same: another commit with the same file), else both commits."""
    then = _git(checkout, "show", f"{row['commit']}:{row['path']}") if git else None
    if then is None:
        return Changed(row["hf_id"], row["path"], 0, {}, now, row["commit"])
    changes = field_changes(_load(then), _load(_public_text(checkout / row["path"])))
    return Changed(row["hf_id"], row["path"], 0, changes, now) if changes else None


def _is_git_tree(checkout: Path) -> bool:
    top = _git(checkout, "rev-parse", "--show-toplevel")
    return top is not None and Path(top.strip()).resolve() == checkout.resolve()


def _load(text: str | None) -> Any:
    """A public file's data; None when it is not YAML, or not within the recipe loader's
    bounds (size, nesting, aliases: `yaml_source`)."""
    if text is None:
        return None
    from vllm_recipes.yaml_source import load_text  # PyYAML: `upstream --help` needs none

    try:
        return load_text(text, "public file")
    except InvalidRecipe:
        return None


def _public_text(path: Path) -> str | None:
    """A public file's text (undecodable bytes replaced); None for anything but a regular
    file of at most MAX_FILE_BYTES (a FIFO or a device is never read)."""
    try:
        info = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
        return None
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace") if len(data) <= MAX_FILE_BYTES else None


def _model_id(data: Any) -> str | None:
    model = data.get("model") if isinstance(data, dict) else None
    value = model.get("model_id") if isinstance(model, dict) else None
    return value if isinstance(value, str) else None


def public_models(checkout: Path) -> dict[str, str | None]:
    """`models/<org>/<repo>.yaml` path → its model id (None when the file does not say)."""
    found: dict[str, str | None] = {}
    for path in sorted((checkout / "models").glob("*/*.yaml")):
        text = _public_text(path)
        if text is None:
            continue
        found[path.relative_to(checkout).as_posix()] = _model_id(_load(text))
    return found


# ---------------------------------------------------------------- field-level summary


def _flatten(data: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(data, dict) and data:
        for key, value in data.items():
            yield from _flatten(value, f"{prefix}.{key}" if prefix else str(key))
    else:
        yield prefix, data


def _category(path: str) -> str:
    parts = path.split(".")
    if parts[0] == "variants":
        return "variants"
    if any("strateg" in part for part in parts):
        return "strategies"
    if any(part.endswith("env") for part in parts):
        return "env"
    if any(part.endswith("args") for part in parts):
        return "args"
    if any("hardware" in part or part == "platforms" for part in parts):
        return "hardware"
    return "other"


def _short(value: Any) -> str:
    if isinstance(value, datetime.date):  # YAML dates load as date objects
        value = value.isoformat()
    if isinstance(value, str):
        return printable(value, VALUE_CHARS)
    text = json.dumps(value, ensure_ascii=False, default=str)
    return printable(text, VALUE_CHARS)


def _token_changes(path: str, old: Any, new: Any) -> list[str] | None:
    """An argument list's change as the tokens added and removed, or None if not one."""
    if not (isinstance(old, list) and isinstance(new, list)):
        return None
    if not all(isinstance(t, str | int | float | bool) for t in [*old, *new]):
        return None
    before, after = [str(t) for t in old], [str(t) for t in new]
    added = [t for t in after if t not in before]
    gone = [t for t in before if t not in after]
    lines = []
    if added:
        lines.append(f"added to {path}: {_short(' '.join(added))}")
    if gone:
        lines.append(f"removed from {path}: {_short(' '.join(gone))}")
    return lines or [f"reordered {path}"]


def field_changes(old: Any, new: Any) -> dict[str, list[str]]:
    """What changed between two versions of a public model file, by category."""
    before, after = dict(_flatten(old or {})), dict(_flatten(new or {}))
    out: dict[str, list[str]] = {}
    for key in [*before, *(p for p in after if p not in before)]:
        path = printable(key, SHOWN_PATH)  # a key of a public file: anyone's text
        if key not in after:
            line = [f"removed {path}"]
        elif key not in before:
            line = [f"added {path}: {_short(after[key])}"]
        elif before[key] != after[key]:
            line = _token_changes(path, before[key], after[key]) or [
                f"changed {path}: {_short(before[key])} → {_short(after[key])}"]
        else:
            continue
        out.setdefault(_category(key), []).extend(line)
    return {c: out[c] for c in CATEGORIES if c in out}


# ---------------------------------------------------------------- the report


def _ours(recipes: Mapping[str, Any]) -> set[str]:
    ids: set[str] = set()
    for hf_id, recipe in recipes.items():
        ids.add(hf_id.casefold())
        ids.update(a.casefold() for a in recipe.aliases)
        ids.update(v.model_id.casefold() for v in recipe.variants.values() if v.model_id)
    return ids


def report(checkout: Path, recipes: Mapping[str, Any]) -> Report:
    """Compare `recipes` (hf_id → validated Recipe) with a public checkout."""
    checkout = Path(checkout)
    if not (checkout / "models").is_dir():
        raise UpstreamError(f"{checkout}: not a checkout of the public catalogue (no models/)")
    git = _is_git_tree(checkout)
    head = (_git(checkout, "rev-parse", "HEAD") or "").strip() or None if git else None
    public = public_models(checkout)
    manifest = read_manifest(checkout)
    result = Report(printable(str(checkout), SHOWN_PATH), head)
    ported = {r.upstream.path: h for h, r in recipes.items() if r.upstream is not None}
    ours = _ours(recipes)
    for path, model_id in public.items():
        if path in ported or (model_id or "").casefold() in ours:
            continue
        result.new.append({"path": printable(path, SHOWN_PATH),
                           "model_id": printable(model_id or "?", SHOWN_ID)})
    known: dict[str, dict[str, int] | str] = {}
    """Recorded commit → commits per public path after it, or why they cannot be counted."""
    for path, hf_id in ported.items():
        recipe = recipes[hf_id]
        commit = recipe.upstream.commit
        row = {"hf_id": hf_id, "path": path, "commit": commit}
        held = manifest.get(path) if path in public else None
        if held == commit.lower():  # the tree holds the very version recorded
            continue
        if git:
            if commit not in known:
                known[commit] = _commits_since(checkout, commit)
            since = known[commit]
        else:
            since = "not a git tree: changes unknown"
        if isinstance(since, str):
            if held is not None:
                changed = _by_manifest(checkout, row, held, git)
                result.changed.extend([changed] if changed else [])
            elif not git and path not in public:
                (result.retired_removed if recipe.retired else result.removed).append(row)
            else:
                result.unknown.append({**row, "why": since})
            continue
        if path not in public:
            (result.retired_removed if recipe.retired else result.removed).append(row)
            continue
        commits = since.get(path, 0)
        if not commits:
            continue
        then = _git(checkout, "show", f"{commit}:{path}")
        now = _public_text(checkout / path)
        changes = field_changes(_load(then), _load(now))
        result.changed.append(Changed(hf_id, path, commits, changes))
    return result


def render_text(result: Report) -> str:
    at = f" at {result.head[:12]}" if result.head else " (not a git tree)"
    lines = [f"public catalogue {result.checkout}{at}"]
    lines.append(f"new public models: {len(result.new)}")
    lines += [f"  {row['model_id']}  ({row['path']})" for row in result.new]
    lines.append(f"removed upstream: {len(result.removed)}")
    lines += [f"  {row['hf_id']}  ({row['path']})" for row in result.removed]
    if result.retired_removed:
        lines.append(f"removed upstream, retired here: {len(result.retired_removed)}")
        lines += [f"  {row['hf_id']}" for row in result.retired_removed]
    lines.append(f"changed upstream since the port: {len(result.changed)}")
    for changed in result.changed:
        plural = "s" if changed.commits != 1 else ""
        since = (f"at {changed.now[:12]}" if changed.now
                 else f"{changed.commits} commit{plural}")
        lines.append(f"  {changed.hf_id}  ({changed.path}, {since})")
        if changed.recorded:
            lines.append(f"    the checkout lacks the recorded version ({changed.recorded[:12]}):"
                         " fields not compared")
        flat = [(c, line) for c, items in changed.changes.items() for line in items]
        for category, line in flat[:MAX_CHANGES]:
            lines.append(f"    {category}: {line}")
        if len(flat) > MAX_CHANGES:
            lines.append(f"    and {len(flat) - MAX_CHANGES} more")
    if result.unknown:
        lines.append(f"not compared: {len(result.unknown)}")
        lines += [f"  {row['hf_id']}: {row['why']}" for row in result.unknown[:MAX_CHANGES]]
        if len(result.unknown) > MAX_CHANGES:
            lines.append(f"  and {len(result.unknown) - MAX_CHANGES} more")
    return "\n".join(printable(line, MAX_LINE) for line in lines) + "\n"


def main(argv: list[str], recipes_dir: Path) -> int:
    parser = ArgumentParser(
        prog="vllm-recipes upstream",
        description="Report what changed in the public catalogue since each recipe was "
        "ported: new public models, removed ones, changed ones with a field-level summary. "
        "Exit 0: nothing new; 1: something is; 2: bad input.")
    parser.add_argument("checkout", type=Path,
                        help="a checkout of github.com/vllm-project/recipes")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--recipes", type=Path, default=recipes_dir, metavar="DIR",
                        help="our recipe tree (default: the checkout's recipes/)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_USAGE if exit_.code else 0
    unusable = no_tree("vllm-recipes upstream", args.recipes)
    if unusable:
        return usage(unusable)
    from vllm_recipes.loader import load_catalog

    try:
        if not (args.checkout / "models").is_dir():  # before the tree's load (seconds)
            raise UpstreamError(f"{args.checkout}: not a checkout of the public catalogue "
                                "(no models/)")
        catalog = load_catalog(args.recipes)
        result = report(args.checkout, catalog.recipes)
    except (UpstreamError, InvalidRecipe, OSError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"vllm-recipes upstream: {printable(first, MAX_LINE)}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(asdict(result), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(render_text(result))
    return EXIT_NEWS if result.news else 0
