"""Budgets for one verdict or identification: past one the answer is "undecided", never a hang.

:func:`within` opens a budget for the code it wraps: some seconds of wall clock, some table entries of
work, or both (nested budgets keep the earliest end and charge every open work budget). The costly steps
of the verifier call :func:`charge` before they start — drawing model tables, each variable-elimination
step, the latent-value bounds, each assignment the interpreter evaluates — with the number of table
entries they will touch. :class:`OutOfTime` is raised when the step would end past the time budget at
:data:`SECONDS_PER_ENTRY` (or it has already passed), or would take the work past its budget.

A time budget depends on the machine and its load; a work budget does not: the same call charges the
same entries everywhere, so its verdict is the same on any machine. The rewards use a work budget
(:data:`REWARD_WORK_LIMIT`, sized to about :data:`DEFAULT_TIME_LIMIT` of work on a quiet core) with a
wall-clock backstop (:data:`REWARD_TIME_BACKSTOP`) far above it, so a trainer's reward is a function of
its input and still never hangs.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

#: the budget of the command line's ``equiv`` and ``identify``: sized for a training step
DEFAULT_TIME_LIMIT = 1.0
#: estimated seconds per table entry a step touches (numpy draws and einsum take 1-50 ns on a loaded core)
SECONDS_PER_ENTRY = 5e-8
#: the entries any charged step counts at least (its Python overhead), so a loop of small steps is bounded too
STEP_ENTRIES = 1_000
#: the rewards' work budget in table entries: about DEFAULT_TIME_LIMIT at SECONDS_PER_ENTRY
REWARD_WORK_LIMIT = round(DEFAULT_TIME_LIMIT / SECONDS_PER_ENTRY)
#: the rewards' wall-clock backstop in seconds: only a step the work budget does not see can reach it
REWARD_TIME_BACKSTOP = 20.0

#: the end of the innermost open time budget (``time.perf_counter`` seconds) and its length, or None
_ACTIVE: ContextVar[tuple[float, float] | None] = ContextVar("docalc budget", default=None)
#: the open work budgets, innermost last
_WORK: ContextVar[tuple[_Work, ...]] = ContextVar("docalc work budgets", default=())


@dataclass
class _Work:
    """A work budget of ``limit`` table entries, ``spent`` of them charged so far."""

    limit: int
    spent: int = 0


class OutOfTime(RuntimeError):
    """The budget of the call ran out (or the next step would overrun it)."""


@contextmanager
def within(seconds: float | None, *, entries: int | None = None) -> Iterator[None]:
    """Run the wrapped code with a budget of ``seconds`` of wall clock and ``entries`` table entries of
    work (None: no budget of that kind of its own; an enclosing one still applies). Raises ``ValueError``
    for a budget that is not positive."""
    if seconds is not None and not seconds > 0:
        raise ValueError(f"time_limit must be positive seconds or None, got {seconds}")
    if entries is not None and not entries > 0:
        raise ValueError(f"work_limit must be a positive number of table entries or None, got {entries}")
    time_token = None
    if seconds is not None:
        outer = _ACTIVE.get()
        end = time.perf_counter() + seconds
        time_token = _ACTIVE.set((end, seconds) if outer is None or end < outer[0] else outer)
    work_token = None if entries is None else _WORK.set((*_WORK.get(), _Work(entries)))
    try:
        yield
    finally:
        if work_token is not None:
            _WORK.reset(work_token)
        if time_token is not None:
            _ACTIVE.reset(time_token)


def charge(what: str, entries: int = 0) -> None:
    """Raise :class:`OutOfTime` if an open budget has ended, or would end before a step touching
    ``entries`` table entries (``what``, for the reason) could finish; else count the step's work."""
    works, active = _WORK.get(), _ACTIVE.get()
    if not works and active is None:  # the common case, on the verifier's hot path: no budget open
        return
    cost = max(entries, STEP_ENTRIES)
    for work in works:
        if work.spent + cost > work.limit:
            raise OutOfTime(f"work limit of {work.limit:,} table entries reached before {what}{_size(entries)}")
    if active is not None:
        end, seconds = active
        left = end - time.perf_counter()
        if left <= 0 or entries * SECONDS_PER_ENTRY > left:
            raise OutOfTime(f"time limit of {seconds:g} s reached before {what}{_size(entries)}")
    for work in works:
        work.spent += cost


def _size(entries: int) -> str:
    return f" (about {entries:,} table entries)" if entries else ""


def remaining() -> float | None:
    """Seconds left in the open time budget (None: no budget)."""
    active = _ACTIVE.get()
    return None if active is None else max(0.0, active[0] - time.perf_counter())
