"""NVIDIA Dynamo deployment targets: a framework × GPU × topology selection in; the target, the
steps that deploy it on Kubernetes, its prerequisites, settings and measured performance out.

The data is a model's deployments file (`recipes/deployments/<hf_id>.yaml`) as the site
publishes it: a plain dict. Rules:

- Selection keys, in resolution order: `framework`, `gpu`, `topology` (`KEYS`). A query names
  some of them. An explicit choice is kept, or refused with the reason of the `unavailable`
  rule that covers it. A key not given takes its default when a target exists with it and
  the other choices; otherwise the first value, in display order, that has one.
- A choice is *unavailable* when, put in place of the explicit value of its key, no target
  exists; the reason is the sentence of the `unavailable` rule covering that combination.
- Steps: one object per deploy kind (`DEPLOY_KINDS`): a Kustomize recipe is rendered into the
  user's cluster Kustomization, dry-run on the server and applied; a manifest is applied as it
  is. Both start by setting the namespace and end with a port-forward of the target's frontend
  service and a smoke-test request.
- Comparison: for the selected framework and GPU, the disaggregated row against the aggregated
  one; percentages of change rounded half away from zero, TTFT P90 in seconds to 2 decimals.
- Recommended: the performance row with the highest output tok/s per GPU.

Commands are argv lists; shell text is made at the edge (`shell_text`), quoted by
`builder.shell.quote`, so that removing line continuations and `shlex.split` give them back.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Callable, Iterator, Mapping
from itertools import pairwise
from typing import TypedDict

from ..errors import SelectionError, quoted
from ..shell import format_lines, quote
from ..types import Data

__all__ = [
    "AGGREGATED",
    "DEPLOY_KINDS",
    "DISAGGREGATED",
    "KEYS",
    "TOPOLOGIES",
    "Comparison",
    "DynamoResult",
    "PerformanceRow",
    "ShellCommand",
    "Step",
    "TargetSettings",
    "build",
    "choices",
    "combinations",
    "comparison",
    "copy_text",
    "describe",
    "find_target",
    "label",
    "parse_query",
    "performance",
    "prerequisites",
    "recommended",
    "resolve",
    "settings",
    "shell_text",
    "steps",
    "unavailable",
]

KEYS = ("framework", "gpu", "topology")
"""Selection keys, in resolution order."""
_REGISTRY = {"framework": "frameworks", "gpu": "gpus", "topology": "topologies"}
"""Selection key → the data's mapping of its values."""
AGGREGATED, DISAGGREGATED = "aggregated", "disaggregated"
TOPOLOGIES = (AGGREGATED, DISAGGREGATED)
NAMESPACE = "your-namespace"
CLUSTER_CONFIG = "/path/to/your/filled-cluster-kustomization"
PIPE = " | \\\n  "
COMMENT_WIDTH = 96


class ShellCommand(TypedDict):
    pipeline: list[list[str]]
    """The argv of each command of a pipeline (one for a plain command)."""
    stdout: str | None
    """The file standard output is redirected to, if any."""
    breaks: list[int]
    """Indexes of the argv (one-command pipelines) where a continuation line starts."""


class Step(TypedDict):
    id: str
    title: str
    text: str
    """What the step does, in a sentence or two (may use `code` spans)."""
    commands: list[ShellCommand]
    shell: str
    """The commands as text to paste into a shell."""


class PerformanceRow(TypedDict):
    framework: str
    gpu: str
    topology: str
    framework_label: str
    sku: str
    workload: str
    recipe: str
    concurrency: int
    output_tok_s_per_gpu: float
    user_tok_s_p50: float
    ttft_p50_ms: float
    ttft_p90_ms: float
    selected: bool


class TargetSettings(TypedDict):
    column: str
    label: str
    """The settings table's heading of the column (e.g. "B200 / GB200 aggregated")."""
    rows: list[dict[str, str]]
    """label, value (value with `code` spans)."""


class Comparison(TypedDict):
    framework: str
    gpu: str
    aggregated: PerformanceRow
    disaggregated: PerformanceRow
    output_change_pct: int
    """Disaggregated against aggregated output tok/s per GPU, signed whole percent."""
    user_change_pct: int
    """Likewise for P50 user tok/s."""
    ttft_p90_from_s: str
    ttft_p90_to_s: str
    sentence: str


