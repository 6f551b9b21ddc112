"""ShapeWorld metrics: accuracy overall and on yes / no cases, mean steps, error counts.

An episode without a valid answer (invalid format, too many attempts, invalid answer, LLM
failure; any prediction other than "yes"/"no") counts as wrong and as ``unparsable``. ``mean_steps`` is
the paper's efficiency figure: actions taken before a final judgment, averaged over the episodes that gave
one. ``errors`` counts episodes ending in
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

from causal_datasets.scoring.inputs import batch_size, class_label
from causal_datasets.shapeworld.episode import ERROR_MODES
from causal_datasets.shapeworld.failures import FAILURE_PATTERNS
from causal_datasets.shapeworld.records import ShapeWorldTask

ANSWER_NAMES = ("yes", "no")
#: the class labels of the dataset's columns the metric reads (names, or integers as loaded)
_LABELS = {name: ShapeWorldTask.features()[name] for name in ("answer", "structure")}


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
                prediction=item.get("prediction") if item.get("prediction") in ANSWER_NAMES else None,
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
    unknown = {e.error for e in episodes if e.error is not None} - set(ERROR_MODES)
    if unknown:
        raise ValueError(f"unknown error modes {sorted(unknown)}; known: {list(ERROR_MODES)}")
    all_moving = [e for e in episodes if e.all_moving]
    return {
        **_group(episodes),
        "by_structure": {
            s: _group([e for e in episodes if e.structure == s]) for s in _ordered(e.structure for e in episodes)
        },
        "by_num_variables": _by_size(episodes),
        "by_num_variables_all_moving": _by_size(all_moving),
    }


#: the metric's optional per-episode columns: argument → (item field, default)
METRIC_COLUMNS = {
    "structures": ("structure", "unspecified"),
    "num_variables": ("num_variables", 0),
    "steps": ("steps", 0),
    "errors": ("error", None),
    "invalid_actions": ("invalid_actions", 0),
    "failure_patterns": ("failure_pattern", None),
    "setups": ("setup", None),
    "all_moving": ("all_moving", None),
}
_COUNTS = ("num_variables", "steps", "invalid_actions")


def score_predictions(
    predictions: Sequence[Any], references: Sequence[Any], **columns: Sequence[Any] | None
) -> dict[str, Any]:
    """The ``shapeworld_accuracy`` metric: :func:`score_episodes` of answers against gold labels.

    ``references`` and ``structures`` are labels given by name or by the integer a loaded
    ``shapeworld`` dataset holds. A prediction other than "yes" or "no" (an empty or unreadable
    answer) is wrong and counted in ``unparsable`` (as in :func:`score_episodes`). A gold label outside
    yes/no, a column of another length or a bad value in one, and an empty batch are a ``ValueError``
    (``TypeError`` for a wrong type) naming the argument and the episode; an empty column is the same as
    leaving it out."""
    unknown = set(columns) - set(METRIC_COLUMNS)
    if unknown:
        raise TypeError(f"unknown argument(s) {sorted(unknown)}; the columns are {list(METRIC_COLUMNS)}")
    given = {name: list(values) for name, values in columns.items() if values is not None and len(values)}
    batch_size(predictions, references, **given)
    items = []
    for index, (prediction, gold) in enumerate(zip(predictions, references, strict=True)):
        item = {"gold": class_label(gold, _LABELS["answer"], f"references[{index}]"), "prediction": prediction}
        for argument, (name, default) in METRIC_COLUMNS.items():
            item[name] = _column_value(argument, given[argument][index], index) if argument in given else default
        items.append(item)
    return score_episodes(items)


def _column_value(argument: str, value: Any, index: int) -> Any:
    where = f"{argument}[{index}]"
    if argument == "structures":
        return class_label(value, _LABELS["structure"], where)
    if argument in _COUNTS:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{where} must be an integer count, not {type(value).__name__} {value!r:.40}")
        if value < 0:
            raise ValueError(f"{where} must be a count ≥ 0, not {value}")
        return value
    if argument == "errors" and value not in (None, "", *ERROR_MODES):
        raise ValueError(f"{where}: unknown error mode {value!r:.40}; known: {list(ERROR_MODES)}")
    if argument == "all_moving" and value is not None and not isinstance(value, bool):
        raise TypeError(f"{where} must be True, False or None, not {value!r:.40}")
    if argument in ("failure_patterns", "setups") and value is not None and not isinstance(value, str):
        raise TypeError(f"{where} must be a string or None, not {type(value).__name__}")
    return value


def _by_size(episodes: Sequence[Scored]) -> dict[str, dict[str, Any]]:
    return {
        str(n): _group([e for e in episodes if e.num_variables == n])
        for n in sorted({e.num_variables for e in episodes})
    }


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
        "unparsable": len(episodes) - len(answered),
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
