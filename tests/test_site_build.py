"""The site build as a whole: strict and quiet, the files the page's builder loads, the
configuration, and the ways a build must fail."""

from __future__ import annotations

import gzip
import http.client
import json
import os
import re
import shutil
import threading
from pathlib import Path

import brotli
import pytest

from site_plugins.recipes.precompress import TEXT_SUFFIXES
from site_plugins.serve import make_server
from tests.recipes_data import RECIPES, ROOT, small_tree
from tests.sitebuild import BuiltSite
from tests.sitebuild import build as build_site


@pytest.mark.site
def test_build_is_strict_and_quiet(built_site: BuiltSite) -> None:
    assert "WARNING" not in built_site.log
    assert "ERROR" not in built_site.log


@pytest.mark.site
def test_builder_assets_for_pyodide(built_site: BuiltSite) -> None:
    for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json"):
        assert (built_site.root / "assets" / "pyodide" / name).is_file()
    manifest = json.loads((built_site.root / "assets/builder/manifest.json").read_text())
    expected = sorted(f"builder/{p.relative_to(ROOT / 'builder').as_posix()}"
                      for p in (ROOT / "builder").rglob("*.py") if "__pycache__" not in p.parts)
    assert manifest["files"] == expected
    for name in expected:
        shipped = built_site.root / "assets" / "builder" / name
        assert shipped.read_bytes() == (ROOT / name).read_bytes()
    # The boot snapshot the page's worker loads, named after what it was made from.
    assert re.fullmatch(r"snapshot-[0-9a-f]{16}\.bin", manifest["snapshot"])
    assert (built_site.root / "assets" / "builder" / manifest["snapshot"]).stat().st_size > 1e6


@pytest.mark.site
def test_precompressed_copies_match_their_originals(built_site: BuiltSite) -> None:
    copies = sorted(built_site.root.glob("assets/**/*.br")) + sorted(
        built_site.root.glob("assets/**/*.gz"))
    assert any(p.name == "pyodide.asm.wasm.br" for p in copies)
    assert any(p.name == "pyodide.asm.wasm.gz" for p in copies)
    for copy in copies:
        original = copy.with_suffix("")
        data = copy.read_bytes()
        unpacked = brotli.decompress(data) if copy.suffix == ".br" else gzip.decompress(data)
        assert unpacked == original.read_bytes(), copy
        if original.stat().st_size >= 4096:  # every text file has copies, however small
            assert len(data) < 0.9 * original.stat().st_size, copy


