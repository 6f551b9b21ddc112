"""How many values each observed variable has: part of the question, stated in every verdict.

Every observed variable has :data:`DEFAULT_VALUES` values (0 and 1, CLadder's convention) unless
the question says otherwise (``values={"Z": 3}``, ``--values Z=3``); one the expressions mention
with a larger value (``P(Z=2)``) has as many as that needs. A declared number of values that an
expression exceeds, a number below 2 or above :data:`MAX_VALUES`, a name that is no node, or a
latent node (latent causes are never restricted: :mod:`.latent`) is bad input.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping

from causal_datasets.docalc.expr import Expr, leaf_values
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.graph import GraphError

DEFAULT_VALUES = 2
#: most values one variable may have
MAX_VALUES = 100

_ENTRY = re.compile(r"\s*([A-Za-z][A-Za-z0-9']*)\s*=\s*([+-]?\d{1,9})\s*")


class DomainError(GraphError):
    """The numbers of values of a question are malformed or contradict its expressions."""


def parse_values(text: str) -> dict[str, int]:
    """``"Z=3, W=4"`` as ``{"Z": 3, "W": 4}``; an empty text is no entry. A signed number (``Z=-3``) is read as
    one, so that :func:`with_domains` says what is wrong with it, not that it is no number."""
    values: dict[str, int] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        match = _ENTRY.fullmatch(part)
        if match is None:
            shown = part.strip() if len(part.strip()) <= 40 else part.strip()[:40] + "..."
            raise DomainError(f"{shown!r} is not NAME=NUMBER (e.g. Z=3)")
        name, count = match.group(1), int(match.group(2))
        if values.setdefault(name, count) != count:
            raise DomainError(f"{name} is given {values[name]} and {count} values")
    return values


def with_domains(graph: DoGraph, exprs: tuple[Expr, ...], values: Mapping[str, int] | None) -> DoGraph:
    """``graph`` with the number of values of every observed node set (``graph`` itself when that
    changes nothing): declared in ``values`` or the graph, else enough for the expressions."""
    declared = dict(graph.domains) | dict(values or {})
    for name, count in declared.items():
        if name not in graph.nodes:
            raise DomainError(f"values are given for {name}, which is not a node; nodes are {list(graph.nodes)}")
        if name in graph.latent:
            if values and name in values:
                raise DomainError(
                    f"{name} is latent: a latent cause takes as many values as the graph allows, never a set number"
                )
            continue
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) or not 2 <= count <= MAX_VALUES:
            raise DomainError(f"{name} must have between 2 and {MAX_VALUES} values, not {count!r}")
    largest: dict[str, int] = {}
    for e in exprs:
        for var, value in leaf_values(e):
            if isinstance(value, int):
                largest[var] = max(largest.get(var, 0), value)
    domains = {}
    for node in graph.nodes:
        if node in graph.latent:
            continue
        needed = largest.get(node, 0) + 1
        if node in declared and needed > declared[node]:
            raise DomainError(
                f"{node}={needed - 1} is outside the {declared[node]} values declared for {node} "
                f"(0..{declared[node] - 1})"
            )
        if needed > MAX_VALUES:
            raise DomainError(f"{node}={needed - 1} would give {node} more than {MAX_VALUES} values")
        domains[node] = int(declared.get(node, max(DEFAULT_VALUES, needed)))
    if all(graph.domain(n) == d for n, d in domains.items()):
        return graph
    return DoGraph(graph.nodes, graph.edges, graph.latent, domains)
