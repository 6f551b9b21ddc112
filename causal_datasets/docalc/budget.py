"""A time budget for one verdict or identification: past it the answer is "undecided", never a hang.

:func:`within` opens a budget of some seconds (wall clock) for the code it wraps (nested budgets keep the
earliest end); the costly steps of the verifier call :func:`charge` before they start — drawing model
tables, each variable-elimination step, the latent-value bounds, each assignment the interpreter
evaluates — with the number of table entries they will touch, and :class:`OutOfTime` is raised when the
step would end past the budget at :data:`SECONDS_PER_ENTRY` (or has already passed it). The estimate is
conservative for numpy's loops, so a call returns within a small fraction of its budget after it
expires: no single step is allowed to start that would overrun it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: the budget of the command line's ``equiv`` and ``identify`` and of the rewards: sized for a training step
DEFAULT_TIME_LIMIT = 1.0
#: estimated seconds per table entry a step touches (numpy draws and einsum take 1-50 ns on a loaded core)
SECONDS_PER_ENTRY = 5e-8

#: the end of the innermost open budget (``time.perf_counter`` seconds) and its length, or None
_ACTIVE: ContextVar[tuple[float, float] | None] = ContextVar("docalc budget", default=None)


class OutOfTime(RuntimeError):
    """The budget of the call ran out (or the next step would overrun it)."""


@contextmanager
def within(seconds: float | None) -> Iterator[None]:
    """Run the wrapped code with a budget of ``seconds`` (None: no budget of its own; an enclosing
    budget still applies). Raises ``ValueError`` for a budget that is not positive."""
    if seconds is None:
        yield
        return
    if not seconds > 0:
        raise ValueError(f"time_limit must be positive seconds or None, got {seconds}")
    outer = _ACTIVE.get()
    end = time.perf_counter() + seconds
    token = _ACTIVE.set((end, seconds) if outer is None or end < outer[0] else outer)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def charge(what: str, entries: int = 0) -> None:
    """Raise :class:`OutOfTime` if the open budget has ended, or would end before a step touching
    ``entries`` table entries (``what``, for the reason) could finish."""
    active = _ACTIVE.get()
    if active is None:
        return
    end, seconds = active
    left = end - time.perf_counter()
    if left <= 0 or entries * SECONDS_PER_ENTRY > left:
        estimate = f" (about {entries:,} table entries)" if entries else ""
        raise OutOfTime(f"time limit of {seconds:g} s reached before {what}{estimate}")


def remaining() -> float | None:
    """Seconds left in the open budget (None: no budget)."""
    active = _ACTIVE.get()
    return None if active is None else max(0.0, active[0] - time.perf_counter())
