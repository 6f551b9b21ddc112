"""Card statistics of the task sets: counts per structure and size, yes/no balance, graph shapes."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from causal_datasets.markdown import markdown_table
from causal_datasets.shapeworld.records import ShapeWorldTask


def composition_table(tasks: Sequence[ShapeWorldTask]) -> str:
    """One row per (structure, number of variables): tasks, graphs, setups, yes, no, share of yes."""
    groups: dict[tuple[str, int], list[ShapeWorldTask]] = {}
    for task in tasks:
        groups.setdefault((task.structure, task.num_variables), []).append(task)
    rows = [_row(f"{structure}", n, group) for (structure, n), group in groups.items()]
    rows.append(_row("all", "", list(tasks)))
    return markdown_table(
        ["structure", "variables", "tasks", "graphs", "initial setups", "yes", "no", "yes share"], rows
    )


def graph_table(tasks: Sequence[ShapeWorldTask]) -> str:
    """Per number of variables: distinct graphs, edges per graph (min / mean / max), step limit."""
    by_size: dict[int, dict[str, ShapeWorldTask]] = {}
    for task in tasks:
        by_size.setdefault(task.num_variables, {})[task.graph_id] = task
    rows = []
    for n, graphs in sorted(by_size.items()):
        edges = [len(t.edges) for t in graphs.values()]
        step_limits = sorted({t.step_limit for t in graphs.values()})
        rows.append(
            [
                n,
                len(graphs),
                min(edges),
                round(statistics.fmean(edges), 2),
                max(edges),
                ", ".join(map(str, step_limits)),
            ]
        )
    return markdown_table(["variables", "graphs", "min edges", "mean edges", "max edges", "step limit"], rows)


def _row(structure: str, n: int | str, group: list[ShapeWorldTask]) -> list:
    yes = sum(t.answer == "yes" for t in group)
    setups = {(t.graph_id, tuple(t.initially_moving)) for t in group}
    graphs = {t.graph_id for t in group}
    return [structure, n, len(group), len(graphs), len(setups), yes, len(group) - yes, round(yes / len(group), 4)]
