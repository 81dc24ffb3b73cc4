"""The recipe site of one build: the catalog, loaded once, and every file made from it.

`plugin.py` holds the hooks; each calls one method here. Pages, assets and catalog-wide
files are added to mkdocs with `File.generated` in `on_files`, with their content, so mkdocs
writes them. A recipe's own JSON files (about forty each) are the exception in a plain
`mkdocs build`: the worker that renders the recipe writes them into `site_dir` (which mkdocs
has cleaned by then), in parallel, and `on_files` checks that no file of `docs/` claims their
paths. Under `mkdocs serve` they are handed to mkdocs like the rest, because a rebuild cleans
`site_dir` and reuses the outputs of unchanged recipes (`memo.py`).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page

from builder.commands.build import Builder, retired_reason
from builder.errors import SelectionError
from builder.types import Result
from builder.views.performance import comparison_html
from builder.views.widget import RowCache, neighbours, page_state
from vllm_recipes.configurations import load_configurations
from vllm_recipes.deployments import load_deployments
from vllm_recipes.errors import InvalidRecipe
from vllm_recipes.guide_html import GuideMarkdown, sanitize_html
from vllm_recipes.history import changes, last_changed
from vllm_recipes.loader import Catalog, load_catalog, recipe_sources

from . import api, deployments, indexes, machine, printable_js
from .assets import WORKER_VERSION, MissingAsset, site_assets, worker_sources, worker_version
from .browse import BrowseCard, browse_html
from .config import RecipesConfig
from .configurations import PublishedConfigurations
from .csp import with_policy
from .memo import BuildMemo, digest
from .output_paths import OutputClash, check_outputs, inside_site
from .pages import (
    KEYS_MARKER,
    GeneratedPage,
    Section,
    VariantPage,
    alias_page,
    model_page,
    relative_root,
    retired_page,
    selection_keys_html,
    states_uri,
)
from .precompress import precompress_site
from .renderings import render_recipe
from .theme_css import drop_switching_rule

__all__ = ["RecipesSite", "load_site"]

log = get_plugin_logger(__name__)
SHARED_BODY = "<!-- the body of this variant page is its recipe page's (site.page_content) -->"
PARALLEL_FROM = 16
ASSET_CACHE = ".build/assets"
"""Where the Pyodide snapshot and compressed assets are kept between builds."""
"""With `workers: 0`, recipes are rendered in worker processes from this many recipes on."""


def _resolve(config: MkDocsConfig, path: str) -> Path:
    return (Path(config.config_file_path or ".").resolve().parent / path).resolve()


def base_path(site_url: str | None) -> str:
    """The path every site-absolute link starts with: "/" or "/sub/dir/"."""
    path = urlsplit(site_url or "/").path or "/"
    return path if path.endswith("/") else path + "/"


def load_site(options: RecipesConfig, config: MkDocsConfig, memo: BuildMemo) -> RecipesSite:
    """Validate every recipe (PluginError with `path: field: message` lines on failure)."""
    recipes_dir = _resolve(config, options.recipes_dir)
    try:
        catalog = load_catalog(recipes_dir, memo.loads if memo.serving else None)
        dynamo = load_deployments(recipes_dir)
    except InvalidRecipe as error:
        raise PluginError(f"invalid recipe data in {recipes_dir}:\n{error}") from None
    except FileNotFoundError as error:
        raise PluginError(
            f"recipes_dir {recipes_dir}: {error.strerror}: {error.filename} (set the "
            "recipes plugin's recipes_dir, or RECIPES_DIR, to a recipe tree)"
        ) from None
    try:
        published = PublishedConfigurations(load_configurations(catalog), catalog)
    except InvalidRecipe as error:
        raise PluginError(f"invalid configuration data in {recipes_dir}:\n{error}") from None
    site = RecipesSite(catalog, options, config, published, memo,
                       deployments={h: dynamo.published(h) for h in dynamo.by_model})
    config.markdown_extensions.append(site.markdown)
    return site


@dataclass(frozen=True)
class Job:
    """One recipe's share of the build (picklable, for worker processes)."""

    catalog: dict[str, Any]
    recipe: dict[str, Any]
    guide: str
    base: str
    nonce: str
    site_url: str = ""
    """The site's absolute URL (ends with /), for links that leave the site (og:url, twins)."""
    sections: tuple[Section, ...] = ()
    """Extra model page sections (compare box, published configurations)."""
    deployments: dict[str, Any] | None = None
    """The model's NVIDIA Dynamo deployment targets, if it has any (`deployments.py`)."""
    out_dir: str = ""
    """Where the recipe's JSON files are written (a plain build's `site_dir`); empty: they are
    returned as `endpoints` instead."""