class DynamoResult(TypedDict):
    model_id: str
    selection: dict[str, str]
    labels: dict[str, str]
    """Display label of each selected value."""
    summary: str
    target: Data
    steps: list[Step]
    copy_text: str
    """Every step, headed by comments: what the CLI prints."""
    prerequisites: list[dict[str, str]]
    settings: TargetSettings | None
    """The target's column of the settings table, if it has one."""
    performance: list[PerformanceRow]
    comparison: Comparison | None
    recommended: dict[str, str]
    unavailable: dict[str, dict[str, str]]


# ------------------------------------------------------------------------------ selection


def choices(data: Data) -> dict[str, list[str]]:
    """Every value of each key, in display order."""
    return {key: list(data[_REGISTRY[key]]) for key in KEYS}


def label(data: Data, key: str, value: str) -> str:
    return str(data[_REGISTRY[key]][value]["label"])


def parse_query(data: Data, query: Mapping[str, str]) -> dict[str, str]:
    """Check keys and values exist; SelectionError names the key and the valid values."""
    valid = choices(data)
    explicit = {}
    for key, value in query.items():
        if key not in valid:
            raise SelectionError(key, f"unknown key; valid keys: {', '.join(KEYS)}")
        if value not in valid[key]:
            raise SelectionError(
                key, f"unknown value {quoted(value)}; valid values: {', '.join(valid[key])}"
            )
        explicit[key] = value
    return explicit


def _matches(item: Mapping[str, object], selection: Mapping[str, str]) -> bool:
    return all(item[key] == value for key, value in selection.items())


def find_target(data: Data, selection: Mapping[str, str]) -> Data | None:
    """The first target that has every chosen value (a full selection names one target)."""
    return next((t for t in data["targets"] if _matches(t, selection)), None)


def _combos(data: Data) -> Iterator[dict[str, str]]:
    values = choices(data)
    for framework in values["framework"]:
        for gpu in values["gpu"]:
            for topology in values["topology"]:
                yield {"framework": framework, "gpu": gpu, "topology": topology}


def _rule(data: Data, combo: Mapping[str, str]) -> Data | None:
    """The `unavailable` rule covering a full combination (a key a rule omits matches all)."""
    for rule in data.get("unavailable", []):
        if all(rule.get(key) in (None, value) for key, value in combo.items()):
            return rule
    return None


def _refusal(data: Data, explicit: Mapping[str, str]) -> SelectionError:
    """Why no target has every explicit value: the rule of the first combination."""
    combo = next(c for c in _combos(data) if _matches(c, explicit))
    rule = _rule(data, combo)
    reason = rule["reason"] if rule else "no deployment target has these choices"
    named = [key for key in KEYS if key in explicit and rule and rule.get(key) is not None]
    key = named[-1] if named else [key for key in KEYS if key in explicit][-1]
    return SelectionError(key, reason)


def resolve(data: Data, explicit: Mapping[str, str]) -> dict[str, str]:
    """The full selection for the explicit choices; SelectionError when no target has them."""
    explicit = parse_query(data, explicit)
    if find_target(data, explicit) is None:
        raise _refusal(data, explicit)
    selection: dict[str, str] = {}
    for key in KEYS:
        if key in explicit:
            selection[key] = explicit[key]
            continue
        default = data["defaults"][key]
        ordered = [default, *(v for v in choices(data)[key] if v != default)]
        selection[key] = next(
            v for v in ordered if find_target(data, {**explicit, **selection, key: v})
        )
    return {key: selection[key] for key in KEYS}


