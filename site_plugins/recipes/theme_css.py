"""One rule of mkdocs-material's palette stylesheet, dropped from the built site.

On every page load the theme's palette code sets `data-md-color-switching` on <body>, reads
the header's computed style, and removes the attribute again. The one rule that reads the
attribute (`[data-md-color-switching] *, … { transition-duration: 0s !important }`) makes each
of those two changes restyle every element of the page: on a 2-core machine that is 60 to 200
ms each, inside the theme's start-up task, the longest task of a model page's load (issue 17).
Without the rule the attribute changes restyle nothing. What the rule did: colours change at
once instead of fading (125-250 ms) when a reader switches between light and dark.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["SWITCHING_RULE", "drop_switching_rule"]

SWITCHING_RULE = re.compile(r"(?<=[{}\n])[^{}]*\[data-md-color-switching\][^{}]*\{[^{}]*\}")
"""A rule whose selector reads the attribute (minified CSS: rules end with "}")."""


def drop_switching_rule(site_dir: Path) -> list[Path]:
    """Remove the rule from the theme's palette stylesheets under `site_dir`; the files changed.
    Compressed copies of a changed file, if any, are removed with it (they would be stale)."""
    changed = []
    for css in sorted((site_dir / "assets" / "stylesheets").glob("palette.*.css")):
        text = css.read_text(encoding="utf-8")
        kept = SWITCHING_RULE.sub("", text)
        if kept != text:
            css.write_text(kept, encoding="utf-8")
            for suffix in (".br", ".gz"):
                css.with_name(css.name + suffix).unlink(missing_ok=True)
            changed.append(css)
    return changed
