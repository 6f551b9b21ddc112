"""What every metric does with its inputs, before anything is scored: one rule, in one place.

* ``predictions`` are model output. Whatever one holds, it is scored: a prediction the metric cannot
  read (missing, None, the wrong type, text that does not parse) gets the worst score of its item
  and is counted as ``unparsable`` beside the score. It never leaves the denominator, so junk never
  scores better than an honest empty answer.
* ``references`` and every other per-item column (structures, successes, ...) are the caller's
  data: a missing or mistyped field, a class label outside its label set, columns of different
  lengths — each is a ``ValueError`` (``TypeError`` for a value of the wrong type) naming the
  argument and the item index, e.g. ``references[3]``. An empty batch is a ``ValueError``.
* Class labels are accepted as their names or as the integers a loaded dataset holds.
* Options are checked against their ranges; a bad one is a ``ValueError`` naming the option.

``docs/FAILURES.md`` states the rule and each metric's card says what its worst score is.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # `import causal_datasets` stays light: equiv's start-up must not load datasets
    import datasets


def batch_size(predictions: Sequence[Any], references: Sequence[Any], **columns: Sequence[Any] | None) -> int:
    """The number of items: ``ValueError`` on an empty batch or a column (None: not given) of another length."""
    count = _length("references", references)
    lengths = {"predictions": _length("predictions", predictions),
               **{name: _length(name, values) for name, values in columns.items() if values is not None}}
    if count == 0 and lengths["predictions"] == 0:
        raise ValueError("empty batch: predictions and references hold no item; nothing to score")
    differing = {name: length for name, length in lengths.items() if length != count}
    if differing:
        shown = ", ".join(f"{length} {name}" for name, length in differing.items())
        raise ValueError(f"{count} references but {shown}: every column needs one entry per item")
    return count


def _length(name: str, values: Any) -> int:
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__len__"):
        raise TypeError(f"{name} must be a list with one entry per item, not {type(values).__name__}")
    return len(values)


def class_label(value: Any, names: datasets.ClassLabel | Sequence[str], where: str) -> str:
    """A label given by name or by the integer a loaded dataset holds, as its name.

    ``ValueError`` naming ``where`` (e.g. ``references[2]``) for a name or integer outside the label
    set, ``TypeError`` for a value that is neither."""
    names = list(getattr(names, "names", names))  # a datasets.ClassLabel keeps its names there
    if isinstance(value, str):
        if value not in names:
            raise ValueError(f"{where}: {value!r} is not one of the labels {names}")
        return value
    if isinstance(value, Integral) and not isinstance(value, bool):
        if not 0 <= int(value) < len(names):
            raise ValueError(f"{where}: class label {value} is outside 0..{len(names) - 1} ({names})")
        return names[int(value)]
    raise TypeError(f"{where}: a label must be one of {names} or its index, not {type(value).__name__} {value!r:.60}")


def number_option(name: str, value: Any, low: float, high: float = math.inf, *, integer: bool = False) -> Any:
    """``value`` when it is a number (an integer if ``integer``) within ``[low, high]``; ``ValueError`` otherwise."""
    kind = Integral if integer else Real
    if not isinstance(value, kind) or isinstance(value, bool) or not low <= cast(float, value) <= high:  # NaN fails
        span = f"≥ {low}" if high == math.inf else f"within {low}..{high}"
        raise ValueError(f"{name} must be {'an integer' if integer else 'a number'} {span}, got {value!r}")
    return value


def choice_option(name: str, value: Any, choices: Iterable[Any]) -> Any:
    """``value`` when it is one of ``choices``; ``ValueError`` listing them otherwise."""
    choices = list(choices)
    if not any(value == choice and type(value) is type(choice) for choice in choices):
        raise ValueError(f"unknown {name} {value!r}; choose one of {choices}")
    return value
