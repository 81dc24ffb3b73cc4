"""`vllm-recipes upstream`: on fixture public trees made here (two commits of a tiny git
repository), it reports a new public model, a removed one and a changed one, with a
field-level summary; exit 0 when nothing is new, 1 when something is, 2 on bad input."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from tests.recipes_data import RECIPES, ROOT, small_tree
from vllm_recipes.api_contract import API_VERSION
from vllm_recipes.api_schemas import published
from vllm_recipes_cli.cli import main as cli_main
from vllm_recipes_cli.upstream import field_changes

PUBLIC_QWEN = {
    "meta": {"title": "Qwen3-8B", "provider": "Qwen"},
    "model": {"model_id": "Qwen/Qwen3-8B", "base_args": []},
    "features": {"reasoning": {"args": ["--reasoning-parser", "qwen3"]}},
    "variants": {"default": {"precision": "bf16", "vram_minimum_gb": 20}},
    "compatible_strategies": ["single_node_tp"],
}
PUBLIC_GEMMA = {
    "meta": {"title": "Gemma 4 E2B", "provider": "Google"},
    "model": {"model_id": "google/gemma-4-E2B-it"},
    "variants": {"default": {"precision": "bf16", "vram_minimum_gb": 12}},
}
PUBLIC_NEW = {"meta": {"title": "New"}, "model": {"model_id": "newco/New-1B"}}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def write(repo: Path, path: str, data: object) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(data, sort_keys=False))


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm",
        message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def public(tmp_path: Path) -> tuple[Path, str]:
    """A public repo whose first commit has two models; the recipe tree's two recipes were
    ported from it at that commit."""
    repo = tmp_path / "public"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo, "models/Qwen/Qwen3-8B.yaml", PUBLIC_QWEN)
    write(repo, "models/Google/gemma-4-E2B-it.yaml", PUBLIC_GEMMA)
    return repo, commit(repo, "first")


def ported_tree(tmp_path: Path, first: str) -> Path:
    models = {}
    for hf_id, public_path in (("Qwen/Qwen3-8B", "models/Qwen/Qwen3-8B.yaml"),
                               ("google/gemma-4-E2B-it", "models/Google/gemma-4-E2B-it.yaml")):
        text = (RECIPES / "models" / f"{hf_id}.yaml").read_text()
        text = text[:text.index("upstream:")]
        models[hf_id] = text + f"upstream:\n  path: {public_path}\n  commit: {first}\n"
    return small_tree(tmp_path, models)


def upstream_process(checkout: Path, tree: Path, *extra: str
                     ) -> subprocess.CompletedProcess[str]:
    """`vllm-recipes upstream CHECKOUT --recipes TREE`, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "vllm_recipes_cli", "upstream", str(checkout), "--recipes",
         str(tree), *extra], cwd=ROOT, capture_output=True, text=True, check=False)


