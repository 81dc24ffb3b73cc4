"""The parallel layouts the builder can produce for a selection: the cells a performance
estimate is made for (`make estimates`), looked up by (the staleness test) and chosen among
(a workload profile).

For a resolved single-node selection with `gpus` GPUs:

- the plain Tensor Parallel strategy (the one the fit rule sizes): every tensor-parallel size
  `tp` that divides `gpus`, is a size vLLM accepts for the model (`sizing.valid_tp`) and holds
  the weights and a sequence at that size (the fit rule, `commands.fit.fit_plan`), the GPUs
  beyond one group serving as `gpus // tp` data-parallel replicas; a recipe without memory
  facts has only the layout its command renders;
- any other single-node strategy (TEP, DEP, DP attention + TP): the one layout its command
  renders (its parallel flag and the GPU count);
- multi-node, prefill/decode, KV-store and vLLM-Omni strategies: none (no estimate).

Expert parallelism: a MoE model whose command turns on `--enable-expert-parallel` spreads its
experts over every GPU (`ep = tp x dp`); otherwise `ep = 1` and the experts are split by tensor
parallelism over the same GPUs (vLLM's layout: `moe_tp = tp x dp / ep`). Pipeline parallelism
is never produced on one node (`pp = 1`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..commands.compose import sizing_args
from ..commands.deploy_types import context, deploy_type
from ..commands.fit import fit_plan
from ..commands.single_node import engine_args
from ..commands.summary import parallel_sizes
from ..sizing import valid_tp
from ..types import Data

__all__ = ["EXPERT_PARALLEL", "Layout", "candidate_layouts", "default_layout"]

EXPERT_PARALLEL = "--enable-expert-parallel"


@dataclass(frozen=True)
class Layout:
    gpus: int
    tp: int
    pp: int
    dp: int
    ep: int

    @property
    def moe_tp(self) -> int:
        """The tensor-parallel split of a MoE model's experts (the GPUs not used for expert
        parallelism)."""
        return self.gpus // self.ep

    @property
    def label(self) -> str:
        """"TP4 × DP2 + EP8", "TP1"."""
        text = f"TP{self.tp}"
        if self.pp > 1:
            text += f" × PP{self.pp}"
        if self.dp > 1:
            text += f" × DP{self.dp}"
        if self.ep > 1:
            text += f" + EP{self.ep}"
        return text


def _layout(tp: int, dp: int, pp: int, expert_parallel: bool) -> Layout:
    gpus = tp * dp * pp
    return Layout(gpus=gpus, tp=tp, pp=pp, dp=dp, ep=tp * dp if expert_parallel else 1)


def default_layout(catalog: Data, recipe: Data, selection: Mapping[str, str]) -> Layout | None:
    """The layout the command of a resolved `selection` renders (None for strategies that
    are not single-node, see the module docstring)."""
    strategy = catalog["strategies"][selection["strategy"]]
    deploy = deploy_type(strategy)
    if not deploy.one_node or deploy.omni:
        return None
    argv = engine_args(context(catalog, recipe, selection)).tokens()
    sizes = parallel_sizes(argv)
    return _layout(sizes["TP"], sizes["DP"], sizes["PP"], _expert_parallel(recipe, argv))


def candidate_layouts(catalog: Data, recipe: Data, selection: Mapping[str, str]
                      ) -> tuple[Layout, ...]:
    """The layouts of the resolved `selection`'s GPU count the builder can produce (see the
    module docstring): the rendered one first, then the others by tensor-parallel size,
    largest first."""
    rendered = default_layout(catalog, recipe, selection)
    if rendered is None:
        return ()
    ctx = context(catalog, recipe, selection)
    facts = recipe.get("facts")
    if not ctx.auto_fit or not facts or rendered.pp > 1:
        return (rendered,)
    args = sizing_args(ctx)
    expert_parallel = _expert_parallel(recipe, args.tokens())
    hw = ctx.hw
    gpus = rendered.gpus
    found = [rendered]
    for tp in range(gpus, 0, -1):
        if gpus % tp or tp == rendered.tp or not valid_tp(facts["config"], tp):
            continue
        if fit_plan(recipe, selection["variant"], hw, args, tp, tp) is not None:
            found.append(_layout(tp, gpus // tp, 1, expert_parallel))
    return tuple(found)


def _expert_parallel(recipe: Data, argv: list[str]) -> bool:
    return recipe["model"]["architecture"] == "moe" and EXPERT_PARALLEL in argv
