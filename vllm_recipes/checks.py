"""Checks of one recipe against the rest of the tree, each problem with its file and line.

`check_recipe` runs them in this order (`_Checker`); each group lives in its own module:

- names (`checks_references.py`): every hardware key, hardware id and strategy a recipe names
  exists, and no variant id is also a feature's mode id;
- arguments (`checks_args.py`): every option in the recipe's arguments is one vLLM 0.33.0
  accepts (see `vllm_flags.py`), with a value where it needs one, among its choices, and known
  JSON keys; none twice in a list; parser names vLLM (or a recipe file) registers; no
  parallel size where the strategy sets its own; no `--max-model-len` above the model's
  context; every path-valued option (`--chat-template`, the parser plugins,
  `--deploy-config`, ...) names a file that an install step of each install method the recipe
  offers provides: a file of vLLM's source tree, one of the recipe's `files`, or a
  `dependencies` step's `provides`;
- claims (`checks_values.py`): `min_vllm_version` not above the checked release; a variant
  of another precision serves another checkpoint (or quantizes on the fly);
- the guide (here): it renders as written under the guides' allow-list (`guide_html.py`:
  no event handler, no style, no `javascript:` link, however written); in-page links of the
  guide and of hardware notes (`#anchor`) name a
  heading of the page; dates: `date_updated` is not before `date_added`;

and, when those pass, on the recipe as published:

- offering and strategies (`checks_offering.py`): verified hardware is offered; every variant
  runs somewhere; a variant does not list hardware its precision cannot run on (NVFP4/FP4
  outside Blackwell) unless `precision_hardware` says so; the default hardware runs the
  default variant; a strategy granted in `strategy_hardware` is in `strategies`;
  prefill/decode is offered only where `pd` gives its layout, with pools that fit;
- parallel sizes (`checks_sizes.py`: `parallel_size`, a variant's `tp`, a literal
  `--tensor-parallel-size` or `--data-parallel-size`) divide the GPU count of every node they
  apply to, and a server's GPUs hold the weights (`vram_minimum_gb` without its 1.2 headroom,
  less `host_memory_gb`).

The tree-wide checks (`check_related`, `check_unique_model_ids`, `check_default_builds`) are
here too.
"""

from __future__ import annotations

import re
from typing import Any

from markdown.extensions.toc import slugify

from builder.commands.build import Builder
from builder.errors import SelectionError

from .check_problems import Problems
from .checks_args import (
    check_context,
    check_flags,
    check_parsers,
    check_paths,
    check_strategy_sizes,
    check_twice,
)
from .checks_offering import check_offering, check_pd_pools, check_strategies
from .checks_references import check_ids, check_references
from .checks_sizes import check_sizes
from .checks_values import check_checkpoints, check_versions
from .guide import Guide
from .guide_html import guide_problems, link_problem
from .schema import HardwareCatalog, Recipe, Strategy
from .validated import publish
from .yaml_source import Located, YamlFile

__all__ = ["PAGE_ANCHORS", "check_default_builds", "check_recipe", "check_related",
           "check_unique_model_ids", "guide_anchors"]

PAGE_ANCHORS = frozenset({"command", "hardware-notes"})
"""Headings every model page has besides its guide's."""


def guide_anchors(guide: str) -> set[str]:
    """The anchors mkdocs gives the guide's headings (`## Foo bar` → `foo-bar`)."""
    anchors: set[str] = set()
    in_code = False
    for line in guide.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        match = None if in_code else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slugify(re.sub(r"[`*_]", "", match.group(1)), "-")
            anchor, n = base, 0
            while anchor in anchors:
                n += 1
                anchor = f"{base}_{n}"
            anchors.add(anchor)
    return anchors


def check_anchors(recipe: Recipe, guide: Guide, problems: Problems) -> None:
    """In-page links of the guide and of hardware notes (`#anchor`) name a heading."""
    text = guide.text
    anchors = guide_anchors(text) | PAGE_ANCHORS
    for match in re.finditer(r"\]\(#([^)\s]+)\)", text):
        if match.group(1) not in anchors:
            line = text.count("\n", 0, match.start()) + 1
            problems.in_guide(line, "guide", f"link to #{match.group(1)}: no such heading")
    for hw_id, note in recipe.hardware_notes.items():
        if note.link and note.link.href.startswith("#") and note.link.href[1:] not in anchors:
            problems.in_guide(guide.lines.get(hw_id), f"hardware notes.{hw_id}",
                              f"link to {note.link.href}: no such heading in the guide")


def check_guide_markup(recipe: Recipe, guide: Guide, problems: Problems) -> None:
    """The guide, and each hardware note's link, hold only what guides may render as."""
    for line, message in guide_problems(guide.text):
        problems.in_guide(guide.source_line(line), "guide", message)
    for hw_id, note in recipe.hardware_notes.items():
        problem = note.link and link_problem(note.link.href)
        if problem:
            problems.in_guide(guide.lines.get(hw_id), f"hardware notes.{hw_id}", problem)


def check_dates(recipe: Recipe, problems: Problems) -> None:
    """`date_updated` is not before `date_added`."""
    meta = recipe.meta
    if meta.date_updated < meta.date_added:
        problems.add(("meta", "date_updated"), f"{meta.date_updated} is before date_added "
                                               f"({meta.date_added})")


