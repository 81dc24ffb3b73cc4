"""Published configurations in the built site: the JSON endpoints, the /configurations/
catalogue and the model pages' sections, read from the built files (no browser)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import parse_qsl, urljoin, urlsplit

import pytest

from builder import build
from builder.diff.published import role_text
from tests.htmltree import Node, parse
from tests.recipes_data import RECIPES, builder_catalog, builder_recipe, hf_ids
from tests.sitebuild import BuiltSite
from tests.sitebuild import build as build_site

V41 = "deepseek-ai/DeepSeek-V4.1-Flash"
pytestmark = pytest.mark.site


def load(site: BuiltSite, path: str) -> dict:
    return json.loads((site.root / path).read_text(encoding="utf-8"))


def html(site: BuiltSite, path: str) -> Node:
    return parse((site.root / path / "index.html").read_text(encoding="utf-8"))


def test_configurations_json_holds_twenty(built_site: BuiltSite) -> None:
    doc = load(built_site, "configurations.json")
    configs = doc["configurations"]
    assert doc["count"] == len(configs) == 20
    assert len({c["id"] for c in configs}) == 20
    assert [c["id"] for c in configs if c["system"] == "mi355x_x8"] == [
        "mi355x-vllm-tp2-256-seqs", "mi355x-vllm-tp2-64-seqs", "mi355x-vllm-tp4"]
    assert [c["id"] for c in configs if c["framework"] == "sglang"] == [
        "gb300-nvl72-sglang-tp4-ep4", "gb200-nvl72-sglang-tp4-ep4"]
    assert doc["sources"] == [{
        "name": "AA-AgentPerf", "publisher": "Artificial Analysis", "model": V41,
        "description": doc["sources"][0]["description"]}]
    for config in configs:
        assert (config["join"] is None) == (config["framework"] == "sglang"), config["id"]
        assert config["catalogue"] == f"configurations/#{config['id']}"  # relative (API v1)


def test_every_model_has_its_configurations_json(built_site: BuiltSite) -> None:
    everything = load(built_site, "configurations.json")["configurations"]
    for hf_id in hf_ids():
        doc = load(built_site, f"{hf_id}/configurations.json")
        # The same entries; their links are relative to each file (API v1).
        assert [_site_links(c, f"{hf_id}/configurations.json") for c in doc["configurations"]
                ] == [_site_links(c, "configurations.json") for c in everything
                      if c["model"] == hf_id], hf_id
    assert load(built_site, f"{V41}/configurations.json")["count"] == 20


def _site_links(config: dict, uri: str) -> dict:
    """A configuration with its links resolved against its file's URL."""
    config = {**config, "catalogue": urljoin(f"/{uri}", config["catalogue"])}
    if config["join"]:
        config["join"] = {**config["join"],
                          "builder_url": urljoin(f"/{uri}", config["join"]["builder_url"])}
    return config


def test_builder_links_open_model_pages_with_valid_queries(built_site: BuiltSite) -> None:
    joined = [c for c in load(built_site, "configurations.json")["configurations"] if c["join"]]
    assert len(joined) == 18
    for config in joined:
        url = urlsplit(config["join"]["builder_url"])
        assert (built_site.root / url.path.strip("/") / "index.html").is_file()
        assert url.fragment == "command"
        query = dict(parse_qsl(url.query))
        assert query == config["join"]["query"]
        # The page runs the same function on this query.
        result = build(builder_catalog(), builder_recipe(V41), query)
        assert result["selection"] == config["join"]["selection"]


def test_catalogue_cards_filters_and_featured(built_site: BuiltSite) -> None:
    doc = html(built_site, "configurations")
    cards = doc.find_all("article", "cfg-card")
    assert len(cards) == 20
    assert sum(c.attrs["data-hardware"] == "mi355x_x8" for c in cards) == 3
    assert sum(c.attrs["data-framework"] == "sglang" for c in cards) == 2
    assert sum(c.attrs["data-precision"] == "NVFP4" for c in cards) == 1
    filters = doc.find("form", "cfg-filters")
    options = {select.attrs["name"]: [o.attrs["value"] for o in select.find_all("option")]
               for select in filters.find_all("select")}
    assert options["hardware"] == ["", "vera_rubin_nvl72", "gb300_nvl72", "b300_x8",
                                   "gb200_nvl72", "b200_x8", "h200_x8", "h100_x8", "mi355x_x8"]
    assert options["precision"] == ["", "MXFP4", "NVFP4"]
    assert options["framework"] == ["", "vllm", "sglang"]
    dates = {i.attrs["name"]: (i.attrs["min"], i.attrs["max"])
             for i in filters.find_all("input")}
    assert dates == {"from": ("2026-10-01", "2026-10-15"), "to": ("2026-10-01", "2026-10-15")}
    assert doc.find("p", "cfg-count").text == "Showing 20 of 20 configurations"
    picks = doc.find_all("li", "cfg-pick")
    assert len(picks) == 24  # 8 systems × 3 categories
    ids = {c.attrs["id"] for c in cards}
    assert all(p.find("a").attrs["href"].lstrip("#") in ids for p in picks)