@dataclass
class RecipeOutputs:
    hf_id: str
    error: str = ""
    """Why the recipe's default selection does not build (nothing else is set then)."""
    endpoints: list[api.Endpoint] = field(default_factory=list)
    """(site path, JSON text) of the recipe's files, for mkdocs to write (when the job has
    no `out_dir`)."""
    written: list[str] = field(default_factory=list)
    """The site paths of the recipe's files the worker wrote into the job's `out_dir`."""
    models: list[dict[str, Any]] = field(default_factory=list)
    strategies: dict[str, str] = field(default_factory=dict)
    """Strategy → the recipe's rendering with it (default hardware)."""
    hardware: dict[str, str] = field(default_factory=dict)
    """Hardware the recipe has a command for → that rendering."""
    fewest: dict[str, int] = field(default_factory=dict)
    """Hardware → the fewest of its GPUs that hold the model (`indexes.fewest_of_recipe`;
    empty without memory facts)."""
    index_rows: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """(hardware id, row) of the hardware index (`indexes.hardware_rows`)."""
    pages: list[GeneratedPage] = field(default_factory=list)
    twins: list[machine.Twin] = field(default_factory=list)
    """The Markdown twins of its pages (`machine.py`)."""
    extra: list[api.Endpoint] = field(default_factory=list)
    """Files mkdocs writes even when the worker writes the rest (an alias's JSON)."""
    retired: bool = False
    """A retired recipe: a page and a JSON document, no command, no card."""


