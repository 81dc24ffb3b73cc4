"""The model pages and the home page, read from the built HTML (no browser), and recipe
strings that try to inject markup."""

from __future__ import annotations

import json
import posixpath
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from builder.commands.build import build
from builder.views.widget import page_state
from site_plugins.recipes.csp import (
    inline_script_hashes,
    with_policy,
    without_policy_when_served,
)
from site_plugins.recipes.pages import format_context
from site_plugins.recipes.site import base_path
from tests.htmltree import Node, parse
from tests.recipes_data import RECIPES, ROOT, builder_catalog, builder_recipe, catalog, hf_ids
from tests.sitebuild import BuiltSite, build_unchecked
from vllm_recipes.errors import InvalidRecipe
from vllm_recipes.guide_html import safe_href
from vllm_recipes.loader import load_catalog
from vllm_recipes.schema import SITE_FOLDERS

XSS_FIXTURE = ROOT / "tests" / "fixtures" / "recipes_xss"
XSS_ID = "xss-lab/Xss-Model"
XSS_DESCRIPTION = '<script>alert(1)</script> steals "cookies" & <b>bolds</b>'


def page(site: BuiltSite, path: str) -> Node:
    return parse((site.root / path / "index.html").read_text(encoding="utf-8"))


def target(site: BuiltSite, page_dir: str, href: str) -> tuple[Path, str]:
    """(file, query) a relative link on the page at `page_dir/` leads to."""
    parts = urlsplit(href)
    assert not parts.scheme and not parts.netloc and not parts.path.startswith("/"), href
    path = posixpath.normpath(posixpath.join(page_dir, parts.path))
    file = site.root / path
    if parts.path.endswith("/") or file.is_dir():
        file = file / "index.html"
    return file, parts.query


def shown_text(result: dict) -> list[str]:
    install = result["selection"]["install"]
    return [
        c["docker_text"] if install == "docker" and c["docker_text"] else c["shell"]
        for c in result["commands"]
    ]


# ------------------------------------------------------------------ model pages


@pytest.mark.site
@pytest.mark.parametrize("hf_id", hf_ids())
def test_model_page_shows_the_default_command(built_site: BuiltSite, hf_id: str) -> None:
    doc = page(built_site, hf_id)
    mount = doc.find("div", "rb-mount")
    assert mount.attrs["data-hf-id"] == hf_id
    for attr in ("data-recipe-json", "data-catalog-json"):
        assert target(built_site, hf_id, mount.attrs[attr])[0].is_file()
    result = build(builder_catalog(), builder_recipe(hf_id), {})
    blocks = [code.text for pre in mount.find_all("pre", "rb-code")
              for code in pre.find_all("code")]
    for text in shown_text(result):
        assert text in blocks
    assert mount.find_all("button", "rb-copy"), "no copy button"
    pressed = {b.attrs["data-key"]: b.attrs["data-value"]
               for b in mount.find_all("button", aria_pressed="true")}
    assert pressed["hardware"] == result["selection"]["hardware"]
    assert pressed["strategy"] == result["selection"]["strategy"]


