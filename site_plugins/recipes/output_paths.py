"""Every file the build writes has a path of its own, inside the site.

The recipes plugin adds pages, JSON files and assets whose paths come from recipe data (a
model id is a folder). The schema keeps model ids plain (`vllm_recipes.schema.HfId`); this is
the build's own guard, where generated files are registered: a path that leaves the site
(`..`, absolute, a backslash), or that another output already has (in any case: one file on
a case-insensitive disk), or that is a file where another output needs a folder
(`javascripts/site.js` and `javascripts/site.js/index.html`), stops the build.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

__all__ = ["OutputClash", "check_outputs", "inside_site"]


class OutputClash(ValueError):
    """Two outputs of the build want the same place, or one leaves the site."""


def inside_site(uri: str) -> str:
    """`uri` if it is a plain relative path inside the site, else OutputClash."""
    if (not uri or uri.startswith("/") or "\\" in uri or "\x00" in uri
            or posixpath.normpath(uri) != uri or uri.split("/", 1)[0] == ".."):
        raise OutputClash(f"{uri!r}: not a path inside the site")
    return uri


def check_outputs(uris: Iterable[tuple[str, str]]) -> None:
    """(site path, what makes it) of every output: each inside the site, each once, none a
    file where another needs a folder. OutputClash names both makers."""
    seen: dict[str, tuple[str, str]] = {}
    for uri, maker in uris:
        key = inside_site(uri).lower()
        if key in seen:
            other, by = seen[key]
            raise OutputClash(f"{uri} ({maker}) and {other} ({by}) are the same file")
        seen[key] = (uri, maker)
    for key, (uri, maker) in seen.items():
        parent = posixpath.dirname(key)
        while parent:
            if parent in seen:
                other, by = seen[parent]
                raise OutputClash(f"{other} ({by}) is a file where {uri} ({maker}) needs a "
                                  "folder")
            parent = posixpath.dirname(parent)
