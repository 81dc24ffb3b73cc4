"""Site build time and size for the real catalog and for copies of it 10× and 100× as large.

Each copy of a recipe gets new model ids (the recipe's and its variants', suffixed `-x007`)
in a temporary recipe tree; the site is built from it with `mkdocs build --strict` (the
plugin reads RECIPES_DIR), as `make build` does, and the output is measured.

    python -m benchmarks.bench_build                  scales 1, 10, 100
    python -m benchmarks.bench_build --scales 1,10    quicker
    python -m benchmarks.bench_build --workers 1      render recipes in-process (no pool)
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "recipes"


def recipe_tree(target: Path, scale: int) -> int:
    """Write a recipe tree with `scale` copies of every recipe; returns the recipe count."""
    shutil.copy(RECIPES / "hardware.yaml", target / "hardware.yaml")
    shutil.copytree(RECIPES / "strategies", target / "strategies")
    sources = sorted((RECIPES / "models").glob("*/*.yaml"))
    if scale == 1:
        shutil.copytree(RECIPES / "models", target / "models")
        return len(sources)
    count = 0
    for source in sources:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
        for copy in range(scale):
            recipe = _renamed(data, f"-x{copy:03d}")
            org, repo = recipe["model"]["model_id"].split("/")
            path = target / "models" / org / f"{repo}.yaml"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(yaml.safe_dump(recipe, sort_keys=False, allow_unicode=True),
                            encoding="utf-8")
            count += 1
    return count


def _renamed(data: dict[str, Any], suffix: str) -> dict[str, Any]:
    recipe = yaml.safe_load(yaml.safe_dump(data))  # a deep copy
    recipe["model"]["model_id"] += suffix
    recipe["meta"]["title"] += suffix
    recipe["meta"]["slug"] += suffix.lower()
    recipe["meta"]["related_recipes"] = []
    for variant in recipe["variants"].values():
        if variant.get("model_id"):
            variant["model_id"] += suffix
    return recipe


def site_stats(site: Path) -> dict[str, int]:
    sizes: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    for path in site.rglob("*"):
        if not path.is_file():
            continue
        parts = path.relative_to(site).parts
        kind = ("assets" if parts[0] == "assets" else
                "search" if parts[0] == "search" else
                path.suffix.lstrip(".") or "other")
        if kind not in {"assets", "search", "html", "json"}:
            kind = "other"
        sizes[kind] += path.stat().st_size
        counts[kind] += 1
    return {**{f"{k}_bytes": v for k, v in sizes.items()},
            **{f"{k}_files": v for k, v in counts.items()},
            "total_bytes": sum(sizes.values()), "total_files": sum(counts.values())}


def build(recipes: Path, site: Path, workers: str | None) -> tuple[float, int]:
    """(seconds, peak RSS in MB of the build or any of its workers)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "RECIPES_DIR": str(recipes)}
    if workers is not None:
        env["RECIPES_WORKERS"] = workers
    start = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"build failed:\n{run.stdout}{run.stderr}")
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, peak_kb // 1024


def mb(n: int) -> str:
    return f"{n / 1e6:8.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,10,100")
    parser.add_argument("--workers", default=None,
                        help="recipe render processes (default: the plugin's choice)")
    args = parser.parse_args()
    scales = [int(s) for s in args.scales.split(",")]
    print(f"{'scale':>5} {'recipes':>7} {'build s':>8} {'s/recipe':>8} {'peak MB':>7} "
          f"{'site MB':>8} {'files':>7} {'JSON MB':>8} {'JSON n':>7} {'HTML MB':>8} "
          f"{'search MB':>9} {'assets MB':>9}")
    for scale in scales:
        with tempfile.TemporaryDirectory(prefix=f"bench-build-{scale}x-") as tmp:
            recipes = Path(tmp) / "recipes"
            recipes.mkdir()
            count = recipe_tree(recipes, scale)
            seconds, peak = build(recipes, Path(tmp) / "site", args.workers)
            stats = site_stats(Path(tmp) / "site")
        print(f"{scale:>4}× {count:>7} {seconds:>8.1f} {seconds / count:>8.2f} {peak:>7} "
              f"{mb(stats['total_bytes'])} {stats['total_files']:>7} "
              f"{mb(stats.get('json_bytes', 0))} {stats.get('json_files', 0):>7} "
              f"{mb(stats.get('html_bytes', 0))} {mb(stats.get('search_bytes', 0)):>9} "
              f"{mb(stats.get('assets_bytes', 0)):>9}", flush=True)
    print("peak MB: the largest resident set of the build or of any worker so far "
          "(a running maximum across rows).")


if __name__ == "__main__":
    main()
