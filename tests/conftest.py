"""Session fixtures shared by the site tests (browser fixtures live in tests/browser/)."""

from __future__ import annotations

import fcntl
import os
import tempfile

import pytest

from tests.sitebuild import BUILT_FOR, BuiltSite, build

# The command line's cache of validated recipes (vllm_recipes_cli/answer_cache.py): one of the
# test session's own, not the user's.
os.environ.setdefault("VLLM_RECIPES_CACHE", tempfile.mkdtemp(prefix="vllm-recipes-cache-"))


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    """The real site, built once per test session with the default SITE_URL: with
    pytest-xdist, the first worker that needs it builds it and the others wait for it
    (they share the session's temporary directory)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the directory all workers' temporary directories are in
    site_dir, log_file = shared / "built-site", shared / "built-site.log"
    with open(shared / "built-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not log_file.exists():
            run = build(site_dir, SITE_URL=BUILT_FOR)
            log = run.stdout + run.stderr
            assert run.returncode == 0, log
            log_file.write_text(log, encoding="utf-8")
    return BuiltSite(site_dir, log_file.read_text(encoding="utf-8"))
