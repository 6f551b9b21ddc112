"""Seeded SCM episode generator mirroring the released suites (all families).

Suites of the same size share their topologies index by index, as in the release (the structure
comes from ``stable_seed(seed, topology, index)``; the rest from ``stable_seed(seed, suite,
index)``), so hidden, quadratic and Golden variants are matched comparisons. Per episode: n − 1 properties sampled from
the pool plus ``resonanceFreq``; a random topological order (the target last unless the suite lets
frequency have children); an edge count uniform in [n − 1, min(n(n − 1)/2, 2n)] (the release's
range per size) drawn among order-respecting pairs, redrawn until the target has a parent; integer
weights in {1, 2, 3}; ``base_freq`` an integer in [15, 25]. The hard-quadratic family gives each
edge ``u·p² + w·p`` with u ∈ {0.008, 0.012, 0.016} and a vertex ``-w/(2u)`` uniform in [35, 65].
Hidden suites add H on k nodes (the target among them for the freqnode variant); Golden suites
add an offline chain of interventions on the first observation crystal (:mod:`.golden`: designed to
orient the graph's Markov equivalence class, or the legacy chain of versions up to 1.1.0).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from functools import partial
from typing import cast

from causal_datasets.causalab.crystals import assemble_episode, stable_seed
from causal_datasets.causalab.golden import GoldenDesign, golden_chain
from causal_datasets.causalab.properties import PROPERTY_POOL, TARGET
from causal_datasets.causalab.records import (
    CausaLabEpisode,
    Disturbance,
    Edge,
    EdgeAxis,
    Equation,
    QuadraticMetadata,
    Term,
)
from causal_datasets.causalab.suites import EPISODES_PER_SUITE, SuiteSpec
from causal_datasets.sharding import chunks, generate_sharded

WEIGHTS = (1, 2, 3)
QUADRATIC_U = (0.008, 0.012, 0.016)
VERTEX_RANGE = (35.0, 65.0)
_DECIMALS = 6


#: episodes per shard of a generated suite (the shards depend on the size only, never on the workers);
#: the pool starts only from 20 shards per worker: a row's round trip through it costs more than generating
#: the row (docs/BENCHMARKS.md, generation), so small sets stay in one process
SHARD_EPISODES = 50
SHARDS_PER_WORKER = 20


def generate_suite(
    spec: SuiteSpec, seed: int = 0, count: int = EPISODES_PER_SUITE, golden: GoldenDesign = "designed"
) -> list[CausaLabEpisode]:
    return _shard(seed, golden, (spec, 0, count))


def generate_suites(
    specs: Sequence[SuiteSpec],
    seed: int = 0,
    count: int = EPISODES_PER_SUITE,
    num_proc: int = 1,
    golden: GoldenDesign = "designed",
) -> dict[str, list[CausaLabEpisode]]:
    """``count`` episodes of every suite, generated in shards of :data:`SHARD_EPISODES` episodes by
    ``num_proc`` workers: the same episodes as :func:`generate_suite`, whatever the number of workers
    (``golden``: the Golden suites' chains, :mod:`causal_datasets.causalab.golden`)."""
    shards = [(spec, start, stop) for spec in specs for start, stop in chunks(count, SHARD_EPISODES)]
    # generate_sharded gives the rows as Records: the rows of ``model``, CausaLabEpisode
    episodes = cast(
        list[CausaLabEpisode],
        generate_sharded(partial(_shard, seed, golden), shards, CausaLabEpisode, num_proc, SHARDS_PER_WORKER),
    )
    return {spec.name: episodes[number * count : (number + 1) * count] for number, spec in enumerate(specs)}


def _shard(seed: int, golden: GoldenDesign, shard: tuple[SuiteSpec, int, int]) -> list[CausaLabEpisode]:
    spec, start, stop = shard
    return [generate_episode(spec, index, seed, golden) for index in range(start, stop)]


def generate_episode(spec: SuiteSpec, index: int, seed: int = 0, golden: GoldenDesign = "designed") -> CausaLabEpisode:
    episode_seed = stable_seed(seed, spec.name, index)
    rng = random.Random(episode_seed)
    structure = random.Random(stable_seed(seed, spec.topology, index))
    props = structure.sample(PROPERTY_POOL, spec.nodes - 1)
    order = list(props)
    position = structure.randint(1, len(order)) if spec.frequency_can_be_parent else len(order)
    order.insert(position, TARGET)
    edges = _edges(structure, order, spec.nodes)
    equations = _equations(structure, rng, [TARGET, *props], edges, spec.family)
    graph_id = f"{spec.name}_{index}"
    suffix = {"quadratic": " with hard quadratic parent-child mechanisms"}.get(spec.family, "")
    suffix = " with hidden variable" if spec.hidden else suffix
    episode = assemble_episode(
        episode_id=f"{spec.name}/{graph_id}",
        suite=spec.name,
        origin="generated",
        graph_id=graph_id,
        description=f"Causal graph with {spec.nodes} nodes and {len(edges)} edges{suffix}",
        family=spec.family,
        nodes=[TARGET, *props],
        controllable=props,
        edges=edges,
        equations=equations,
        budget=spec.budget,
        seed=episode_seed,
        frequency_can_be_parent=spec.frequency_can_be_parent,
        disturbance=_disturbance(rng, spec, props),
        quadratic_metadata=_quadratic_metadata(equations) if spec.family == "quadratic" else None,
    )
    if spec.golden:
        chain = golden_chain(rng, episode, golden)
        episode = episode.model_copy(update={"prior_records": episode.prior_records + chain})
    return episode


def _edges(rng: random.Random, order: list[str], n: int) -> list[Edge]:
    pairs = list(itertools.combinations(order, 2))
    count = rng.randint(n - 1, min(len(pairs), 2 * n))
    while True:
        chosen = rng.sample(pairs, count)
        if any(target == TARGET for _, target in chosen):
            return [Edge(source=s, target=t) for s, t in chosen]


def _equations(
    structure: random.Random, rng: random.Random, nodes: list[str], edges: list[Edge], family: str
) -> list[Equation]:
    """Linear weights and bases come from the topology's generator (shared by matched suites);
    quadratic coefficients from the episode's own."""
    parents = {node: [e.source for e in edges if e.target == node] for node in nodes}
    equations = []
    for node in nodes:
        if node == TARGET:
            base = float(structure.randint(15, 25))
        else:
            base = float(structure.randint(15, 25)) if parents[node] else 20.0
        terms = []
        for parent in parents[node]:
            weight = float(structure.choice(WEIGHTS))
            if family == "quadratic":
                u = rng.choice(QUADRATIC_U)
                vertex = rng.uniform(*VERTEX_RANGE)
                terms.append(Term(parent=parent, linear=round(-2 * u * vertex, _DECIMALS), quadratic=u))
                base += u * vertex * vertex
            else:
                terms.append(Term(parent=parent, linear=weight, quadratic=0.0))
        equations.append(Equation(node=node, base=round(base, _DECIMALS), terms=terms))
    return equations


def _quadratic_metadata(equations: list[Equation]) -> QuadraticMetadata:
    axes = [
        EdgeAxis(source=t.parent, target=eq.node, axis=round(-t.linear / (2 * t.quadratic), _DECIMALS))
        for eq in equations
        for t in eq.terms
    ]
    return QuadraticMetadata(edge_axes=axes, probe_left=[], probe_right=[])


def _disturbance(rng: random.Random, spec: SuiteSpec, props: list[str]) -> Disturbance | None:
    if spec.hidden is None:
        return None
    k = spec.hidden.count
    affected = [TARGET, *rng.sample(props, k - 1)] if spec.hidden.includes_target else rng.sample(props, k)
    v = spec.hidden.magnitude
    return Disturbance(value_space=[-v, 0.0, v], weight=1.0, affected_nodes=affected, initial_value=0.0)
