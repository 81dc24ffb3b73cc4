"""Issue 27.1: the installable tool. The wheel is built from the checkout's files (copied to a
temporary directory, so the checkout stays clean), installed without dependencies into a fresh
virtual environment outside the checkout, and run from a temporary directory: it answers
`--list`, a query, `--json`, `--explain`, `--format` and `diff` exactly as the checkout does,
from the catalogue its wheel carries, with the standard library alone."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.deploy_checks import compose_problems, config_argv, kubernetes_problems
from tests.recipes_data import ROOT, catalog
from vllm_recipes_cli.cli import main as cli_main

QWEN = "Qwen/Qwen3-8B"
V41 = "deepseek-ai/DeepSeek-V4.1-Flash"


@dataclass(frozen=True)
class Installed:
    wheel: Path
    python: Path
    tool: Path
    cwd: Path


def _sources(dest: Path) -> None:
    """The files a fresh clone has (tracked, and new files not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
        capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("tool")
    source, dist, venv, cwd = base / "src", base / "dist", base / "venv", base / "cwd"
    for path in (source, dist, cwd):
        path.mkdir()
    _sources(source)
    # The build validates recipes/ with the loader: the checkout's environment has what
    # pyproject.toml's build-system asks for (setuptools, pydantic, PyYAML).
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "-q", "-w", str(dist), str(source)],
                   check=True, capture_output=True, cwd=base)
    (wheel,) = dist.glob("vllm_recipes-*.whl")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                    "--no-deps", "--disable-pip-version-check", "-q", str(wheel)],
                   check=True, capture_output=True)
    return Installed(wheel, python, venv / "bin" / "vllm-recipes", cwd)


