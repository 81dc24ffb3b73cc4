"""Estimates: how fast a selection serves, from the estimates and measured points a recipe
holds as data (pure standard library, typed facts in, figures and sentences out; below the
commands, which use it: `builder/performance/` holds the layouts the estimates are made for).

- `estimates`: the shapes of a model's estimates (`recipes/performance/<org>/<repo>.json`) and
  of measured points; the cell of a layout, the balanced point, the summary line;
- `profiles`: the `profile` key: what a latency or throughput profile picks among the
  estimated layouts, and why it is unavailable where no estimate covers the selection;
- `measured`: measured points beside the estimate of the same layout and workload, and the
  estimates' error against them;
- `report`: the `performance` of a rendering and the per-model GPU comparison.
"""
