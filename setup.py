"""The wheel carries the recipe catalogue as validated JSON (`vllm_recipes_cli/catalogue.json`).

setuptools builds the packages as usual (pyproject.toml); this step then validates `recipes/`
with the loader, exactly as `vllm-recipes check` does, and writes the catalogue into the build
directory, never into the source tree. The installed tool answers from that file with the
standard library alone. A tree that does not validate stops the build with every problem.
"""

from __future__ import annotations

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
        from vllm_recipes_cli.catalogue import write_packaged

        target = Path(self.build_lib) / "vllm_recipes_cli" / "catalogue.json"
        catalogue = write_packaged(HERE / "recipes", target)
        print(f"wrote {target} ({len(catalogue.recipes)} recipes, catalogue "
              f"{catalogue.date()})")


setup(cmdclass={"build_py": BuildWithCatalogue})
