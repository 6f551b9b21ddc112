"""Data-quality findings of the advanced task set, per graph (reported in the card, never changed).

The advanced graphs follow the upstream recipe on purpose (:mod:`.generate`), quirks included:

* node 0 should reach every node, but a graph where it does not is replaced by its complement
  without checking again, so node 0 still misses some nodes in a share of the graphs;
* small random graphs repeat (4 shapes have only 64 upper-triangular graphs);
* a shape may have no edge at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from causal_datasets.builder import Finding
from causal_datasets.shapeworld.records import ShapeWorldTask

UNCHANGED = "kept: the graphs follow the upstream recipe"


def graph_findings(config: str, tasks: Sequence[ShapeWorldTask]) -> list[Finding]:
    """The three checks of :mod:`this module <causal_datasets.shapeworld.quality>` on the graphs of ``tasks``."""
    graphs = {task.graph_id: task for task in tasks}
    unreached, isolated, repeated = [], [], []
    seen: set[tuple] = set()
    for graph_id, task in graphs.items():
        edges = tuple(sorted((e.source, e.target) for e in task.edges))
        graph = nx.DiGraph(edges)
        graph.add_nodes_from(range(task.num_variables))
        if nx.descendants(graph, 0) != set(range(1, task.num_variables)):
            unreached.append(graph_id)
        if any(graph.degree(node) == 0 for node in graph.nodes):
            isolated.append(graph_id)
        if (task.num_variables, edges) in seen:
            repeated.append(graph_id)
        seen.add((task.num_variables, edges))
    return [
        Finding(config, "node 0 does not reach every node (the upstream complement rule is not re-checked)", UNCHANGED,
                ids=tuple(unreached), unit="graphs"),
        Finding(config, "a shape with no edge at all", UNCHANGED, ids=tuple(isolated), unit="graphs"),
        Finding(config, "the same edges as an earlier graph of the same size (shape names may differ)", UNCHANGED,
                ids=tuple(repeated), unit="graphs"),
    ]  # fmt: skip
