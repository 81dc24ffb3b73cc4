"""Issue 27.4 on the page: the widget offers the deployment files (builder/views/files.py) with
Copy and a Download link, the same files `vllm-recipes --format` prints, after every click as
on first paint (the page's Python renders them; no command logic in JavaScript)."""

from __future__ import annotations

import base64

from builder.deployment.files import deploy_files
from builder.views.widget import page_state
from tests.htmltree import parse
from tests.recipes_data import builder_catalog, builder_recipe

QWEN = "Qwen/Qwen3-8B"
FLASH = "deepseek-ai/DeepSeek-V4-Flash"


def test_the_widget_offers_every_file_with_copy_and_download() -> None:
    catalog, recipe = builder_catalog(), builder_recipe(QWEN)
    state = page_state(catalog, recipe, {"hardware": "h100"})
    made = deploy_files(catalog, recipe, state["result"])
    doc = parse(str(state["html"]))
    files = doc.find("div", "rb-files")
    shown = files.find_all("details", "rb-file")
    assert [d.attrs["data-format"] for d in shown] == ["vllm-config", "compose", "k8s"]
    for details in shown:
        entry = made[details.attrs["data-format"]]
        assert "open" not in details.attrs  # the reader opens one
        assert details.find("summary").text == f"{entry['label']} {entry['filename']}"
        block = details.find("div", "rb-file-block")
        assert block.find("code", "rb-file-usage").text == entry["usage"]
        assert block.find("pre", "rb-code").find("code").text == entry["text"]
        copy = block.find("button", "rb-copy")
        assert copy.text == "Copy" and copy.attrs["aria-label"] == f"Copy: {entry['filename']}"
        link = block.find("a", "rb-download")
        assert link.attrs["download"] == entry["filename"]
        head, payload = link.attrs["href"].split(",", 1)
        assert head == "data:application/yaml;base64"
        assert base64.b64decode(payload).decode() == entry["text"]


def test_a_file_the_selection_does_not_offer_says_why() -> None:
    catalog, recipe = builder_catalog(), builder_recipe(FLASH)
    state = page_state(catalog, recipe, {"hardware": "h200", "strategy": "multi_node_dep"})
    doc = parse(str(state["html"]))
    compose = next(d for d in doc.find_all("details", "rb-file")
                   if d.attrs["data-format"] == "compose")
    assert compose.find("summary").text == "Docker Compose not offered"
    assert compose.find("p", "rb-file-why").text.startswith("Compose runs containers on one host")
    assert compose.find_all("a", "rb-download") == []
    k8s = next(d for d in doc.find_all("details", "rb-file") if d.attrs["data-format"] == "k8s")
    assert "kind: LeaderWorkerSet" in k8s.find("pre", "rb-code").text
