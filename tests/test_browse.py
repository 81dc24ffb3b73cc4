"""The home page's model browser, read from the built HTML (no browser): one card per recipe
with the recipe's facet values, links that resolve, and filter options whose counts are what
the recipes (and the published /hardware.json) say."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from site_plugins.recipes.browse import (
    BrowseCard,
    catalogue_date,
    compact,
    is_new,
    parameter_total,
    size_bucket,
)
from tests.htmltree import Node, parse
from tests.recipes_data import active_recipes
from tests.sitebuild import BuiltSite

# Total parameters, as a reader of the catalogue counts them, per bucket (lower bound kept).
BUCKETS = {
    "under-5b": (0, 5e9),
    "5-20b": (5e9, 20e9),
    "20-80b": (20e9, 80e9),
    "80-300b": (80e9, 300e9),
    "300b-1t": (300e9, 1e12),
    "1t-plus": (1e12, float("inf")),
}


# ------------------------------------------------------------------ rules (no build)


@pytest.mark.parametrize(("text", "total"), [
    ("8B", 8e9),
    ("1.2B", 1.2e9),
    ("230M", 230e6),
    ("2.4T", 2.4e12),
    ("1T", 1e12),
    ("552B + 196B Engram", 748e9),
    ("Undisclosed", None),
])
def test_parameter_total(text: str, total: float | None) -> None:
    if total is None:
        assert parameter_total(text) is None
    else:
        assert parameter_total(text) == pytest.approx(total)


@pytest.mark.parametrize(("text", "bucket"), [
    ("4.6B", "under-5b"),
    ("5B", "5-20b"),       # a bucket holds its lower bound
    ("19B", "5-20b"),
    ("20B", "20-80b"),
    ("975B", "300b-1t"),
    ("1T", "1t-plus"),
    ("Undisclosed", "unstated"),
])
def test_size_bucket(text: str, bucket: str) -> None:
    assert size_bucket(text).id == bucket


def test_compact_ignores_separators_and_case() -> None:
    assert compact("Llama-3.1 8B_Instruct") == "llama3.18binstruct"
    # the words people type for one family all become the same text
    assert {compact(w) for w in ("llama3", "Llama-3", "llama_3")} == {"llama3"}


# ------------------------------------------------------------------ the built home page


@pytest.fixture(scope="module")
def home(built_site: BuiltSite) -> Node:
    return parse((built_site.root / "index.html").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def runs_on(built_site: BuiltSite) -> dict[str, set[str]]:
    """hf_id → hardware ids /hardware.json lists it under (the builder has a command)."""
    published = json.loads((built_site.root / "hardware.json").read_text(encoding="utf-8"))
    hardware: dict[str, set[str]] = {}
    for hw_id, spec in published["hardware"].items():
        for hf_id in spec["models"]:
            hardware.setdefault(hf_id, set()).add(hw_id)
    return hardware


def cards_by_id(home: Node) -> dict[str, Node]:
    cards: dict[str, Node] = {}
    for card in home.find_all("article", "rcp-card"):
        hf_id = card.find("p", "rcp-card-id").find("code").text
        assert hf_id not in cards, f"two cards for {hf_id}"
        cards[hf_id] = card
    return cards


def expected_size(parameter_count: str) -> str:
    numbers = re.findall(r"([\d.]+)\s*([MBT])", parameter_count)
    if not numbers:
        return "unstated"
    total = sum(float(n) * {"M": 1e6, "B": 1e9, "T": 1e12}[u] for n, u in numbers)
    return next(key for key, (low, high) in BUCKETS.items() if low <= total < high)


def expected_facets(hf_id: str, runs_on: dict[str, set[str]]) -> dict[str, Any]:
    recipe = active_recipes()[hf_id]
    return {
        "task": list(recipe.meta.tasks),
        "hardware": runs_on.get(hf_id, set()),
        "precision": {part for v in recipe.variants.values() for part in v.precision.split("+")},
        "arch": [recipe.model.architecture],
        "size": [expected_size(recipe.model.parameter_count)],
        "provider": [recipe.meta.provider],
    }


@pytest.mark.site
def test_every_recipe_has_one_card_with_its_facets(home: Node,
                                                   runs_on: dict[str, set[str]]) -> None:
    cards = cards_by_id(home)
    assert set(cards) == set(active_recipes())
    for hf_id, card in cards.items():
        recipe = active_recipes()[hf_id]
        assert card.find("a", "rcp-card-link").text == recipe.meta.title
        assert recipe.meta.description in card.find("p", "rcp-card-desc").text
        assert recipe.model.parameter_count in card.find("ul", "rcp-card-facts").text
        facets = json.loads(card.attrs["data-facets"])
        want = expected_facets(hf_id, runs_on)
        assert {h for h in facets["hardware"] if "@" not in h} == want["hardware"], hf_id
        assert want["hardware"], f"{hf_id} runs nowhere"
        assert set(facets["precision"]) == want["precision"], hf_id
        for key in ("task", "arch", "size", "provider"):
            assert facets[key] == want[key], (hf_id, key)


@pytest.mark.site
def test_known_models_fall_in_the_size_a_reader_expects(home: Node) -> None:
    cards = cards_by_id(home)
    sizes = {hf_id: json.loads(cards[hf_id].attrs["data-facets"])["size"] for hf_id in (
        "LiquidAI/LFM2.5-230M", "Qwen/Qwen3-8B", "deepseek-ai/DeepSeek-V3",
        "moonshotai/Kimi-K2-Instruct", "IndexTeam/IndexTTS-2.5",
        "deepseek-ai/DeepSeek-V4.1-Flash")}
    assert sizes == {
        "LiquidAI/LFM2.5-230M": ["under-5b"],
        "Qwen/Qwen3-8B": ["5-20b"],
        "deepseek-ai/DeepSeek-V3": ["300b-1t"],
        "moonshotai/Kimi-K2-Instruct": ["1t-plus"],
        "IndexTeam/IndexTTS-2.5": ["unstated"],  # "Undisclosed"
        "deepseek-ai/DeepSeek-V4.1-Flash": ["300b-1t"],  # 552B + 196B Engram
    }


def resolve(site: BuiltSite, href: str) -> Path:
    """The file a site-absolute or home-relative link serves."""
    path = site.root / href.lstrip("/")
    return path / "index.html" if href.endswith("/") else path


@pytest.mark.site
def test_every_card_links_its_page_and_its_json(built_site: BuiltSite, home: Node) -> None:
    for hf_id, card in cards_by_id(home).items():
        href = card.find("a", "rcp-card-link").attrs["href"]
        # A form every static host resolves (`npx serve` lists a directory whose name has a
        # dot instead of serving its index.html).
        assert href.endswith("/index.html" if "." in hf_id.split("/")[1] else "/"), href
        page = resolve(built_site, href)
        assert page.is_file(), page
        assert f'data-hf-id="{hf_id}"' in page.read_text(encoding="utf-8")
        link = card.find("a", "rcp-card-json")
        assert link.attrs["href"].endswith(f"{hf_id}.json")
        document = json.loads(resolve(built_site, link.attrs["href"]).read_text(encoding="utf-8"))
        assert document["hf_id"] == hf_id


def option_counts(home: Node, name: str) -> dict[str, tuple[str, int]]:
    """value → (label, count) of a filter's options, as the page shows them."""
    select = home.find("select", name=name)
    counts = {}
    for option in select.find_all("option"):
        match = re.fullmatch(r"(.+) \((\d+)\)", option.text)
        assert match, option.text
        assert match[1] == option.attrs["data-label"]
        counts[option.attrs["value"]] = (match[1], int(match[2]))
    return counts


