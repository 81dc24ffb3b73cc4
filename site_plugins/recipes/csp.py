"""The Content-Security-Policy of every page: a `<meta http-equiv>` first in its `<head>`.

Everything comes from the site's own origin: scripts (module and classic), styles, images
and fonts (and the theme's `data:` icons), fetches, the builder's and the search's workers.
WebAssembly may compile (`'wasm-unsafe-eval'`, Pyodide). An inline script runs only if its
SHA-256 is listed, and only the theme's own are: those outside the page's content (the
`md-content__inner` article, where Markdown and recipe text go). Nothing inside the content
is hashed, so a script that got into a page would not run. Inline `style` attributes stay
allowed (the model cards use them; a guide cannot have one, see `vllm_recipes.guide_html`).

A meta policy cannot set `frame-ancestors` or reporting; a host that can send headers
may add them. `mkdocs serve` writes the same pages, and serves them without the policy
(`without_policy_when_served`): its live-reload script, added as it serves, is inline.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

__all__ = ["POLICY", "inline_script_hashes", "with_policy", "without_policy_when_served"]

POLICY = (
    ("default-src", "'self'"),
    ("script-src", "'self' 'wasm-unsafe-eval'"),
    ("style-src", "'self' 'unsafe-inline'"),
    ("img-src", "'self' data:"),
    ("font-src", "'self' data:"),
    ("connect-src", "'self'"),
    ("worker-src", "'self'"),
    ("frame-src", "'none'"),
    ("object-src", "'none'"),
    ("base-uri", "'self'"),
    ("form-action", "'self'"),
)
_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.S | re.I)
_TYPE = re.compile(r"""\btype\s*=\s*["']?([^"'\s>]+)""", re.I)
_SRC = re.compile(r"\bsrc\s*=", re.I)
_RUNS = {"", "text/javascript", "module", "application/javascript"}
_CONTENT = '<article class="md-content__inner md-typeset">'
_ARTICLE = re.compile(r"<(/?)article\b", re.I)
_CHARSET = re.compile(r"<meta charset=[^>]*>", re.I)
_META = re.compile(rb'<meta http-equiv="Content-Security-Policy" content="[^"]*">')


def _content_span(html: str) -> tuple[int, int]:
    """Where the page's content article starts and ends (an empty span if it has none)."""
    start = html.find(_CONTENT)
    if start < 0:
        return (0, 0)
    depth = 0
    for tag in _ARTICLE.finditer(html, start):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return (start, tag.end())
    return (start, len(html))


def inline_script_hashes(html: str) -> list[str]:
    """`'sha256-…'` of each inline script the page runs, outside its content, in order."""
    start, end = _content_span(html)
    hashes: list[str] = []
    for script in _SCRIPT.finditer(html):
        if start <= script.start() < end or _SRC.search(script.group(1)):
            continue
        kind = _TYPE.search(script.group(1))
        if (kind.group(1).lower() if kind else "") not in _RUNS:
            continue  # data (application/json, ld+json): never run
        digest = hashlib.sha256(script.group(2).encode("utf-8")).digest()
        source = f"'sha256-{base64.b64encode(digest).decode('ascii')}'"
        if source not in hashes:
            hashes.append(source)
    return hashes


def with_policy(html: str) -> str:
    """The page with its policy first in `<head>` (after `<meta charset>`)."""
    hashes = " ".join(inline_script_hashes(html))
    policy = "; ".join(f"{name} {value} {hashes}" if name == "script-src" and hashes
                       else f"{name} {value}" for name, value in POLICY)
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    charset = _CHARSET.search(html)
    if charset is not None:
        return html[: charset.end()] + meta + html[charset.end():]
    return html.replace("<head>", "<head>" + meta, 1)


def without_policy_when_served(server: Any) -> None:
    """`mkdocs serve`'s server hands out each page without its policy, before it adds its
    inline live-reload script (mkdocs 1.6's `LiveReloadServer._inject_js_into_html`); the
    files it writes keep it, as a clean build's."""
    inject = getattr(server, "_inject_js_into_html", None)
    if inject is None:
        return

    def without_policy(content: bytes, epoch: int) -> bytes:
        return inject(_META.sub(b"", content, count=1), epoch)

    server._inject_js_into_html = without_policy
