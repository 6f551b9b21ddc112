"""What every plot of the report shares: a marker, line style and hatch per run, its legend entry, the axes
(integer ticks for counts, 0–1 for shares, from 0 unless a value is negative) and 95% intervals as error bars."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator
from matplotlib.typing import ColorType

from causal_datasets.report.runs import Run
from causal_datasets.uncertainty import Interval

#: a marker, line style and bar hatch per run, in turn
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINE_STYLES = ("-", "--", "-.", ":")
HATCHES = ("", "//", "..", "xx", "\\\\", "++")
Number = int | float


def legend(run: Run) -> str:
    """A run's legend entry: the run and its config(s)."""
    return f"{run.label} · {', '.join(run.summary.dataset.configs)}"


def run_group(run: Run) -> str:
    """Runs of one solver on the same configs belong together (one colour, one line, one arrow)."""
    return f"{run.summary.solver} · {', '.join(run.summary.dataset.configs)}"


def headline_intervals(run: Run) -> dict[str, Interval]:
    return run.summary.intervals.metrics if run.summary.intervals is not None else {}


def slice_intervals(run: Run, name: str) -> dict[str, dict[str, Interval]]:
    return (run.summary.intervals.slices.get(name) or {}) if run.summary.intervals is not None else {}


def error_bars(
    axes: Axes,
    points: Sequence[tuple[Number, Number, Interval | None]],
    color: ColorType,
    horizontal: bool = False,
    thin: bool = False,
) -> None:
    """The 95% interval of each ``(position, value, interval)`` that has one, as an error bar at the value
    (``horizontal``: along x, the position being y; ``thin``: on narrow bars)."""
    shown = [
        (position, value, i.ci_low, i.ci_high)
        for position, value, i in points
        if i is not None and i.ci_low is not None and i.ci_high is not None
    ]
    if not shown:
        return
    spans = [
        [max(value - low, 0.0) for _, value, low, _ in shown],
        [max(high - value, 0.0) for _, value, _, high in shown],
    ]
    positions, values = [p for p, _, _, _ in shown], [v for _, v, _, _ in shown]
    axes.errorbar(
        values if horizontal else positions,
        positions if horizontal else values,
        xerr=spans if horizontal else None,
        yerr=None if horizontal else spans,
        fmt="none",
        ecolor=color,
        capsize=1.5 if thin else 4,
        elinewidth=0.7 if thin else 1.2,
    )


def slice_error_bars(
    axes: Axes,
    run: Run,
    slice_name: str,
    metric: str,
    points: Sequence[tuple[Number, Number, str]],
    color: ColorType,
    thin: bool = False,
) -> None:
    """:func:`error_bars` of ``run``'s intervals of ``metric`` in the entries of slice ``slice_name``, a point
    being ``(position, value, entry key)``."""
    found = slice_intervals(run, slice_name)
    error_bars(axes, [(p, v, found.get(key, {}).get(metric)) for p, v, key in points], color, thin=thin)


def slice_axis(axes: Axes, keys: list[str]) -> Mapping[str, Number]:
    """x position of each slice value: the integer or number itself, else its index (labelled)."""
    try:
        numbers = {key: float(key) for key in keys}
    except ValueError:
        axes.set_xticks(range(len(keys)), keys)
        axes.set_xlim(-0.5, len(keys) - 0.5)
        return {key: index for index, key in enumerate(keys)}
    if all(number.is_integer() for number in numbers.values()):
        integers = {key: int(number) for key, number in numbers.items()}
        axes.set_xticks(sorted(set(integers.values())), [str(n) for n in sorted(set(integers.values()))])
        axes.set_xlim(min(integers.values()) - 0.5, max(integers.values()) + 0.5)
        return integers
    return numbers


def value_axis(axes: Axes, values: list[Number]) -> None:
    if all(isinstance(v, int) for v in values):
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_ylim(0, max(1, max(values)) * 1.08)
    elif all(0 <= v <= 1 for v in values):
        axes.set_ylim(0, 1)
    elif min(values) >= 0:
        axes.set_ylim(bottom=0)


def is_number(value: object) -> TypeGuard[Number]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def step_value(step: Any, name: str) -> Any:
    """A step's value of ``name`` (a step is a mapping in older runs, a typed record now)."""
    return step.get(name) if isinstance(step, Mapping) else getattr(step, name, None)