def recipe_outputs(job: Job) -> RecipeOutputs:
    """Everything made from one recipe: its JSON files, /models.json rows and pages."""
    catalog, recipe, base = job.catalog, job.recipe, job.base
    hf_id = recipe["model"]["model_id"]
    reason = retired_reason(recipe)
    if reason is not None:
        return retired_outputs(job, reason)
    # One Builder and one row cache for every rendering of the recipe: the JSON files, each
    # page's widget and the widgets one click away from it (what stays the same is made once).
    builder = Builder(catalog, recipe, renders={})
    rows: RowCache = {}
    try:
        renderings = render_recipe(catalog, recipe, builder)
        state = page_state(catalog, recipe, {}, builder, rows)
    except SelectionError as error:
        return RecipeOutputs(hf_id, error=str(error))

    state_files: list[api.Endpoint] = []

    def publish_states(model_id: str, state: Any) -> None:
        """The page's states one click away, published beside it (`pages.widget_html`)."""
        states = neighbours(catalog, recipe, state["explicit"], state["result"], builder, rows)
        state_files.append(api.publish(states_uri(model_id), "widget-states",
                                       {"hf_id": model_id, **states}, base, compact=True))

    tree = renderings.trees["default"]
    fewest = indexes.fewest_by_variant(catalog, recipe)
    dynamo = job.deployments
    extra = deployments.endpoints(hf_id, dynamo, base) if dynamo else iter(())
    endpoints = list(chain(
        api.recipe_endpoints(catalog, recipe, job.guide, renderings, base), extra
    ))
    written = write_files(Path(job.out_dir), endpoints) if job.out_dir else []
    outputs = RecipeOutputs(
        hf_id,
        endpoints=[] if job.out_dir else endpoints,
        written=written,
        models=indexes.model_rows(recipe, renderings, base, fewest),
        fewest=indexes.fewest_of_recipe(fewest) or {},
        index_rows=indexes.hardware_rows(catalog, recipe, renderings, base),
        strategies={sid: base + r.uri for sid, r in tree.strategies.items()},
        hardware={hw_id: base + r.uri for hw_id, r in tree.hardware.items()},
    )
    result: Result = state["result"]  # type: ignore[assignment]
    by_gpu = api.gpu_rows(catalog, recipe, tree)
    sections = [
        *job.sections,
        *([Section("command", "Which GPU", "which-gpu", comparison_html(by_gpu))]
          if by_gpu else []),
        *([Section("install", deployments.HEADING, "dynamo",
                   deployments.section_html(hf_id, dynamo, relative_root(hf_id)),
                   assets=("dynamo",))]
          if dynamo else []),
    ]
    # Links inside pages are relative: the site works wherever it is deployed.
    publish_states(hf_id, state)
    page = model_page(
        catalog, recipe, job.guide, state["html"],  # type: ignore[arg-type]
        base=relative_root(hf_id), nonce=job.nonce, catalog_json=api.CATALOG_JSON,
        sections=sections, states=True,
    )
    title = recipe["meta"]["title"]
    page_url = f"{job.site_url}{hf_id}/"
    page.head = machine.head_html(recipe, result, title=title, page_url=page_url)
    outputs.pages.append(page)
    outputs.twins.append(_twin(job, hf_id, title, result, page_url, f"{base}{hf_id}.json"))
    for alias in recipe.get("aliases", ()):
        outputs.pages.append(alias_page(page, alias, hf_id, page_url))
        outputs.extra.append(api.publish(f"{alias}.json", "alias",
                                         api.alias_document(hf_id, alias, base), base))
    documents = {vid: tree.doc for vid, tree in renderings.trees.items() if vid != "default"}
    documents.update(renderings.aliases)
    for variant_id, variant in recipe["variants"].items():
        model_id = variant.get("model_id")
        if not model_id or model_id == hf_id:
            continue
        label = variant.get("label") or variant_id
        document = documents.get(variant_id)
        if document is None:  # its own query builds nowhere: no page of its own
            continue
        view = VariantPage(variant_id, model_id, label, document.uri, page_url)
        state = page_state(catalog, recipe, {"variant": variant_id}, builder, rows,
                           base={"variant": variant_id})
        variant_result: Result = state["result"]  # type: ignore[assignment]
        publish_states(model_id, state)
        variant_page = model_page(
            catalog, recipe, job.guide, state["html"],  # type: ignore[arg-type]
            base=relative_root(model_id), nonce=job.nonce, catalog_json=api.CATALOG_JSON,
            sections=sections, variant=view, states=True)
        own_url = f"{job.site_url}{model_id}/"
        variant_page.head = machine.head_html(recipe, variant_result,
                                              title=f"{title} ({label})", page_url=own_url)
        outputs.pages.append(variant_page)
        outputs.twins.append(_twin(job, model_id, f"{title} ({label})", variant_result,
                                   own_url, base + document.uri))
    if job.out_dir:
        outputs.written += write_files(Path(job.out_dir), state_files)
    else:
        outputs.endpoints += state_files
    return outputs


def retired_outputs(job: Job, reason: str) -> RecipeOutputs:
    """A retired recipe's outputs: its page, which says why there is no command, and its
    JSON document (`retired` with the reason); no command, no card; its /models.json row
    says it is retired."""
    recipe = job.recipe
    hf_id = recipe["model"]["model_id"]
    endpoints = [api.publish(f"{hf_id}.json", "retired",
                             api.retired_document(recipe, job.guide, reason), job.base)]
    written = write_files(Path(job.out_dir), endpoints) if job.out_dir else []
    page = retired_page(job.catalog, recipe, job.guide, reason, base=relative_root(hf_id),
                        nonce=job.nonce)
    return RecipeOutputs(hf_id, endpoints=[] if job.out_dir else endpoints, written=written,
                         pages=[page], retired=True,
                         models=[indexes.retired_row(recipe, reason, job.base)])


def write_files(root: Path, files: list[api.Endpoint]) -> list[str]:
    """Write (site path, text) files under `root` as mkdocs would (UTF-8, as is); their
    paths. Each directory is made once."""
    made: set[str] = set()
    top = str(root)
    for uri, text in files:
        folder, _, name = inside_site(uri).rpartition("/")
        where = f"{top}/{folder}" if folder else top
        if where not in made:
            os.makedirs(where, exist_ok=True)
            made.add(where)
        with open(f"{where}/{name}", "wb") as out:
            out.write(text.encode("utf-8"))
    return [uri for uri, _ in files]


