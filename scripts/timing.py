"""Timing for the benchmark scripts (run as ``python scripts/<name>.py``, so importable as ``timing``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def best_of(function: Callable[[], T], repeats: int = 5) -> tuple[float, T]:
    """The fastest of ``repeats`` wall-clock runs of ``function`` (seconds) and its last result."""
    best, result = float("inf"), None
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result