def unavailable(data: Data, explicit: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """Key → value → reason, for each value that no target has with the other explicit
    choices (keys with every value available are left out)."""
    refused: dict[str, dict[str, str]] = {}
    for key, values in choices(data).items():
        for value in values:
            query = {**explicit, key: value}
            if find_target(data, query) is None:
                refused.setdefault(key, {})[value] = _refusal(data, query).reason
    return refused


def combinations(data: Data) -> list[dict[str, object]]:
    """Every framework × GPU × topology combination: available, or why not."""
    rows: list[dict[str, object]] = []
    for combo in _combos(data):
        target = find_target(data, combo)
        rule = None if target else _rule(data, combo)
        rows.append({**combo, "available": target is not None,
                     "reason": None if target else (rule or {}).get("reason")})
    return rows


# ---------------------------------------------------------------------------------- steps


def _cmd(*argv: str, stdout: str | None = None, breaks: tuple[int, ...] = ()) -> ShellCommand:
    return {"pipeline": [list(argv)], "stdout": stdout, "breaks": list(breaks)}


def _pipe(*stages: list[str]) -> ShellCommand:
    return {"pipeline": [list(s) for s in stages], "stdout": None, "breaks": []}


def shell_text(command: ShellCommand) -> str:
    """One command as shell text: pipeline stages on lines of their own, a long command cut
    at its `breaks`, then the redirection."""
    stages = []
    for argv in command["pipeline"]:
        cuts = [0, *command["breaks"], len(argv)]
        stages.append(format_lines([argv[a:b] for a, b in pairwise(cuts)]))
    text = PIPE.join(stages)
    if command["stdout"]:
        text += " > " + quote(command["stdout"])
    return text


def _step(step_id: str, title: str, text: str, commands: list[ShellCommand]) -> Step:
    return {
        "id": step_id,
        "title": title,
        "text": text,
        "commands": commands,
        "shell": "\n".join(shell_text(c) for c in commands),
    }


def _namespace_step(data: Data, target: Data, *, cluster_config: bool) -> Step:
    cache = data["model_cache"]
    commands = [_cmd("export", f"NAMESPACE={NAMESPACE}")]
    text = (
        f"Pick the namespace to deploy into. Populate the `{cache['pvc']}` PVC "
        f"({cache['access_mode']}) with Dynamo's model-cache manifests before the first "
        f"deploy; their download Job pins revision `{cache['revision']}`."
    )
    if cluster_config:
        commands.append(_cmd("export", f"CLUSTER_CONFIG={CLUSTER_CONFIG}"))
        text += (" `CLUSTER_CONFIG` is the folder of your cluster Kustomization, filled in "
                 "for your cluster.")
    return _step("namespace", "Set the namespace", text, commands)


def _kustomize_steps(data: Data, target: Data) -> list[Step]:
    kustomize = ["kustomize", "build", "--load-restrictor", "LoadRestrictionsNone",
                 "${CLUSTER_CONFIG}"]
    return [
        _namespace_step(data, target, cluster_config=True),
        _step(
            "render", "Render the target",
            "From the root of the Dynamo recipes checkout, render the target's Kustomization "
            "into your cluster Kustomization. There, `recipe.yaml` must be the only entry of "
            "`resources`; the rest of that Kustomization places the workers on nodes, binds "
            "the model cache, and sets registry credentials and networking.",
            [_cmd("kustomize", "build", target["source"],
                  stdout="${CLUSTER_CONFIG}/recipe.yaml")],
        ),
        _step(
            "dry_run", "Dry-run on the server",
            "Let the API server validate everything before anything is created; "
            "`pipefail` makes a failed render fail the whole line.",
            [_cmd("set", "-o", "pipefail"),
             _pipe(kustomize, ["kubectl", "apply", "--dry-run=server", "-f", "-", "-n",
                               "${NAMESPACE}"])],
        ),
        _step(
            "apply", "Apply", "The same render, applied for real.",
            [_pipe(kustomize, ["kubectl", "apply", "-f", "-", "-n", "${NAMESPACE}"])],
        ),
    ]


def _manifest_steps(data: Data, target: Data) -> list[Step]:
    return [
        _namespace_step(data, target, cluster_config=False),
        _step(
            "apply", "Apply the manifest",
            "From the root of the Dynamo recipes checkout, apply the target's manifest as it "
            "is.",
            [_cmd("kubectl", "apply", "-f", target["source"], "-n", "${NAMESPACE}")],
        ),
    ]


DEPLOY_KINDS: dict[str, Callable[[Data, Data], list[Step]]] = {
    "kustomize": _kustomize_steps,
    "manifest": _manifest_steps,
}
"""Deploy kind → the steps that put a target on the cluster (before the port-forward)."""


def _smoke_steps(data: Data, target: Data) -> list[Step]:
    port = data["frontend_port"]
    smoke = data["smoke_test"]
    body = json.dumps({
        "model": data["model_id"],
        "messages": [{"role": "user", "content": smoke["prompt"]}],
        "temperature": smoke["temperature"],
        "max_tokens": smoke["max_tokens"],
    }, separators=(",", ":"), ensure_ascii=False)
    check = "Once the pods are ready, send a request; the reply must hold a non-empty answer."
    if target.get("smoke_test_note"):
        check += " " + target["smoke_test_note"]
    return [
        _step(
            "port_forward", "Forward the frontend",
            f"Make the target's frontend service reachable on localhost:{port}; this keeps "
            "running.",
            [_cmd("kubectl", "port-forward", f"svc/{target['frontend_service']}",
                  f"{port}:{port}", "-n", "${NAMESPACE}")],
        ),
        _step(
            "smoke_test", "Send a test request (in another terminal)", check,
            [_cmd("curl", "-sS", f"http://localhost:{port}{smoke['path']}",
                  "-H", "Content-Type: application/json", "-d", body, breaks=(3, 5))],
        ),
    ]


def steps(data: Data, target: Data) -> list[Step]:
    return [*DEPLOY_KINDS[target["deploy"]](data, target), *_smoke_steps(data, target)]


def copy_text(result_steps: list[Step]) -> str:
    """The steps as the CLI prints them: numbered comment headings, then the commands."""
    parts = []
    for number, step in enumerate(result_steps, 1):
        lines = [f"# {number}. {step['title']}"]
        lines += textwrap.wrap(step["text"], COMMENT_WIDTH, initial_indent="# ",
                               subsequent_indent="# ", break_on_hyphens=False)
        parts.append("\n".join(lines) + "\n" + step["shell"] + "\n")
    return "\n".join(parts)


# -------------------------------------------------------------------------- prerequisites


def _applies(condition: Mapping[str, list[str]], selection: Mapping[str, str]) -> bool:
    return all(not allowed or selection[key] in allowed for key, allowed in condition.items())


def prerequisites(data: Data, target: Data) -> list[dict[str, str]]:
    """What the cluster needs for this target, computed from the data, then the data's own
    notes whose `when` matches it."""
    gpu = data["gpus"][target["gpu"]]
    resources = data["resources"]
    worker = resources["worker"]
    cache = data["model_cache"]
    items = [
        {"id": "cluster", "title": "Cluster",
         "text": f"Kubernetes running a Dynamo operator that supports these recipes, and "
                 f"{target['gpus']} {gpu['label']} GPUs for this target on "
                 f"{gpu['node_arch'].upper()} worker nodes."},
    ]
    for frontend in resources["frontend"]:
        if target["gpu"] in frontend["gpus"]:
            items.append({"id": "frontend", "title": "Per frontend",
                          "text": f"{frontend['cpu_cores']} CPU cores and "
                                  f"{frontend['memory_gib']} GiB host memory."})
    worker_text = (
        f"{worker['gpus']} GPUs, {worker['cpu_cores']} CPU cores, {worker['memory_gib']} GiB "
        f"host memory, {worker['ephemeral_storage_gib']} GiB ephemeral storage, and a "
        f"{worker['shared_memory_gib']} GiB shared-memory volume."
    )
    if resources.get("note"):
        worker_text += " " + resources["note"]
    items.append({"id": "worker", "title": "Per worker", "text": worker_text})
    items.append({"id": "model_cache", "title": "Model cache",
                  "text": f"A populated {cache['access_mode']} PVC named `{cache['pvc']}` "
                          "(the name the recipes use)."})
    if target["deploy"] == "kustomize":
        items.append({"id": "kustomize", "title": "Kustomize",
                      "text": f"Kustomize v{data['kustomize_version']}, and a cluster "
                              "Kustomization filled in with node placement, the model-cache "
                              "binding, registry credentials and networking."})
    selection = {key: target[key] for key in KEYS}
    for number, note in enumerate(data.get("prerequisites", [])):
        if _applies(note.get("when", {}), selection):
            items.append({"id": f"note_{number}", "title": note["title"], "text": note["text"]})
    return items


def settings(data: Data, target: Data) -> TargetSettings | None:
    column = target.get("settings")
    if not column:
        return None
    table = data["settings"]
    return {
        "column": column,
        "label": table["columns"][column],
        "rows": [{"label": row["label"], "value": row["values"][column]}
                 for row in table["rows"]],
    }


# ---------------------------------------------------------------------------- performance


def performance(data: Data, selection: Mapping[str, str] | None = None) -> list[PerformanceRow]:
    """The measured rows, labelled, with the selected target's row marked."""
    perf = data["performance"]
    rows: list[PerformanceRow] = []
    for row in perf["rows"]:
        rows.append({
            "framework": row["framework"],
            "gpu": row["gpu"],
            "topology": row["topology"],
            "framework_label": label(data, "framework", row["framework"]),
            "sku": label(data, "gpu", row["gpu"]),
            "workload": perf["workload"],
            "recipe": row["recipe"],
            "concurrency": row["concurrency"],
            "output_tok_s_per_gpu": row["output_tok_s_per_gpu"],
            "user_tok_s_p50": row["user_tok_s_p50"],
            "ttft_p50_ms": row["ttft_p50_ms"],
            "ttft_p90_ms": row["ttft_p90_ms"],
            "selected": selection is not None and _matches(row, selection),
        })
    return rows


def _percent(new: float, old: float) -> int:
    """Signed change in whole percent, half away from zero."""
    change = (new / old - 1) * 100
    return int(math.copysign(math.floor(abs(change) + 0.5), change))


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.2f}"


