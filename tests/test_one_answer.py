"""One id, one answer (issue 10): for every recipe and every variant id, the command
`vllm-recipes ID` prints, the `recommended_command` of `/ID.json` and the command in the static
HTML of `/ID/` are the same argv; a variant's page is a full page of its own; the pages for
machines (Markdown twins, llms.txt, metadata, sitemap) hold what they say."""

from __future__ import annotations

import contextlib
import io
import json
import posixpath
import re
import shlex
import subprocess
from collections.abc import Iterator
from functools import cache
from xml.etree import ElementTree

import pytest

from builder.views.widget import page_state
from tests.htmltree import Node, parse
from tests.recipes_data import (
    ROOT,
    active_recipes,
    builder_catalog,
    builder_recipe,
    catalog,
    kept_builder,
)
from tests.sitebuild import BuiltSite
from vllm_recipes_cli import answer_cache
from vllm_recipes_cli.cli import main as cli_main

pytestmark = pytest.mark.site

PRIMARY = ("serve", "head")
"""The role of the command a single-command answer gives (as `recommended_command`)."""


def every_id() -> Iterator[tuple[str, str, str]]:
    """(id, recipe hf_id, variant id) for every recipe and every variant with its own id."""
    for hf_id, recipe in active_recipes().items():
        yield hf_id, hf_id, "default"
        for variant_id, variant in recipe.variants.items():
            if variant.model_id and variant.model_id != hf_id:
                yield variant.model_id, hf_id, variant_id


def argv_of(text: str) -> list[str]:
    """The command in shell text: from `vllm serve` or `docker run` on (exports dropped)."""
    # The CLI prints the install block first: the command starts at its own line.
    first = re.search(r"^(vllm serve|docker run)\b", text, re.M)
    text = text[first.start():] if first else text
    # shlex keeps a backslash-newline as a newline word; the shell drops it (a continuation).
    words = shlex.split(text.replace("\\\n", " "), comments=True)
    for start in range(len(words) - 1):
        if (words[start], words[start + 1]) in (("vllm", "serve"), ("docker", "run")):
            return words[start:]
    raise AssertionError(f"no command in {text!r}")


def cli(*args: str) -> tuple[int, str]:
    code, out, _ = cli_with_errors(*args)
    return code, out


@pytest.fixture(scope="module", autouse=True)
def one_tree_key() -> Iterator[None]:
    """The CLI's cache key (answer_cache.tree_key: a stat of every file of the tree and of
    the packages, made for one answer per process) worked out once per tree while this
    module's tests ask `main` for ~2,000 answers in one process: nothing edits the tree
    meanwhile (tests/test_cli.py checks that an edit changes the key)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(answer_cache, "tree_key", cache(answer_cache.tree_key))
        yield


@cache
def cli_with_errors(*args: str) -> tuple[int, str, str]:
    """What `vllm-recipes ARGS` gives (exit code, stdout without the install block, stderr),
    from the CLI's `main` in this process; asked once per process for the same words (the
    tests below ask several of the same)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(list(args))
    text = out.getvalue()
    if text.startswith("# Install ("):  # the install block, then the commands
        text = text.partition("\n\n")[2]
    return code, text, err.getvalue()


def page(site: BuiltSite, model_id: str) -> Node:
    return parse((site.root / model_id / "index.html").read_text(encoding="utf-8"))


def html_command(doc: Node) -> str:
    mount = doc.find(cls="rb-mount")
    for role in PRIMARY:
        blocks = mount.find_all("div", "rb-block", **{"data-role": role})
        if blocks:
            return blocks[0].find("code").text
    raise AssertionError("no serve or head block on the page")


def load(site: BuiltSite, path: str) -> dict:
    doc = json.loads((site.root / path.lstrip("/")).read_text(encoding="utf-8"))
    if "same_as" in doc:  # a link relative to the document
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path.lstrip("/")),
                                                   doc["same_as"]))
        doc = json.loads((site.root / target).read_text(encoding="utf-8"))
    return doc


