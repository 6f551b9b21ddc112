"""Seeded generation of the two CausalLink task sets.

* ``core`` (84 tasks): four fixed graphs (direct 0→1; mediation 0→1→2; confounder 1→0, 1→2; the
  same confounder with the secondary edge 0→2), every descendant-closed initial setup (all-static
  included) and both directions of every pair of shapes.
* ``advanced`` (1200 tasks): n = 4..7 variables × 50 random graphs × 6 pairs, all shapes moving
  (other sizes, 2..8, and graph counts on request; a graph depends only on the seed, its size and
  its index, so a larger request extends a smaller one).
  A random graph keeps each edge i→j (i<j) with probability 1/2 and, when node 0 does not reach
  every node, is replaced by its complement among the i<j pairs (not re-checked), as upstream.
  Pairs are 6 distinct unordered pairs (i<j) asked with the lower node as the cause (all of them
  when a graph has fewer).

Every random choice comes from ``random.Random`` seeded by a string naming the build seed and the
item, so a single graph or task can be regenerated alone. Upstream drew unseeded graphs and never
saved them; here every record stores its graph.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence
from functools import lru_cache, partial
from typing import cast

import networkx as nx

from causal_datasets.shapeworld.entities import DEFAULT_THEME, Theme
from causal_datasets.shapeworld.records import NodeEdge, ShapeWorldTask
from causal_datasets.shapeworld.world import SHAPES, State, World
from causal_datasets.sharding import chunks, generate_sharded

CORE_GRAPHS: dict[str, tuple[int, tuple[tuple[int, int], ...]]] = {
    "direct": (2, ((0, 1),)),
    "mediation": (3, ((0, 1), (1, 2))),
    "confounder": (3, ((1, 0), (1, 2))),
    "confounder_with_edge": (3, ((1, 0), (1, 2), (0, 2))),
}
ADVANCED_SIZES = (4, 5, 6, 7)
GRAPHS_PER_SIZE = 50
#: the smallest advanced graph: two shapes, one question
MIN_SIZE = 2
PAIRS_PER_GRAPH = 6
EDGE_PROBABILITY = 0.5


def item_rng(seed: int, *item: object) -> random.Random:
    """A generator for one item: seeded by a string (hashed with SHA-512 by ``random``, never ``hash()``)."""
    return random.Random("/".join(["shapeworld", str(seed), *map(str, item)]))


def step_limit(num_variables: int) -> int:
    """The action cap of an episode: 2n (two actions per shape)."""
    return 2 * num_variables


def question_text(cause: str, effect: str) -> str:
    return f"Does the {cause} moving cause the {effect} to move?"


def initial_setups(world: World) -> list[State]:
    """Every descendant-closed moving set (a union of node closures, the empty set included), sorted."""
    setups: set[State] = {frozenset()}
    for closure in world.closures:
        setups |= {setup | closure for setup in setups}
    return sorted(setups, key=lambda s: (len(s), sorted(s)))


def random_edges(n: int, rng: random.Random) -> tuple[tuple[int, int], ...]:
    """Upper-triangular random DAG; complemented when node 0 does not reach every other node."""
    pairs = list(itertools.combinations(range(n), 2))
    kept = [pair for pair in pairs if rng.random() < EDGE_PROBABILITY]
    graph = nx.DiGraph(kept)
    graph.add_nodes_from(range(n))
    if nx.descendants(graph, 0) != set(range(1, n)):
        kept = [pair for pair in pairs if pair not in kept]
    return tuple(kept)


def core_tasks(seed: int) -> list[ShapeWorldTask]:
    """The 84 core tasks (shape names drawn per graph from ``seed``)."""
    tasks = []
    for structure, (n, edges) in CORE_GRAPHS.items():
        graph_id = f"core-{structure}"
        world = World(tuple(item_rng(seed, graph_id).sample(SHAPES, n)), edges)
        for setup_index, setup in enumerate(initial_setups(world)):
            for a, b in itertools.combinations(range(n), 2):
                for cause, effect in ((a, b), (b, a)):
                    task_id = f"{graph_id}-s{setup_index}-{cause}{effect}"
                    tasks.append(_task(task_id, structure, graph_id, world, setup, cause, effect, seed))
    return tasks


def advanced_graph(seed: int, n: int, index: int) -> tuple[str, World, list[tuple[int, int]]]:
    """Graph ``index`` of size ``n``: its id, its world and its (up to 6) question pairs."""
    graph_id = f"advanced-n{n}-g{index:02d}"
    rng = item_rng(seed, graph_id)
    shapes = tuple(rng.sample(SHAPES, n))
    edges = random_edges(n, rng)
    candidates = list(itertools.combinations(range(n), 2))
    pairs = sorted(rng.sample(candidates, min(PAIRS_PER_GRAPH, len(candidates))))
    return graph_id, World(shapes, edges), pairs


def check_sizes(sizes: Sequence[int], graphs_per_size: int) -> None:
    """``ValueError`` unless every size is 2..8 (one shape per variable), once, and graphs_per_size ≥ 1."""
    bad = [n for n in sizes if not MIN_SIZE <= n <= len(SHAPES)]
    if bad or not sizes or len(set(sizes)) != len(sizes):
        raise ValueError(
            f"sizes must be distinct numbers of variables from {MIN_SIZE} to {len(SHAPES)}, got {list(sizes)}"
        )
    if graphs_per_size < 1:
        raise ValueError(f"graphs per size must be at least 1, got {graphs_per_size}")


#: graphs per shard of the advanced set (the shards depend on the sizes only, never on the workers);
#: the pool starts only from 20 shards per worker: a row's round trip through it costs more than generating
#: the row (docs/BENCHMARKS.md, generation), so small sets stay in one process
SHARD_GRAPHS = 50
SHARDS_PER_WORKER = 20


def advanced_tasks(
    seed: int, sizes: Sequence[int] = ADVANCED_SIZES, graphs_per_size: int = GRAPHS_PER_SIZE, num_proc: int = 1
) -> list[ShapeWorldTask]:
    """The advanced tasks (the paper's 1200 by default): all shapes moving at the start; generated in
    shards of :data:`SHARD_GRAPHS` graphs of one size by ``num_proc`` workers (the same tasks for any number)."""
    check_sizes(sizes, graphs_per_size)
    shards = [(n, start, stop) for n in sizes for start, stop in chunks(graphs_per_size, SHARD_GRAPHS)]
    rows = generate_sharded(partial(advanced_shard, seed), shards, ShapeWorldTask, num_proc, SHARDS_PER_WORKER)
    return cast(list[ShapeWorldTask], rows)  # rows of the model passed


def advanced_shard(seed: int, shard: tuple[int, int, int]) -> list[ShapeWorldTask]:
    """The tasks of graphs ``start``..``stop - 1`` of size ``n``, for ``shard = (n, start, stop)``."""
    return list(_advanced(seed, *shard))


def _advanced(seed: int, n: int, start: int, stop: int) -> Iterator[ShapeWorldTask]:
    for index in range(start, stop):
        graph_id, world, pairs = advanced_graph(seed, n, index)
        everything = frozenset(range(n))
        for pair_index, (cause, effect) in enumerate(pairs):
            yield _task(f"{graph_id}-p{pair_index}", "random", graph_id, world, everything, cause, effect, seed)


def _task(
    task_id: str, structure: str, graph_id: str, world: World, setup: State, cause: int, effect: int, seed: int
) -> ShapeWorldTask:
    return ShapeWorldTask(
        id=task_id,
        structure=structure,
        num_variables=world.n,
        graph_id=graph_id,
        shapes=list(world.shapes),
        edges=[NodeEdge(source=s, target=t) for s, t in world.edges],
        initially_moving=sorted(setup),
        cause=cause,
        effect=effect,
        question=question_text(world.shapes[cause], world.shapes[effect]),
        answer="yes" if world.causes(cause, effect) else "no",
        step_limit=step_limit(world.n),
        seed=seed,
    )


def world_of(task: ShapeWorldTask, theme: Theme = DEFAULT_THEME) -> World:
    """The simulator for a stored task (its graph and names, nothing regenerated), its shapes named
    by ``theme``: one shared object per world (a world is immutable; an episode, each prompt variant's
    and each environment reset build the same one)."""
    return _world(theme.rename(task.shapes), tuple((e.source, e.target) for e in task.edges), theme.entities)


@lru_cache(maxsize=4096)
def _world(shapes: tuple[str, ...], edges: tuple[tuple[int, int], ...], vocabulary: tuple[str, ...]) -> World:
    return World(shapes, edges, vocabulary)
