"""Issue 32: one allow-list decides what a guide may render as, for `check` and for the site
(`vllm_recipes/guide_html.py`). Each payload is refused by `check` and, rendered as the site
renders guides, comes out inert."""

from __future__ import annotations

import pytest
import yaml
from markdown import Markdown

from builder.text_safety import printable
from tests.htmltree import parse
from tests.recipes_data import ROOT
from vllm_recipes.guide_html import (
    GUIDE_EXTENSION_CONFIGS,
    GUIDE_EXTENSIONS,
    GuideMarkdown,
    guide_problems,
    sanitize_html,
)

PAYLOADS = [
    '![a](http://127.0.0.1:9/x.png){: onerror="window.__pwned=1" }',
    '![a](x.png){: onerror="window.__pwned=1" }',
    '### H {: tabindex="0" autofocus onfocus="window.__pwned=1" }',
    'Cover.\n{: onmouseover="window.__pwned=1" style="position:fixed;inset:0" }',
    '[x](https://vllm.ai/){: onclick="window.__pwned=1" }',
    "[x](javascript:window.__pwned=1)",
    "[x](javascript&#58;window.__pwned=1)",
    "[x](javascript&colon;window.__pwned=1)",
    "[x](&#x6A;avascript:window.__pwned=1)",
    "[x](&#106;&#97;vascript:window.__pwned=1)",
    "[x](JaVaScRiPt:window.__pwned=1)",
    "[x](java&#x0A;script:window.__pwned=1)",
    "[x](java&#9;script:window.__pwned=1)",
    "[x](\x01javascript:window.__pwned=1)",
    "[x](java\x0bscript:window.__pwned=1)",
    "[x](java\u200bscript:window.__pwned=1)",
    "[x](data:text/html,<script>window.__pwned=1</script>)",
    "[x](DATA:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+)",
    "[x](vbscript:window.__pwned=1)",
    "[x](VBScript&#58;window.__pwned=1)",
    "[x][r]\n\n[r]: javascript:window.__pwned=1",
    '![x](data:image/svg+xml,<svg onload="window.__pwned=1">)',
    '![x](//127.0.0.1:9/x.png)',
    '### T {: data-toc-label="<img src=x onerror=window.__pwned=1>" }',
    '[x](#a){: id="__pwned" }',
    '[x](#a){: class="a onclick=window.__pwned=1" }',
]
INERT_AS_WRITTEN = ['```{.python onclick="window.__pwned=1"}\nx = 1\n```']
"""Payloads the extensions drop themselves (nothing for `check` to refuse)."""


def _site_render(text: str) -> str:
    """A guide as the site renders it: GuideMarkdown active, then `sanitize_html`."""
    md = Markdown(extensions=[*GUIDE_EXTENSIONS, GuideMarkdown(active=True)],
                  extension_configs=GUIDE_EXTENSION_CONFIGS)
    return sanitize_html(md.convert(text))[0]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_check_refuses_each_payload_at_its_line(payload: str) -> None:
    text = "## Overview\n\nText.\n\n" + payload + "\n"
    problems = list(guide_problems(text))
    assert problems, payload
    assert all(line >= 5 for line, _ in problems), problems


@pytest.mark.parametrize("payload", PAYLOADS + INERT_AS_WRITTEN)
def test_each_payload_forced_through_renders_inert(payload: str) -> None:
    html = _site_render("## Overview\n\n" + payload + "\n")
    for node in parse(html).iter():
        assert node.tag in {"#document", "p", "h2", "h3", "a", "img", "span", "div", "pre",
                            "code"}, node.tag
        for name, value in node.attrs.items():
            assert not name.startswith("on"), (name, value)
            assert name not in {"style", "autofocus", "tabindex"}, name
            assert "__pwned" not in (value or ""), (name, value)
            if name == "href":
                assert value.startswith(("https://", "#")), value
            if name == "src":
                assert "/" not in value and ":" not in value, value


@pytest.mark.parametrize("text", [
    "## Overview\n\n[a](https://vllm.ai/), [b](../Qwen3-8B/), [c](#overview), "
    "[d](mailto:a@b.c), ![e](../x.png){ width=\"300\" }\n",
    "| a | b |\n|:--|--:|\n| 1 | 2 |\n",
    '=== "A"\n\n    one\n\n=== "B"\n\n    ```bash title="x.sh"\n    echo hi\n    ```\n',
    '!!! warning "Careful"\n    `code` and **bold**\n\n??? note "More"\n    hidden\n',
    "### Setup {: #setup-on-h100 .wide }\n\n1. one\n2. two\n\n> quoted\n\n---\n",
])
def test_what_guides_write_renders_as_written(text: str) -> None:
    """The allow-list takes nothing from what the catalogue's guides use."""
    assert list(guide_problems(text)) == []
    md = Markdown(extensions=GUIDE_EXTENSIONS, extension_configs=GUIDE_EXTENSION_CONFIGS)
    plain = md.convert(text)
    assert _site_render(text) == sanitize_html(plain)[0]
    assert sanitize_html(plain)[1] == []


def test_the_site_renders_with_the_extensions_check_renders_with() -> None:
    """mkdocs.yml's markdown_extensions are `GUIDE_EXTENSIONS` with their settings: `check`
    judges the HTML the site makes."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"),
                       Loader=yaml.BaseLoader)
    names: list[str] = []
    settings: dict[str, object] = {}
    for entry in config["markdown_extensions"]:
        if isinstance(entry, dict):
            (name, options), = entry.items()
            settings[name] = {k: yaml.safe_load(v) for k, v in options.items()}
        else:
            name = entry
        names.append(name)
    assert names == GUIDE_EXTENSIONS
    assert settings == GUIDE_EXTENSION_CONFIGS


def test_printable_escapes_controls_and_bidi_and_cuts() -> None:
    # Escaped, not dropped: a reader sees that the text held them, and none acts.
    assert printable("a\x1b[31mb\u202ec\u2028d\u200be", 100) == (
        "a\\x1b[31mb\\u202ec\\u2028d\\u200be")
    assert printable("x" * 5000, 80) == "x" * 79 + "…"
    assert len(printable("x" * 5000, 80)) == 80
    assert printable("ok", 80) == "ok"