def test_every_id_gives_the_same_argv_on_cli_json_and_page(built_site: BuiltSite) -> None:
    checked = 0
    for model_id, _, variant_id in every_id():
        code, printed = cli(model_id)
        assert code == 0, model_id
        command = load(built_site, f"/{model_id}.json")["recommended_command"]
        install = command["selection"]["install"]
        expected = command["docker_argv"] if install == "docker" else command["argv"]
        assert first_command(printed) == expected, model_id
        assert argv_of(html_command(page(built_site, model_id))) == expected, model_id
        assert command["variant"] == variant_id, model_id
        code, as_json = cli(model_id, "--json")
        assert json.loads(as_json)["recommended_command"]["selection"] == command["selection"], (
            model_id)
        checked += 1
    assert checked == sum(1 for _ in every_id()) > len(active_recipes())


def test_selection_is_typed_alike_in_cli_json_and_endpoints(built_site: BuiltSite) -> None:
    code, as_json = cli("deepseek-ai/DeepSeek-V4-Flash", "--json")
    assert code == 0
    selection = json.loads(as_json)["recommended_command"]["selection"]
    assert isinstance(selection["nodes"], int)
    command = load(built_site, "/deepseek-ai/DeepSeek-V4-Flash/hw/h200.json")[
        "recommended_command"]
    assert isinstance(command["selection"]["nodes"], int)
    assert command["node_count"] == command["selection"]["nodes"]


def test_a_variant_page_is_a_full_page_of_its_variant(built_site: BuiltSite) -> None:
    """No redirect: the variant's command is in the HTML (right with JavaScript off), its
    pill is pressed, the page starts the builder from it, and names the recipe's page as
    canonical."""
    seen = 0
    for model_id, hf_id, variant_id in every_id():
        if variant_id == "default" and model_id == hf_id:
            continue
        doc = page(built_site, model_id)
        assert not doc.find_all("meta", http_equiv="refresh")
        canonical = doc.find("link", rel="canonical")
        assert canonical.attrs["href"] == f"http://127.0.0.1:8000/{hf_id}/", model_id
        mount = doc.find(cls="rb-mount")
        assert json.loads(mount.attrs["data-base"]) == [["variant", variant_id]]
        pressed = mount.find_all("button", "rb-pill", **{"data-key": "variant",
                                                         "aria-pressed": "true"})
        assert [p.attrs["data-value"] for p in pressed] in ([variant_id], []), model_id
        # The hero names the variant's checkpoint.
        assert doc.find("p", "rcp-ids").find("code").text == model_id
        seen += 1
    assert seen


def test_markdown_twins_and_llms_txt(built_site: BuiltSite) -> None:
    index = (built_site.root / "llms.txt").read_text(encoding="utf-8")
    assert index.startswith("# vLLM Recipes\n\n> ")
    full = (built_site.root / "llms-full.txt").read_text(encoding="utf-8")
    for model_id, _, _ in every_id():
        twin = (built_site.root / f"{model_id}.md").read_text(encoding="utf-8")
        assert f"]({'http://127.0.0.1:8000/'}{model_id}.md)" in index, model_id
        command = load(built_site, f"/{model_id}.json")["recommended_command"]
        install = command["selection"]["install"]
        expected = command["docker_argv"] if install == "docker" else command["argv"]
        fence = twin.split("## Command", 1)[1].split("```bash\n", 1)[1].split("\n```", 1)[0]
        assert argv_of(fence) == expected, model_id
        assert twin.rstrip() in full
    v41 = (built_site.root / "deepseek-ai/DeepSeek-V4.1-Flash.md").read_text(encoding="utf-8")
    assert "vllm serve deepseek-ai/DeepSeek-V4.1-Flash" in v41


def test_model_pages_have_open_graph_and_json_ld(built_site: BuiltSite) -> None:
    for model_id, hf_id, _ in every_id():
        doc = page(built_site, model_id)
        og = {m.attrs["property"]: m.attrs["content"] for m in doc.find_all("meta")
              if m.attrs.get("property", "").startswith("og:")}
        assert og["og:title"].startswith(catalog().recipes[hf_id].meta.title), model_id
        assert og["og:url"] == f"http://127.0.0.1:8000/{model_id}/"
        blocks = doc.find_all("script", type="application/ld+json")
        assert len(blocks) == 1, model_id
        data = json.loads(blocks[0].text)
        assert data["@type"] == "HowTo" and data["step"][-1]["text"], model_id