def _more_less(pct: int, what: str) -> str:
    if pct == 0:
        return f"the same {what}"
    return f"{abs(pct)}% {'more' if pct > 0 else 'less'} {what}"


def comparison(data: Data, framework: str, gpu: str) -> Comparison | None:
    """Disaggregated against aggregated serving for one framework on one GPU, from the
    measured rows; None when either row is missing."""
    rows = {r["topology"]: r for r in performance(data)
            if r["framework"] == framework and r["gpu"] == gpu}
    if AGGREGATED not in rows or DISAGGREGATED not in rows:
        return None
    agg, dis = rows[AGGREGATED], rows[DISAGGREGATED]
    output = _percent(dis["output_tok_s_per_gpu"], agg["output_tok_s_per_gpu"])
    user = _percent(dis["user_tok_s_p50"], agg["user_tok_s_p50"])
    before, after = _seconds(agg["ttft_p90_ms"]), _seconds(dis["ttft_p90_ms"])
    gpus = {t["topology"]: t["gpus"] for t in data["targets"]
            if t["framework"] == framework and t["gpu"] == gpu}
    if agg["concurrency"] == dis["concurrency"] and gpus[AGGREGATED] == gpus[DISAGGREGATED]:
        setting = f"{gpus[AGGREGATED]} GPUs at concurrency {agg['concurrency']} for both"
    else:
        setting = (f"aggregated on {gpus[AGGREGATED]} GPUs at concurrency {agg['concurrency']}, "
                   f"disaggregated on {gpus[DISAGGREGATED]} at {dis['concurrency']}")
    ttft_after, ttft_before = float(after), float(before)
    moves = ("rises" if ttft_after > ttft_before
             else "falls" if ttft_after < ttft_before else "stays")
    ttft = (f"TTFT P90 {moves} from {before} s to {after} s" if moves != "stays"
            else f"TTFT P90 stays at {before} s")
    sentence = (
        f"On {agg['sku']} with {agg['framework_label']} ({setting}), disaggregated serving "
        f"delivers {_more_less(output, 'output tok/s/GPU')} and "
        f"{_more_less(user, 'P50 user tok/s')}; {ttft}."
    )
    return {
        "framework": framework,
        "gpu": gpu,
        "aggregated": agg,
        "disaggregated": dis,
        "output_change_pct": output,
        "user_change_pct": user,
        "ttft_p90_from_s": before,
        "ttft_p90_to_s": after,
        "sentence": sentence,
    }


