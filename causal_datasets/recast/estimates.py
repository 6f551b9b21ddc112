"""The estimates of a ReCAST run: the analyses' groups of a sample and the per-paper estimators.

A paper is one sample in the release; the means over the samples with a prediction (or a judge
score) are ratios: which samples have one depends on the model's answers.
"""

from __future__ import annotations

from collections.abc import Callable

from causal_datasets.recast import analysis
from causal_datasets.recast.deterministic import FIELDS, MATCHINGS
from causal_datasets.recast.judge.evaluate import SCORE_NAMES
from causal_datasets.recast.options import RecastOptions
from causal_datasets.recast.records import RecastSample
from causal_datasets.recast.scores import RecastScores, usable
from causal_datasets.runners.task import Estimates, Item, TaskContext
from causal_datasets.uncertainty import Mean, Statistic, ratio


def groups(item: Item, context: TaskContext) -> dict[str, str | list[str] | None]:
    """The analyses' groups of a sample (bins and quartile thresholds from the whole dataset, as ``summarize``);
    Table 4's quartile differences have no groups of their own."""
    sample: RecastSample = item.row
    options: RecastOptions = context.options
    dataset = context.rows("default", RecastSample)
    found: dict[str, str | list[str] | None] = {
        "by_domain": analysis.other_domains(sample),
        "by_num_domains": analysis.domain_count_group(sample),
        "by_knowledge_cutoff": analysis.cutoff_group(sample, options.knowledge_cutoff),
    }
    for name, attribute, count in (
        ("by_confounding", "confounding_lenient", options.confounding_bins),
        ("by_confounding_strict", "confounding_strict", options.strict_confounding_bins),
    ):
        value, bins = getattr(sample, attribute), analysis.confounding_bins(dataset, attribute, count)
        found[name] = analysis.bin_of(value, bins).label if value is not None and bins else None
    return found


def _over_scored(name: str, value: Callable[[RecastScores], float | None]) -> Statistic:
    """``name``: the mean of ``value`` over the samples that have one (a ratio: which do depends on the answers)."""

    def present(scores: RecastScores) -> float:
        return float(value(scores) is not None)

    return ratio(name, lambda scores: value(scores) or 0.0, present)


def _deterministic(matching: str, name: str) -> Callable[[RecastScores], float | None]:
    return lambda scores: scores.deterministic[matching][name] if scores.deterministic is not None else None


def _judged(name: str) -> Callable[[RecastScores], float | None]:
    def value(scores: RecastScores) -> float | None:
        return ((scores.judge or {}).get("scores") or {}).get(name) if scores.deterministic is not None else None

    return value


ESTIMATES = Estimates(
    unit="paper",
    cluster=lambda item: item.row.url,
    groups=groups,
    estimators=(
        Mean("scored_share", usable),
        *(
            _over_scored(f"deterministic.{matching}.{name}", _deterministic(matching, name))
            for matching in MATCHINGS
            for name in FIELDS
        ),
        *(_over_scored(f"judge.{name}", _judged(name)) for name in SCORE_NAMES),
        _over_scored("edge_f1_normalized", _deterministic("normalized", "edge_f1")),
        _over_scored("judge_f1", _judged("f1")),
    ),
)
