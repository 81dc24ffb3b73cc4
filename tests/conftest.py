"""Session fixtures shared by the site tests (browser fixtures live in tests/browser/)."""

from __future__ import annotations

import atexit
import fcntl
import gc
import os
import shutil
import tempfile
from collections.abc import Generator, Iterator

import pytest
from _pytest.nodeid import NodeId

from tests.sitebuild import BUILT_FOR, BuiltSite, build
from tests.vllm_parser.envs import XDIST_GROUP, Parsers

# The command line's cache of validated recipes (vllm_recipes_cli/answer_cache.py): one of the
# test session's own, not the user's, made by the process that starts the session (pytest-xdist's
# workers and the tests' subprocesses inherit it) and removed when that process ends.
if "VLLM_RECIPES_CACHE" not in os.environ:
    os.environ["VLLM_RECIPES_CACHE"] = tempfile.mkdtemp(prefix="vllm-recipes-cache-")
    atexit.register(shutil.rmtree, os.environ["VLLM_RECIPES_CACHE"], ignore_errors=True)


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


@pytest.fixture(scope="session")
def parser() -> Iterator[Parsers]:
    """vLLM's own `vllm serve` parser (`parser("vllm")`) and vLLM-Omni's (`parser("omni")`):
    one check_argv.py process per kind for the whole session, started when a test first asks
    for it (tests/vllm_parser/envs.py)."""
    parsers = Parsers()
    yield parsers
    parsers.close()


# The tests of 5 s and more outside tests/browser/ (whose tests are many, short, and collected
# early anyway) run before all others: pytest-xdist hands the workers one test at a time in the
# order collected, so one of these last in line kept one core busy alone for up to 17 s at the
# end of a run while the other worker had finished. Only the order changes
# (tests/test_parser_pool.py checks that every name here exists).
LONG_FIRST = (
    "tests/test_dev_rebuild.py",
    "tests/test_pyodide_parity.py",
    "tests/test_one_answer.py::test_every_id_gives_the_same_argv_on_cli_json_and_page",
    "tests/test_view.py::test_a_shared_row_cache_changes_no_byte",
    "tests/test_parser_pool.py::test_every_parser_test_runs_on_one_xdist_worker",
    "tests/fuzz/test_fuzz_urls.py",
    "tests/test_one_answer.py::test_variant_pages_answer_every_variant_as_the_cli_does",
    "tests/fuzz/test_fuzz_cli.py",
    "tests/test_api_contract.py::test_every_link_in_every_json_file_resolves_under_a_sub_path",
    "tests/test_recipe_deepseek_v4.py::test_every_summary_names_the_parallel_sizes",
    "tests/test_multi_node.py::test_every_multi_node_rendering_is_consistent",
    "tests/test_tool_wheel.py",
    "tests/test_cli.py::test_check_a_clean_tree_and_a_broken_one",
)


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]
                                  ) -> Iterator[None]:
    """Every `vllm_parser` test runs on the same pytest-xdist worker (`--dist loadgroup`,
    pyproject.toml's addopts), so the parser processes start once per run, not once per
    worker. The long tests of `LONG_FIRST` run first, so the run does not end on one."""
    items.sort(key=lambda item: not item.nodeid.startswith(LONG_FIRST))  # stable
    for item in items:  # before pytest-xdist's hook reads the groups
        if item.get_closest_marker("vllm_parser") is not None:
            item.add_marker(pytest.mark.xdist_group(XDIST_GROUP))
    yield
    # pytest-xdist 3.8 tells its scheduler an item's group by appending "@group" to the node
    # id, through an attribute pytest 9.2 no longer reads (pytest-dev/pytest-xdist#1386): the
    # tests would be spread over the workers, each starting the parser processes. Do it the
    # way pytest 9.2 keeps node ids, unless pytest-xdist already did.
    if getattr(config.option, "loadgroup", False):  # a worker of --dist loadgroup
        suffix = f"@{XDIST_GROUP}"
        for item in items:
            if (item.get_closest_marker("vllm_parser") is not None
                    and not item.nodeid.endswith(suffix)):
                item._id = NodeId.parse(item.nodeid + suffix)  # type: ignore[attr-defined]


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None
                            ) -> Generator[None, object, object]:
    """After each test, its cyclic garbage is collected and what survives is frozen
    (`gc.freeze`): the test processes keep large caches (the render matrix's walk, the kept
    Builders, parsed site files: millions of objects), which every full collection scanned
    again, and once more at exit (a fifth of test_render_matrix's, test_unavailable_agrees' and
    test_view's time, and 20 s at the end of a process that ran them). Later collections scan
    only what later tests make."""
    result = yield
    gc.collect()
    gc.freeze()
    return result