class _Checker:
    """Runs one recipe's checks in order and collects their problems: the checks of the
    recipe as written first, and only when they pass, those of the recipe as published
    (which need its references to hold)."""

    def __init__(self, recipe: Recipe, source: YamlFile, guide: Guide, guide_display: str,
                 hardware: HardwareCatalog, strategies: dict[str, Strategy]) -> None:
        self.recipe = recipe
        self.guide = guide
        self.hardware = hardware
        self.strategies = strategies
        self.problems = Problems(source, guide_display)

    def run(self) -> list[Located]:
        r, problems = self.recipe, self.problems
        check_references(r, self.guide, self.hardware, self.strategies, problems)
        check_flags(r, problems)
        check_twice(r, problems)
        check_parsers(r, problems)
        check_strategy_sizes(r, problems)
        check_context(r, problems)
        check_paths(r, problems)
        check_versions(r, problems)
        check_checkpoints(r, problems)
        check_anchors(r, self.guide, problems)
        check_guide_markup(r, self.guide, problems)
        check_dates(r, problems)
        check_ids(r, problems)
        if problems.found:
            return problems.found
        catalog: dict[str, Any] = publish(self.hardware)
        catalog["strategies"] = {sid: publish(s) for sid, s in self.strategies.items()}
        data = publish(r)
        check_offering(r, self.hardware, catalog, data, problems)
        check_strategies(r, self.strategies, catalog, data, problems)
        check_sizes(r, self.strategies, catalog, data, problems)
        check_pd_pools(r, catalog, data, problems)
        return problems.found


def check_recipe(recipe: Recipe, source: YamlFile, guide: Guide, guide_display: str,
                 hardware: HardwareCatalog, strategies: dict[str, Strategy]) -> list[Located]:
    """Every problem of one recipe that the schema alone cannot see."""
    return _Checker(recipe, source, guide, guide_display, hardware, strategies).run()


def check_related(recipes: dict[str, Recipe], files: dict[str, YamlFile],
                  named: set[str] | None = None) -> list[Located]:
    """`meta.related_recipes` name other recipes of the tree, each once. `named`: the ids of
    every recipe file (one that does not validate is still a recipe, with problems of its
    own)."""
    named = set(recipes) if named is None else named
    problems = []
    for hf_id, recipe in recipes.items():
        seen: set[str] = set()
        for index, other in enumerate(recipe.meta.related_recipes):
            where = ("meta", "related_recipes", index)
            if other == hf_id:
                problems.append(files[hf_id].problem(where, "names the recipe itself"))
            elif other in seen:
                problems.append(files[hf_id].problem(where, f"{other!r} is listed twice"))
            elif other not in recipes and other not in named:
                known = next((h for h in named if h.casefold() == other.casefold()), None)
                hint = f"; did you mean {known}?" if known else ""
                problems.append(files[hf_id].problem(where, f"{other!r} is not a recipe of "
                                                            f"this tree{hint}"))
            seen.add(other)
    return problems


def check_default_builds(catalog: dict[str, Any], recipes: dict[str, dict[str, Any]],
                         displays: dict[str, str]) -> list[Located]:
    """Each recipe's default selection builds (the site refuses to build otherwise):
    `recipes` as the builder takes them (`Catalog.builder_recipe`), retired ones left out."""
    problems = []
    for hf_id, data in recipes.items():
        try:  # with the unavailable choices, as the page shows them
            Builder(catalog, data).build({})
        except SelectionError as error:
            problems.append(Located(displays[hf_id], None, "",
                                    f"the default selection does not build: {error}"))
        except Exception as error:  # a builder bug this data meets: the build would crash
            problems.append(Located(displays[hf_id], None, "", (
                f"the builder fails on the default selection ({type(error).__name__}: "
                f"{str(error)[:200]}); please report it")))
    return problems


def check_unique_model_ids(recipes: dict[str, Recipe],
                           files: dict[str, YamlFile]) -> list[Located]:
    """A model id names one recipe, one variant or one recipe's alias, never two, and no two
    differ only in letter case (Hugging Face ids are case-insensitive on the Hub, the site's
    pages too on a case-insensitive file system)."""
    owner: dict[str, str] = {}
    folded: dict[str, str] = {}
    problems: list[Located] = []

    def claim(hf_id: str, loc: tuple[Any, ...], mid: str, who: str) -> None:
        twin = folded.get(mid.casefold())
        if mid in owner:
            where = "itself" if owner[mid] == hf_id else owner[mid]
            problems.append(files[hf_id].problem(loc, f"{mid!r} is already used by {where}"))
        elif twin is not None:
            where = "itself" if owner[twin] == hf_id else owner[twin]
            problems.append(files[hf_id].problem(loc, (
                f"{mid!r} differs only in letter case from {twin!r} ({where}); an id "
                "names one model whatever its case")))
        owner.setdefault(mid, who)
        folded.setdefault(mid.casefold(), mid)

    for hf_id in recipes:
        claim(hf_id, ("model", "model_id"), hf_id, hf_id)
    for hf_id, recipe in recipes.items():
        for vid, variant in recipe.variants.items():
            mid = variant.model_id
            if mid is None or mid == hf_id:
                continue
            claim(hf_id, ("variants", vid, "model_id"), mid, f"{hf_id}#{vid}")
    for hf_id, recipe in recipes.items():
        for index, alias in enumerate(recipe.aliases):
            claim(hf_id, ("aliases", index), alias, f"{hf_id} (alias)")
    return problems
