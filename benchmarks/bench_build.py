"""Issue 17's build-side targets, measured on this machine, each printed next to its target.

    build       `mkdocs build --strict` of a synthetic catalogue of N recipes made from the real
                ones (every recipe copied with new model ids until N), ms per recipe at the
                largest N, and the ratio of the largest to the smallest build (linear: 10× the
                recipes in ≤ 11× the time); peak memory of the build or any of its workers
    JSON        the real catalogue's JSON endpoints alone (`render_recipe` + `api`), in the
                build's own worker pool, ms per recipe; and the bytes of JSON per recipe of
                the real catalogue's site (documents, renderings, catalog-wide files)
    builder     `builder.build` for a single-node selection, median, fresh per call (what
                the CLI does) and on a recipe's `Builder` (what the build and the page do);
                the target is DeepSeek-V4-Flash on H200, the catalogue's most complex recipe,
                and the median over every recipe's default selection is reported
    CLI         `vllm-recipes HF_ID` wall time, median of 5 runs once its cache is filled
                (and the first run, which validates the recipe)
    rebuild     `make dev` (`mkdocs serve --dirty`) on a copy of the real tree: after one
                recipe is edited, the seconds until the site is rebuilt

    python -m benchmarks.bench_build                 everything (counts 100 and 1000)
    python -m benchmarks.bench_build --counts 50,500 --skip rebuild
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "recipes"
SINGLE_NODE = ("deepseek-ai/DeepSeek-V4-Flash", {"hardware": "h200"})
CLI_ID = "deepseek-ai/DeepSeek-V4-Flash"


@dataclass(frozen=True)
class Figure:
    name: str
    value: float
    unit: str
    target: float | None = None
    """Upper bound; None: reported, no target."""

    def row(self) -> str:
        value = f"{self.value:,.1f}" if self.value < 100 else f"{self.value:,.0f}"
        if self.target is None:
            return f"  {self.name:<46} {value:>9} {self.unit:<10} (reported)"
        verdict = "holds" if self.value <= self.target else "MISSED"
        return (f"  {self.name:<46} {value:>9} {self.unit:<10} target ≤ {self.target:g} "
                f"{self.unit}: {verdict}")


# --------------------------------------------------------------------------- synthetic trees


def _ids(path: Path) -> list[str]:
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    ids = [data["model"]["model_id"]]
    ids += [v["model_id"] for v in data.get("variants", {}).values()
            if v.get("model_id") and v["model_id"] not in ids]
    ids += [alias for alias in data.get("aliases", []) if alias not in ids]  # earlier ids
    return ids


def _copy_shared(target: Path) -> None:
    """What every recipe tree holds besides its models: the hardware taxonomy, the schema,
    the strategies, configurations and deployments (the real ones)."""
    for name in ("hardware.yaml", "schema.json"):
        shutil.copy(RECIPES / name, target / name)
    for name in ("strategies", "configurations", "deployments"):
        shutil.copytree(RECIPES / name, target / name)


def synthetic_tree(target: Path, count: int) -> int:
    """A recipe tree with `count` recipes: the real ones, then copies of them with every model
    id suffixed (`-x001`, ...); the configurations and deployments stay the real ones'."""
    _copy_shared(target)
    sources = sorted((RECIPES / "models").glob("*/*.yaml"))
    made = 0
    for copy in range(count // len(sources) + 1):
        for source in sources:
            if made == count:
                break
            text = source.read_text(encoding="utf-8")
            guide = source.with_suffix(".md").read_text(encoding="utf-8")
            name = source.stem
            if copy:
                suffix = f"-x{copy:03d}"
                for model_id in sorted(_ids(source), key=len, reverse=True):
                    text = re.sub(re.escape(model_id) + r"(?![\w.-])", model_id + suffix, text)
                name += suffix
            out = target / "models" / source.parent.name / f"{name}.yaml"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
            out.with_suffix(".md").write_text(guide, encoding="utf-8")
            made += 1
    _drop_missing_related(target)
    return made


def subset_tree(target: Path, orgs: set[str]) -> int:
    """A recipe tree with only the recipes of `orgs` (with their guides), and the
    configurations and deployments of those recipes."""
    _copy_shared(target)
    for org in sorted(orgs):
        shutil.copytree(RECIPES / "models" / org, target / "models" / org)
    _drop_missing_related(target)
    return len(list((target / "models").glob("*/*.yaml")))


RELATED = re.compile(r"^(\s*related_recipes:\s*)\[([^\]]*)\]", re.M)


def _drop_missing_related(target: Path) -> None:
    """A tree smaller than the real one leaves some `related_recipes` and deployment files
    pointing at recipes it does not hold, which the build refuses: keep only those it holds."""
    held = {f"{path.parent.name}/{path.stem}" for path in (target / "models").glob("*/*.yaml")}
    for path in (target / "deployments").glob("*/*.yaml"):
        if f"{path.parent.name}/{path.stem}" not in held:
            path.unlink()
    for path in (target / "configurations").glob("*.yaml"):
        model = re.search(r"^model:\s*[\"']?([\w.-]+/[\w.-]+)", path.read_text(encoding="utf-8"),
                          re.M)
        if model is not None and model.group(1) not in held:
            path.unlink()
    for path in (target / "models").glob("*/*.yaml"):
        text = path.read_text(encoding="utf-8")

        def kept(match: re.Match[str]) -> str:
            ids = [i.strip() for i in match.group(2).split(",") if i.strip()]
            return f"{match.group(1)}[{', '.join(i for i in ids if i in held)}]"

        new = RELATED.sub(kept, text)
        if new != text:
            path.write_text(new, encoding="utf-8")


def mkdocs_build(recipes: Path, site: Path) -> tuple[float, int]:
    """(seconds, peak RSS in MB of this build's processes) of `mkdocs build --strict`."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "RECIPES_DIR": str(recipes)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        sys.exit(f"build failed:\n{run.stdout}{run.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) // 1024


def json_bytes(site: Path) -> int:
    skip = {"assets", "search"}
    return sum(p.stat().st_size for p in site.rglob("*.json")
               if p.relative_to(site).parts[0] not in skip)


# --------------------------------------------------------------------------- measurements


def bench_builds(counts: list[int]) -> Iterator[Figure]:
    seconds: dict[int, float] = {}
    peak = 0
    for count in counts:
        with tempfile.TemporaryDirectory(prefix=f"bench-build-{count}-") as tmp:
            recipes = Path(tmp) / "recipes"
            recipes.mkdir()
            made = synthetic_tree(recipes, count)
            took, rss = mkdocs_build(recipes, Path(tmp) / "site")
        seconds[count] = took
        peak = max(peak, rss)
        print(f"    built {made} recipes in {took:.1f} s ({took / made * 1000:.0f} ms/recipe, "
              f"peak {rss} MB)", flush=True)
    largest, smallest = max(counts), min(counts)
    yield Figure(f"build, {largest} recipes", seconds[largest] / largest * 1000, "ms/recipe",
                 60)
    if largest != smallest:
        ratio = seconds[largest] / seconds[smallest]
        factor = largest / smallest
        yield Figure(f"build time ratio, {largest} / {smallest} recipes", ratio, "×",
                     round(factor * 1.1, 1))
    yield Figure("build peak memory", peak, "MB")


def _endpoints(job: tuple[dict[str, Any], dict[str, Any], str]) -> int:
    from site_plugins.recipes import api
    from site_plugins.recipes.renderings import render_recipe

    catalog, recipe, guide = job
    renderings = render_recipe(catalog, recipe)
    return sum(len(text) for _, text in api.recipe_endpoints(catalog, recipe, guide,
                                                             renderings, "/"))


def bench_json() -> Iterator[Figure]:
    from vllm_recipes.loader import load_catalog

    catalog = load_catalog(RECIPES)
    data = catalog.builder_catalog()
    jobs = [(data, catalog.builder_recipe(h), catalog.guides[h]) for h in catalog.recipes
            if catalog.recipes[h].retired is None]  # a retired recipe has no command
    workers = os.cpu_count() or 1
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_endpoints, jobs[:workers]))  # started and imported
        start = time.perf_counter()
        list(pool.map(_endpoints, jobs))
        took = time.perf_counter() - start
    yield Figure(f"JSON endpoints, {len(jobs)} real recipes", took / len(jobs) * 1000,
                 "ms/recipe", 12.7)
    with tempfile.TemporaryDirectory(prefix="bench-json-") as tmp:
        mkdocs_build(RECIPES, Path(tmp) / "site")
        size = json_bytes(Path(tmp) / "site")
    yield Figure(f"JSON per recipe, {len(jobs)} real recipes", size / len(jobs) / 1000, "KB",
                 190)


def _median_ms(call: Callable[[], object], runs: int = 300) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def bench_builder() -> Iterator[Figure]:
    from builder import build
    from builder.commands.build import Builder
    from vllm_recipes.loader import load_catalog

    catalog = load_catalog(RECIPES)
    data = catalog.builder_catalog()
    hf_id, query = SINGLE_NODE
    recipe = catalog.builder_recipe(hf_id)
    assert build(data, recipe, query)["selection"]["nodes"] == "1"
    yield Figure(f"builder.build, {hf_id.split('/')[1]} on H200", _median_ms(
        lambda: build(data, recipe, query)), "ms", 1)
    builder = Builder(data, recipe)
    yield Figure("  the same on the recipe's Builder", _median_ms(
        lambda: builder.build(query)), "ms", 1)
    # For context: the catalogue's other recipes are simpler than DeepSeek-V4-Flash (six
    # variants, fifteen hardware, prefill/decode): each one's default selection, fresh.
    medians = []
    for other, known in catalog.recipes.items():
        if known.retired is not None:
            continue  # a retired recipe has no command
        other_recipe = catalog.builder_recipe(other)
        medians.append(_median_ms(lambda r=other_recipe: build(data, r, {}), runs=30))
    yield Figure(f"  fresh, median over the {len(medians)} recipes' defaults",
                 statistics.median(medians), "ms")


def bench_cli() -> Iterator[Figure]:
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as cache:
        env = {**os.environ, "VLLM_RECIPES_CACHE": cache}
        command = [str(ROOT / ".venv" / "bin" / "vllm-recipes"), CLI_ID]
        times = []
        for _ in range(6):
            start = time.perf_counter()
            subprocess.run(command, env=env, capture_output=True, check=True)
            times.append(time.perf_counter() - start)
    yield Figure(f"vllm-recipes {CLI_ID.split('/')[1]}", statistics.median(times[1:]) * 1000,
                 "ms", 300)
    yield Figure("  its first run (validates the recipe)", times[0] * 1000, "ms")


def bench_rebuild() -> Iterator[Figure]:
    """`make dev`'s server on a copy of the tree; edit one recipe; time until rebuilt."""
    with tempfile.TemporaryDirectory(prefix="bench-rebuild-") as tmp:
        recipes = Path(tmp) / "recipes"
        shutil.copytree(RECIPES, recipes)
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "RECIPES_DIR": str(recipes)}
        server = subprocess.Popen(
            # Not --no-livereload: without live reload, mkdocs serve watches nothing.
            [sys.executable, "-m", "mkdocs", "serve", "--dirty", "-a", "127.0.0.1:8765"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        built: list[tuple[float, float]] = []
        done = threading.Event()

        def read() -> None:
            assert server.stdout is not None
            for line in server.stdout:
                found = re.search(r"Documentation built in ([\d.]+) seconds", line)
                if found:
                    built.append((time.perf_counter(), float(found.group(1))))
                    done.set()

        threading.Thread(target=read, daemon=True).start()
        try:
            if not done.wait(600):
                sys.exit("mkdocs serve did not finish its first build")
            done.clear()
            time.sleep(1)
            path = recipes / "models" / "deepseek-ai" / "DeepSeek-V4-Flash.yaml"
            text = path.read_text(encoding="utf-8")
            edited = time.perf_counter()
            path.write_text(text.replace("--block-size: 256}", "--block-size: 128}", 1),
                            encoding="utf-8")
            if not done.wait(600):
                sys.exit("mkdocs serve did not rebuild after the edit")
        finally:
            server.terminate()
            server.wait(30)
        finished, reported = built[-1]
    yield Figure("dev server rebuild after one recipe edit", reported, "s", 2)
    yield Figure("  from the edit until rebuilt (with the watcher)", finished - edited, "s")


PARTS: dict[str, Callable[..., Iterator[Figure]]] = {
    "build": bench_builds, "json": bench_json, "builder": bench_builder, "cli": bench_cli,
    "rebuild": bench_rebuild,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="100,1000",
                        help="synthetic catalogue sizes to build (default 100,1000)")
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: "
                        + ", ".join(PARTS))
    args = parser.parse_args()
    skip = {s for s in args.skip.split(",") if s}
    print(f"build benchmarks ({os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f})", flush=True)
    for name, part in PARTS.items():
        if name in skip:
            continue
        figures = part([int(c) for c in args.counts.split(",")]) if name == "build" else part()
        for figure in figures:
            print(figure.row(), flush=True)


if __name__ == "__main__":
    main()
