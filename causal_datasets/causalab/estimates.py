"""The uncertainty of a CausaLab run's metrics: episodes cluster by released graph config, and the
estimators of the metrics that are not plain means of ``item_scores`` (budget use, re-asks, consistency,
and those split by success)."""

from __future__ import annotations

from collections.abc import Callable

from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.causalab.scores import CausaLabScores, budget_share
from causal_datasets.runners.task import Estimates, Item, TaskContext
from causal_datasets.uncertainty import Mean, Statistic, ratio


def groups(item: Item, context: TaskContext) -> dict[str, str]:
    """The slices an item belongs to: its number of nodes and its suite."""
    episode: CausaLabEpisode = item.row
    return {"by_num_nodes": str(len(episode.nodes)), "by_suite": episode.suite}


def _consistent(scores: CausaLabScores) -> float:
    return float(scores.consistency.consistent)


def _by_success(name: str, value: Callable[[CausaLabScores], float | None]) -> tuple[Statistic, ...]:
    """``name.solved`` and ``name.failed``: the mean of ``value`` over the solved and the failed episodes with one."""

    def counted(solved: bool) -> Callable[[CausaLabScores], float]:
        return lambda s: float(s.success == solved and value(s) is not None)

    def summed(solved: bool) -> Callable[[CausaLabScores], float]:
        return lambda s: counted(solved)(s) * (value(s) or 0.0)

    return tuple(
        ratio(f"{name}.{key}", summed(solved), counted(solved)) for key, solved in (("solved", True), ("failed", False))
    )


#: the episodes played on one released config (graph): suites of one size share it, and an upstream run
#: folder may hold several runs of it
ESTIMATES = Estimates(
    unit="graph config",
    cluster=lambda item: item.row.graph_id,
    groups=groups,
    estimators=(
        Mean("budget_used", budget_share),
        Mean("invalid_steps", lambda s: s.invalid_steps),
        Mean("reasks", lambda s: s.reasks),
        Mean("consistent", _consistent),
        *_by_success("budget_used_by_success", budget_share),
        *_by_success("consistent_by_success", _consistent),
    ),
)