def _twin(job: Job, model_id: str, title: str, result: Result, page_url: str,
          json_url: str) -> machine.Twin:
    meta = job.recipe["meta"]
    markdown = machine.twin_markdown(job.recipe, result, job.guide, page_url=page_url,
                                     json_url=json_url, title=title)
    return machine.Twin(model_id, title, meta["provider"], meta["description"], markdown)


def feeds(catalog: Catalog, base: str, name: str) -> list[api.Endpoint]:
    """/feed.json and /feed.xml: the newest changes to recipes, from the git history (each
    recipe's `date_updated` outside a checkout)."""
    recipes = catalog.recipes
    entries = indexes.feed_entries(
        changes(catalog.root), catalog.paths,
        {hf_id: r.meta.title for hf_id, r in recipes.items()},
        {hf_id: str(r.meta.date_updated) for hf_id, r in recipes.items()})
    return [api.publish("feed.json", "feed", indexes.feed_json(entries, base, name), base),
            ("feed.xml", indexes.feed_xml(entries, name))]


def _worker() -> None:
    """A render worker keeps no cyclic garbage worth collecting (its results are plain data,
    freed by reference counting): the cyclic collector only costs it time (~15%)."""
    gc.disable()


def run_jobs(jobs: list[Job], workers: int) -> Iterator[RecipeOutputs]:
    """Each recipe's outputs, in order; in worker processes when there are several.
    `workers`: the plugin's option (0: automatic)."""
    if workers == 0:  # automatic: starting workers costs more than a few recipes take
        workers = (os.cpu_count() or 1) if len(jobs) >= PARALLEL_FROM else 1
    workers = min(workers, len(jobs))
    if workers <= 1:
        yield from map(recipe_outputs, jobs)
        return
    # spawn, not fork: `mkdocs serve` runs threads, and fork with threads is unsafe.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_worker) as pool:
        yield from pool.map(recipe_outputs, jobs)


def outputs_of(jobs: list[Job], memo: BuildMemo, joins: dict[str, Any],
               workers: int) -> tuple[list[str], dict[str, RecipeOutputs]]:
    """Each job's digest, and the outputs by digest. Under `mkdocs serve`, a recipe whose job
    is unchanged keeps its outputs (memo.py); the memo keeps this build's, and `joins`."""
    keys = [digest(job) for job in jobs]
    missing = {key: job for key, job in zip(keys, jobs, strict=True)
               if key not in memo.outputs}
    done = {key: memo.outputs[key] for key in keys if key not in missing}
    done.update(zip(missing, run_jobs(list(missing.values()), workers), strict=True))
    memo.keep(done, joins)
    for key in missing:  # a changed recipe's variant pages must not reuse its old body
        for page in done[key].pages:
            memo.bodies.pop(page.uri, None)
    return keys, done


@dataclass
class Gathered:
    """What the recipes' outputs add up to, in recipe order: the files mkdocs writes, the
    rows and links of the site-wide JSON, the home page's cards, the pages and the twins."""

    files: list[api.Endpoint] = field(default_factory=list)
    """(site path, text) of the files mkdocs writes (the workers did not)."""
    written: list[str] = field(default_factory=list)
    """Site paths of the files the workers wrote themselves."""
    models: list[dict[str, Any]] = field(default_factory=list)
    by_strategy: dict[str, dict[str, str]] = field(default_factory=dict)
    """Strategy → hf_id → that recipe's rendering with it."""
    by_hardware: dict[str, dict[str, str]] = field(default_factory=dict)
    """Hardware → hf_id → that recipe's rendering on it."""
    hardware_rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Hardware → its rows of the hardware index, in recipe order."""
    cards: list[BrowseCard] = field(default_factory=list)
    pages: dict[str, GeneratedPage] = field(default_factory=dict)
    page_keys: dict[str, str] = field(default_factory=dict)
    """Page → the digest of the job that made it."""
    twins: list[machine.Twin] = field(default_factory=list)

    def add(self, job: Job, key: str, outputs: RecipeOutputs) -> None:
        """One recipe's outputs (its job `job`, whose digest is `key`)."""
        hf_id = outputs.hf_id
        self.files += [*outputs.endpoints, *outputs.extra]
        self.written += outputs.written
        self.models += outputs.models
        for sid, path in outputs.strategies.items():
            self.by_strategy.setdefault(sid, {})[hf_id] = path
        for hw_id, path in outputs.hardware.items():
            self.by_hardware.setdefault(hw_id, {})[hf_id] = path
        for hw_id, row in outputs.index_rows:
            self.hardware_rows.setdefault(hw_id, []).append(row)
        if not outputs.retired:
            self.cards.append(BrowseCard(hf_id, job.recipe, list(outputs.hardware),
                                         outputs.fewest))
        for page in outputs.pages:
            self.pages[page.uri] = page
            self.page_keys[page.uri] = key
        self.twins += outputs.twins