@pytest.mark.site
@pytest.mark.parametrize("hf_id", hf_ids())
def test_model_page_header_install_notes_and_guide(built_site: BuiltSite, hf_id: str) -> None:
    recipe = catalog().recipes[hf_id]
    doc = page(built_site, hf_id)
    assert [h1.text for h1 in doc.find_all("h1")] == [recipe.meta.title]
    assert doc.find("title").text.startswith(recipe.meta.title)
    hero = doc.find("header", "rcp-hero")
    assert recipe.meta.description.strip() in hero.text
    badges = {b.find("span", "rcp-badge-k").text: b.find("span", "rcp-badge-v").text
              for b in hero.find_all("span", "rcp-badge")}
    assert badges["Parameters"] == recipe.model.parameter_count
    if recipe.model.context_length:
        assert badges["Context"] == format_context(recipe.model.context_length)
    else:  # a generation model without a text context
        assert "Context" not in badges
    assert recipe.model.min_vllm_version in badges["vLLM"]
    if recipe.model.active_parameters:
        assert badges["Active"] == recipe.model.active_parameters
    # One install on the page: the builder's, for the picked hardware and method (issue 36.5:
    # a section of its own below stayed on the default hardware whatever was picked).
    assert not doc.find_all("div", "rcp-install")
    installs = doc.find_all("div", "rb-install")
    result = build(builder_catalog(), builder_recipe(hf_id), {})
    picked = result["install"][result["selection"]["install"]]
    assert len(installs) == len(doc.find("div", "rb-mount").find_all("div", "rb-install")) == (
        1 if picked["command"] else 0)
    if picked["command"]:
        assert picked["command"] in installs[0].find("code").text
    notes = doc.find_all(cls="rcp-note")
    assert [n.attrs["data-hardware"] for n in notes] == list(recipe.hardware_notes)
    headings = [h.text.rstrip("¶") for h in doc.find_all("h2")]
    assert headings[:2] == ["Command", "Compare your command"]
    assert "Install vLLM" not in headings
    for heading in re.findall(r"^## (.+)$", catalog().guides[hf_id], re.M):
        assert heading.strip() in headings




@pytest.mark.site
def test_every_page_has_one_title(built_site: BuiltSite) -> None:
    """Issue 25.1: the theme adds its own <h1> only where the page has none (a model page's
    and a variant page's is in the hero)."""
    counts = {str(path.relative_to(built_site.root)): len(re.findall(
        r"<h1[\s>]", path.read_text(encoding="utf-8")))
        for path in built_site.root.rglob("*.html") if path.parts[-2] != "assets"}
    assert len(counts) > 300
    assert {path: n for path, n in counts.items() if n != 1} == {}


FIRST_SCREEN = ("Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V4.1-Flash",
                "meta-llama/Llama-3.1-8B-Instruct")


def states(site: BuiltSite, path: str, mount: Any) -> dict[str, Any]:
    """The states file a page's builder mount names (a link relative to the page)."""
    target = posixpath.normpath(posixpath.join(path, mount.attrs["data-states-json"]))
    data: dict[str, Any] = json.loads((site.root / target).read_text(encoding="utf-8"))
    return data


@pytest.mark.site
@pytest.mark.parametrize("path", [*FIRST_SCREEN, "deepseek-ai/DeepSeek-V4.1-Flash-1017"])
def test_the_states_one_click_away_are_the_builders(built_site: BuiltSite, path: str) -> None:
    """Issue 25.6: the states file the mount names holds, for each click of the widget, the
    HTML CPython's page_state gives for that query (the page only looks it up)."""
    doc = page(built_site, path)
    mount = doc.find("div", "rb-mount")
    data = states(built_site, path, mount)
    assert data["hf_id"] == path
    hf_id = mount.attrs["data-hf-id"]
    base = json.loads(mount.attrs.get("data-base") or "[]")
    assert len(data["states"]) >= 10
    for query, known in data["states"].items():
        pairs = json.loads(query)
        assert pairs[:-1] == [p for p in base if p[0] != pairs[-1][0]], query
        want = page_state(builder_catalog(), builder_recipe(hf_id), pairs)
        html = "".join(part for item in known["html"] for part in (
            data["parts"][item[0]:item[1] + 1] if isinstance(item, list)
            else [data["parts"][item]]))
        assert (html, known["explicit"]) == (want["html"], want["explicit"]), query


@pytest.mark.site
def test_the_install_follows_the_picked_hardware(built_site: BuiltSite) -> None:
    """Issue 36.5: with MI300X picked, the page's install section still showed CUDA's. The
    one install is the builder's: ROCm's wheels one click away on MI300X, CUDA's by default."""
    doc = page(built_site, "Qwen/Qwen3-8B")
    mount = doc.find("div", "rb-mount")
    rocm = "--extra-index-url https://wheels.vllm.ai/rocm/"
    [default] = doc.find_all("div", "rb-install")
    assert "uv pip install vllm==" in default.text and rocm not in default.text
    data = states(built_site, "Qwen/Qwen3-8B", mount)
    [known] = [v for q, v in data["states"].items() if json.loads(q) == [["hardware", "mi300x"]]]
    html = "".join(part for item in known["html"] for part in (
        data["parts"][item[0]:item[1] + 1] if isinstance(item, list) else [data["parts"][item]]))
    [picked] = parse(html).find_all("div", "rb-install")
    assert rocm in picked.text


