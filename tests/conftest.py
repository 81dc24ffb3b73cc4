"""Session fixtures shared by the site tests (browser fixtures live in tests/browser/)."""

from __future__ import annotations

import os
import tempfile

import pytest

from tests.sitebuild import BuiltSite, build

# The command line's cache of validated recipes (vllm_recipes/answer_cache.py): one of the
# test session's own, not the user's.
os.environ.setdefault("VLLM_RECIPES_CACHE", tempfile.mkdtemp(prefix="vllm-recipes-cache-"))


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The real site, built once per test session with the default SITE_URL."""
    site_dir = tmp_path_factory.mktemp("site")
    run = build(site_dir, SITE_URL="http://127.0.0.1:8000/")
    log = run.stdout + run.stderr
    assert run.returncode == 0, log
    return BuiltSite(site_dir, log)