def guard_outputs(config: MkDocsConfig, files: Files, generated: list[File],
                  written: list[str]) -> None:
    """Every output of the build (docs and theme files, the theme's templates, the search
    index, what the plugin generates and what its workers wrote) has a place of its own
    inside the site (`output_paths.py`), else PluginError."""
    outputs = chain(
        ((file.dest_uri, f"{config.docs_dir}/{file.src_uri}") for file in files),
        ((name, "the theme") for name in config.theme.static_templates),
        (("search/search_index.json", "the search plugin"),),
        ((file.dest_uri, f"the recipes plugin's {file.src_uri}") for file in generated),
        ((uri, "the recipes plugin") for uri in written),
    )
    try:
        check_outputs(outputs)
    except OutputClash as error:
        raise PluginError(f"the build would overwrite its own files: {error}") from None


class RecipesSite:
    """One build's site: the files it generates (`add_files`) and what the page hooks do
    with the generated pages (`before_markdown`, `page_content`, `post_page`)."""

    def __init__(self, catalog: Catalog, options: RecipesConfig, config: MkDocsConfig,
                 published: PublishedConfigurations, memo: BuildMemo,
                 deployments: dict[str, dict[str, Any]] | None = None):
        self.catalog = catalog
        self.published = published
        self.options = options
        self.memo = memo
        self.base = base_path(config.site_url)
        self.site_url = (config.site_url or "/").rstrip("/") + "/"
        self.nonce = memo.nonce
        self.twin_urls: list[str] = []
        self.docs_dir = Path(config.docs_dir)
        self.page_sources: dict[str, Path] = {}  # a hand-written page's URL → its source
        self.markdown = GuideMarkdown()
        self.pages: dict[str, GeneratedPage] = {}
        self.written: list[str] = []
        """Site paths of the files the render workers wrote into `site_dir` themselves."""
        self.browse = ""
        self.browse_changed = True
        self.pyodide_dir = _resolve(config, options.pyodide_dir)
        self.builder_dir = _resolve(config, options.builder_dir)
        # The page's templates name the builder's shared worker with it (overrides/main.html):
        # a tab of a redeployed site never talks to a worker holding older code or data. (A
        # `make dev` rebuild re-renders only what changed: an unchanged page keeps the name it
        # was rendered with until the server restarts.)
        config.extra[WORKER_VERSION] = worker_version(*worker_sources(
            self.builder_dir, Path(config.docs_dir), catalog.root))
        self.deployments = deployments or {}
        """NVIDIA Dynamo deployment targets by hf_id (`vllm_recipes.deployments`)."""

    # ------------------------------------------------------------------ on_files

    def add_files(self, files: Files, config: MkDocsConfig) -> Files:
        """Add every generated page, JSON endpoint and asset to `files`."""
        self.written = []
        try:
            generated = self._generate(config)
        except (MissingAsset, OutputClash) as error:  # OutputClash: a worker's file
            raise PluginError(str(error)) from None
        for uri in chain((file.src_uri for file in generated), self.written):
            if files.get_file_from_path(uri) is not None:
                raise PluginError(
                    f"{config.docs_dir}/{uri} clashes with a file the recipes plugin "
                    "generates; rename or remove it"
                )
        guard_outputs(config, files, generated, self.written)
        for file in generated:
            files.append(file)
        if self.memo.staging is not None and self.browse_changed:
            # The home page's cards are filled in after Markdown (page_content): its source
            # does not change when they do, so mkdocs' dirty mode must be told.
            home = files.get_file_from_path("index.md")
            if home is not None:
                home.is_modified = lambda: True  # type: ignore[method-assign]
        log.info("generated %d pages and %d other files from %d recipes",
                 len(self.pages), len(generated) + len(self.written) - len(self.pages),
                 len(self.catalog.recipes))
        return files

    def _generate(self, config: MkDocsConfig) -> list[File]:
        out: list[File] = []

        def text(uri: str, content: str) -> None:
            out.append(self.memo.file(config, uri, content))

        # Assets first: a missing Pyodide fails the build before any rendering.
        assets = site_assets(self.pyodide_dir, self.builder_dir, _resolve(config, ASSET_CACHE))
        for uri, source in assets.items():
            if isinstance(source, Path):
                out.append(File.generated(config, uri, abs_src_path=str(source)))
            else:
                text(uri, source)

        text(printable_js.URI, printable_js.printable_module())  # the home page's notice
        catalog = self.catalog.builder_catalog()
        joins = self.published.join(catalog, self.base, self.memo.joins)
        out_dir = "" if self.memo.serving else str(Path(config.site_dir).resolve())
        jobs = [
            Job(catalog, self.catalog.builder_recipe(hf_id), self.catalog.guides[hf_id],
                self.base, self.nonce, self.site_url,
                self.published.model_sections(hf_id, self.base, api.CATALOG_JSON),
                self.deployments.get(hf_id), out_dir)
            for hf_id in self.catalog.recipes
        ]
        gathered = gather(self.catalog, jobs, self.memo, joins, self.options.workers)
        for uri, content in gathered.files:
            text(uri, content)
        self.written += gathered.written
        self.pages.update(gathered.pages)
        twins, page_keys = gathered.twins, gathered.page_keys
        # Markdown twins at /<model_id>.md (a static file, not a page: its source is .txt).
        for twin in twins:
            out.append(self.memo.file(config, f"_twins/{twin.model_id}.txt", twin.markdown,
                                      dest_uri=f"{twin.model_id}.md"))
        text("llms.txt", machine.llms_index(twins, self.site_url))
        text("llms-full.txt", machine.llms_full(twins))
        # A variant page names its recipe's page as canonical, the URL mkdocs' sitemap lists
        # for it: its own URL joins too, or the theme's instant navigation (it follows only
        # links to URLs the sitemap lists) would reload the whole page to reach it.
        variant_urls = [f"{self.site_url}{uri.removesuffix('.md')}/"
                        for uri, page in self.pages.items() if page.canonical]
        self.twin_urls = [f"{self.site_url}{t.model_id}.md" for t in twins] + [
            f"{self.site_url}llms.txt", f"{self.site_url}llms-full.txt", *variant_urls]
        for uri, content in api.global_endpoints(
            self.catalog, gathered.models, gathered.by_strategy, gathered.by_hardware,
            gathered.hardware_rows, self.base
        ):
            text(uri, content)
        for uri, content in feeds(self.catalog, self.base, config.site_name or "vLLM Recipes"):
            text(uri, content)
        for uri, page in self.pages.items():
            # Reached from the home page's cards, not from the nav. A page's commands are
            # filled in after Markdown: under `make dev`, its source names its recipe's job
            # digest, so that mkdocs' dirty mode sees it change when they do.
            markdown = page.markdown
            if self.memo.staging is not None:
                markdown += f"\n<!-- recipe build {page_keys[uri]} -->\n"
            out.append(self.memo.file(config, uri, markdown, InclusionLevel.NOT_IN_NAV))
        # Published configurations: their JSON and the catalogue page (in the nav).
        for uri, content in self.published.endpoints(list(self.catalog.recipes), self.base):
            text(uri, content)
        catalogue = self.published.catalogue_page(self.base, self.nonce)
        self.pages[catalogue.uri] = catalogue
        text(catalogue.uri, catalogue.markdown)
        self.browse = browse_html(catalog, gathered.cards, "")
        self.browse_changed = self.memo.changed("browse", self.browse)

        return out

    # ------------------------------------------------------------------ pages

    def before_markdown(self, markdown: str, page: Page) -> str:
        """Guides are rendered by `guide_html` rules; hand-written pages keep raw HTML. A
        variant page names its recipe's page as canonical, and shares that page's rendered
        body (the same guide, the same slot names): its Markdown is not converted again."""
        generated = self.pages.get(page.file.src_uri)
        self.markdown.active = generated is not None
        if generated is None:
            return markdown
        if generated.canonical:
            page.canonical_url = generated.canonical
        if generated.body_of in self.memo.bodies:
            return SHARED_BODY
        return markdown

    def page_content(self, html: str, page: Page) -> str:
        """Fill a generated page's slots; put the model cards into the home page."""
        self.markdown.active = False
        generated = self.pages.get(page.file.src_uri)
        if generated is not None:
            shared = self.memo.bodies.get(generated.body_of or "")
            if generated.body_of and shared is not None:
                html, page.toc = shared
                return html
            # Only what `vllm_recipes.guide_html` allows, should a guide skip `check`.
            marked = generated.mark(sanitize_html(html)[0])
            self.memo.bodies[page.file.src_uri] = (marked, page.toc)
            return marked
        if KEYS_MARKER in html:
            html = html.replace(KEYS_MARKER, selection_keys_html(), 1)
        if page.is_homepage:
            marker = self.options.browse_marker
            if marker not in html:
                log.warning(
                    "%s has no %s marker: add it on a line of its own where the model "
                    "cards should go", page.file.src_uri, marker,
                )
                return html
            return html.replace(marker, self.browse, 1)
        return html

    def post_build(self, config: MkDocsConfig) -> None:
        """After mkdocs' last write: the sitemap (each URL once, dated by its source), the
        theme's palette rule dropped (`theme_css.py`), compressed copies (`precompress.py`)."""
        dates = sitemap_dates(self.catalog, self.pages, self.page_sources, self.site_url,
                              self.docs_dir)
        machine.write_sitemap(Path(config.site_dir), self.twin_urls, dates)
        drop_switching_rule(Path(config.site_dir))
        packed = precompress_site(Path(config.site_dir), self.options.workers)
        log.info("wrote .gz and .br copies of %d text files", packed)

    def post_page(self, output: str, page: Page) -> str:
        """A generated page's slots filled in the finished HTML (after search indexing);
        every page's Content-Security-Policy (`csp.py`)."""
        if page.file.abs_src_path:
            self.page_sources[page.url] = Path(page.file.abs_src_path)
        generated = self.pages.get(page.file.src_uri)
        return self.post_template(generated.fill(output) if generated else output)

    def post_template(self, output: str) -> str:
        """The policy, also for the theme's own pages (404.html)."""
        return with_policy(output)

    @property
    def watch(self) -> list[str]:
        return [str(self.catalog.root), str(self.builder_dir)]