def _assets(site: BuiltSite, path: str) -> set[str]:
    """The site paths of the scripts and stylesheets a built page names."""
    html = (site.root / path / "index.html").read_text(encoding="utf-8")
    found = set()
    for href in re.findall(r'<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+\.(?:js|css))"', html):
        found.add(posixpath.normpath(posixpath.join(path, href)).lstrip("./"))
    return found


OWN = {
    "home": {"stylesheets/browse.css", "javascripts/browse.js"},
    "model": {"stylesheets/builder.css", "stylesheets/configurations.css",
              "javascripts/recipe-builder.js", "javascripts/compare.js",
              "javascripts/builder-client.js"},
    "dynamo": {"stylesheets/dynamo.css", "javascripts/dynamo.js"},
    "configurations": {"stylesheets/configurations.css", "javascripts/configurations.js"},
}
EVERY_PAGE = {"stylesheets/recipes.css", "javascripts/site.js"}


@pytest.mark.site
@pytest.mark.parametrize(("path", "kinds"), [
    ("", ("home",)),
    ("api", ()),
    ("configurations", ("configurations",)),
    ("Qwen/Qwen3-8B", ("model",)),
    ("deepseek-ai/DeepSeek-V4.1-Flash", ("model", "dynamo")),
    ("deepseek-ai/DeepSeek-V4.1-Flash-1017", ("model", "dynamo")),
])
def test_each_page_names_its_own_scripts_and_styles(built_site: BuiltSite, path: str,
                                                     kinds: tuple[str, ...]) -> None:
    """Issue 25.5: a page names the site-wide files and its own kinds', no other page's."""
    named = _assets(built_site, path)
    own = EVERY_PAGE.union(*(OWN[kind] for kind in kinds))
    others = set().union(*OWN.values()) - own
    assert own <= named, path
    assert named & others == set(), path


# ------------------------------------------------------------------ hostile recipe strings


@pytest.fixture(scope="module")
def xss_site(tmp_path_factory: pytest.TempPathFactory) -> BuiltSite:
    tree = tmp_path_factory.mktemp("recipes_xss")
    shutil.copy(RECIPES / "hardware.yaml", tree / "hardware.yaml")
    shutil.copytree(RECIPES / "strategies", tree / "strategies")
    shutil.copytree(XSS_FIXTURE / "models", tree / "models")
    shutil.copytree(XSS_FIXTURE / "configurations", tree / "configurations")
    site_dir = tmp_path_factory.mktemp("site_xss")
    # Its guide carries payloads `check` refuses: built as if `check` had been skipped.
    run = build_unchecked(site_dir, RECIPES_DIR=str(tree))
    assert run.returncode == 0, run.stdout + run.stderr
    return BuiltSite(site_dir, run.stdout + run.stderr)


def _no_markup_from_recipe(html: str, where: str) -> None:
    assert "<script>alert" not in html, where
    for node in parse(html).iter():
        if node.tag == "script" and node.attrs.get("type") == "application/ld+json":
            # Data, not code: it parses as JSON and holds no `<` that could end the element.
            assert "<" not in node.text and json.loads(node.text)["@type"] == "HowTo", where
        elif node.tag == "script":
            assert "alert" not in node.text and "alert" not in (node.attrs.get("src") or ""), where
        assert node.tag != "iframe", where
        assert not (node.tag == "img" and node.attrs.get("src") == "x"), where
        assert not (node.tag == "b" and node.text in {"bolds", "click"}), where
        for name, value in node.attrs.items():
            assert not name.startswith("on"), f"{where}: <{node.tag} {name}>"
            if name in {"href", "src"} and value is not None:
                # A deployment file's Download link carries the file as base64 data: no markup
                # can come out of it (builder/views/files.py).
                if (node.tag == "a" and "download" in node.attrs
                        and re.fullmatch(r"data:application/(yaml|json);base64,[A-Za-z0-9+/=]*",
                                         value)):
                    continue
                assert safe_href(value) is not None, f"{where}: <{node.tag} {name}={value!r}>"