def upstream(checkout: Path, tree: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`upstream_process`, through the CLI's `main` in this process (`python -m
    vllm_recipes_cli` is `sys.exit(main())`): a Python start-up each (~1 s) for the reports
    below; the process itself stays checked by test_nothing_new_at_the_ported_commit, the
    hostile checkout's bytes and the exit-2 refusals."""
    out, err = io.StringIO(), io.StringIO()
    with (contextlib.chdir(ROOT), contextlib.redirect_stdout(out),
          contextlib.redirect_stderr(err)):
        code = cli_main(["upstream", str(checkout), "--recipes", str(tree), *extra])
    return subprocess.CompletedProcess(["upstream", str(checkout)], code, out.getvalue(),
                                       err.getvalue())


def test_nothing_new_at_the_ported_commit(tmp_path: Path, public: tuple[Path, str]) -> None:
    repo, first = public
    run = upstream_process(repo, ported_tree(tmp_path, first))
    assert run.returncode == 0, run.stderr
    assert "new public models: 0\nremoved upstream: 0\nchanged upstream since the port: 0" in (
        run.stdout)


def test_a_new_a_removed_and_a_changed_model(tmp_path: Path, public: tuple[Path, str]) -> None:
    repo, first = public
    tree = ported_tree(tmp_path, first)
    changed = {**PUBLIC_QWEN,
               "model": {"model_id": "Qwen/Qwen3-8B", "base_args": ["--max-model-len", "32768"]},
               "variants": {**PUBLIC_QWEN["variants"],
                            "fp8": {"precision": "fp8", "vram_minimum_gb": 10}},
               "compatible_strategies": ["single_node_tp", "multi_node_tp"]}
    write(repo, "models/Qwen/Qwen3-8B.yaml", changed)
    (repo / "models/Google/gemma-4-E2B-it.yaml").unlink()
    write(repo, "models/newco/New-1B.yaml", PUBLIC_NEW)
    commit(repo, "second")
    run = upstream(repo, tree)
    assert run.returncode == 1, run.stderr
    out = run.stdout
    assert "new public models: 1\n  newco/New-1B  (models/newco/New-1B.yaml)\n" in out
    assert ("removed upstream: 1\n  google/gemma-4-E2B-it  (models/Google/gemma-4-E2B-it.yaml)\n"
            in out)
    assert "  Qwen/Qwen3-8B  (models/Qwen/Qwen3-8B.yaml, 1 commit)\n" in out
    assert "    args: added to model.base_args: --max-model-len 32768\n" in out
    assert "    variants: added variants.fp8.precision: fp8\n" in out
    assert "    strategies: added to compatible_strategies: multi_node_tp\n" in out
    report = json.loads(upstream(repo, tree, "--json").stdout)
    jsonschema.Draft202012Validator(published("cli-upstream")).validate(report)
    assert report["api_version"] == API_VERSION
    assert [row["model_id"] for row in report["new"]] == ["newco/New-1B"]
    assert [row["hf_id"] for row in report["removed"]] == ["google/gemma-4-E2B-it"]
    assert [c["hf_id"] for c in report["changed"]] == ["Qwen/Qwen3-8B"]
    assert report["changed"][0]["changes"]["variants"] == [
        "added variants.fp8.precision: fp8", "added variants.fp8.vram_minimum_gb: 10"]


def test_a_public_model_we_serve_under_another_path_is_not_new(
        tmp_path: Path, public: tuple[Path, str]) -> None:
    """A public file whose model id is one of ours (any case) is not a new model."""
    repo, first = public
    tree = ported_tree(tmp_path, first)
    write(repo, "models/qwen-mirror/Qwen3-8B.yaml", {"model": {"model_id": "qwen/qwen3-8b"}})
    commit(repo, "a copy")
    run = upstream(repo, tree)
    assert run.returncode == 0, run.stdout
    assert "new public models: 0" in run.stdout


def test_a_recorded_commit_the_checkout_lacks_is_not_compared(
        tmp_path: Path, public: tuple[Path, str]) -> None:
    repo, _ = public
    tree = ported_tree(tmp_path, "f" * 40)
    run = upstream(repo, tree)
    assert run.returncode == 0
    assert ("not compared: 2\n  google/gemma-4-E2B-it: the checkout lacks the recorded commit\n"
            "  Qwen/Qwen3-8B: the checkout lacks the recorded commit\n") in run.stdout


def pull_request_commit(repo: Path) -> str:
    """A pull request's commit adding New-1B, off HEAD's history (HEAD stays checked out)."""
    branch = git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip()
    git(repo, "checkout", "-q", "-b", "pull-request")
    write(repo, "models/newco/New-1B.yaml", PUBLIC_NEW)
    side = commit(repo, "a pull request's commit")
    git(repo, "checkout", "-q", branch)
    return side


def test_a_recorded_commit_off_the_checkouts_history_is_not_compared(
        tmp_path: Path, public: tuple[Path, str]) -> None:
    """A port recorded at a pull request's commit that the checkout has (a full clone fetches
    it) but whose HEAD never merged: not compared, never "removed upstream"."""
    repo, first = public
    side = pull_request_commit(repo)
    tree = ported_tree(tmp_path, first)
    hf_id = "Qwen/Qwen3-8B"
    text = (tree / "models" / f"{hf_id}.yaml").read_text()
    text = text[:text.index("upstream:")] + (
        f"upstream:\n  path: models/newco/New-1B.yaml\n  commit: {side.strip()}\n")
    (tree / "models" / f"{hf_id}.yaml").write_text(text)
    run = upstream(repo, tree)
    assert run.returncode == 0, run.stdout
    assert "removed upstream: 0" in run.stdout
    assert (f"  {hf_id}: the recorded commit is not in the history of the checkout's HEAD"
            in run.stdout)


def test_a_plain_tree_reports_new_and_removed_only(tmp_path: Path,
                                                   public: tuple[Path, str]) -> None:
    repo, first = public
    plain = tmp_path / "plain"
    (plain / "models/Qwen").mkdir(parents=True)
    (plain / "models/Qwen/Qwen3-8B.yaml").write_text((repo / "models/Qwen/Qwen3-8B.yaml")
                                                     .read_text())
    run = upstream(plain, ported_tree(tmp_path, first))
    assert run.returncode == 1
    assert "(not a git tree)" in run.stdout
    assert "removed upstream: 1\n  google/gemma-4-E2B-it" in run.stdout
    assert "  Qwen/Qwen3-8B: not a git tree: changes unknown" in run.stdout


@pytest.mark.parametrize("args", [["/nonexistent"], [], ["a", "b"], ["--bogus", "x"]])
def test_bad_input_exits_2_with_one_line(args: list[str], tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "vllm_recipes_cli", "upstream", *args], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    assert run.returncode == 2
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    if args == ["/nonexistent"]:
        assert run.stderr == ("vllm-recipes upstream: /nonexistent: not a checkout of the "
                              "public catalogue (no models/)\n")


def test_field_changes_by_category() -> None:
    old = {"model": {"base_env": {"A": "1"}}, "meta": {"hardware": {"h200": "verified"}},
           "variants": {"default": {"vram_minimum_gb": 20}}}
    new = {"model": {"base_env": {"A": "2"}}, "meta": {"hardware": {"h200": "verified",
                                                                    "b200": "verified"}},
           "variants": {"default": {"vram_minimum_gb": 24}}}
    assert field_changes(old, new) == {
        "env": ["changed model.base_env.A: 1 → 2"],
        "hardware": ["added meta.hardware.b200: verified"],
        "variants": ["changed variants.default.vram_minimum_gb: 20 → 24"],
    }


def test_a_hostile_checkout_is_read_and_shown_escaped(tmp_path: Path,
                                                      public: tuple[Path, str]) -> None:
    """Issue 32: a checkout whose directory and file names are not UTF-8, a public model id
    of 900 KB and one with terminal escapes: the report is read (no UnicodeDecodeError),
    every line printable and cut, in the text and in the JSON."""
    import os
    import shutil

    repo, first = public
    tree = ported_tree(tmp_path, first)
    write(repo, "models/Huge/huge.yaml", {"meta": {"title": "h"},
                                          "model": {"model_id": "huge/" + "x" * 900_000}})
    write(repo, "models/Esc/esc.yaml", {"meta": {"title": "e"},
                                        "model": {"model_id": "esc/\x1b]0;pwned\x07\u202eid"}})
    odd = os.fsdecode(b"models/Odd/\xff.yaml")
    write(repo, odd, {"meta": {"title": "o"}, "model": {"model_id": "odd/one"}})
    commit(repo, "hostile")
    checkout = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/re\xffpo"))
    shutil.copytree(repo, checkout)
    for extra in ((), ("--json",)):
        run = subprocess.run(
            [sys.executable, "-m", "vllm_recipes_cli", "upstream", checkout, "--recipes", tree,
             *extra], cwd=ROOT, capture_output=True, check=False)
        out = run.stdout.decode()  # UTF-8: no byte of a name reaches the terminal as it is
        assert run.returncode == 1 and run.stderr == b"", run.stderr[-2000:]
        assert all(line.isprintable() for line in out.splitlines())
        assert len(out) < 5_000, len(out)
        assert "\\udcff" in out
    lines = subprocess.run(
        [sys.executable, "-m", "vllm_recipes_cli", "upstream", checkout, "--recipes", tree],
        cwd=ROOT, capture_output=True, text=True, check=False).stdout.splitlines()
    assert "  esc/\\x1b]0;pwned\\x07\\u202eid  (models/Esc/esc.yaml)" in lines
    assert "  odd/one  (models/Odd/\\udcff.yaml)" in lines
    assert f"  huge/{'x' * 194}…  (models/Huge/huge.yaml)" in lines


def test_a_tree_of_stored_versions_compares_by_its_manifest(
        tmp_path: Path, public: tuple[Path, str]) -> None:
    """Issue 35.2: a tree assembled from stored versions of the public files (each at its own
    commit, no git history) reports a recipe whose recorded commit is the one its MANIFEST.txt
    names as up to date, and one recorded at another commit as changed, with both commits."""
    repo, first = public
    plain = tmp_path / "plain"
    for path in ("models/Qwen/Qwen3-8B.yaml", "models/Google/gemma-4-E2B-it.yaml"):
        (plain / path).parent.mkdir(parents=True, exist_ok=True)
        (plain / path).write_text((repo / path).read_text())
    newer = "a" * 40
    (plain / "MANIFEST.txt").write_text(
        "# path commit (notes)\n"
        f"models/Qwen/Qwen3-8B.yaml {first}  date_updated 2026-08-14\n"
        f"models/Google/gemma-4-E2B-it.yaml {newer}\n")
    tree = ported_tree(tmp_path, first)
    run = upstream(plain, tree)
    assert run.returncode == 1, run.stderr
    assert "\nnot compared:" not in run.stdout
    assert ("changed upstream since the port: 1\n"
            f"  google/gemma-4-E2B-it  (models/Google/gemma-4-E2B-it.yaml, at {newer[:12]})\n"
            f"    the checkout lacks the recorded version ({first[:12]}): fields not compared\n"
            ) in run.stdout
    report = json.loads(upstream(plain, tree, "--json").stdout)
    assert [(c["hf_id"], c["now"], c["recorded"]) for c in report["changed"]] == [
        ("google/gemma-4-E2B-it", newer, first)]


def test_a_manifest_in_a_git_tree_vouches_for_commits_its_history_lacks(
        tmp_path: Path, public: tuple[Path, str]) -> None:
    """A git tree of stored versions (the snapshot's history plus one commit with the newer
    files): a recipe recorded at a commit only the manifest knows is up to date when the
    manifest names that commit; the others are compared by git as before."""
    repo, first = public
    elsewhere = "b" * 40
    tree = ported_tree(tmp_path, first)
    text = (tree / "models/Qwen/Qwen3-8B.yaml").read_text().replace(first, elsewhere)
    (tree / "models/Qwen/Qwen3-8B.yaml").write_text(text)
    (repo / "MANIFEST.txt").write_text(f"models/Qwen/Qwen3-8B.yaml {elsewhere}\n")
    commit(repo, "manifest")
    run = upstream(repo, tree)
    assert run.returncode == 0, run.stdout
    assert "changed upstream since the port: 0" in run.stdout
    assert "\nnot compared:" not in run.stdout


def test_a_changed_date_is_summarised_not_a_crash() -> None:
    """Public files carry YAML dates (`date_updated: 2026-09-10`, a date object once loaded):
    a changed date is a change line like any other (it was a TypeError from json.dumps)."""
    import datetime

    old = {"meta": {"date_updated": datetime.date(2026, 8, 14)}}
    new = {"meta": {"date_updated": datetime.date(2026, 9, 10)}}
    assert field_changes(old, new) == {
        "other": ["changed meta.date_updated: 2026-08-14 → 2026-09-10"]}


def test_a_manifest_commit_with_the_recorded_data_is_up_to_date(
        tmp_path: Path, public: tuple[Path, str]) -> None:
    """The same file seen at another commit (a pull request's merge commit holds main's
    files too): the tree's manifest names that commit, the data is the recorded version's,
    so nothing changed."""
    repo, first = public
    side = pull_request_commit(repo)
    tree = ported_tree(tmp_path, side)  # recorded at the side commit, off HEAD's history
    (repo / "MANIFEST.txt").write_text(f"models/Qwen/Qwen3-8B.yaml {first}\n")
    commit(repo, "manifest")
    run = upstream(repo, tree)
    assert "changed upstream since the port: 0" in run.stdout, run.stdout
