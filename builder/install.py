"""How to install vLLM for a selection: pip and Docker, each available or not with a reason."""

from __future__ import annotations

from .compose import Context
from .docker import docker_image
from .types import InstallChoice

__all__ = ["install_choices", "install_refusals"]


def install_refusals(ctx: Context) -> dict[str, str]:
    """Install methods this selection does not offer, each with the reason."""
    toggles = {"pip": True, "docker": True}
    for ov in ctx.overrides():
        toggles.update(ov.get("install") or {})
    hw_name = ctx.hw["display_name"]
    return {
        method: f"this recipe offers no {method} install on {hw_name}; use "
        f"{'Docker' if method == 'pip' else 'pip'}"
        for method, allowed in toggles.items() if not allowed
    }


def install_choices(ctx: Context) -> dict[str, InstallChoice]:
    recipe_install = ctx.model.get("install") or {}
    pip_command = ctx.brand["pip_install"]
    if ctx.brand.get("primary") and recipe_install.get("pip"):
        pip_command = recipe_install["pip"]["command"]
    choices: dict[str, InstallChoice] = {
        "pip": {"available": True, "command": pip_command, "reason": None},
        "docker": {"available": True, "command": f"docker pull {docker_image(ctx)}",
                   "reason": None},
    }
    for method, reason in install_refusals(ctx).items():
        choices[method] = {"available": False, "command": None, "reason": reason}
    return choices
