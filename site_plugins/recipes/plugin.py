"""The mkdocs hooks of the recipes plugin; each calls into `site.py` or `memo.py`."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from .config import RecipesConfig
from .csp import without_policy_when_served
from .memo import BuildMemo
from .site import RecipesSite, load_site

__all__ = ["RecipesPlugin"]


class RecipesPlugin(BasePlugin[RecipesConfig]):
    site: RecipesSite
    memo: BuildMemo | None = None

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # Defining on_startup keeps this instance across `mkdocs serve` rebuilds (memo.py).
        self.memo = BuildMemo.start(command, dirty)

    def on_shutdown(self) -> None:
        if self.memo is not None:
            self.memo.close()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        if self.memo is None:  # run without on_startup (mkdocs' build() called directly)
            self.memo = BuildMemo()
        self.site = load_site(self.config, config, self.memo)
        return config

    def on_env(self, env: Environment, /, *, config: MkDocsConfig, files: Files) -> Environment:
        if self.memo is not None and self.memo.serving:
            env.bytecode_cache = self.memo.templates  # compiled once per `mkdocs serve`
        return env

    def on_files(self, files: Files, /, *, config: MkDocsConfig) -> Files:
        return self.site.add_files(files, config)

    def on_page_markdown(
        self, markdown: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        return self.site.before_markdown(markdown, page)

    def on_page_content(
        self, html: str, /, *, page: Page, config: MkDocsConfig, files: Files
    ) -> str:
        return self.site.page_content(html, page)

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        self.site.post_build(config)

    def on_post_page(self, output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        return self.site.post_page(output, page)

    def on_post_template(self, output_content: str, /, *, template_name: str,
                         config: MkDocsConfig) -> str:
        if not template_name.endswith(".html"):
            return output_content
        return self.site.post_template(output_content)

    def on_serve(self, server: Any, /, *, config: MkDocsConfig, builder: Any) -> Any:
        for path in self.site.watch:
            server.watch(path)
        without_policy_when_served(server)
        return server