def recommended(data: Data) -> dict[str, str]:
    """The target with the highest measured output tok/s per GPU (first one on a tie)."""
    best = max(data["performance"]["rows"], key=lambda r: r["output_tok_s_per_gpu"])
    return {key: best[key] for key in KEYS}


# ---------------------------------------------------------------------------------- build


def describe(data: Data, selection: Mapping[str, str]) -> str:
    """"vLLM · GB200 · Disaggregated"."""
    return " · ".join(label(data, key, selection[key]) for key in KEYS)


def build(data: Data, query: Mapping[str, str]) -> DynamoResult:
    """Everything the widget, the JSON endpoint and the CLI show for a selection.

    Raises SelectionError for an unknown key or value, or choices no target has."""
    explicit = parse_query(data, query)
    selection = resolve(data, explicit)
    target = find_target(data, selection)
    assert target is not None  # resolve() only returns selections with a target
    result_steps = steps(data, target)
    return {
        "model_id": data["model_id"],
        "selection": selection,
        "labels": {key: label(data, key, selection[key]) for key in KEYS},
        "summary": f"{describe(data, selection)}: {target['gpus']}× "
                   f"{label(data, 'gpu', selection['gpu'])}, {target['layout']}",
        "target": dict(target),
        "steps": result_steps,
        "copy_text": copy_text(result_steps),
        "prerequisites": prerequisites(data, target),
        "settings": settings(data, target),
        "performance": performance(data, selection),
        "comparison": comparison(data, selection["framework"], selection["gpu"]),
        "recommended": recommended(data),
        "unavailable": unavailable(data, explicit),
    }
