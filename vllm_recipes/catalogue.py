"""The catalogue the command line answers from: validated recipe data as plain JSON.

One shape, two sources, the same functions on top:

- in a checkout, the loader validates the YAML tree (`from_loader`), and the command line keeps
  the result in its cache (`answer_cache.py`);
- an installed `vllm-recipes` (a wheel, `pipx install .`) carries the whole catalogue as
  `vllm_recipes/catalogue.json`, written by the loader when the wheel is built
  (`write_packaged`, called by setup.py's build step), and reads it with the standard library
  alone (`packaged`).

A catalogue holds the builder's input (its `catalog` and each recipe, exactly as the loader
publishes them), the NVIDIA Dynamo deployments by model, and the line of every YAML path of
every recipe and strategy file, so that `--explain` names `file:line` without the YAML.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .loader import Catalog

__all__ = ["FORMAT", "PACKAGED", "PACKAGED_SCHEMA", "Catalogue", "from_loader", "packaged",
           "write_packaged"]

FORMAT = 1
"""The version of the JSON shape (`to_json`); a packaged file of another format is refused."""
PACKAGED = Path(__file__).resolve().parent / "catalogue.json"
"""Where a wheel carries the catalogue (absent in a checkout)."""
PACKAGED_SCHEMA = Path(__file__).resolve().parent / "schema.json"
"""Where a wheel carries the recipe JSON Schema `vllm-recipes schema` prints (absent in a
checkout, which makes it from the pydantic schema)."""

Data = dict[str, Any]
_PART = re.compile(r"[^.\[\]]+|\[\d+\]")


def _parts(path: str) -> list[str]:
    """`variants.fp8.hardware[2]` → ["variants", "fp8", "hardware", "[2]"]."""
    return _PART.findall(path)


def _dotted(parts: list[str]) -> str:
    return "".join(p if p.startswith("[") else f".{p}" for p in parts).lstrip(".")


@dataclass(frozen=True)
class Catalogue:
    catalog: Data
    """The builder's catalog argument (hardware, brands, generations, strategies)."""
    recipes: dict[str, Data]
    """The builder's recipe argument, by hf_id, in the catalogue's order."""
    lines: dict[str, dict[str, int]] = field(default_factory=dict)
    """Displayed file path → YAML path (`variants.fp8.extra_args[0]`) → line."""
    dynamo: dict[str, Data] = field(default_factory=dict)
    """A model's NVIDIA Dynamo deployments as `builder.dynamo.targets.build` takes them, by
    hf_id."""

    # ---------------------------------------------------------------- lookups

    def find(self, model_id: str) -> tuple[str, str]:
        """(recipe hf_id, variant id) for a recipe's id, a variant's own model id or an alias;
        KeyError when none has it."""
        if model_id in self.recipes:
            return model_id, "default"
        for hf_id, recipe in self.recipes.items():
            for variant_id, variant in recipe["variants"].items():
                if variant.get("model_id") == model_id:
                    return hf_id, variant_id
            if model_id in recipe.get("aliases", ()):
                return hf_id, "default"
        raise KeyError(model_id)

    def suggest(self, model_id: str) -> str | None:
        """The id `model_id` names in another letter case (ids are case-sensitive), if any."""
        folded = model_id.casefold()
        for hf_id, recipe in self.recipes.items():
            ids = [hf_id, *recipe.get("aliases", ()),
                   *(v["model_id"] for v in recipe["variants"].values() if v.get("model_id"))]
            for known in ids:
                if known.casefold() == folded:
                    return known
        return None

    def source_line(self, file: str, path: str) -> int | None:
        """The line of YAML `path` in `file`, or of its nearest ancestor that has one; None for
        a file the catalogue does not hold (a builder module)."""
        lines = self.lines.get(file)
        if lines is None:
            return None
        parts = _parts(path)
        while parts:
            found = lines.get(_dotted(parts))
            if found is not None:
                return found
            parts.pop()
        return lines.get("", 1)

    def rows(self) -> list[dict[str, str]]:
        """What `--list` prints: every recipe that gives a command, then each variant that
        has a model id of its own."""
        rows: list[dict[str, str]] = []
        for hf_id, recipe in self.recipes.items():
            if recipe.get("retired") is not None:  # no command: its page says why
                continue
            title = recipe["meta"]["title"]
            rows.append({"hf_id": hf_id, "title": title})
            for variant_id, variant in recipe["variants"].items():
                model_id = variant.get("model_id")
                if model_id and model_id != hf_id:
                    rows.append({"hf_id": model_id, "title": title, "recipe": hf_id,
                                 "variant": variant_id})
        return rows

    def date(self) -> str:
        """The catalogue's date: the newest `date_added` or `date_updated` of any recipe."""
        return max((recipe["meta"][key] for recipe in self.recipes.values()
                    for key in ("date_added", "date_updated")), default="")

    # ---------------------------------------------------------------- JSON

    def to_json(self) -> Data:
        return {"format": FORMAT, "catalog": self.catalog, "recipes": self.recipes,
                "lines": self.lines, "dynamo": self.dynamo}

    @classmethod
    def from_json(cls, data: Data) -> Catalogue:
        if data.get("format") != FORMAT:
            raise ValueError(f"catalogue format {data.get('format')!r}; this tool reads "
                             f"format {FORMAT}")
        return cls(data["catalog"], data["recipes"], data.get("lines", {}),
                   data.get("dynamo", {}))


def from_loader(catalog: Catalog, dynamo: dict[str, Data] | None = None) -> Catalogue:
    """The catalogue of a validated tree (all of it, or the one recipe `load_for` read)."""
    from .yaml_source import dotted

    files = [*(catalog.files[h] for h in catalog.recipes if h in catalog.files),
             *catalog.strategy_files.values()]
    return Catalogue(
        catalog=catalog.builder_catalog(),
        recipes={hf_id: catalog.builder_recipe(hf_id) for hf_id in catalog.recipes},
        lines={source.display: {dotted(loc): line for loc, line in source.lines.items()}
               for source in files},
        dynamo=dynamo or {},
    )


def packaged(path: Path = PACKAGED) -> Catalogue | None:
    """The catalogue a wheel carries, or None (a checkout has none)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return Catalogue.from_json(json.loads(text))


def write_packaged(root: Path, target: Path) -> Catalogue:
    """Validate the tree at `root` exactly as `vllm-recipes check` does and write the whole
    catalogue, with the Dynamo deployments, to `target` (a wheel's build step). Raises
    InvalidRecipe, listing every problem, when the tree does not validate."""
    from .deployments import load_deployments
    from .loader import load_catalog

    catalog = load_catalog(root)
    deployments = load_deployments(root)
    catalogue = from_loader(catalog, {h: deployments.published(h) for h in deployments.by_model})
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(catalogue.to_json(), ensure_ascii=False, sort_keys=False,
                                 separators=(",", ":")), encoding="utf-8")
    return catalogue
