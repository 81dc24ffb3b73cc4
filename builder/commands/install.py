"""How to install vLLM for a selection: pip and Docker, each available or not with a reason,
each with the recipe's extra steps (`dependencies`) for that method and hardware.

The pip command is the brand's (`pip_install`, or `pip_install_nightly` when the model needs a
nightly build); the Docker one pulls the selection's image (see `docker.py`). The steps that
fetch the files the commands name come after the recipe's own (see `files.py`); each step says
what it `provides` where `vllm serve` starts.
"""

from __future__ import annotations

from ..hardware_keys import matches
from ..types import Dependency, InstallChoice
from ..vllm_release import checked_note, omni_pip
from ..vocabulary import INSTALL_METHODS
from .compose import Context, cards_name
from .docker import docker_image
from .needed_files import fetch_steps, image_files

__all__ = ["checked_with", "dependencies", "install_choices", "install_refusals", "install_text"]


def install_refusals(ctx: Context) -> dict[str, str]:
    """Install methods this selection does not offer, each with the reason."""
    toggles = dict.fromkeys(INSTALL_METHODS, True)
    for ov in ctx.overrides():
        toggles.update(ov.data.get("install") or {})
    hw_name = cards_name(ctx.hw, ctx.gpus)
    others = {m: " or ".join(INSTALL_METHODS[o] for o in INSTALL_METHODS if o != m)
              for m in INSTALL_METHODS}
    refused = {
        method: f"this recipe offers no {method} install on {hw_name}; use {others[method]}"
        for method, allowed in toggles.items() if not allowed
    }
    if not ctx.brand.get("pip_install"):
        refused["pip"] = (f"vLLM for {ctx.brand['display_name']} ships as a Docker image only; "
                          "use Docker")
    return refused


def dependencies(ctx: Context, method: str) -> list[Dependency]:
    """The recipe's extra install steps for `method` on this hardware, in order."""
    return [
        {"note": dep["note"], "command": dep["command"], "optional": dep.get("optional", False),
         "provides": list(dep.get("provides", []))}
        for dep in ctx.recipe.get("dependencies", [])
        if method in dep.get("install", ["pip"])
        and any(matches(key, ctx.hw_id, ctx.hw, ctx.count) for key in dep.get("hardware", ["all"]))
    ]


def pip_command(ctx: Context) -> str | None:
    if ctx.model.get("nightly") and ctx.brand.get("pip_install_nightly"):
        return str(ctx.brand["pip_install_nightly"])
    command = ctx.brand.get("pip_install")
    if command and ctx.recipe.get("omni"):
        return omni_pip(str(command))
    return command


def other_build(ctx: Context, method: str) -> str | None:
    """The build `method` installs when it is not the checked release: a nightly, or an image
    other than the brand's default (a model-specific one)."""
    if method == "pip":
        nightly = ctx.model.get("nightly") and ctx.brand.get("pip_install_nightly")
        if nightly:
            return "a nightly vLLM build"
        return None if ctx.recipe.get("omni") else ctx.brand.get("build")
    image = docker_image(ctx)
    if image == ctx.brand["default_image"]:
        return ctx.brand.get("build")
    return f"the image {image}"


def checked_with(ctx: Context, method: str) -> str:
    """The line the page shows beside the command (see `vllm_release.checked_note`)."""
    return checked_note(other_build(ctx, method), omni=bool(ctx.recipe.get("omni")))


def install_choices(ctx: Context, argvs: list[list[str]]) -> dict[str, InstallChoice]:
    """Each install method for the selection whose commands, as the recipe writes them
    (before `files.py` maps their paths), are `argvs`."""
    commands = {"pip": pip_command(ctx), "docker": f"docker pull {docker_image(ctx)}"}
    refused = install_refusals(ctx)
    files = ctx.recipe.get("files", {})
    return {
        method: {
            "available": method not in refused,
            "command": None if method in refused else commands[method],
            "reason": refused.get(method),
            "dependencies": [] if method in refused else [
                *dependencies(ctx, method), *fetch_steps(files, method, argvs)],
            "provides": [] if method in refused else image_files(method, argvs),
            "note": None if method in refused else ctx.model.get("install_notes", {}).get(method),
            "checked_with": None if method in refused else checked_with(ctx, method),
        }
        for method in INSTALL_METHODS
    }


def install_text(method: str, choice: InstallChoice) -> str:
    """The install block of `method` as shell text (what the CLI prints before the commands):
    the install command, then each step, its note as a comment."""
    lines = [f"# Install ({method}); {choice['checked_with']}", str(choice["command"])]
    if choice["note"]:
        lines.insert(1, f"# {choice['note']}")
    for step in choice["dependencies"]:
        optional = "optional: " if step["optional"] else ""
        lines += [f"# {optional}{step['note']}", step["command"]]
    return "\n".join(lines) + "\n"
