"""`vllm-recipes check` and the site build, side by side, for a recipe tree (issue 24: check is
the build). The build here is what `mkdocs build` does with the tree, without mkdocs: the
plugin's loading (`load_site`: recipes, deployments, configurations) and each recipe's job
(`site.recipe_outputs`: every JSON file, page and Markdown twin of the recipe)."""

from __future__ import annotations

import contextlib
import io
import traceback
from dataclasses import dataclass
from pathlib import Path

from site_plugins.recipes import api
from site_plugins.recipes.configurations import PublishedConfigurations
from site_plugins.recipes.site import Job, recipe_outputs
from vllm_recipes.configurations import load_configurations
from vllm_recipes.deployments import load_deployments
from vllm_recipes.errors import InvalidRecipe
from vllm_recipes.loader import load_catalog
from vllm_recipes_cli.cli import main as cli_main


@dataclass(frozen=True)
class Verdict:
    ok: bool
    why: str
    """The first line of the refusal, or of the traceback's last line."""
    crashed: bool = False
    """An exception other than the refusals the build and check are meant to give."""


def check(root: Path) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `vllm-recipes check ROOT`, in this process; an escaping
    exception is a traceback on stderr with status 1."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_main(["check", str(root)])
        except Exception:
            traceback.print_exc()
            code = 1
    return code, out.getvalue(), err.getvalue()


def check_verdict(root: Path) -> Verdict:
    code, out, err = check(root)
    if "Traceback" in err:
        return Verdict(False, err.strip().splitlines()[-1], crashed=True)
    return Verdict(code == 0, (out.splitlines() or [""])[0] if code else "")


def build_verdict(root: Path) -> Verdict:
    """Whether the site build accepts the tree, and renders every recipe."""
    try:
        catalog = load_catalog(root)
        dynamo = load_deployments(root)
        published = PublishedConfigurations(load_configurations(catalog), catalog)
        published.join(catalog.builder_catalog(), "/")
    except InvalidRecipe as error:
        return Verdict(False, str(error).splitlines()[0])
    except Exception as error:  # what the build would crash with
        return Verdict(False, f"{type(error).__name__}: {error}", crashed=True)
    builder_catalog = catalog.builder_catalog()
    for hf_id in catalog.recipes:
        job = Job(builder_catalog, catalog.builder_recipe(hf_id), catalog.guides[hf_id], "/",
                  "nonce", "http://127.0.0.1:8000/",
                  published.model_sections(hf_id, "/", api.CATALOG_JSON),
                  dynamo.published(hf_id) if hf_id in dynamo.by_model else None)
        try:
            outputs = recipe_outputs(job)
        except Exception as error:
            return Verdict(False, f"{hf_id}: {type(error).__name__}: {error}", crashed=True)
        if outputs.error:  # the build stops here (a PluginError naming the recipe)
            return Verdict(False, f"{hf_id}: the default selection does not build: "
                                  f"{outputs.error}")
    return Verdict(True, "")
