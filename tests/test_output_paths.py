"""Issue 32.2: the build refuses an output path outside the site or one another output has
(`site_plugins/recipes/output_paths.py`), whatever the schema let through. The outputs are
the ones a recipe with the issue's ids would add next to the site's own files."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_plugins.recipes.output_paths import OutputClash, check_outputs, inside_site
from site_plugins.recipes.site import write_files

SITE = [("index.html", "docs/index.md"), ("javascripts/site.js", "docs/javascripts/site.js"),
        ("api/index.html", "docs/api.md"), ("404.html", "the theme"),
        ("search/search_index.json", "the search plugin"),
        ("Qwen/Qwen3-8B/index.html", "Qwen/Qwen3-8B.md"), ("Qwen/Qwen3-8B.json", "recipes"),
        ("Qwen/Qwen3-8B.md", "twin")]


def recipe_outputs(model_id: str) -> list[tuple[str, str]]:
    """A recipe's page, JSON file and Markdown twin (what `site.py` registers for an id)."""
    return [(f"{model_id}/index.html", "page"), (f"{model_id}.json", "json"),
            (f"{model_id}.md", "twin")]


def test_the_sites_own_outputs_pass() -> None:
    check_outputs(SITE + recipe_outputs("deepseek-ai/DeepSeek-V4.1-Flash"))


@pytest.mark.parametrize(("model_id", "message"), [
    ("javascripts/site.js", "javascripts/site.js (docs/javascripts/site.js) is a file where "
                            "javascripts/site.js/index.html (page) needs a folder"),
    ("search/search_index", "search/search_index.json (json) and search/search_index.json "
                            "(the search plugin) are the same file"),
    ("Qwen/Qwen3-8B.json", "Qwen/Qwen3-8B.json (recipes) is a file where "
                           "Qwen/Qwen3-8B.json/index.html (page) needs a folder"),
    ("api/index.html", "api/index.html (docs/api.md) is a file where "
                       "api/index.html/index.html (page) needs a folder"),
    ("qwen/qwen3-8b", "qwen/qwen3-8b/index.html (page) and Qwen/Qwen3-8B/index.html "
                      "(Qwen/Qwen3-8B.md) are the same file"),
    ("Qwen/..", "'Qwen/../index.html': not a path inside the site"),
    ("assets/..", "'assets/../index.html': not a path inside the site"),
    ("../../etc", "'../../etc/index.html': not a path inside the site"),
])
def test_an_id_that_lands_on_the_sites_files_stops_the_build(model_id: str,
                                                             message: str) -> None:
    with pytest.raises(OutputClash) as caught:
        check_outputs(SITE + recipe_outputs(model_id))
    assert str(caught.value) == message


@pytest.mark.parametrize("uri", ["/etc/passwd", "a/../../x", "a\\b", "./x", "a//b", "", ".."])
def test_paths_outside_the_site_are_refused(uri: str) -> None:
    with pytest.raises(OutputClash):
        inside_site(uri)


def test_a_render_worker_writes_nothing_outside_the_site(tmp_path: Path) -> None:
    root = tmp_path / "site"
    root.mkdir()
    with pytest.raises(OutputClash):
        write_files(root, [("Qwen/../../outside.json", "{}")])
    assert list(tmp_path.rglob("*.json")) == []
    assert write_files(root, [("Qwen/x.json", "{}")]) == ["Qwen/x.json"]