@pytest.mark.site
def test_filter_counts_are_what_the_recipes_say(home: Node,
                                                runs_on: dict[str, set[str]]) -> None:
    recipes = active_recipes()
    expected: dict[str, Counter[str]] = {}
    for hf_id in recipes:
        for key, values in expected_facets(hf_id, runs_on).items():
            expected.setdefault(key, Counter()).update(values)
    form = home.find("form", "rcp-filters")
    names = [select.attrs["name"] for select in form.find_all("select")]
    assert names == ["task", "hardware", "precision", "arch", "size", "provider", "sort"]
    names.remove("sort")
    # "runs on N× GPU" options (`hw@N`): as many as the cards that say so
    # (test_the_runs_on_filter_offers_gpu_counts_from_the_fit_rule checks them against the fit rule)
    with_count = Counter(h for card in cards_by_id(home).values()
                         for h in json.loads(card.attrs["data-facets"])["hardware"] if "@" in h)
    for name in names:
        shown = option_counts(home, name)
        assert shown.pop("")[1] == len(recipes), name
        counts = {value: count for value, (_, count) in shown.items()}
        if name == "hardware":
            assert {v: n for v, n in counts.items() if "@" in v} == dict(with_count)
            counts = {v: n for v, n in counts.items() if "@" not in v}
        assert counts == dict(expected[name]), name
    tasks = option_counts(home, "task")
    omni = sum("omni" in r.meta.tasks for r in recipes.values())
    assert omni >= 25
    assert tasks["omni"] == ("Omni / generation", omni)
    assert option_counts(home, "arch")["moe"][0] == "MoE"
    assert option_counts(home, "precision")["nvfp4"][0] == "NVFP4"
    assert form.find("input", name="search")
    sort = form.find("select", name="sort")
    assert [(o.attrs["value"], "selected" in o.attrs) for o in sort.find_all("option")] == [
        ("newest", True), ("provider", False), ("name", False)]
    count = home.find("p", "rcp-count")
    assert count.text == f"{len(recipes)} of {len(recipes)} models"


