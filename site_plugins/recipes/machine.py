"""Pages for machines and for people arriving from elsewhere.

    /<hf_id>.md          a Markdown twin of each model page: title, description, the default
                         command (the builder's, as on the page), its install steps and the guide;
                         also one per variant model id, with that variant's command
    /llms.txt            an index of every recipe, grouped by provider (llmstxt.org's format:
                         an H1, a summary quote, one H2 per section, a link list)
    /llms-full.txt       every twin, one after the other
    <head> of a model page: Open Graph and Twitter card metadata, and a schema.org `HowTo`
                         JSON-LD block (install, then serve)
    sitemap.xml          mkdocs' pages, the twins and the llms files, each URL once, dated by
                         the last change of its source (the recipe, its guide, the doc page)

Every text comes from recipe data and builder results; nothing here makes commands.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import unescape as unescape_xml

from builder.types import Result

__all__ = ["Twin", "head_html", "llms_full", "llms_index", "twin_markdown", "write_sitemap"]

Data = dict[str, Any]
SITE_NAME = "vLLM Recipes"
SUMMARY = ("The exact command to serve a model with vLLM on given hardware, with the features "
           "you pick: one Markdown page per model recipe, with its default command and guide.")


_LOC = re.compile(r"<loc>([^<]*)</loc>")


@dataclass(frozen=True)
class Twin:
    """One Markdown twin: where it goes and what the llms index says about it."""

    model_id: str
    """Its path is `/<model_id>.md`."""
    title: str
    provider: str
    description: str
    markdown: str


def _fence(text: str, lang: str = "bash") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}\n"


def twin_markdown(recipe: Data, result: Result, guide: str, *, page_url: str, json_url: str,
                  title: str) -> str:
    """The Markdown twin of a model page for `result` (its default selection, or a
    variant's)."""
    meta = recipe["meta"]
    lines = [f"# {title}", "", f"> {' '.join(meta['description'].split())}", "",
             f"Model id: `{result['model_id']}` · page: {page_url} · JSON: {json_url}", "",
             "## Command", "", f"{result['summary']}.", ""]
    docker = result["selection"]["install"] == "docker"
    for command in result["commands"]:
        text = command["docker_text"] if docker and command["docker_text"] else command["shell"]
        if len(result["commands"]) > 1:
            lines += [f"{command['label']}:", ""]
        lines.append(_fence(text))
    for request in result.get("example_requests") or []:
        lines += [f"Then send it a request ({request['label']}):", "", _fence(request["curl"])]
        if request["python"]:
            lines += ["With the OpenAI Python client:", "", _fence(request["python"], "python")]
    install = result["install"].get(result["selection"]["install"]) or {}
    if install.get("available") and install.get("command"):
        lines += ["## Install", "", _fence(install["command"])]
        if install.get("note"):
            lines += [install["note"], ""]
        for step in install.get("dependencies") or []:
            optional = " (optional)" if step.get("optional") else ""
            lines += [f"{step['note']}{optional}", "", _fence(step["command"])]
    for note in result.get("notes") or []:
        lines += [f"**{note['title']}.** {note['body']}", ""]
    guide = guide.strip()
    if guide:
        lines += [guide, ""]
    return "\n".join(lines).rstrip() + "\n"


def llms_index(twins: Iterable[Twin], base_url: str) -> str:
    """/llms.txt: every recipe's twin, grouped by provider (providers in name order)."""
    by_provider: dict[str, list[Twin]] = {}
    for twin in twins:
        by_provider.setdefault(twin.provider, []).append(twin)
    lines = [f"# {SITE_NAME}", "", f"> {SUMMARY}", "",
             f"Every command is also JSON: {base_url}models.json lists the recipes; "
             f"{base_url}api/ explains the endpoints and the `vllm-recipes` command line.",
             "",
             "The `vllm-recipes` tool (`pipx install .` in a checkout of the site's repository) "
             "answers the same offline: the command for a selection (`vllm-recipes HF_ID "
             "hardware=h200`), `--detect` for this machine's hardware, `run` and `verify` for a "
             "server, and `--format vllm-config|compose|k8s` for the files vLLM, Docker Compose "
             "and Kubernetes take.", ""]
    for provider in sorted(by_provider, key=str.casefold):
        lines += [f"## {provider}", ""]
        for twin in sorted(by_provider[provider], key=lambda t: t.model_id.casefold()):
            description = " ".join(twin.description.split())
            lines.append(f"- [{twin.title}]({base_url}{twin.model_id}.md): {description}")
        lines.append("")
    return "\n".join(lines)


def llms_full(twins: Iterable[Twin]) -> str:
    """/llms-full.txt: every twin in full."""
    return "\n\n---\n\n".join(twin.markdown.rstrip() for twin in twins) + "\n"


def head_html(recipe: Data, result: Result, *, title: str, page_url: str) -> str:
    """Open Graph, Twitter card and a schema.org HowTo for a model page's <head>."""
    meta = recipe["meta"]
    description = " ".join(meta["description"].split())
    tags = [("property", "og:type", "article"), ("property", "og:site_name", SITE_NAME),
            ("property", "og:title", title), ("property", "og:description", description),
            ("property", "og:url", page_url), ("name", "twitter:card", "summary"),
            ("name", "twitter:title", title), ("name", "twitter:description", description)]
    html = "".join(f'<meta {kind}="{escape(name)}" content="{escape(value)}">'
                   for kind, name, value in tags)
    steps = []
    install = result["install"].get(result["selection"]["install"]) or {}
    if install.get("available") and install.get("command"):
        steps.append({"@type": "HowToStep", "name": "Install vLLM",
                      "text": install["command"]})
    steps.append({"@type": "HowToStep", "name": f"Serve {result['model_id']}",
                  "text": result["copy_text"].strip()})
    data = {
        "@context": "https://schema.org",
        "@type": "HowTo",
        "name": f"Serve {title} with vLLM",
        "description": description,
        "url": page_url,
        "tool": [{"@type": "HowToTool", "name": "vLLM"}],
        "step": steps,
    }
    # No `<` reaches the script element (neither `</script>` nor `<!--` can end or escape
    # it): JSON spells it `\u003c`; `&` and `>` likewise, as HTML-safe JSON does.
    text = (json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
            .replace(">", "\\u003e").replace("&", "\\u0026"))
    return html + f'<script type="application/ld+json">{text}</script>'


def write_sitemap(site_dir: Path, urls: Iterable[str], dates: Mapping[str, str]) -> None:
    """Rewrite the sitemap mkdocs wrote (and its .gz copy): its pages and `urls`, each URL
    once, dated by `dates` (URL → `YYYY-MM-DD` of its source's last change) instead of the
    build's day; a URL with no known date has no `lastmod`."""
    path = site_dir / "sitemap.xml"
    if not path.is_file():
        return
    listed = [unescape_xml(loc) for loc in _LOC.findall(path.read_text(encoding="utf-8"))]
    entries = []
    for url in dict.fromkeys([*listed, *urls]):
        date = dates.get(url)
        lastmod = f"\n         <lastmod>{xml_escape(date)}</lastmod>" if date else ""
        entries.append(f"    <url>\n         <loc>{xml_escape(url)}</loc>{lastmod}\n    </url>\n")
    text = ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            + "".join(entries) + "</urlset>\n")
    path.write_text(text, encoding="utf-8")
    with open(site_dir / "sitemap.xml.gz", "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(text.encode("utf-8"))