def sitemap_dates(catalog: Catalog, pages: dict[str, GeneratedPage],
                  page_sources: dict[str, Path], site_url: str, docs_dir: Path
                  ) -> dict[str, str]:
    """URL → the day its source last changed: a model page (and its variant pages and
    Markdown twins) by the newest commit to its recipe or guide, or the recipe's own
    `date_updated` outside a git checkout; a hand-written page by its doc file's."""
    changed = last_changed(catalog.root, docs_dir)
    dates: dict[str, str] = {}
    for uri, page in pages.items():
        hf_id = (page.body_of or uri).removesuffix(".md")
        if hf_id not in catalog.recipes:
            continue
        source = catalog.paths[hf_id]
        date = max((changed[p] for p in recipe_sources(source) if p in changed),
                   default=str(catalog.recipes[hf_id].meta.date_updated))
        path = uri.removesuffix(".md")
        dates[f"{site_url}{path}/"] = dates[f"{site_url}{path}.md"] = date
    for url, doc in page_sources.items():
        if doc.resolve() in changed:
            dates.setdefault(f"{site_url}{url}", changed[doc.resolve()])
    return dates


def gather(catalog: Catalog, jobs: list[Job], memo: BuildMemo, joins: dict[str, Any],
           workers: int) -> Gathered:
    """Every recipe's outputs (rendered, or the memo's when unchanged), added up; a recipe
    whose default selection does not build fails the build with its file."""
    keys, done = outputs_of(jobs, memo, joins, workers)
    gathered = Gathered()
    for job, key in zip(jobs, keys, strict=True):
        outputs = done[key]
        if outputs.error:
            display = catalog.paths[outputs.hf_id].relative_to(catalog.root.parent)
            raise PluginError(f"{display}: the default selection does not build: "
                              f"{outputs.error}")
        gathered.add(job, key, outputs)
    return gathered
