"""The wheel carries the recipe catalogue as validated JSON (`vllm_recipes/catalogue.json`)
and the recipe JSON Schema (`vllm_recipes/schema.json`, what `vllm-recipes schema` prints).

setuptools builds the packages as usual (pyproject.toml); this step then validates `recipes/`
with the loader, exactly as `vllm-recipes check` does, and writes the catalogue into the build
directory, never into the source tree. The installed tool answers from that file with the
standard library alone. A tree that does not validate stops the build with every problem.

The wheel holds the tool (`TOOL`); the mkdocs plugin (`SITE`) and its entry point go in only
with `VLLM_RECIPES_WITH_SITE=1`, which build_backend.py sets for an editable install.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class BuildWithCatalogue(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install answers from the checkout's recipes/
        sys.path.insert(0, str(HERE))
        from vllm_recipes.catalogue import write_packaged

        target = Path(self.build_lib) / "vllm_recipes" / "catalogue.json"
        catalogue = write_packaged(HERE / "recipes", target)
        print(f"wrote {target} ({len(catalogue.recipes)} recipes, catalogue "
              f"{catalogue.date()})")
        from vllm_recipes.schema import json_schema  # what `vllm-recipes schema` prints

        schema = json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
        (target.parent / "schema.json").write_text(schema, encoding="utf-8")


TOOL = ["builder", "builder.commands", "builder.deployment", "builder.diff",
        "builder.performance", "builder.estimates", "builder.sizing", "builder.dynamo",
        "builder.views",
        "vllm_recipes", "vllm_recipes_cli"]
"""What every install holds: the builder, the data layer and the tool."""
SITE = ["site_plugins", "site_plugins.recipes"]
"""The mkdocs plugin: only where the site is built (an editable install; build_backend.py)."""
WITH_SITE = os.environ.get("VLLM_RECIPES_WITH_SITE") == "1"
EGG_BASE = Path(".build") / "egg-info"
"""Where setuptools writes its `vllm_recipes.egg-info` (relative to the checkout, as pip runs
this): not the checkout's root, which `python -m mkdocs` puts first on sys.path, so that a
metadata copy written for a wheel (no mkdocs plugin) never hides the installed one's."""
EGG_BASE.mkdir(parents=True, exist_ok=True)

setup(
    cmdclass={"build_py": BuildWithCatalogue},
    options={"egg_info": {"egg_base": str(EGG_BASE)}},
    packages=TOOL + (SITE if WITH_SITE else []),
    # The data layer's vLLM flag lists: `vllm-recipes check --recipes DIR` reads them.
    package_data={"vllm_recipes": ["data/*.json"], "site_plugins.recipes": ["*.mjs"]},
    entry_points={
        "console_scripts": ["vllm-recipes = vllm_recipes_cli.cli:main"],
        **({"mkdocs.plugins": ["recipes = site_plugins.recipes.plugin:RecipesPlugin"]}
           if WITH_SITE else {}),
    },
)
