"""The ShapeWorld simulator: shapes that move or stand still according to a hidden causal DAG.

State is the frozenset of moving node ids. Two interventions exist:

* ``move X``: X and every descendant of X start moving, whatever the current state;
* ``hold X``: only when X is moving and no parent of X is moving; X stops and, recursively, every
  child left without a moving parent stops too. Otherwise nothing changes.

Starting from a descendant-closed moving set, both keep it descendant-closed. Everything here is
pure: :meth:`World.apply` returns a new state and never raises on a bad name, it reports it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

#: every shape name, in the canonical order used for observations and option lists
SHAPES: tuple[str, ...] = ("circle", "square", "triangle", "rectangle", "hexagon", "pentagon", "octagon", "ellipse")
ACTIONS: tuple[str, ...] = ("move", "hold")

State = frozenset[int]


class WorldError(ValueError):
    """A world that cannot exist: repeated or unknown shape names, bad node ids, a cycle."""


@dataclass(frozen=True)
class Transition:
    """Result of one proposed action: the next state, or the unchanged state and why it was invalid."""

    state: State
    node: int | None = None
    action: str | None = None
    invalid: str | None = None

    @property
    def valid(self) -> bool:
        return self.invalid is None


@dataclass(frozen=True)
class World:
    """A causal DAG over nodes ``0..n-1``; ``shapes[i]`` names node ``i``, a name of ``vocabulary``
    (the eight shapes unless a theme gives other entities; see :mod:`.entities`)."""

    shapes: tuple[str, ...]
    edges: tuple[tuple[int, int], ...]
    vocabulary: tuple[str, ...] = SHAPES

    def __post_init__(self) -> None:
        unknown = [s for s in self.shapes if s not in self.vocabulary]
        if unknown or len(set(self.shapes)) != len(self.shapes):
            raise WorldError(f"names must be distinct names from {self.vocabulary}, got {list(self.shapes)}")
        n = len(self.shapes)
        bad = [e for e in self.edges if not (0 <= e[0] < n and 0 <= e[1] < n) or e[0] == e[1]]
        if bad:
            raise WorldError(f"edges {bad} are not between distinct nodes 0..{n - 1}")
        if len(self.topological_order) < n:
            raise WorldError(f"the causal graph must be acyclic, got edges {list(self.edges)}")

    @property
    def n(self) -> int:
        return len(self.shapes)

    @cached_property
    def parents(self) -> tuple[frozenset[int], ...]:
        return tuple(frozenset(s for s, t in self.edges if t == v) for v in range(self.n))

    @cached_property
    def children(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(sorted({t for s, t in self.edges if s == v})) for v in range(self.n))

    @cached_property
    def topological_order(self) -> tuple[int, ...]:
        """The nodes, each after its parents (Kahn's algorithm); shorter than ``n`` when the edges form a cycle."""
        waiting = [len(parents) for parents in self.parents]
        order = [v for v in range(self.n) if not waiting[v]]
        for node in order:  # grows while it is walked
            for child in self.children[node]:
                waiting[child] -= 1
                if not waiting[child]:
                    order.append(child)
        return tuple(order)

    @cached_property
    def closures(self) -> tuple[State, ...]:
        """``closures[v]`` = v and all its descendants: what ``move v`` sets in motion."""
        closures: dict[int, State] = {}
        for node in reversed(self.topological_order):  # every child's closure is known before its parents'
            closures[node] = frozenset({node}).union(*(closures[c] for c in self.children[node]))
        return tuple(closures[v] for v in range(self.n))

    @cached_property
    def node_of(self) -> dict[str, int]:
        return {shape: node for node, shape in enumerate(self.shapes)}

    def causes(self, cause: int, effect: int) -> bool:
        """Ground truth: does ``cause`` moving make ``effect`` move (a directed path exists)?"""
        return cause != effect and effect in self.closures[cause]

    def move(self, state: State, node: int) -> State:
        return state | self.closures[node]

    def hold(self, state: State, node: int) -> State:
        if node not in state or self.parents[node] & state:
            return state
        moving = set(state)
        stack = [node]
        while stack:
            current = stack.pop()
            moving.discard(current)
            stack.extend(c for c in self.children[current] if c in moving and not self.parents[c] & moving)
        return frozenset(moving)

    def apply(self, state: State, shape: object, action: object) -> Transition:
        """Apply ``action`` to the shape named ``shape``; unknown names give an invalid transition."""
        node = self.node_of.get(shape) if isinstance(shape, str) else None
        problems = []
        if node is None:
            problems.append(f"unknown shape {shape!r} (shapes: {', '.join(self.listed_shapes)})")
        if action not in ACTIONS:
            problems.append(f"unknown action {action!r} (actions: {', '.join(ACTIONS)})")
        if node is None or problems:  # an unknown shape is one of the problems
            return Transition(state, invalid="; ".join(problems))
        step = self.move if action == "move" else self.hold
        return Transition(step(state, node), node=node, action=str(action))

    @property
    def listed_shapes(self) -> list[str]:
        """This world's shapes in the vocabulary's order (node order would leak the generator's topological order)."""
        return list(self._listed)

    @cached_property
    def _listed(self) -> tuple[str, ...]:
        return tuple(s for s in self.vocabulary if s in self.node_of)

    @cached_property
    def _listed_nodes(self) -> tuple[tuple[str, int], ...]:
        return tuple((shape, self.node_of[shape]) for shape in self._listed)

    def observe(self, state: State) -> list[tuple[str, bool]]:
        """``(shape, moving)`` for every shape, in canonical order: what an agent is shown."""
        return [(shape, node in state) for shape, node in self._listed_nodes]

    def descendant_closed(self, state: Iterable[int]) -> bool:
        state = frozenset(state)
        return all(self.closures[v] <= state for v in state)
