"""What a guide's Markdown may become: one allow-list, used by `check` and by the site.

A guide (`<repo>.md`) is the only recipe text rendered as Markdown. It is rendered with the
site's extensions (`GUIDE_EXTENSIONS`, the same as mkdocs.yml's) and raw HTML turned off;
what comes out may hold only the elements and attributes of `ALLOWED` (`id`, `class` and
`title` on any of them), with these values:

- `href` (links): relative (within the site), or `http:`, `https:`, `mailto:`; `src`
  (images): relative only (a page fetches nothing from another origin). A URL is judged as
  a browser reads it: entities decoded (`javascript&#58;`), ASCII whitespace and control
  characters dropped wherever they are, any case;
- `id`, `name`, `for` and each class: letters, digits, `_` and `-` (an id starts with a
  letter or digit, but for the extensions' `__tabbed_` and `__codelineno-`); `align`: left, right or
  center; numbers where a number is meant; `type`: radio or checkbox.

No `on*` handler, no `style`, no `autofocus` or `tabindex` (what `attr_list` could add).

`check` calls `guide_problems` and refuses a guide with any problem, at its line; the site
renders guides with `GuideMarkdown` (which drops what is not allowed before the table of
contents is made) and passes the HTML through `sanitize_html`. So a guide `check` accepts
renders as written, and one forced past `check` renders inert.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
from collections.abc import Callable, Iterable
from html import escape, unescape
from html.parser import HTMLParser
from typing import Any

from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor

from builder.text_safety import printable

__all__ = ["ALLOWED", "GUIDE_EXTENSIONS", "GUIDE_EXTENSION_CONFIGS", "GuideMarkdown",
           "attribute_problem", "guide_problems", "link_problem", "safe_href",
           "sanitize_html"]

GUIDE_EXTENSIONS = ["admonition", "attr_list", "md_in_html", "tables", "toc",
                    "pymdownx.details", "pymdownx.highlight", "pymdownx.inlinehilite",
                    "pymdownx.superfences", "pymdownx.tabbed"]
"""The Markdown extensions pages are rendered with: mkdocs.yml's `markdown_extensions`
(tests/test_guide_html.py keeps the two the same)."""
GUIDE_EXTENSION_CONFIGS: dict[str, dict[str, Any]] = {
    "tables": {"use_align_attribute": True},
    "toc": {"permalink": True},
    "pymdownx.highlight": {"anchor_linenums": True},
    "pymdownx.tabbed": {"alternate_style": True},
}

_TEXT = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "code", "pre",
                   "blockquote", "ul", "li", "hr", "br", "table", "thead", "tbody", "tr",
                   "div", "span", "summary", "del", "ins", "sub", "sup", "kbd", "mark",
                   "small", "b", "i", "s", "u", "abbr", "dl", "dt", "dd"})
ALLOWED: dict[str, frozenset[str]] = {
    **dict.fromkeys(_TEXT, frozenset()),
    "div": frozenset({"data-tabs"}),
    "a": frozenset({"href", "name"}),
    "img": frozenset({"src", "alt", "width", "height"}),
    "ol": frozenset({"start"}),
    "th": frozenset({"align", "colspan", "rowspan"}),
    "td": frozenset({"align", "colspan", "rowspan"}),
    "details": frozenset({"open"}),
    "input": frozenset({"type", "name", "checked", "disabled"}),
    "label": frozenset({"for"}),
}
"""Element → the attributes it may have besides `id`, `class` and `title`."""
_EVERYWHERE = frozenset({"id", "class", "title"})
_VOID = frozenset({"br", "hr", "img", "input"})
_DROPPED_WITH_CONTENT = frozenset({"script", "style", "template", "iframe", "object",
                                   "embed", "noscript", "textarea", "title", "svg", "math"})
_NAME = re.compile(r"[A-Za-z0-9_-]+")
_ID = re.compile(r"(?:__(?:tabbed|codelineno)[_-])?[A-Za-z0-9][A-Za-z0-9_-]*")
"""An id (`name`, `for`): a slug, or one of the extensions' own (`__tabbed_1_1`); no other
`__` name a script could mistake for its own global."""
_NUMBER = re.compile(r"[0-9]{1,5}")


def _matches(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda value: pattern.fullmatch(value) is not None


_VALUES: dict[str, Callable[[str], bool]] = {
    "id": _matches(_ID), "name": _matches(_ID), "for": _matches(_ID),
    "class": lambda v: all(_NAME.fullmatch(token) for token in v.split()),
    "align": lambda v: v in {"left", "right", "center"},
    "type": lambda v: v in {"radio", "checkbox"},
    "width": _matches(_NUMBER), "height": _matches(_NUMBER), "start": _matches(_NUMBER),
    "data-tabs": _matches(re.compile(r"[0-9]{1,5}:[0-9]{1,5}")),
    "colspan": _matches(_NUMBER), "rowspan": _matches(_NUMBER),
}
LINK_SCHEMES = frozenset({"http", "https", "mailto"})
_IGNORED_IN_URLS = re.compile(r"[\x00-\x20\x7f-\x9f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064"
                              r"\ufeff]+")
_SCHEME = re.compile(r"([^/?#]*?):")


def _scheme(url: str) -> str | None:
    """The scheme a browser would see in `url` (lowercase; "" for a relative URL). Entities
    are decoded (twice: `&amp;#58;` too) and whitespace, control and invisible characters
    dropped wherever they are, which is stricter than any browser."""
    plain = _IGNORED_IN_URLS.sub("", unescape(unescape(url)))
    match = _SCHEME.match(plain)
    return match.group(1).lower() if match else ""


def _shown(value: str | None) -> str:
    return repr(printable(value or "", 80))


def link_problem(url: str, *, image: bool = False) -> str | None:
    """Why `url` may not be a guide's link (`image`: an image's source), or None."""
    scheme = _scheme(url)
    if image:
        plain = _IGNORED_IN_URLS.sub("", unescape(unescape(url)))
        if scheme or plain.startswith(("//", "\\\\", "/\\", "\\/")):
            return f"image {_shown(url)}: an image is a file of the site (a relative URL)"
        return None
    if scheme and scheme not in LINK_SCHEMES:
        return f"link {_shown(url)}: a link is relative, or http:, https: or mailto:"
    return None


def safe_href(href: str) -> str | None:
    """`href` when a guide or a hardware note may link to it, else None."""
    return None if link_problem(href) else href


def attribute_problem(tag: str, name: str, value: str | None) -> str | None:
    """Why element `tag` may not carry attribute `name` with `value` in a guide, or None."""
    name = name.lower()
    if name not in _EVERYWHERE and name not in ALLOWED.get(tag, frozenset()):
        return f"attribute {name} on <{tag}>: not allowed in a guide"
    if name in {"href", "src"}:
        return link_problem(value or "", image=name == "src")
    check = _VALUES.get(name)
    if check is not None and not check(value or ""):
        return f"attribute {name}={_shown(value)} on <{tag}>: not allowed in a guide"
    return None


class _Filter(Treeprocessor):
    """Drops, from the Markdown tree, each attribute the allow-list refuses (before the table
    of contents reads the headings); a link or image whose URL is refused becomes text."""

    def __init__(self, md: Markdown, found: list[str]) -> None:
        super().__init__(md)
        self.found = found

    def run(self, root: etree.Element) -> None:
        for element in root.iter():
            tag = element.tag if isinstance(element.tag, str) else ""
            for name, value in list(element.attrib.items()):
                problem = attribute_problem(tag, name, value)
                if problem is None:
                    continue
                self.found.append(problem)
                del element.attrib[name]
                if name in {"href", "src"}:
                    if tag == "img":
                        element.text = element.attrib.pop("alt", "")
                    element.tag = "span"
                    element.attrib.pop("name", None)


class GuideMarkdown(Extension):
    """Guide Markdown: no raw HTML (`<script>` is text), only allowed attributes. Acts only
    while `active` is set (mkdocs gives every page the same extensions; the recipes plugin
    sets it for the pages it generates). What it drops is added to `found`."""

    def __init__(self, active: bool = False) -> None:
        super().__init__()
        self.active = active
        self.found: list[str] = []

    def extendMarkdown(self, md: Markdown) -> None:
        if not self.active:
            return
        for registry, name in ((md.preprocessors, "html_block"), (md.inlinePatterns, "html")):
            if name in registry:
                registry.deregister(name)
        # After attr_list (8), before toc (5): a heading's attributes are clean when the
        # table of contents copies them.
        md.treeprocessors.register(_Filter(md, self.found), "recipes_guide_filter", 7)


class _Sanitizer(HTMLParser):
    """HTML in, the same HTML with only allowed elements and attributes out (re-serialized,
    every text and value escaped); what it drops is added to `found`."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.found: list[str] = []
        self.skipping: list[str] = []

    def _tag(self, tag: str, attrs: list[tuple[str, str | None]], close: bool) -> None:
        if self.skipping:
            if tag in _DROPPED_WITH_CONTENT and not close:
                self.skipping.append(tag)
            return
        if tag not in ALLOWED:
            self.found.append(f"element <{tag}>: not allowed in a guide")
            if tag in _DROPPED_WITH_CONTENT and not close:
                self.skipping.append(tag)
            return
        kept = []
        for name, value in attrs:
            problem = attribute_problem(tag, name, value)
            if problem is not None:
                self.found.append(problem)
            else:
                kept.append(f' {name}="{escape(value or "", quote=True)}"'
                            if value is not None else f" {name}")
        self.out.append(f"<{tag}{''.join(kept)}{' /' if close else ''}>")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, tag in _VOID)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag(tag, attrs, True)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            if tag == self.skipping[-1]:
                self.skipping.pop()
            return
        if tag in ALLOWED and tag not in _VOID:
            self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.out.append(escape(data, quote=False))

    def handle_comment(self, data: str) -> None:
        self.found.append("an HTML comment: not allowed in a guide")

    def handle_decl(self, decl: str) -> None:
        self.found.append("a declaration: not allowed in a guide")

    def handle_pi(self, data: str) -> None:
        self.found.append("a processing instruction: not allowed in a guide")

    def unknown_decl(self, data: str) -> None:
        self.found.append("a declaration: not allowed in a guide")


