"""Markdown of recipe guides: raw HTML is shown as text, links keep only safe schemes.

mkdocs makes a fresh `markdown.Markdown` for every page from `markdown_extensions`; this
extension sits last in that list and acts only while `active` is set, which the plugin does
for the pages it generates (hand-written pages keep raw HTML).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from urllib.parse import urlsplit

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor

__all__ = ["SafeMarkdown", "safe_href"]

SAFE_SCHEMES = {"", "http", "https", "mailto"}
_IGNORED_BY_BROWSERS = re.compile(r"[\x00-\x20\x7f]+")


def safe_href(href: str) -> str | None:
    """`href` when its scheme is harmless (http, https, mailto or none), else None."""
    try:
        scheme = urlsplit(_IGNORED_BY_BROWSERS.sub("", href)).scheme.lower()
    except ValueError:
        return None
    return href if scheme in SAFE_SCHEMES else None


class _SafeLinks(Treeprocessor):
    """A link or image with an unsafe URL becomes plain text (a span, without the URL)."""

    def run(self, root: etree.Element) -> None:
        for element in root.iter():
            for attribute in ("href", "src"):
                value = element.get(attribute)
                if value is not None and safe_href(value) is None:
                    del element.attrib[attribute]
                    if element.tag == "img":
                        element.text = element.attrib.pop("alt", "")
                    element.tag = "span"


class SafeMarkdown(Extension):
    def __init__(self) -> None:
        super().__init__()
        self.active = False

    def extendMarkdown(self, md: Markdown) -> None:
        if not self.active:
            return
        # Without these, `<script>` in a guide is a paragraph of text, escaped on output.
        for registry, name in ((md.preprocessors, "html_block"), (md.inlinePatterns, "html")):
            if name in registry:
                registry.deregister(name)
        md.treeprocessors.register(_SafeLinks(md), "recipes_safe_links", 1)
