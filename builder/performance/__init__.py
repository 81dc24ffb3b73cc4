"""Performance: how fast a selection serves, from estimates and measurements held as data
(pure standard library; typed facts in, figures and sentences out).

- `estimates`: the shapes of a model's estimates (`recipes/performance/<org>/<repo>.json`, made
  by NVIDIA AIConfigurator) and of measured points; the estimate of one layout, the points a
  reader is shown (`balanced_point`), the one-line summary;
- `profiles`: the `profile` selection key: the layout and `--max-num-seqs` a latency or a
  throughput profile picks among the estimated layouts, and why; why it is unavailable where
  no estimate covers the selection;
- `measured`: measured figures beside the estimates of the same layout and workload, and the
  estimates' error against them;
- `report`: the `performance` of a rendering (JSON) and the per-model GPU comparison.

Measured beats estimated: where a measured point exists for the selection it is shown first,
as measured, each figure with its source; an estimate is labelled an estimate every time.
"""

from __future__ import annotations

from .estimates import (
    DEFAULT_WORKLOAD,
    Cell,
    Estimates,
    Measured,
    Point,
    Source,
    balanced_point,
    cell_for,
    cells_for,
    default_workload,
    estimate_line,
)
from .measured import error_line, estimate_errors
from .profiles import Pick, pick, profile_reason
from .report import gpu_comparison, performance_json

__all__ = ["DEFAULT_WORKLOAD", "Cell", "Estimates", "Measured", "Pick", "Point", "Source",
           "balanced_point", "cell_for", "cells_for", "default_workload", "error_line",
           "estimate_errors", "estimate_line", "gpu_comparison", "performance_json", "pick",
           "profile_reason"]