@pytest.mark.site
def test_cards_are_grouped_by_provider(home: Node) -> None:
    recipes = active_recipes()
    providers = Counter(r.meta.provider for r in recipes.values())
    groups = home.find_all("section", "rcp-group")
    titles = []
    for group in groups:
        title = group.find("h2", "rcp-group-title")
        count = title.find("span", "rcp-group-count")
        provider = title.text.removesuffix(count.text).strip()
        titles.append(provider)
        members = group.find_all("article", "rcp-card")
        assert int(count.text) == len(members) == providers[provider], provider
        for card in members:
            assert json.loads(card.attrs["data-facets"])["provider"] == [provider]
        assert group.attrs["data-span"] == str(min(len(members), 3))
    assert sorted(titles) == sorted(providers)
    assert titles == sorted(titles, key=str.lower)


@pytest.mark.site
def test_search_words_hold_names_tasks_formats_and_hardware(
        home: Node, runs_on: dict[str, set[str]]) -> None:
    """Issue 36.3: a card is found by its ids, title, provider, old ids and checkpoints (names)
    and by its tasks, precisions and the hardware /hardware.json lists it under (tags)."""
    for hf_id, card in cards_by_id(home).items():
        recipe = active_recipes()[hf_id]
        names = card.attrs["data-names"].split(" ")
        tags = card.attrs["data-tags"].split(" ")
        words = [hf_id, recipe.meta.title, recipe.meta.provider, *recipe.aliases]
        words += [v.model_id for v in recipe.variants.values() if v.model_id]
        for word in words:
            assert compact(word) in names, (hf_id, word)
        every = set(names) | set(tags)
        for task in recipe.meta.tasks:
            assert task in every, (hf_id, task)
        for variant in recipe.variants.values():
            assert set(variant.precision.split("+")) <= every, hf_id
        assert {compact(hw) for hw in runs_on[hf_id]} <= every, hf_id
    bge = cards_by_id(home)["BAAI/bge-m3"].attrs["data-tags"].split(" ")
    assert {"embedding", "h100"} <= set(bge)


@pytest.mark.site
def test_each_card_carries_its_place_in_every_sort(home: Node) -> None:
    """`--rcp-o-newest` orders by date_added (newest first), `--rcp-o-name` by title in
    natural order: checked against the recipes' own dates and titles."""
    recipes = active_recipes()
    places: dict[str, dict[str, int]] = {}
    for hf_id, card in cards_by_id(home).items():
        style = dict(part.split(": ") for part in card.attrs["style"].split("; "))
        places[hf_id] = {key.removeprefix("--rcp-o-"): int(v) for key, v in style.items()}
    assert set(places) == set(recipes)
    for sort in ("provider", "newest", "name"):
        assert sorted(p[sort] for p in places.values()) == list(range(len(recipes))), sort
    newest = sorted(recipes, key=lambda h: places[h]["newest"])
    dates = [str(recipes[h].meta.date_added) for h in newest]
    assert dates == sorted(dates, reverse=True)
    by_name = sorted(recipes, key=lambda h: places[h]["name"])
    assert by_name.index("Qwen/Qwen3-4B") < by_name.index("Qwen/Qwen3-32B")  # 4 before 32
    provider = sorted(recipes, key=lambda h: places[h]["provider"])
    order = [recipes[h].meta.provider.lower() for h in provider]
    assert order == sorted(order)