@pytest.mark.site
def test_recipe_strings_are_text_on_every_page(xss_site: BuiltSite) -> None:
    pages = sorted(xss_site.root.rglob("*.html"))
    assert len(pages) > 3
    for html_file in pages:
        _no_markup_from_recipe(html_file.read_text(encoding="utf-8"), str(html_file))


@pytest.mark.site
def test_hostile_description_reads_as_text(xss_site: BuiltSite) -> None:
    model = page(xss_site, XSS_ID)
    assert XSS_DESCRIPTION in model.find("p", "rcp-description").text
    assert model.find("h1").text == "Xss <script>alert(1)</script> Model"
    assert model.find("title").text.startswith("Xss <script>alert(1)</script> Model")
    home = parse((xss_site.root / "index.html").read_text(encoding="utf-8"))
    card = home.find("article", "rcp-card")
    assert XSS_DESCRIPTION in card.find("p", "rcp-card-desc").text
    guide = model.find("article")
    assert "Text with <script>alert(1)</script> and <img src=x onerror=alert(1)> inline." in (
        guide.text
    )
    assert 'echo "<script>alert(1)</script>"' in guide.text
    assert not [a for a in model.find_all("a") if a.text == "bad link"]
    assert [s for s in model.find_all("span") if s.text == "bad link"]
    assert model.find("a", href="https://vllm.ai/").text == "good link"


@pytest.mark.site
def test_a_guide_forced_past_check_renders_inert(xss_site: BuiltSite) -> None:
    """Issue 32: each guide payload `check` refuses, built anyway, leaves no handler, style,
    focus grab, script link or off-site image on any page (the toc included); the text stays."""
    for html_file in sorted(xss_site.root.rglob("*.html")):
        for node in parse(html_file.read_text(encoding="utf-8")).iter():
            for name, value in node.attrs.items():
                where = f"{html_file}: <{node.tag} {name}={value!r}>"
                assert "__pwned" not in (value or ""), where
                assert name not in {"autofocus", "data-toc-label"}, where
            assert not (node.tag == "img" and "127.0.0.1" in (node.attrs.get("src") or ""))
    model = page(xss_site, XSS_ID)
    guide = model.find("article")
    for text in ("Focus trap", "Cover the page.", "click link", "entity link", "split link",
                 "data link", "vb link", 'print("code")'):
        assert text in guide.text, text
    assert model.find("a", href="https://vllm.ai/").text == "good link"
    assert [s.text for s in model.find_all("span") if s.text.endswith(" link")] == [
        "bad link", "entity link", "split link", "data link", "vb link"]


@pytest.mark.site
def test_every_page_carries_one_policy_that_hashes_only_the_themes_scripts(
        xss_site: BuiltSite) -> None:
    """Issue 32: a Content-Security-Policy first in every page's head, the same on every page
    (instant navigation keeps the first page's), own origin only, no inline script but the
    theme's own hashed ones, none of the content's."""
    policies = set()
    for html_file in sorted(xss_site.root.rglob("*.html")):
        html = html_file.read_text(encoding="utf-8")
        head = html[html.index("<head>"):html.index("</head>")]
        metas = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', head)
        assert len(metas) == 1, html_file
        assert head.index("Content-Security-Policy") < head.index("<script"), html_file
        policies.add(metas[0])
        assert inline_script_hashes(html) == re.findall(r"'sha256-[^']+'", metas[0])
    policy, = policies
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"].startswith("'self' 'wasm-unsafe-eval' 'sha256-")
    assert "unsafe-inline" not in directives["script-src"]
    assert "unsafe-eval'" not in directives["script-src"].replace("'wasm-unsafe-eval'", "")
    assert directives["object-src"] == "'none'"
    assert all("http" not in value and "*" not in value for value in directives.values())


