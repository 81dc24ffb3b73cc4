"""What `mkdocs serve` rebuilds reuse from the build before (the plugin keeps one BuildMemo
from `on_startup` to `on_shutdown`).

    loads     each recipe file's validated recipe, by a digest of its files and of the
              hardware and strategy files: an unchanged recipe is not validated again
    outputs   each recipe's outputs (pages, JSON), by a digest of everything its job holds:
              an unchanged recipe is not rendered again
    joins     each published configuration's builder join, by a digest of its inputs
    templates the theme's compiled Jinja templates (a bytecode cache): mkdocs makes a new
              Jinja environment for every build, which would compile them again
    staging   with `mkdocs serve --dirty` (`make dev`), generated files are written to a
              directory of their own, each only when its content changed: mkdocs then skips
              the pages and files whose source is older than their output (its dirty mode),
              so an edit of one recipe re-renders that recipe's pages and files only

A plain `mkdocs build` keeps nothing: files are handed to mkdocs as content, except each
recipe's JSON files, which its render worker writes into `site_dir` itself (`site.py`).
"""

from __future__ import annotations

import hashlib
import pickle
import secrets
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, InclusionLevel

__all__ = ["BuildMemo", "digest"]


def digest(value: Any) -> str:
    """A digest of picklable data (dicts hash in insertion order, as they publish)."""
    return hashlib.sha256(pickle.dumps(value, protocol=5)).hexdigest()


class TemplateCache(BytecodeCache):
    """Compiled templates in memory, by Jinja's own key (template name and source checksum:
    an edited template is compiled again)."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


@dataclass
class BuildMemo:
    serving: bool = False
    """True under `mkdocs serve` (outputs are kept for the next build)."""
    nonce: str = field(default_factory=lambda: secrets.token_hex(6))
    """Slot tokens of generated pages: the same across rebuilds, so unchanged pages are."""
    loads: dict[str, Any] = field(default_factory=dict)
    """`load_catalog`'s memo (filled under `mkdocs serve` only)."""
    outputs: dict[str, Any] = field(default_factory=dict)
    joins: dict[str, Any] = field(default_factory=dict)
    templates: TemplateCache = field(default_factory=TemplateCache)
    staging: Path | None = None
    written: dict[str, str] = field(default_factory=dict)
    """uri → digest of the content last written under `staging`."""
    recorded: dict[str, str] = field(default_factory=dict)
    """name → digest of generated content that is filled in after Markdown (`changed`)."""
    bodies: dict[str, tuple[str, Any]] = field(default_factory=dict)
    """A recipe page's rendered body and table of contents, by its uri: its variant pages
    use them (in this build; under `mkdocs serve`, also in later ones)."""

    @classmethod
    def start(cls, command: str, dirty: bool) -> BuildMemo:
        serving = command == "serve"
        staging = Path(tempfile.mkdtemp(prefix="recipes-dev-")) if serving and dirty else None
        return cls(serving=serving, staging=staging)

    def keep(self, outputs: dict[str, Any], joins: dict[str, Any]) -> None:
        """What the next build may reuse (nothing outside `mkdocs serve`)."""
        if self.serving:
            self.outputs, self.joins = outputs, joins
        else:
            self.bodies.clear()

    def file(self, config: MkDocsConfig, uri: str, content: str,
             inclusion: InclusionLevel | None = None, dest_uri: str | None = None) -> File:
        """A generated file: its content, or (dirty serve) a staged copy written only when
        its content changed, so that its modification time says whether it did. `dest_uri`:
        where it goes when not at `uri`."""
        extra = {} if inclusion is None else {"inclusion": inclusion}
        if self.staging is None:
            file = File.generated(config, uri, content=content, **extra)
        else:
            path = self.staging / uri
            key = hashlib.sha256(content.encode()).hexdigest()
            if self.written.get(uri) != key or not path.is_file():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
                self.written[uri] = key
            file = File.generated(config, uri, abs_src_path=str(path), **extra)
        if dest_uri is not None:
            file.dest_uri = dest_uri
        return file

    def changed(self, name: str, content: str) -> bool:
        """Whether `content` differs from the last one recorded under `name` (records it)."""
        key = hashlib.sha256(content.encode()).hexdigest()
        before, self.recorded[name] = self.recorded.get(name), key
        return before != key

    def close(self) -> None:
        if self.staging is not None:
            shutil.rmtree(self.staging, ignore_errors=True)
            self.staging = None
