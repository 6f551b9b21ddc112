"""The base class of the package's ``evaluate`` modules: a whole batch given to ``compute`` skips Arrow.

``evaluate.Metric.compute(predictions=..., references=...)`` writes the inputs to an Arrow table
(encoding every nested value in Python) and reads them back before ``_compute`` sees them; for
graphs given as edge dicts that round trip costs twice the scoring itself. ``BatchMetric`` hands a
batch given in one ``compute`` call on one process straight to ``_compute``, with evaluate's own
input checks (every input present, as many references as predictions) and its seeding.
Incremental use (``add``/``add_batch`` then ``compute()``) and distributed evaluation
(``num_process > 1``) take evaluate's own path, unchanged. An empty batch is a ``ValueError``
(every module's rule, :mod:`causal_datasets.scoring.inputs`).
"""

from __future__ import annotations

from typing import Any

import evaluate
from datasets.utils.py_utils import temp_seed


class BatchMetric(evaluate.Metric):
    """An ``evaluate.Metric`` whose one-call ``compute`` goes straight to ``_compute``."""

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict | None:
        # evaluate appends each module's inputs description to this docstring
        """The module's results for ``predictions`` and ``references`` (and its options as keywords)."""
        names = list(self._feature_names())
        given = {"predictions": predictions, "references": references, **kwargs}
        pending = self.writer is not None or self.buf_writer is not None
        if pending or self.num_process > 1 or predictions is None or references is None:
            return super().compute(predictions=predictions, references=references, **kwargs)
        missing = [name for name in names if name not in given]
        if missing:
            raise ValueError(f"Evaluation module inputs are missing: {missing}. All required inputs are {names}")
        inputs = {name: _as_list(given[name], name) for name in names}
        lengths = {name: len(values) for name, values in inputs.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"Mismatch in the number of inputs: {lengths}")
        if not any(lengths.values()):
            raise ValueError("empty batch: predictions and references hold no item; nothing to score")
        options = {key: value for key, value in kwargs.items() if key not in names}
        with temp_seed(self.seed):
            return self._compute(**inputs, **options)


def _as_list(values: Any, name: str) -> list:
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__len__"):
        raise ValueError(f"{name} must be a list with one entry per item, not {type(values).__name__}")
    return list(values)
