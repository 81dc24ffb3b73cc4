"""Checks of what a recipe claims about itself, beside its arguments:

- `min_vllm_version` (the model's and each variant's) is not above the release the commands
  are checked with (`builder/vllm_release.py`): a command no checked vLLM runs; a recipe that
  needs a newer build says `nightly: true` (and `min_vllm_version: nightly`);
- a variant that says it is another precision than the default variant (its `precision`, or a
  precision word of its `label`: FP8, NVFP4, ...) serves another checkpoint (`model_id`), or
  quantizes the default's weights on the fly (`--quantization`, or another option of vLLM's
  whose name says quantization, in its own arguments): else the pill says FP8 and the command
  serves the BF16 weights.
"""

from __future__ import annotations

import re
from typing import Any

from builder.vllm_release import VLLM_VERSION

from .check_problems import Problems
from .checks_args import options
from .schema import PRECISIONS, Recipe, Variant

__all__ = ["check_checkpoints", "check_versions", "release"]

_RELEASE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")
_PRECISION_WORD = re.compile(
    r"(?<![a-z0-9])(" + "|".join(sorted(PRECISIONS, key=len, reverse=True)) + r")(?![a-z0-9])",
    re.IGNORECASE)


def release(text: str) -> tuple[int, int, int] | None:
    """`0.11.2` (or `0.11.2rc1`, `0.11`) as (0, 11, 2); None for text that names no release
    (`nightly`)."""
    match = _RELEASE.match(text.strip().removeprefix("v"))
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


def check_versions(recipe: Recipe, problems: Problems) -> None:
    """`min_vllm_version` is not above the checked release."""
    checked = release(VLLM_VERSION)
    assert checked is not None
    found: list[tuple[tuple[Any, ...], str]] = [(("model", "min_vllm_version"),
                                                 recipe.model.min_vllm_version)]
    found += [(("variants", vid, "min_vllm_version"), v.min_vllm_version)
              for vid, v in recipe.variants.items() if v.min_vllm_version]
    for loc, text in found:
        wanted = release(text)
        if wanted is not None and wanted > checked:
            problems.add(loc, f"{text} is above vLLM {VLLM_VERSION}, the release the commands "
                              "are checked with (builder/vllm_release.py); a recipe that needs "
                              "a newer build says `nightly: true`")


def _claimed(variant: Variant) -> set[str]:
    """The precisions a variant says it is: its `precision`'s and its label's words."""
    words = {m.lower() for m in _PRECISION_WORD.findall(variant.label or "")}
    return set(variant.precision.split("+")) | words


def _quantizes(variant: Variant) -> bool:
    """The variant's own arguments (its `extra_args` and its overrides') quantize on the fly."""
    lists = [variant.extra_args, *(o.extra_args for o in variant.hardware_overrides.values()),
             *(o.extra_args for by_hw in variant.strategy_overrides.values()
               for o in by_hw.values())]
    return any("quantization" in spec["dest"]
               for tokens in lists for _, _, spec, _, _ in options(list(tokens), omni=True))


def check_checkpoints(recipe: Recipe, problems: Problems) -> None:
    """A variant of another precision serves another checkpoint (see the module docstring)."""
    default = recipe.variants.get("default")
    if default is None:
        return
    base = default.model_id or recipe.model.model_id
    own = set(default.precision.split("+"))
    for vid, variant in recipe.variants.items():
        if vid == "default" or (variant.model_id or recipe.model.model_id) != base:
            continue
        other = sorted(_claimed(variant) - own)
        if not other or _quantizes(variant):
            continue
        said = f"labelled {variant.label!r}" if variant.label else f"precision {variant.precision}"
        problems.add(("variants", vid, "model_id" if variant.model_id else "precision"), (
            f"{said} ({'+'.join(other)}) but serves {base}, the {default.precision} checkpoint "
            f"of the default variant: give the {'+'.join(other)} checkpoint's model_id, or "
            "quantize on the fly (--quantization) in the variant's extra_args"))
