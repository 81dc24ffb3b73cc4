"""A vLLM-Omni recipe's tasks, resolved for one hardware (see `omni.py`)."""

from __future__ import annotations

from ..hardware_keys import ranked
from ..types import Data

__all__ = ["TASK", "omni_task", "task_ids"]

TASK = "task"
"""The selection key of an Omni recipe's task."""


def task_ids(recipe: Data) -> list[str]:
    return list((recipe.get("omni") or {}).get("tasks") or {})


def omni_task(recipe: Data, task_id: str, hw_id: str, hw: Data, gpus: int | None = None
              ) -> tuple[Data, str | None]:
    """The task's settings on this hardware (at `gpus` GPUs, the selection's count), and the
    hardware key of the override merged in."""
    task = dict(recipe["omni"]["tasks"][task_id])
    entries = ranked(task.get("hardware_overrides") or {}, hw_id, hw, gpus)
    if not entries:
        return task, None
    _, key, override = entries[-1]
    for field in ("label", "model_id", "vram_minimum_gb", "request"):
        if override.get(field) is not None:
            task[field] = override[field]
    task["extra_args"] = [*task.get("extra_args", []), *override.get("extra_args", [])]
    return task, key
