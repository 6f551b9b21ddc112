"""A CausaLab run's metrics: the means over episodes of success and every mechanism score, outcome
counts, budget use and consistency (overall and split by success), the regime; overall, per number of
nodes, per suite and per step."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from statistics import fmean
from typing import Any, Literal, get_args

from pydantic import Field

from causal_datasets.causalab.episode import Outcome as EpisodeOutcome
from causal_datasets.causalab.metrics import aggregate as mechanism_means
from causal_datasets.causalab.scores import Episode, budget_share
from causal_datasets.runners.records import BenchmarkMetrics, Slices
from causal_datasets.runners.task import TaskContext

#: the per-step scores the trajectory slice averages
TRAJECTORY_FIELDS = ("edge_f1", "shd", "freq_edge_f1", "coefficient_f1", "root_f1")


class CausaLabMetrics(BenchmarkMetrics):
    benchmark: Literal["causalab"] = "causalab"
    count: int = Field(title="episodes")
    regime: str | None = Field(
        default=None,
        title="regime",
        description=("observation-only (no intervention), intervention-only (no prior record), mixed, or several"),
    )
    prior_observations: float | None = Field(default=None, title="prior observations", description="mean per episode")
    budget: float | None = Field(default=None, title="intervention budget", description="mean per episode")
    task_accuracy: float | None = Field(default=None, title="task accuracy")
    edge_precision: float | None = Field(default=None, title="edge precision")
    edge_recall: float | None = Field(default=None, title="edge recall")
    edge_f1: float | None = Field(default=None, title="edge F1")
    shd: float | None = Field(default=None, title="SHD")
    freq_edge_f1: float | None = Field(default=None, title="frequency-edge F1")
    coefficient_f1: float | None = Field(default=None, title="coefficient F1")
    root_f1: float | None = Field(default=None, title="root-node F1")
    formula_hit: float | None = Field(default=None, title="formula hit")
    budget_used: float | None = Field(default=None, title="budget used", description="mean share of the budget spent")
    invalid_steps: float | None = Field(default=None, title="invalid steps per episode")
    reasks: float | None = Field(
        default=None, title="re-asks per episode", description="unreadable replies asked again"
    )
    consistent: float | None = Field(
        default=None,
        title="consistent with own data",
        description=(
            "share of episodes whose final frequency equation is within the tolerance of every record the agent saw"
        ),
    )
    outcomes: dict[str, int] = Field(default_factory=dict, title="outcomes")
    budget_used_by_success: dict[str, float | None] | None = Field(default=None, title="budget used by success")
    consistent_by_success: dict[str, float | None] | None = Field(
        default=None, title="consistent with own data by success"
    )


def summarize(results: list[Episode], context: TaskContext | None = None) -> tuple[CausaLabMetrics, Slices]:
    """Aggregate scores, outcome counts, budget use and consistency (overall and split by success),
    the regime; overall and per number of nodes and per suite."""
    metrics: dict[str, Any] = aggregate(results)
    counts = Counter(r.generation.outcome for r in results)
    metrics["outcomes"] = {outcome: counts[outcome] for outcome in get_args(EpisodeOutcome)}  # zeros shown, not missing
    if results:
        regimes = {r.scores.regime for r in results}
        metrics |= {
            "regime": regimes.pop() if len(regimes) == 1 else "several",
            "prior_observations": fmean(r.scores.prior_observations for r in results),
            "budget": fmean(r.scores.budget for r in results),
            "budget_used": _budget_used(results),
            "invalid_steps": fmean(r.scores.invalid_steps for r in results),
            "reasks": fmean(r.scores.reasks for r in results),
            "consistent": fmean(float(r.scores.consistency.consistent) for r in results),
        }
        by_success = {
            "solved": [r for r in results if r.scores.success],
            "failed": [r for r in results if not r.scores.success],
        }
        metrics["budget_used_by_success"] = {key: _budget_used(group) for key, group in by_success.items()}
        metrics["consistent_by_success"] = {
            key: fmean(float(r.scores.consistency.consistent) for r in group) if group else None
            for key, group in by_success.items()
        }
    slices = {
        "by_num_nodes": _by(results, lambda r: str(r.scores.num_nodes)),
        "by_suite": _by(results, lambda r: r.scores.suite),
        "by_step": by_step(results),
    }
    return CausaLabMetrics(**metrics), slices


def aggregate(results: Sequence[Episode]) -> dict[str, Any]:
    """``count``, and the means over episodes of ``task_accuracy`` (from ``success``) and every mechanism score."""
    return mechanism_means({"success": r.scores.success, "scores": r.scores.mechanism.to_dict()} for r in results)


def _budget_used(results: Sequence[Episode]) -> float | None:
    """Mean share of the budget an episode used (episodes with no budget have none to use)."""
    shares = [share for r in results if (share := budget_share(r.scores)) is not None]
    return fmean(shares) if shares else None


def by_step(results: Sequence[Episode]) -> dict[str, dict[str, Any]]:
    """Mean mechanism scores of the hypotheses stated at step 1, 2, … (an episode that has ended keeps
    its last hypothesis), and how many episodes were still going at each step."""
    trajectories = [r.scores.trajectory for r in results if r.scores.trajectory]
    longest = max((len(t) for t in trajectories), default=0)
    steps: dict[str, dict[str, Any]] = {}
    for index in range(longest):
        at = [t[min(index, len(t) - 1)] for t in trajectories]
        steps[str(index + 1)] = {
            "running": sum(len(t) > index for t in trajectories),
            **{name: fmean(float(getattr(s, name)) for s in at) for name in TRAJECTORY_FIELDS},
        }
    return steps


def _by(results: Sequence[Episode], key: Callable[[Episode], str]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Episode]] = {}
    for result in results:
        groups.setdefault(key(result), []).append(result)
    return {name: aggregate(group) for name, group in sorted(groups.items())}
