"""The estimates of a CoBe run: per-item values clustered by scenario (its phrasings, and with
``--config responses`` every model's answers to them, share it), the slice of each item, and the
statistics resampled for their intervals (accuracy over decided rewrites, the phrasing mean and SD,
E1–E5 failure rates, published accuracy and agreement with the published verdicts)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from causal_datasets.agreement import agreement_estimators
from causal_datasets.cobe.prompts import CRITERION_CODES
from causal_datasets.cobe.records import PHRASINGS
from causal_datasets.cobe.scores import CoBeScores, correct
from causal_datasets.cobe.scoring import NOT_GIVEN
from causal_datasets.runners.task import Estimates, Item, TaskContext
from causal_datasets.uncertainty import Mean, Statistic, ratio


def groups(item: Item, context: TaskContext) -> dict[str, str | None]:
    """The breakdowns of a response: the query's domain, graph type and phrasing, and the model that wrote it."""
    query, published = item.row
    model = published.model if published is not None else context.model_name("model")
    return {
        "by_domain": query.domain or NOT_GIVEN,
        "by_graph_type": query.graph_type or NOT_GIVEN,
        "by_phrasing": query.phrasing,
        "by_model": model,
    }


def _criterion(code: str, outcome: bool | None) -> Callable[[CoBeScores], float]:
    """1 for a response whose criterion ``code`` was judged ``outcome`` (True, False; None: judged at all)."""

    def value(scores: CoBeScores) -> float:
        passed = [c.passed for c in scores.criteria if c.code == code]
        return float(bool(passed) and passed[0] is not None and (outcome is None or passed[0] is outcome))

    return value


def _phrasing_cells(scores: CoBeScores) -> dict[str, float]:
    phrasing = scores.query_id.rsplit("-", 1)[-1]
    return {
        f"{kind}_{p}": float(p == phrasing) * (correct(scores) if kind == "correct" else 1.0)
        for p in PHRASINGS
        for kind in ("correct", "n")
    }


def _phrasing_accuracies(totals: Mapping[str, np.ndarray]) -> np.ndarray:
    """Accuracy per phrasing, stacked on the last axis (NaN for a phrasing without responses)."""
    return np.stack(
        [
            np.where(totals[f"n_{p}"] > 0, totals[f"correct_{p}"] / np.maximum(totals[f"n_{p}"], 1), np.nan)
            for p in PHRASINGS
        ],
        axis=-1,
    )


def _spread_of_phrasings(spread: Callable[..., np.ndarray]) -> Callable[[Mapping[str, np.ndarray]], np.ndarray]:
    """``spread`` (mean, SD) of the per-phrasing accuracies of the totals."""
    return lambda totals: spread(_phrasing_accuracies(totals), axis=-1)


#: the phrasings of one scenario (and, with --config responses, every model's answers to them) share it
ESTIMATES = Estimates(
    unit="scenario",
    cluster=lambda item: item.row[0].scenario_id,
    groups=groups,
    estimators=(
        ratio("accuracy_decided", correct, lambda s: float(s.verdict in ("correct", "wrong"))),
        *(
            Statistic(
                name,
                tuple(f"{kind}_{p}" for p in PHRASINGS for kind in ("correct", "n")),
                _phrasing_cells,
                _spread_of_phrasings(spread),
            )
            for name, spread in (("accuracy_phrasing_mean", np.nanmean), ("accuracy_phrasing_sd", np.nanstd))
        ),
        *(ratio(f"failure_rate.{code}", _criterion(code, False), _criterion(code, None)) for code in CRITERION_CODES),
        Mean(
            "published_accuracy",
            lambda s: float(s.published_verdict == "correct") if s.published_verdict is not None else None,
        ),
        *agreement_estimators("agreement", lambda s: (s.verdict, s.published_verdict)),
    ),
    crossed={"model_accuracy": ("by_model", "accuracy")},
)
