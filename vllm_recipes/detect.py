"""`vllm-recipes --detect`: which `hardware=` this machine is.

The probes below ask, in order, the place each brand reports its accelerators (the first that
finds any wins): `$TPU_ACCELERATOR_TYPE`, nvidia-smi, amd-smi (rocm-smi where amd-smi is
missing), npu-smi; a machine without accelerators is a CPU host (lscpu). Which hardware id the
devices are is data, not code: each id's `detect` patterns in recipes/hardware.yaml are matched
against the device name, and its `gpu_count` against the number of devices (see the schema's
`HardwareProfile.detect` for the rule). What cannot be matched is one line that says what was
found and which `hardware=` values exist (exit 2).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import UsageError

__all__ = ["PROBES", "Detection", "Found", "detect", "match", "probe"]

TIMEOUT_S = 30


@dataclass(frozen=True)
class Found:
    source: str
    """The tool or variable that reported the devices."""
    brand: str
    """The brand id (recipes/hardware.yaml) whose hardware the devices can be."""
    names: list[str]
    """One device name per device."""
    memory: str | None = None
    """Memory per device as the tool reports it, for people."""
    unit: str | None = None
    """What a count counts when it is not devices (a CPU host's NUMA nodes)."""


@dataclass(frozen=True)
class Detection:
    hardware: str
    line: str
    """What was found and what was picked, for standard error."""
    gpus: int | None = None
    """The devices found, where the command must use no more than them (`gpus=`)."""


def _run(argv: list[str]) -> str | None:
    """The standard output of a tool on PATH; None when it is missing or fails."""
    if shutil.which(argv[0]) is None:
        return None
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S,
                             check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def _tpu(_: Callable[[list[str]], str | None]) -> Found | None:
    kind = os.environ.get("TPU_ACCELERATOR_TYPE", "").strip()
    if not kind:
        return None
    count = kind.rsplit("-", 1)[-1]
    return Found("$TPU_ACCELERATOR_TYPE", "google", [kind] * (int(count) if count.isdigit()
                                                               else 1))


def _nvidia(run: Callable[[list[str]], str | None]) -> Found | None:
    text = run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"])
    rows = [line.rsplit(",", 1) for line in (text or "").splitlines() if line.strip()]
    if not rows:
        return None
    return Found("nvidia-smi", "nvidia", [row[0].strip() for row in rows],
                 rows[0][1].strip() if len(rows[0]) > 1 else None)


def _amd_devices(data: Any) -> list[dict[str, Any]]:
    """amd-smi's JSON: a list of devices, or `{"gpu_data": [...]}` in newer releases."""
    if isinstance(data, dict):
        data = data.get("gpu_data", [])
    return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []


def _amd(run: Callable[[list[str]], str | None]) -> Found | None:
    text = run(["amd-smi", "static", "--asic", "--vram", "--json"])
    if text:
        try:
            devices = _amd_devices(json.loads(text))
        except ValueError:
            devices = []
        names = [str((d.get("asic") or {}).get("market_name", "")).strip() for d in devices]
        if names:
            size = ((devices[0].get("vram") or {}).get("size") or {})
            memory = f"{size.get('value')} {size.get('unit')}" if size else None
            return Found("amd-smi", "amd", names, memory)
    text = run(["rocm-smi", "--showproductname", "--json"])
    try:
        cards = json.loads(text) if text else {}
    except ValueError:
        cards = {}
    names = []
    for card, fields in sorted(cards.items()):
        if card.lower().startswith("card") and isinstance(fields, dict):
            series = {k.lower(): v for k, v in fields.items()}.get("card series", "")
            names.append(str(series).strip())
    return Found("rocm-smi", "amd", names) if names else None


_NPU_ROW = re.compile(r"^\|\s*\d+\s+(\S[^|]*?)\s*\|")


def _npu(run: Callable[[list[str]], str | None]) -> Found | None:
    """npu-smi info: one row per NPU chip with its index and name (`| 0  910B3  | OK ...`),
    each followed by a row of chip and bus ids, whose second word is a number."""
    names = []
    for line in (run(["npu-smi", "info"]) or "").splitlines():
        found = _NPU_ROW.match(line)
        if found and re.search(r"[A-Za-z]", found.group(1)):
            names.append(found.group(1))
    return Found("npu-smi", "npu", names) if names else None


def _cpu(run: Callable[[list[str]], str | None]) -> Found | None:
    fields: dict[str, str] = {}
    for line in (run(["lscpu"]) or "").splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    model = fields.get("Model name")
    if not model:
        return None
    numa = fields.get("NUMA node(s)", "1")
    return Found("lscpu", "xeon", [model] * (int(numa) if numa.isdigit() else 1),
                 unit="NUMA node")


PROBES: list[Callable[[Callable[[list[str]], str | None]], Found | None]] = [
    _tpu, _nvidia, _amd, _npu, _cpu]
"""In order; the first that finds devices is the answer (lscpu last: every machine has a
CPU)."""


def probe(run: Callable[[list[str]], str | None] = _run) -> Found | None:
    for step in PROBES:
        found = step(run)
        if found is not None:
            return found
    return None


def _said(found: Found) -> str:
    (name,) = set(found.names)
    if found.unit:
        count = len(found.names)
        return f"{name} with {count} {found.unit}{'s' if count != 1 else ''} ({found.source})"
    memory = f", {found.memory} each" if found.memory and len(found.names) > 1 else (
        f", {found.memory}" if found.memory else "")
    return f"{len(found.names)}× {name}{memory} ({found.source})"


def match(catalog: dict[str, Any], found: Found | None) -> Detection:
    """The hardware id of `found` (see the module docstring); UsageError when none is."""
    known = ", ".join(catalog["hardware"])
    if found is None:
        raise UsageError("--detect: found no accelerator (nvidia-smi, amd-smi, rocm-smi, "
                         f"npu-smi, $TPU_ACCELERATOR_TYPE) and no CPU model; pick one of "
                         f"hardware={known}")
    if len(set(found.names)) > 1:
        kinds = ", ".join(f"{found.names.count(n)}× {n}" for n in dict.fromkeys(found.names))
        raise UsageError(f"--detect: found {kinds} ({found.source}): mixed accelerators; "
                         f"pick one of hardware={known}")
    name, count = found.names[0], len(found.names)
    candidates = [
        (hw_id, hw) for hw_id, hw in catalog["hardware"].items()
        if hw["brand"] == found.brand
        and any(re.search(pattern, name, re.IGNORECASE) for pattern in hw.get("detect", ()))]
    said = _said(found)
    # Of one name, the memory found picks (A100 40GB or 80GB): closest first.
    got = re.match(r"\s*(\d+)\s*MiB", found.memory or "")
    if got:
        candidates.sort(key=lambda c: abs(c[1]["memory_gb"] - int(got[1]) * 1.048576 / 1000))
    for hw_id, hw in candidates:
        if hw["gpu_count"] == count:
            return Detection(hw_id, f"--detect: found {said}: hardware={hw_id}")
    for hw_id, hw in candidates:
        if count <= (hw.get("max_gpus") or hw["gpu_count"]) and not found.unit:
            return Detection(hw_id, f"--detect: found {said}: hardware={hw_id} gpus={count}",
                             count)
    near = "; ".join(f"{hw['display_name']} is {hw['gpu_count']}" for _, hw in candidates)
    # The found brand's ids (the whole list would not fit one line); all when it has none.
    same = ", ".join(hw_id for hw_id, hw in catalog["hardware"].items()
                     if hw["brand"] == found.brand) or known
    raise UsageError(f"--detect: found {said}, which no hardware= is"
                     + (f" ({near})" if near else "") + f"; pick one of hardware={same}")


def detect(catalog: dict[str, Any]) -> Detection:
    """This machine's hardware id, or UsageError."""
    return match(catalog, probe())