@pytest.mark.site
def test_every_text_file_ships_gz_and_br_copies_that_serve_sends(built_site: BuiltSite) -> None:
    texts = sorted(p for p in built_site.root.rglob("*")
                   if p.suffix in TEXT_SUFFIXES and p.is_file())
    assert len(texts) > 5000
    missing = [str(p.relative_to(built_site.root)) for p in texts
               if not (p.with_name(p.name + ".gz").is_file()
                       and p.with_name(p.name + ".br").is_file())]
    assert missing == []
    for path in texts[::250]:  # a spread of pages, JSON, CSS and JS: each copy is the file
        data = path.read_bytes()
        assert gzip.decompress(path.with_name(path.name + ".gz").read_bytes()) == data, path
        assert brotli.decompress(path.with_name(path.name + ".br").read_bytes()) == data, path
    httpd = make_server(built_site.root, quiet=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        for path in ("/Qwen/Qwen3-8B/", "/deepseek-ai/DeepSeek-V4-Flash/hw/mi355x.json",
                     "/search/search_index.json"):
            conn = http.client.HTTPConnection("127.0.0.1", httpd.server_port, timeout=10)
            conn.request("GET", path, headers={"Accept-Encoding": "gzip, br"})
            response = conn.getresponse()
            body = response.read()
            conn.close()
            file = built_site.root / path.lstrip("/")
            file = file / "index.html" if path.endswith("/") else file
            assert response.getheader("Content-Encoding") == "br", path
            assert brotli.decompress(body) == file.read_bytes(), path
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.site
def test_no_stylesheet_restyles_the_page_on_a_palette_switch(built_site: BuiltSite) -> None:
    """The theme's rule reading data-md-color-switching is dropped (theme_css.py); the rest
    of its palette stylesheet is shipped as it is."""
    from material import templates

    css = sorted((built_site.root / "assets" / "stylesheets").glob("*.css"))
    assert css
    for path in css:
        assert "data-md-color-switching" not in path.read_text(), path.name
    palette = next(p for p in css if p.name.startswith("palette."))
    theme = Path(templates.__file__).parent / "assets" / "stylesheets" / palette.name
    original = theme.read_text()
    assert "data-md-color-switching" in original
    rule = ("[data-md-color-switching] *,[data-md-color-switching] :after,"
            "[data-md-color-switching] :before{transition-duration:0s!important}")
    assert palette.read_text() == original.replace(rule, "")


@pytest.mark.site
def test_serve_json_keeps_index_html_links(built_site: BuiltSite) -> None:
    config = json.loads((built_site.root / "serve.json").read_text())
    assert config["cleanUrls"] == ["!**/index.html"]


def test_mkdocs_config() -> None:
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    assert config.theme["font"] is False  # no Google Fonts request
    # Issue 25.4: the first palette follows the system; the toggle steps to light and dark.
    palettes = config.theme["palette"]
    assert [p.get("media") for p in palettes] == [
        "(prefers-color-scheme)", "(prefers-color-scheme: light)", "(prefers-color-scheme: dark)"]
    assert [p.get("scheme") for p in palettes[1:]] == ["default", "slate"]
    assert all(p["toggle"]["name"] for p in palettes)
    features = set(config.theme["features"])
    assert {"navigation.instant", "content.code.copy"} <= features
    assert {"material/search", "recipes"} <= set(config.plugins)
    assert config.site_url == os.environ.get("SITE_URL", "http://127.0.0.1:8000/")


@pytest.mark.site
def test_invalid_recipe_fails_the_build_with_path_field_message(tmp_path: Path) -> None:
    tree = tmp_path / "recipes"
    shutil.copytree(RECIPES, tree)
    broken = tree / "models" / "meta-llama" / "Llama-3.1-8B-Instruct.yaml"
    broken.write_text(broken.read_text().replace("  parameter_count:", "  parameter_cnt:"))
    run = build_site(tmp_path / "site", RECIPES_DIR=str(tree))
    assert run.returncode != 0
    line = broken.read_text().splitlines().index("  parameter_cnt: 8B") + 1
    assert (f"recipes/models/meta-llama/Llama-3.1-8B-Instruct.yaml:{line}: model.parameter_cnt: "
            "unknown key") in run.stderr
    assert not (tmp_path / "site" / "index.html").exists()


def test_missing_pyodide_says_make_install(tmp_path: Path) -> None:
    from mkdocs.config import load_config
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import Files

    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    plugin = config.plugins["recipes"]
    plugin.config.pyodide_dir = str(tmp_path / "no-pyodide")
    config = plugin.on_config(config)
    with pytest.raises(PluginError, match=r"Pyodide's runtime is missing .* run `make install`"):
        plugin.on_files(Files([]), config=config)




@pytest.mark.site
def test_a_docs_file_at_a_recipe_json_path_fails_the_build(tmp_path: Path) -> None:
    """A recipe's JSON files are written by the render workers themselves (site.py): a file
    of docs/ at one of their paths is still refused, as for every generated file."""
    from mkdocs.config import load_config
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import get_files

    hf_id = "meta-llama/Llama-3.1-8B-Instruct"
    tree = small_tree(tmp_path, {hf_id: (RECIPES / "models" / f"{hf_id}.yaml").read_text()})
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    clash = docs / "meta-llama" / "Llama-3.1-8B-Instruct" / "hw" / "h100.json"
    clash.parent.mkdir(parents=True)
    clash.write_text("{}\n")
    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"),
                         docs_dir=str(docs))
    plugin = config.plugins["recipes"]
    plugin.config.recipes_dir = str(tree)
    config = config.plugins.on_config(config)
    with pytest.raises(PluginError, match=r"meta-llama/Llama-3.1-8B-Instruct/hw/h100\.json "
                                          r"clashes with a file the recipes plugin generates"):
        config.plugins.on_files(get_files(config), config=config)
    # The worker did write the recipe's files (into site_dir, which mkdocs cleans first).
    assert (tmp_path / "site" / "meta-llama" / "Llama-3.1-8B-Instruct" / "hw" / "h100.json"
            ).is_file()


@pytest.mark.site
def test_the_theme_bundle_and_classic_scripts_are_deferred(built_site: BuiltSite) -> None:
    """overrides/main.html adds `defer` to the theme's bundle by rewriting the theme's script
    tag (the site's own scripts are ES modules): a theme update that changes the tag would
    otherwise bring back the bundle's long start-up task without a word (issue 17)."""
    for page in ("index.html", "deepseek-ai/DeepSeek-V4-Flash/index.html"):
        html = (built_site.root / page).read_text(encoding="utf-8")
        tags = re.findall(r"<script\b[^>]*\bsrc=[^>]*>", html)
        assert tags, page
        for tag in tags:
            assert " defer" in tag or 'type="module"' in tag, (page, tag)
        assert any("assets/javascripts/bundle." in tag for tag in tags), page
