"""A recipe's guide: the Markdown file beside its YAML (`<repo>.md`).

Prose lives there, data in the YAML. Besides the guide itself, the file holds the recipe's
hardware notes (shown in their own block on the page and under the command for that hardware)
in one section:

    ## Hardware notes

    ### dgx_spark_gb10: DGX Spark setup required

    One paragraph of text; its first [link](#anchor) becomes the note's link.

Each `### <hardware id>: <title>` starts a note (`### rtx_5090@2:` one for two of that GPU,
shown instead of the GPU's own note at that count); its body runs to the next heading. The
section is taken out of the guide text the page renders.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["NOTES_HEADING", "Guide", "parse_guide"]

NOTES_HEADING = "## Hardware notes"
_NOTE = re.compile(r"^###\s+([a-z0-9_]+(?:@[0-9]+)?)\s*:\s*(.+?)\s*$")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


@dataclass
class Guide:
    text: str
    """The guide without its hardware notes section."""
    notes: dict[str, dict[str, Any]] = field(default_factory=dict)
    """hardware id → {title, body, link?} (the `HardwareNote` shape)."""
    lines: dict[str, int] = field(default_factory=dict)
    """hardware id → the line of its note's heading."""
    problems: list[tuple[int, str]] = field(default_factory=list)
    """(line, message) for a malformed notes section."""
    notes_lines: tuple[int, int] = (0, 0)
    """The notes section's first line and how many lines it has (taken out of `text`)."""

    def source_line(self, line: int) -> int:
        """The file's line of `text`'s line `line` (the notes section is not in `text`)."""
        start, count = self.notes_lines
        return line + count if count and line > start else line


def parse_guide(markdown: str) -> Guide:
    lines = markdown.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == NOTES_HEADING), None)
    if start is None:
        return Guide(markdown)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
               len(lines))
    guide = Guide("\n".join([*lines[:start], *lines[end:]]).rstrip() + "\n",
                  notes_lines=(start, end - start))
    current: str | None = None
    body: list[str] = []

    def close() -> None:
        if current is None:
            return
        text = " ".join(" ".join(body).split())
        note: dict[str, Any] = {"title": guide.notes[current]["title"]}
        link = _LINK.search(text)
        if link:
            note["link"] = {"label": link.group(1), "href": link.group(2)}
            text = _LINK.sub(lambda m: m.group(1), text)
        note["body"] = text
        if not text:
            guide.problems.append((guide.lines[current], f"note {current!r} has no text"))
        guide.notes[current] = note

    for index in range(start + 1, end):
        line = lines[index]
        match = _NOTE.match(line)
        if match:
            close()
            current, body = match.group(1), []
            if current in guide.notes:
                guide.problems.append((index + 1, f"a second note for {current!r}"))
            guide.notes[current] = {"title": match.group(2)}
            guide.lines[current] = index + 1
        elif line.startswith("#"):
            guide.problems.append((index + 1, "a note's heading is `### <hardware id>: <title>`"))
        elif line.strip():
            if current is None:
                guide.problems.append((index + 1, "text before the first note's heading"))
            body.append(line.strip())
    close()
    return guide