def test_sitemap_lists_pages_twins_and_llms_files(built_site: BuiltSite) -> None:
    tree = ElementTree.parse(built_site.root / "sitemap.xml")
    space = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    urls = {loc.text for loc in tree.getroot().findall("s:url/s:loc", space)}
    assert "http://127.0.0.1:8000/llms.txt" in urls
    assert "http://127.0.0.1:8000/llms-full.txt" in urls
    for model_id, hf_id, _ in every_id():
        assert f"http://127.0.0.1:8000/{model_id}.md" in urls
        assert f"http://127.0.0.1:8000/{hf_id}/" in urls
        # a variant page's own URL too: instant navigation reaches only what the sitemap lists
        assert f"http://127.0.0.1:8000/{model_id}/" in urls


def test_sitemap_lists_each_url_once_dated_by_its_recipes_last_commit(
        built_site: BuiltSite) -> None:
    space = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    entries = ElementTree.parse(built_site.root / "sitemap.xml").getroot().findall("s:url", space)
    locs = [entry.findtext("s:loc", namespaces=space) for entry in entries]
    assert len(locs) == len(set(locs))
    dated = {entry.findtext("s:loc", namespaces=space): entry.findtext("s:lastmod",
                                                                        namespaces=space)
             for entry in entries}
    for hf_id in sorted(catalog().recipes)[::40]:  # a spread of recipes, asked of git itself
        path = catalog().paths[hf_id]
        sources = [str(path), str(path.with_suffix(".md")),
                   str(ROOT / "recipes" / "facts" / f"{hf_id}.yaml")]
        newest = subprocess.run(["git", "log", "-1", "--format=%cs", "--", *sources],
            cwd=path.parent, capture_output=True, text=True, check=True).stdout.strip()
        assert dated[f"http://127.0.0.1:8000/{hf_id}/"] == newest, hf_id
        assert dated[f"http://127.0.0.1:8000/{hf_id}.md"] == newest, hf_id


BAD_VARIANTS = ("bogus", "constructor", "default\x00")


def first_command(text: str) -> list[str]:
    """The argv of the first command block of what the CLI prints (or a page's copy text):
    the install block before it may name `vllm serve` in a comment, but runs no command."""
    for block in text.split("\n\n"):
        try:
            return argv_of(block)
        except AssertionError:
            continue
    raise AssertionError(f"no command in {text!r}")


def with_base(base: dict[str, str], pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The query a variant page sends for its URL's pairs (recipe-builder.js withBase)."""
    given = {k for k, _ in pairs}
    return [*((k, v) for k, v in base.items() if k not in given), *pairs]


def test_variant_pages_answer_every_variant_as_the_cli_does() -> None:
    """Issue 24.2, one rule: on a variant's page, `?variant=<v>` for every variant of its
    recipe shows what `vllm-recipes <variant id> variant=<v>` prints; a bad value is refused by
    the CLI (exit 2) and dropped by the page with the same reason, which then shows the page's
    own checkpoint (the CLI's answer without variant=); and the URL the page writes back
    reloads to the same command."""
    walked = 0
    for model_id, hf_id, variant_id in every_id():
        if model_id == hf_id:
            continue
        recipe, base = builder_recipe(hf_id), {"variant": variant_id}
        builder = kept_builder(hf_id)  # kept per recipe, as the page's worker keeps one
        code, own = cli(model_id)
        assert code == 0, model_id
        own_argv = first_command(own)
        bad = BAD_VARIANTS if model_id == "nvidia/DeepSeek-V4-Flash-NVFP4" else BAD_VARIANTS[:1]
        for value in (*catalog().recipes[hf_id].variants, *bad):
            url = [("variant", value)]
            state = page_state(builder_catalog(), recipe, with_base(base, url), builder,
                               base=base)
            shown = first_command(state["result"]["copy_text"])
            code, printed, err = cli_with_errors(model_id, f"variant={value}")
            if code == 0:
                assert shown == first_command(printed), (model_id, value)
                assert not state["notice"], (model_id, value, state["notice"])
            else:
                assert code == 2, (model_id, value, err)
                reason = err.strip().split(": ", 1)[1]
                assert reason in state["notice"], (model_id, value, err, state["notice"])
                assert shown == own_argv, (model_id, value)
            written = [(k, v) for k, v in state["explicit"].items() if base.get(k) != v]
            again = page_state(builder_catalog(), recipe, with_base(base, written), builder,
                               base=base)
            assert again["result"]["copy_text"] == state["result"]["copy_text"], (model_id,
                                                                                  value)
            walked += 1
    assert walked > 2 * sum(1 for m, h, _ in every_id() if m != h)