@pytest.mark.site
def test_default_order_is_newest_and_the_page_says_so(home: Node) -> None:
    """Issue 36.3: "a sensible default order, said on the page"."""
    root = home.find("div", "rcp-browse")
    assert (root.attrs["data-sort"], root.attrs["data-group"]) == ("newest", "none")
    note = home.find("p", "rcp-order").text
    assert "Newest first, by the date a model joined the public" in note and "date_added" in note


@pytest.mark.site
def test_new_badge_marks_recipes_added_in_the_last_60_days(home: Node) -> None:
    import datetime

    recipes = active_recipes()
    # The latest addition, not our latest edit (date_updated): issue 35.3 / 36.3.
    today = max(datetime.date.fromisoformat(str(r.meta.date_added)) for r in recipes.values())
    for hf_id, card in cards_by_id(home).items():
        added = datetime.date.fromisoformat(str(recipes[hf_id].meta.date_added))
        badges = card.find_all("span", "rcp-new")
        assert len(badges) == ((today - added).days <= 60), hf_id
        if badges:
            assert badges[0].attrs["title"] == f"Added {added.isoformat()}"
    assert any(card.find_all("span", "rcp-new") for card in cards_by_id(home).values())


def test_the_runs_on_filter_offers_gpu_counts_from_the_fit_rule() -> None:
    """Issue 33 point 5: the home page filters by GPU and count ("2× L40S"), from the fit
    rule's fewest GPUs (`fewest_gpus` of /models.json), so a model that needs 4 L4s is found
    under 4× and 8× L4, not 1× or 2×."""
    from site_plugins.recipes.browse import BrowseCard, runs_on_counts
    from site_plugins.recipes.indexes import fewest_by_variant, fewest_of_recipe
    from tests.recipes_data import builder_catalog, builder_recipe

    catalog = builder_catalog()
    llama = builder_recipe("meta-llama/Llama-3.1-70B-Instruct")
    fewest = fewest_of_recipe(fewest_by_variant(catalog, llama)) or {}
    assert fewest["l4"] == 4  # FP8: 70.6 GB of weights; BF16 needs 8 (the CLI's refusal)
    values = runs_on_counts(catalog, BrowseCard("x", llama, [], fewest))
    assert {v for v in values if v.startswith("l4@") or v == "l4"} == {"l4@4", "l4@8"}
    qwen = builder_recipe("Qwen/Qwen3-8B")
    values = runs_on_counts(catalog, BrowseCard("x", qwen, ["l40s"],
                                                fewest_of_recipe(fewest_by_variant(
                                                    catalog, qwen)) or {}))
    assert {"l40s", "l40s@2", "l40s@4", "l40s@8"} <= set(values)


def test_new_is_measured_from_the_latest_addition_not_our_latest_edit() -> None:
    """Issue 35.3: our own edit date (date_updated) is no model date. A catalogue whose newest
    model joined on 2026-10-05 and that we last edited on 2026-12-01 calls a model added on
    2026-08-20 new (46 days before the latest addition), not old (103 days before our edit)."""
    import datetime

    def card(hf_id: str, added: str, updated: str) -> BrowseCard:
        return BrowseCard(hf_id, {"meta": {"date_added": added, "date_updated": updated}}, [])

    cards = [card("a/newest", "2026-10-05", "2026-12-01"),
             card("b/older", "2026-08-20", "2026-12-01")]
    today = catalogue_date(cards)
    assert today == datetime.date(2026, 10, 5)
    assert is_new(cards[1].recipe, today)
    assert not is_new({"meta": {"date_added": "2026-07-01"}}, today)