def tool(installed: Installed, *args: str, stdin: str | None = None
         ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    return subprocess.run([str(installed.tool), *args], cwd=installed.cwd, env=env, input=stdin,
                          capture_output=True, text=True, check=False)


def checkout(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "vllm_recipes_cli", *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)


def checkout_here(*args: str) -> subprocess.CompletedProcess[str]:
    """`checkout`, through the checkout's `main` in this process (`python -m
    vllm_recipes_cli` is `sys.exit(main())`), from the same directory; the checkout as a
    process of its own stays compared in the tests below."""
    out, err = io.StringIO(), io.StringIO()
    with (contextlib.chdir(ROOT), contextlib.redirect_stdout(out),
          contextlib.redirect_stderr(err)):
        code = cli_main(list(args))
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def test_the_wheel_carries_the_catalogue_and_needs_nothing(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = wheel.namelist()
        metadata = wheel.read(next(n for n in names if n.endswith("METADATA"))).decode()
        packaged = json.loads(wheel.read("vllm_recipes/catalogue.json"))
        entry_points = wheel.read(next(n for n in names if n.endswith("entry_points.txt")))
    assert not any(name.startswith("recipes/") for name in names)
    assert [line for line in metadata.splitlines()
            if line.startswith("Requires-Dist:") and "extra ==" not in line] == []
    assert set(packaged["recipes"]) == set(catalog().recipes)
    # The tool, not the site (issue 37.3): no mkdocs plugin, no entry point into mkdocs.
    assert sorted({name.split("/")[0] for name in names if ".dist-info/" not in name}) == [
        "builder", "vllm_recipes", "vllm_recipes_cli"]
    assert "vllm_recipes/data/vllm-0.33.0-serve-flags.json" in names  # `check --recipes DIR`
    assert entry_points.decode().split() == ["[console_scripts]", "vllm-recipes", "=",
                                    "vllm_recipes_cli.cli:main"]
    site_packages = next((installed.python.parent.parent / "lib").glob("python3*/site-packages"))
    assert not (site_packages / "site_plugins").exists()
    assert (site_packages / "vllm_recipes_cli" / "cli.py").is_file()
    # Heavy packages are not there, and nothing asks for them.
    for module in ("yaml", "pydantic", "mkdocs"):
        probe = subprocess.run([str(installed.python), "-c", f"import {module}"],
                               capture_output=True, check=False)
        assert probe.returncode != 0, module


@pytest.mark.parametrize("args", [
    ("--list",),
    ("--list", "--json"),
    (QWEN, "hardware=h100"),
    (V41, "hardware=mi355x", "--json"),
    (V41, "hardware=mi355x", "--explain"),
    ("nvidia/DeepSeek-V4-Flash-NVFP4", "hardware=gb200"),
    ("diff", V41, "hardware=h200", "--command", f"vllm serve {V41} --tensor-parallel-size 8"),
    (V41, "--dynamo"),
    (QWEN, "hardware=h100", "--format", "vllm-config"),
], ids=lambda a: " ".join(a))
def test_the_installed_tool_answers_as_the_checkout(installed: Installed,
                                                    args: tuple[str, ...]) -> None:
    got, want = tool(installed, *args), checkout_here(*args)
    assert got.returncode == want.returncode == 0, got.stderr
    assert got.stdout == want.stdout
    assert got.stderr == want.stderr


def test_the_acceptance_files_validate(installed: Installed) -> None:
    """`vllm-recipes Qwen/Qwen3-8B hardware=h100 --format k8s|compose|vllm-config` from the
    installed tool: the manifests pass kubernetes-validate, the service the Compose schema,
    and the config file gives back the command's options under vLLM's config rules."""
    k8s = tool(installed, QWEN, "hardware=h100", "--format", "k8s")
    assert k8s.returncode == 0 and kubernetes_problems(k8s.stdout) == []
    compose = tool(installed, QWEN, "hardware=h100", "--format", "compose")
    assert compose.returncode == 0 and compose_problems(compose.stdout) == []
    config = tool(installed, QWEN, "hardware=h100", "--format", "vllm-config")
    serve = json.loads(tool(installed, QWEN, "hardware=h100", "--json").stdout)[
        "recommended_command"]["commands"][0]
    assert config_argv(config.stdout) == ["--model", QWEN, *serve["argv"][3:]]


def test_version_and_refusals(installed: Installed) -> None:
    from vllm_recipes.catalogue import from_loader

    date = from_loader(catalog()).date()
    out = tool(installed, "--version")
    assert out.returncode == 0
    assert out.stdout == f"vllm-recipes 0.1.0 (catalogue {date}, {len(catalog().recipes)} " \
                         "recipes)\n"
    assert out.stdout == checkout("--version").stdout
    unknown = tool(installed, "nobody/Nothing")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert unknown.stderr == ("vllm-recipes: hf_id: unknown model 'nobody/Nothing'; see "
                              "vllm-recipes --list\n")
    check = tool(installed, "check", str(ROOT / "recipes"))
    assert check.returncode == 2
    assert check.stderr == ("vllm-recipes: vllm-recipes check reads a recipe tree (--recipes "
                            "DIR) and needs pydantic, which the installed tool does without; "
                            "run it in a checkout (make install), or install the tool with "
                            "its [site] extra\n")


def test_the_docs_start_with_the_install_line_and_show_each_command() -> None:
    from site_plugins.recipes.machine import llms_index

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The command line\n", 1)[1]
    assert section.lstrip().startswith("```bash\npipx install .")
    api = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for example in ("pipx install .", "vllm-recipes --version", "vllm-recipes --list",
                    "vllm-recipes Qwen/Qwen3-8B --detect", "vllm-recipes run Qwen/Qwen3-8B",
                    "vllm-recipes verify http://", "--format vllm-config", "--format compose",
                    "--format k8s", "vllm-recipes diff ", "--explain", "--json", "--dynamo"):
        assert example in api, example
    index = llms_index([], "https://example.org/")
    assert "`vllm-recipes` tool (`pipx install .`" in index
    assert "--format vllm-config|compose|k8s" in index


BUILD_PROBE = """
import json, sys
from pathlib import Path
from vllm_recipes.catalogue import write_packaged
write_packaged(Path(sys.argv[1]), Path(sys.argv[2]))
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_the_build_requirements_hold_what_the_build_imports(tmp_path: Path) -> None:
    """`pip wheel .` and `pipx install .` build in an isolated environment holding only
    `[build-system] requires`: every distribution the build step imports (setup.py's
    `write_packaged`) must be listed there, or the build fails on a clean machine."""
    import importlib.metadata
    import tomllib

    run = subprocess.run([sys.executable, "-c", BUILD_PROBE, str(ROOT / "recipes"),
                          str(tmp_path / "catalogue.json")],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    modules = set(json.loads(run.stdout)) - set(sys.stdlib_module_names)
    distributions = importlib.metadata.packages_distributions()
    needed = {dist.lower() for module in modules for dist in distributions.get(module, [])}
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    listed = {req.split("=")[0].split(">")[0].split("<")[0].strip().lower() for req in requires}
    ours = {"vllm-recipes"}
    # pydantic's own dependencies come with it (pip installs a requirement's requirements).
    with_deps = set(listed)
    for name in listed:
        try:
            for req in importlib.metadata.requires(name) or []:
                if "extra ==" not in req:
                    with_deps.add(req.split(";")[0].split(" ")[0].split(">")[0].split("=")[0]
                                  .split("<")[0].split("!")[0].split("~")[0].strip().lower())
        except importlib.metadata.PackageNotFoundError:
            pass
    normalise = {name.replace("_", "-") for name in with_deps}
    missing = {d for d in needed - ours if d.replace("_", "-") not in normalise}
    assert missing == set(), f"add to [build-system] requires: {sorted(missing)}"


NEEDS_TREE = re.compile(r"^vllm-recipes: vllm-recipes (\w+) (needs|reads) a recipe tree\b.*"
                        r"--recipes DIR.*\n$")
"""The one line a subcommand that reads a recipe tree says where the installed tool has none."""


def _refuses_without_a_tree(out: subprocess.CompletedProcess[str], subcommand: str) -> bool:
    found = NEEDS_TREE.match(out.stderr)
    return (out.returncode == 2 and out.stdout == "" and found is not None
            and found.group(1) == subcommand)


def _listed_subcommands(help_text: str) -> list[str]:
    return sorted(set(re.findall(r"^  vllm-recipes (\w+) ", help_text, flags=re.M)))


def test_every_listed_subcommand_works_or_says_it_needs_a_tree(installed: Installed,
                                                               tmp_path: Path) -> None:
    """Issue 37.3: each subcommand `vllm-recipes --help` lists, and `port`, answers `--help`
    and one real call from the wheel, or says in one line that it needs a recipe tree and
    takes `--recipes DIR`."""
    from http.server import ThreadingHTTPServer

    from tests.test_run_verify import CHAT, Stub, _handler

    listed = _listed_subcommands(tool(installed, "--help").stdout)
    assert listed == ["check", "diff", "run", "schema", "upstream", "verify"]
    for subcommand in [*listed, "port"]:
        out = tool(installed, subcommand, "--help")
        if subcommand == "port":  # it writes YAML: PyYAML, which the wheel does without
            assert _refuses_without_a_tree(out, "port"), out.stderr
        else:
            assert out.returncode == 0 and out.stdout.startswith(
                f"usage: vllm-recipes {subcommand} "), (subcommand, out.stderr)
    # one real call each
    run = tool(installed, "run", QWEN, "hardware=h100", "--dry-run")
    assert run.returncode == 0 and run.stdout == checkout(
        "run", QWEN, "hardware=h100", "--dry-run").stdout != ""
    diff = ("diff", QWEN, "hardware=h100", "--command", f"vllm serve {QWEN}")
    assert tool(installed, *diff).stdout == checkout(*diff).stdout != ""
    schema = tool(installed, "schema")
    assert schema.returncode == 0 and schema.stdout == checkout("schema").stdout
    assert json.loads(schema.stdout) == json.loads(
        (ROOT / "recipes" / "schema.json").read_text(encoding="utf-8"))
    assert _refuses_without_a_tree(tool(installed, "check"), "check")
    assert _refuses_without_a_tree(tool(installed, "check", "--recipes", str(ROOT / "recipes")),
                                   "check")  # the tree, but not pydantic
    assert _refuses_without_a_tree(tool(installed, "upstream", str(tmp_path)), "upstream")
    assert _refuses_without_a_tree(tool(installed, "port", str(tmp_path / "x.yaml")), "port")
    stub = Stub(models=[QWEN], answers={"/v1/chat/completions": CHAT})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stub))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        verify = tool(installed, "verify", url, "--timeout", "20")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.splitlines()[-1].startswith(f"PASS  {QWEN} at {url} (")


def test_the_subcommand_list_is_read_from_the_help() -> None:
    assert _listed_subcommands("other commands:\n  vllm-recipes run HF_ID  x\n"
                               "  vllm-recipes check [DIR]  y\n") == ["check", "run"]
    line = ("vllm-recipes: vllm-recipes check needs a recipe tree, which the installed tool "
            "does without: pass --recipes DIR (a checkout's recipes/)\n")
    assert _refuses_without_a_tree(subprocess.CompletedProcess([], 2, "", line), "check")
    assert not _refuses_without_a_tree(subprocess.CompletedProcess([], 2, "", line), "port")
    assert not _refuses_without_a_tree(
        subprocess.CompletedProcess([], 2, "", "vllm-recipes: no such file\n"), "check")


def test_an_editable_install_holds_the_site(tmp_path: Path) -> None:
    """The checkout's editable install (`make install`) registers the mkdocs plugin; a wheel's
    metadata (the same backend) does not."""
    code = ("import sys, build_backend as b; "
            "print(getattr(b, sys.argv[1])(sys.argv[2]))")
    found = {}
    for hook in ("prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel"):
        source = tmp_path / hook / "src"
        source.mkdir(parents=True)
        for name in ("pyproject.toml", "setup.py", "build_backend.py", "MANIFEST.in"):
            shutil.copy2(ROOT / name, source / name)
        for package in ("builder", "vllm_recipes", "vllm_recipes_cli", "site_plugins"):
            shutil.copytree(ROOT / package, source / package,
                            ignore=shutil.ignore_patterns("__pycache__"))
        (source / "recipes").mkdir()
        out = subprocess.run([sys.executable, "-c", code, hook, str(tmp_path / hook)],
                             cwd=source, capture_output=True, text=True, check=True)
        info = tmp_path / hook / out.stdout.strip().splitlines()[-1]
        found[hook] = ((info / "entry_points.txt").read_text(encoding="utf-8"),
                       (info / "top_level.txt").read_text(encoding="utf-8").split())
    points, tops = found["prepare_metadata_for_build_editable"]
    assert "[mkdocs.plugins]\nrecipes = site_plugins.recipes.plugin:RecipesPlugin" in points
    assert "site_plugins" in tops
    points, tops = found["prepare_metadata_for_build_wheel"]
    assert "mkdocs" not in points and "vllm-recipes = vllm_recipes_cli.cli:main" in points
    assert "site_plugins" not in tops


def test_mkdocs_run_from_the_checkout_finds_the_recipes_plugin() -> None:
    """`python -m mkdocs` puts the checkout first on sys.path: a `vllm_recipes.egg-info` there
    (setuptools' default place, written by a wheel build without the site) would hide the
    editable install's metadata and its mkdocs entry point (`make build` failed with "The
    "recipes" plugin is not installed"). setup.py writes it under .build/ instead."""
    probe = ("import importlib.metadata as m, json; from mkdocs.plugins import get_plugins; "
             "print(json.dumps(['recipes' in get_plugins(), "
             "sorted(str(d._path) for d in m.distributions() "
             "if d.metadata['Name'] == 'vllm-recipes')]))")
    run = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                         text=True, check=True)
    found, copies = json.loads(run.stdout)
    assert found, copies
    assert not (ROOT / "vllm_recipes.egg-info").exists()
