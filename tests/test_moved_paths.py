"""A benchmark's old runner path (``causal_datasets.runners.<x>``, split by concern into ``causal_datasets/<x>/``) still
gives every name it had, the same objects, with a DeprecationWarning until 0.4.0 (the one-to-one moves:
tests/docalc/test_docalc_printers.py)."""

from __future__ import annotations

import importlib
import sys

import pytest

from causal_datasets import _moved


def _own_names(part: str) -> list[str]:
    """Public classes and functions defined in ``part`` itself (not imported into it)."""
    module = importlib.import_module(part)
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == part and callable(value)
    ]


@pytest.mark.parametrize("old", sorted(_moved.SPLIT))
def test_a_split_runner_path_warns_and_gives_each_name_from_its_part(old, monkeypatch):
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match="split by concern.*stops working in 0.4.0"):
        module = importlib.import_module(old)
    benchmark = old.rsplit(".", 1)[1]
    assert module.TASK is importlib.import_module(f"causal_datasets.{benchmark}.task").TASK
    checked = 0
    for part in _moved.SPLIT[old]:
        for name in _own_names(part):
            assert getattr(module, name) is getattr(importlib.import_module(part), name), (part, name)
            checked += 1
    assert checked >= len(_moved.SPLIT[old])  # every part gave at least one name on average
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'.*its parts"):
        module.no_such_name  # noqa: B018


def test_the_old_entry_point_spelling_still_loads_the_task(monkeypatch):
    """``causal_datasets.runners.cladder_pairs:TASK`` was the entry point until the move."""
    monkeypatch.delitem(sys.modules, "causal_datasets.runners.cladder_pairs", raising=False)
    with pytest.warns(DeprecationWarning):
        from causal_datasets.runners.cladder_pairs import TASK, CladderMetrics, read_reply  # noqa: F401
    assert TASK.name == "cladder_pairs" and CladderMetrics.__module__ == "causal_datasets.cladder_pairs.metrics"
