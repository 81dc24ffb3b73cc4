"""`vllm-recipes --detect`: which `hardware=` this machine is.

The probes below ask, in order, the place each brand reports its accelerators (the first that
finds any wins): `$TPU_ACCELERATOR_TYPE`, nvidia-smi, amd-smi (rocm-smi where amd-smi is
missing), npu-smi; a machine without accelerators is a CPU host (lscpu). Which hardware id the
devices are is data, not code: each id's `detect` patterns in recipes/hardware.yaml are matched
against the device name, and its `gpu_count` against the number of devices (see the schema's
`HardwareProfile.detect` for the rule). What cannot be matched is one line that says what was
found and which `hardware=` values exist (exit 2).

A tool's output is read as a hostile one's: bytes, at most MAX_OUTPUT of them within TIMEOUT_S,
any JSON shape, counts checked (1 to MAX_DEVICES), names escaped and cut before they are shown
(builder.text_safety); what cannot be read is one line too.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from builder.text_safety import printable

from .errors import UsageError

__all__ = ["PROBES", "Detection", "Found", "detect", "match", "probe"]

TIMEOUT_S = 30
"""How long a tool may take."""
MAX_OUTPUT = 8 << 20
"""The most bytes of a tool's output that are read (a node of 64 GPUs prints a few KB)."""
MAX_DEVICES = 4096
"""The largest device (or NUMA node) count a tool may report: more is not one machine."""
NAME_CHARS = 100
"""The most characters of a device name a line shows."""


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
    """The standard output of a tool on PATH; None when it is missing or fails. Its output is
    read as bytes (undecodable ones replaced), at most MAX_OUTPUT of them, within TIMEOUT_S: a
    tool that prints for ever is stopped, and its whole process group with it."""
    if shutil.which(argv[0]) is None:
        return None
    try:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return None
    timer = threading.Timer(TIMEOUT_S, _stop, (child,))
    timer.daemon = True
    timer.start()
    try:
        assert child.stdout is not None
        data = child.stdout.read(MAX_OUTPUT + 1)
        if len(data) > MAX_OUTPUT:
            _stop(child)
            raise UsageError(f"--detect: {argv[0]} printed more than {MAX_OUTPUT >> 20} MiB; "
                             "pick hardware= yourself")
        code = child.wait()
    finally:
        timer.cancel()
        _stop(child)
        if child.stdout is not None:
            child.stdout.close()
    return data.decode("utf-8", errors="replace") if code == 0 else None


def _stop(child: subprocess.Popen[bytes]) -> None:
    """End a tool and what it started (its own process group)."""
    if child.poll() is None:
        with contextlib.suppress(OSError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()


def _count(text: str, what: str, source: str) -> int:
    """A count a tool reports after a name (`v6e-8`, `NUMA node(s): 4`): 1 when it gives
    none; UsageError for digits that are not ASCII or not 1 to MAX_DEVICES."""
    if not text.isdigit():
        return 1
    if text.isascii() and 1 <= int(text) <= MAX_DEVICES:
        return int(text)
    raise UsageError(f"--detect: {source} reports {printable(text, 40)!r} {what}, not a count "
                     f"from 1 to {MAX_DEVICES}; pick hardware= yourself")


def _field(data: Any, *path: str) -> Any:
    """`data[path[0]][path[1]]...` through JSON objects; None where the shape differs."""
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _tpu(_: Callable[[list[str]], str | None]) -> Found | None:
    kind = os.environ.get("TPU_ACCELERATOR_TYPE", "").strip()
    if not kind:
        return None
    count = kind.rsplit("-", 1)[-1] if "-" in kind else ""
    return Found("$TPU_ACCELERATOR_TYPE", "google",
                 [kind] * _count(count, "chips", "$TPU_ACCELERATOR_TYPE"))


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


def _json(text: str | None) -> Any:
    try:
        return json.loads(text) if text else None
    except (ValueError, RecursionError):
        return None


def _amd(run: Callable[[list[str]], str | None]) -> Found | None:
    devices = _amd_devices(_json(run(["amd-smi", "static", "--asic", "--vram", "--json"])))
    names = [str(_field(d, "asic", "market_name") or "").strip() for d in devices]
    if names:
        size = _field(devices[0], "vram", "size")
        memory = (f"{size.get('value')} {size.get('unit')}" if isinstance(size, dict) and size
                  else None)
        return Found("amd-smi", "amd", names, memory)
    cards = _json(run(["rocm-smi", "--showproductname", "--json"]))
    names = []
    for card, fields in sorted(cards.items()) if isinstance(cards, dict) else ():
        if card.lower().startswith("card") and isinstance(fields, dict):
            series = {str(k).lower(): v for k, v in fields.items()}.get("card series", "")
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
    numa = _count(fields.get("NUMA node(s)", "1"), "NUMA nodes", "lscpu")
    return Found("lscpu", "xeon", [model] * numa, unit="NUMA node")


PROBES: list[Callable[[Callable[[list[str]], str | None]], Found | None]] = [
    _tpu, _nvidia, _amd, _npu, _cpu]
"""In order; the first that finds devices is the answer (lscpu last: every machine has a
CPU)."""


def probe(run: Callable[[list[str]], str | None] = _run) -> Found | None:
    for step in PROBES:
        found = step(run)
        if found is not None:
            return _shown(found)
    return None


def _shown(found: Found) -> Found:
    """`found` with what a tool printed made printable and cut (builder.text_safety); at most
    MAX_DEVICES devices (UsageError beyond: no one machine holds them)."""
    if len(found.names) > MAX_DEVICES:
        raise UsageError(f"--detect: {found.source} reports {len(found.names)} devices, more "
                         f"than {MAX_DEVICES}; pick hardware= yourself")
    memory = printable(found.memory, 40) if found.memory is not None else None
    return replace(found, names=[printable(name, NAME_CHARS) for name in found.names],
                   memory=memory)


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
    # Another count: a GPU of the registry (a `max_gpus` of its own, what the node-shaped
    # aliases name) before a node of the same cards.
    for hw_id, hw in sorted(candidates, key=lambda c: not c[1].get("max_gpus")):
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
