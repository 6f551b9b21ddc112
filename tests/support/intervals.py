"""Checks shared by the tests of the summaries' intervals."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

from causal_datasets.runners.estimates import flatten
from causal_datasets.runners.records import RunSummary
from causal_datasets.uncertainty import ITEM


def assert_intervals(
    summary: RunSummary, unit: str, headline: Iterable[str], slices: Mapping[str, Iterable[str]]
) -> int:
    """Every number of ``headline`` and every number of ``slices[name]`` in every entry of that slice (where the
    entry holds it) has an interval naming its method and unit; every interval's estimate is the summary's
    number at its place. Returns how many intervals were checked."""
    intervals = summary.intervals
    assert intervals is not None and intervals.unit == unit
    metrics = flatten(summary.metrics.model_dump())
    for name in headline:
        assert name in intervals.metrics, name
    checked = 0
    for name, interval in intervals.metrics.items():
        assert interval.estimate == pytest.approx(metrics[name], abs=1e-4), name  # summaries may round to 4 places
        assert interval.method and interval.cluster in (unit, ITEM), name
        checked += 1
    for slice_name, numbers in slices.items():
        entries = summary.slices[slice_name]
        assert entries and slice_name in intervals.slices, slice_name
        for key, entry in entries.items():
            flat = flatten(entry)
            for number in numbers:
                if isinstance(flat.get(number), (int, float)):
                    assert number in intervals.slices[slice_name][key], (slice_name, key, number)
    for slice_name, entries in intervals.slices.items():
        for key, found in entries.items():
            flat = flatten(summary.slices[slice_name][key])
            for number, interval in found.items():
                assert interval.estimate == pytest.approx(flat[number], abs=1e-4), (slice_name, key, number)
                if interval.ci_low is not None:
                    assert interval.ci_low <= interval.ci_high
                checked += 1
    return checked