def sanitize_html(html: str) -> tuple[str, list[str]]:
    """`html` with only the allowed elements and attributes, and what was dropped."""
    parser = _Sanitizer()
    parser.feed(html)
    parser.close()
    return "".join(parser.out), parser.found


def _render(text: str) -> list[str]:
    """Everything the allow-list drops from guide Markdown `text`, in order."""
    extension = GuideMarkdown(active=True)
    md = Markdown(extensions=[*GUIDE_EXTENSIONS, extension],
                  extension_configs=GUIDE_EXTENSION_CONFIGS)
    _, dropped = sanitize_html(md.convert(text))
    return [*extension.found, *dropped]


def _first_line(lines: list[str], problem: str) -> int:
    """The line the problem comes from: the shortest start of the guide that has it."""
    low, high = 1, len(lines)
    while low < high:
        middle = (low + high) // 2
        if problem in _render("\n".join(lines[:middle])):
            high = middle
        else:
            low = middle + 1
    return low


def guide_problems(text: str) -> Iterable[tuple[int, str]]:
    """(line, message) for each thing of guide Markdown `text` the allow-list refuses."""
    found = _render(text)
    if not found:
        return []
    lines = text.splitlines()
    return [(_first_line(lines, problem), problem) for problem in dict.fromkeys(found)]
