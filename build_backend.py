"""The build backend: setuptools' own (pyproject.toml's `backend-path`), except that an editable
install — the checkout's `make install` — also installs the mkdocs plugin.

A wheel (`pip wheel .`, `pipx install .`) holds the tool only: `builder`, the data layer
`vllm_recipes` and the tool `vllm_recipes_cli`. `site_plugins` and the `mkdocs.plugins` entry
point go in only where the site is built: an editable install of the checkout, or any install
with `VLLM_RECIPES_WITH_SITE=1` (with the `[site]` extra for mkdocs and its plugins, e.g.
`VLLM_RECIPES_WITH_SITE=1 pip install '.[site]'`). setup.py reads the variable.
"""

from __future__ import annotations

import os
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import (  # noqa: F401 - the other hooks, unchanged
    build_sdist,
    build_wheel,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_wheel,
)

WITH_SITE = "VLLM_RECIPES_WITH_SITE"
"""Set to 1: the build includes the site (setup.py)."""


def prepare_metadata_for_build_editable(metadata_directory: str,
                                        config_settings: dict[str, Any] | None = None) -> str:
    os.environ[WITH_SITE] = "1"
    return build_meta.prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_editable(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                   metadata_directory: str | None = None) -> str:
    os.environ[WITH_SITE] = "1"
    return build_meta.build_editable(wheel_directory, config_settings, metadata_directory)
