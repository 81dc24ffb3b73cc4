"""How to install vLLM for a selection: pip and Docker, each available or not with a reason,
each with the recipe's extra steps (`dependencies`) for that method and hardware.

The pip command is the brand's (`pip_install`, or `pip_install_nightly` when the model needs a
nightly build); the Docker one pulls the selection's image (see `docker.py`).
"""

from __future__ import annotations

from .compose import Context
from .docker import docker_image
from .hardware_keys import matches
from .types import Dependency, InstallChoice
from .vocabulary import INSTALL_METHODS

__all__ = ["dependencies", "install_choices", "install_refusals"]


def install_refusals(ctx: Context) -> dict[str, str]:
    """Install methods this selection does not offer, each with the reason."""
    toggles = dict.fromkeys(INSTALL_METHODS, True)
    for ov in ctx.overrides():
        toggles.update(ov.data.get("install") or {})
    hw_name = ctx.hw["display_name"]
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
        {"note": dep["note"], "command": dep["command"], "optional": dep.get("optional", False)}
        for dep in ctx.recipe.get("dependencies", [])
        if method in dep.get("install", ["pip"])
        and any(matches(key, ctx.hw_id, ctx.hw) for key in dep.get("hardware", ["all"]))
    ]


def pip_command(ctx: Context) -> str | None:
    if ctx.model.get("nightly") and ctx.brand.get("pip_install_nightly"):
        return str(ctx.brand["pip_install_nightly"])
    return ctx.brand.get("pip_install")


def install_choices(ctx: Context) -> dict[str, InstallChoice]:
    commands = {"pip": pip_command(ctx), "docker": f"docker pull {docker_image(ctx)}"}
    refused = install_refusals(ctx)
    return {
        method: {
            "available": method not in refused,
            "command": None if method in refused else commands[method],
            "reason": refused.get(method),
            "dependencies": [] if method in refused else dependencies(ctx, method),
            "note": None if method in refused else ctx.model.get("install_notes", {}).get(method),
        }
        for method in INSTALL_METHODS
    }