@pytest.mark.site
def test_no_model_id_can_name_a_folder_of_the_site(xss_site: BuiltSite) -> None:
    """Issue 32.2: the schema's list of the site's own folders holds every top-level folder a
    build makes that is not a recipe's org."""
    orgs = {path.parent.name for path in (XSS_FIXTURE / "models").glob("*/*.yaml")}
    folders = {path.name for path in xss_site.root.iterdir() if path.is_dir()}
    assert folders - orgs <= SITE_FOLDERS
    assert folders - orgs


def test_only_the_themes_inline_scripts_are_hashed() -> None:
    page = ('<html><head><meta charset="utf-8"><script>a()</script>'
            '<script type="application/json">{}</script><script src="x.js"></script></head>'
            '<body><article class="md-content__inner md-typeset"><article>x</article>'
            '<script>evil()</script></article><script>b()</script></body></html>')
    hashes = inline_script_hashes(page)
    assert len(hashes) == 2
    out = with_policy(page)
    assert out.startswith('<html><head><meta charset="utf-8"><meta http-equiv='
                          '"Content-Security-Policy"')
    assert "evil" in out and hashes == inline_script_hashes(out)
    assert inline_script_hashes(page.replace("evil()", "a()")) == hashes
    assert len(inline_script_hashes(page.replace("b()", "evil()"))) == 2


def test_mkdocs_serve_hands_out_pages_without_the_policy() -> None:
    """Its live-reload script is inline and added as it serves: `make dev` pages carry no
    policy in the browser, while the files it writes are a clean build's."""
    from mkdocs.livereload import LiveReloadServer

    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root="/tmp")
    try:
        without_policy_when_served(server)
        page = with_policy('<html><head><meta charset="utf-8"></head><body></body></html>')
        served = server._inject_js_into_html(page.encode(), 1)
    finally:
        server.server_close()
    assert b"Content-Security-Policy" not in served
    assert b"livereload(1, " in served


def test_check_refuses_the_guide_the_build_was_forced_with(tmp_path: Path) -> None:
    """The same allow-list decides: without forcing, the hostile tree does not load."""
    tree = tmp_path / "recipes"
    shutil.copytree(XSS_FIXTURE / "models", tree / "models")
    shutil.copy(RECIPES / "hardware.yaml", tree / "hardware.yaml")
    shutil.copytree(RECIPES / "strategies", tree / "strategies")
    with pytest.raises(InvalidRecipe) as caught:
        load_catalog(tree)
    lines = str(caught.value).splitlines()
    guide = "models/xss-lab/Xss-Model.md"
    assert any(guide in line and "link 'javascript:alert(1)'" in line for line in lines)
    for attribute in ("onerror on <img>", "autofocus on <h3>", "onfocus on <h3>",
                      "style on <p>", "onmouseover on <p>", "onclick on <a>",
                      "data-toc-label on <h3>"):
        assert any(guide in line and attribute in line for line in lines), attribute
    for link in ("javascript&#58;", "JaVa&#x0A;ScRiPt:", "data:text/html", "vbscript:"):
        assert any(f"link '{link}" in line for line in lines), link
    assert any("hardware notes.h100: link 'javascript:alert(1" in line for line in lines)


# ------------------------------------------------------------------ failures and helpers


@pytest.mark.parametrize(("href", "safe"), [
    ("https://vllm.ai/", True),
    ("#dgx-spark", True),
    ("../other/", True),
    ("mailto:a@b.c", True),
    ("javascript:alert(1)", False),
    ("JavaScript:alert(1)", False),
    ("java\tscript:alert(1)", False),
    (" javascript:alert(1)", False),
    ("data:text/html,<script>", False),
    ("vbscript:x", False),
])
def test_safe_href(href: str, safe: bool) -> None:
    assert (safe_href(href) is not None) is safe


def test_format_context_and_base_path() -> None:
    assert format_context(1048576) == "1M"
    assert format_context(131072) == "128K"
    assert format_context(128000) == "125K"
    assert format_context(100001) == "100,001"
    assert base_path("http://127.0.0.1:8000/") == "/"
    assert base_path("https://example.org/recipes") == "/recipes/"
    assert base_path(None) == "/"
