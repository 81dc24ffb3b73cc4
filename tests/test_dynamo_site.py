"""The built site's NVIDIA Dynamo parts: `/<hf_id>/deployments.json` and the prerendered
"Deploy with NVIDIA Dynamo" section of the model page (no browser)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urljoin

import pytest

from builder.dynamo import targets as dynamo
from builder.views.dynamo import page_state
from tests.htmltree import parse
from tests.sitebuild import BuiltSite
from tests.test_dynamo import COMBINATIONS, HF_ID, PERFORMANCE, data

pytestmark = pytest.mark.site


def document(site: BuiltSite) -> dict[str, Any]:
    path = site.root / HF_ID / "deployments.json"
    return json.loads(path.read_text(encoding="utf-8"))


def test_deployments_json_lists_every_combination(built_site: BuiltSite) -> None:
    doc = document(built_site)
    got = {(t["framework"], t["gpu"], t["topology"]): t for t in doc["targets"]}
    assert list(got) == list(COMBINATIONS)
    for combo, reason in COMBINATIONS.items():
        entry = got[combo]
        assert entry["available"] is (reason is None)
        assert entry["reason"] == reason
        query = dict(zip(dynamo.KEYS, combo, strict=True))
        assert entry["query"] == {f"dynamo_{k}": v for k, v in query.items()}
        if reason:
            assert "steps" not in entry
            continue
        # The same builder result as the CLI's, for every available target.
        result = dynamo.build(data(), query)
        assert entry["steps"] == result["steps"]
        assert entry["copy_text"] == result["copy_text"]
        assert entry["settings"] == result["settings"]
        assert entry["prerequisites"] == result["prerequisites"]
        page = urljoin(f"/{HF_ID}/deployments.json", entry["page"])  # relative (API v1)
        assert page.startswith(f"/{HF_ID}/?dynamo_framework={combo[0]}&")
    assert doc["recommended"] == {"framework": "vllm", "gpu": "gb200",
                                  "topology": "disaggregated"}
    assert doc["data"] == json.loads(json.dumps(data()))


def test_deployments_json_performance_rows_carry_the_reference_numbers(
    built_site: BuiltSite,
) -> None:
    rows = document(built_site)["performance"]["rows"]
    assert len(rows) == len(PERFORMANCE) == 6
    for row, (framework, sku, recipe, concurrency, *values) in zip(rows, PERFORMANCE,
                                                                   strict=True):
        assert (row["framework_label"], row["sku"], row["recipe"]) == (framework, sku, recipe)
        assert row["concurrency"] == int(concurrency)
        measured = [row["output_tok_s_per_gpu"], row["user_tok_s_p50"], row["ttft_p50_ms"],
                    row["ttft_p90_ms"]]
        assert measured == [float(v.replace(",", "")) for v in values]
    gb200 = next(t for t in document(built_site)["targets"]
                 if (t["framework"], t["gpu"], t["topology"]) == ("vllm", "gb200",
                                                                  "disaggregated"))
    assert gb200["performance"]["output_tok_s_per_gpu"] == 1154.87
    assert (gb200["comparison"]["output_change_pct"],
            gb200["comparison"]["user_change_pct"]) == (21, 56)


def test_model_page_has_the_prerendered_widget(built_site: BuiltSite) -> None:
    html = (built_site.root / HF_ID / "index.html").read_text(encoding="utf-8")
    tree = parse(html)
    heading = tree.find("h2", id="deploy-with-nvidia-dynamo")
    assert heading.text.startswith("Deploy with NVIDIA Dynamo")
    mount = tree.find("div", "dy-mount")
    # Links inside pages are relative to the page (the site works under any sub-path).
    page_dir = built_site.root / HF_ID
    assert (page_dir / mount.attrs["data-deployments-json"]).resolve() == (
        built_site.root / HF_ID / "deployments.json").resolve()
    assert page_state(data(), {})["html"] in html
    # The section follows the builder and the sections about its command (and goes before
    # the guide).
    assert html.index('id="compare-your-command"') < html.index('id="deploy-with-nvidia-dynamo"')
    link = tree.find("p", "dy-links").find("a")
    assert (page_dir / link.attrs["href"]).resolve().is_file()


def test_models_without_deployments_have_no_section(built_site: BuiltSite) -> None:
    html = (built_site.root / "deepseek-ai/DeepSeek-V4-Flash" / "index.html").read_text("utf-8")
    assert "dy-mount" not in html
    assert not (built_site.root / "deepseek-ai/DeepSeek-V4-Flash/deployments.json").exists()
