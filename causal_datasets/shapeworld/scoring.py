"""ShapeWorld metrics: accuracy overall and on yes / no cases, mean steps, error counts.

An episode without a valid answer (invalid format, too many attempts, invalid answer, LLM
failure) counts as wrong. ``mean_steps`` is the paper's efficiency figure: actions taken before a
final judgment, averaged over the episodes that gave one. ``errors`` counts episodes ending in
each mode, except ``invalid_action``, which counts every rejected action (an episode goes on after
one). ``failure_patterns`` counts wrong answers by the paper's failure patterns (see
:mod:`causal_datasets.shapeworld.failures`) and ``failure_pattern_shares`` gives each as a share of
the wrong answers (the paper's Table 2). ``accuracy_se`` is the standard error of accuracy over
initial setups (the paper's Fig. 2 error bars): the sample standard deviation of the per-setup
accuracies over the square root of their number, a setup being one graph with one set of shapes
moving at the start. Everything is reported overall, per structure and per number of variables;
``by_num_variables_all_moving`` keeps only the episodes that start with every shape moving, the
comparison of the core and the advanced set (Fig. 3).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from causal_datasets.shapeworld.episode import ERROR_MODES
from causal_datasets.shapeworld.failures import FAILURE_PATTERNS


@dataclass(frozen=True)
class Scored:
    """The fields of one episode the metric reads."""

    gold: str
    prediction: str | None
    structure: str
    num_variables: int
    steps: int
    error: str | None
    invalid_actions: int
    failure_pattern: str | None
    setup: str | None = None
    all_moving: bool | None = None

    @classmethod
    def from_item(cls, item: Mapping[str, Any], index: int = 0) -> Scored:
        """The fields the metric reads; ``ValueError`` naming the episode when one is missing or not a number."""
        try:
            return cls(
                gold=item["gold"],
                prediction=item.get("prediction") or None,
                structure=item["structure"],
                num_variables=int(item["num_variables"]),
                steps=int(item.get("steps", 0)),
                error=item.get("error") or None,
                invalid_actions=int(item.get("invalid_actions", 0)),
                failure_pattern=item.get("failure_pattern") or None,
                setup=item.get("setup") or None,
                all_moving=bool(item["all_moving"]) if item.get("all_moving") is not None else None,
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"episode {index}: {type(error).__name__}: {error}") from None


def score_episodes(items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Metrics of finished episodes (``results.jsonl`` items or equivalent dicts)."""
    episodes = [Scored.from_item(item, index) for index, item in enumerate(items)]
    unknown = {e.error for e in episodes} - {None, *ERROR_MODES}
    if unknown:
        raise ValueError(f"unknown error modes {sorted(unknown)}; known: {list(ERROR_MODES)}")
    all_moving = [e for e in episodes if e.all_moving]
    return {
        **_group(episodes),
        "by_structure": {s: _group([e for e in episodes if e.structure == s]) for s in _ordered(e.structure for e in episodes)},
        "by_num_variables": _by_size(episodes),
        "by_num_variables_all_moving": _by_size(all_moving),
    }


def _by_size(episodes: Sequence[Scored]) -> dict[str, dict[str, Any]]:
    return {str(n): _group([e for e in episodes if e.num_variables == n]) for n in sorted({e.num_variables for e in episodes})}


def _group(episodes: Sequence[Scored]) -> dict[str, Any]:
    true_cases = [e for e in episodes if e.gold == "yes"]
    false_cases = [e for e in episodes if e.gold == "no"]
    answered = [e for e in episodes if e.prediction is not None]
    errors = {mode: sum(e.error == mode for e in episodes) for mode in ERROR_MODES}
    errors["invalid_action"] = sum(e.invalid_actions for e in episodes)
    patterns = {p: sum(e.failure_pattern == p for e in episodes) for p in FAILURE_PATTERNS}
    failed = sum(patterns.values())
    return {
        "episodes": len(episodes),
        "accuracy": _accuracy(episodes),
        "accuracy_se": _setup_se(episodes),
        "setups": len({e.setup for e in episodes if e.setup is not None}),
        "accuracy_true": _accuracy(true_cases),
        "accuracy_false": _accuracy(false_cases),
        "true_cases": len(true_cases),
        "false_cases": len(false_cases),
        "answered": len(answered),
        "predicted_yes": sum(e.prediction == "yes" for e in answered),
        "mean_steps": round(statistics.fmean(e.steps for e in answered), 4) if answered else None,
        "errors": errors,
        "error_total": sum(errors.values()),
        "failure_patterns": patterns,
        "failure_pattern_shares": {p: round(count / failed, 4) if failed else None for p, count in patterns.items()},
    }


def _setup_se(episodes: Sequence[Scored]) -> float | None:
    """Standard error of accuracy over initial setups (None with fewer than two, or unknown setups)."""
    by_setup: dict[str, list[Scored]] = {}
    for episode in episodes:
        if episode.setup is None:
            return None
        by_setup.setdefault(episode.setup, []).append(episode)
    if len(by_setup) < 2:
        return None
    accuracies = [sum(e.prediction == e.gold for e in group) / len(group) for group in by_setup.values()]
    return round(statistics.stdev(accuracies) / math.sqrt(len(accuracies)), 4)


def _accuracy(episodes: Sequence[Scored]) -> float | None:
    if not episodes:
        return None
    return round(sum(e.prediction == e.gold for e in episodes) / len(episodes), 4)


def _ordered(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))