def test_cards_show_the_commands_as_published(built_site: BuiltSite) -> None:
    doc = html(built_site, "configurations")
    published = {c["id"]: c for c in load(built_site, "configurations.json")["configurations"]}
    for card in doc.find_all("article", "cfg-card"):
        config = published[card.attrs["id"]]
        shown = [b.find("code").text for b in card.find_all("pre", "cfg-code")]
        assert shown == [role_text(role["command"]) for role in config["roles"]]
        assert len(card.find_all("button", "cfg-copy")) == len(config["roles"])


def test_catalogue_is_in_the_nav(built_site: BuiltSite) -> None:
    home = html(built_site, "")
    assert any(a.attrs.get("href") in ("configurations/", "./configurations/")
               for a in home.find_all("a"))


def test_model_pages_have_the_compare_box_and_v41_its_configurations(
        built_site: BuiltSite) -> None:
    for hf_id in hf_ids():
        doc = html(built_site, hf_id)
        (box,) = doc.find_all("div", "cmp-box")
        # Relative to the page (issue 24.3: the site works under a sub-path).
        page = f"http://site/{hf_id}/"
        assert urljoin(page, box.attrs["data-recipe-json"]) == f"http://site/{hf_id}.json"
        assert urljoin(page, box.attrs["data-catalog-json"]) == "http://site/builder-catalog.json"
        assert (built_site.root / f"{hf_id}.json").is_file()
        assert box.find("textarea", "cmp-input") is not None
        items = doc.find_all("li", "cfg-model-item")
        assert len(items) == (20 if hf_id == V41 else 0), hf_id
        headings = [h.text.strip("¶ ") for h in doc.find_all("h2")]
        assert "Compare your command" in headings
        assert ("Published configurations" in headings) == (hf_id == V41)
    doc = html(built_site, V41)
    links = doc.find_all("a", "cfg-open")
    assert len(links) == 18
    assert all(urljoin(f"http://site/{V41}/", a.attrs["href"]).startswith(
        (f"http://site/{V41}/?hardware=", f"http://site/{V41}/index.html?hardware="))
        for a in links)


def test_invalid_configuration_fails_the_build(tmp_path: Path) -> None:
    tree = tmp_path / "recipes"
    shutil.copytree(RECIPES, tree)
    data = tree / "configurations" / "aa-agentperf-deepseek-v4.1-flash.yaml"
    data.write_text(data.read_text().replace("date: 2026-10-07", "date: 2026-13-07", 1))
    run = build_site(tmp_path / "site", RECIPES_DIR=str(tree))
    assert run.returncode != 0
    assert ("recipes/configurations/aa-agentperf-deepseek-v4.1-flash.yaml: "
            "configurations.3.date: Input should be a valid date or datetime, month value is "
            "outside expected range") in run.stderr
    assert not (tmp_path / "site" / "index.html").exists()


DRIFTED = {"b300-vllm-tp2": ["--compilation-config"], "b300-vllm-tp8": ["--compilation-config"],
           "mi355x-vllm-tp2-256-seqs": ["--attention-config.indexer_sparse_logits",
                                        "--block-size", "--no-swa-bounded-replay"],
           "mi355x-vllm-tp2-64-seqs": ["--attention-config.indexer_sparse_logits",
                                       "--block-size", "--no-swa-bounded-replay"],
           "mi355x-vllm-tp4": ["$VLLM_ROCM_MONO_DECODE",
                               "--attention-config.indexer_sparse_logits",
                               "$VLLM_ROCM_QUICK_REDUCE_QUANTIZATION"]}
"""Kept recipe settings that today's recipe sets otherwise (see test_configurations.py)."""


def test_recipe_changed_since_in_json_cards_and_model_page(built_site: BuiltSite) -> None:
    configs = {c["id"]: c for c in load(built_site, "configurations.json")["configurations"]}
    assert {cid: c["join"]["recipe_changed"] for cid, c in configs.items()
            if c["join"] and c["join"]["recipe_changed"]} == DRIFTED
    b300 = configs["b300-vllm-tp2"]["join"]
    assert b300["counts"]["recipe_changed"] == 1
    assert "1 changed in the recipe since" in b300["diff_summary"]
    (compilation,) = [f for f in b300["roles"][0]["diff"]["flags"]
                      if f["key"] == "--compilation-config"]
    assert compilation["status"] == "recipe_changed" and compilation["recipe"] is None

    cards = {c.attrs["id"]: c for c in html(built_site, "configurations").find_all(
        "article", "cfg-card")}
    items = {i.attrs["data-configuration"]: i for i in html(built_site, V41).find_all(
        "li", "cfg-model-item")}
    for cid in configs:
        for where in (cards[cid], items[cid]):
            lines = where.find_all("p", "cfg-join-drift")
            if cid not in DRIFTED:
                assert not lines, cid
                continue
            (line,) = lines
            assert [c.text for c in line.find_all("code")][:len(DRIFTED[cid])] == DRIFTED[cid]
            assert line.text.startswith("Recipe changed since")
    assert "as of vllm-project/recipes@21302fdc75" in cards["mi355x-vllm-tp4"].find(
        "p", "cfg-join-drift").text
    # The card's diff shows them apart from what the configuration changed.
    drift = cards["b300-vllm-tp2"].find("div", "cdiff-drift")
    assert [r.attrs["data-key"] for r in drift.find_all("tr", "cdiff-row")] == [
        "--compilation-config"]
    table = cards["b300-vllm-tp2"].find("table", "cdiff-table")
    assert "--compilation-config" not in [r.attrs["data-key"]
                                          for r in table.find_all("tr", "cdiff-row")]
