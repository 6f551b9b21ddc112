"""Golden control chains: offline interventions designed to shrink the Markov equivalence class.

The paper's Golden suites give the agent "a bounded low-MEC intervention chain" instead of letting it
intervene. A designed chain starts from what observations alone leave open: the essential graph
(CPDAG) of the hidden SCM's DAG, its v-structures oriented and Meek's rules applied. Single-node
interventions then orient every edge at their target (Hauser & Bühlmann 2012's interventional
essential graph: the edges cut by a target, closed again under Meek's rules, which are complete
for such background knowledge, Meek 1995). The targets are chosen greedily, each the controllable
property whose intervention leaves the fewest undirected edges, until none is left, so the
interventional MEC of the chain's targets is the one DAG. The chain visits those targets in that
order twice (two values per target, so each target's effects can be measured as well as seen), at
most 2(n − 1) steps and none when observations already orient every edge (as 14 of the release's
50 `6nodes_golden` chains); each value is drawn from the half of [0, 100] away from the property's
current reading, so every step moves what it touches.

``legacy`` is the chain of versions up to 1.1.0: :data:`GOLDEN_CHAIN` steps through the
controllable properties in alphabetical order with values ``randint(0, 100)``, kept so those
versions can be rebuilt byte for byte.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Collection, Iterable
from typing import Literal

import networkx as nx

from causal_datasets.causalab.crystals import bases_of, measurement
from causal_datasets.causalab.mechanism import Mechanism
from causal_datasets.causalab.records import CausaLabEpisode, Intervention, Measurement

GoldenDesign = Literal["designed", "legacy"]
GOLDEN_CHAIN = 6
#: a designed value is drawn from the half of [0, 100] away from the property's reading
_LOW, _HIGH, _MIDDLE = (0, 40), (60, 100), 50


def episode_dag(episode: CausaLabEpisode) -> nx.DiGraph:
    """The hidden SCM's graph over every node of ``episode``."""
    dag = nx.DiGraph()
    dag.add_nodes_from(episode.nodes)
    dag.add_edges_from((edge.source, edge.target) for edge in episode.edges)
    return dag


def undirected_edges(dag: nx.DiGraph, targets: Iterable[str] = ()) -> set[frozenset[str]]:
    """The edges of ``dag`` that observations and single-node interventions on ``targets`` leave
    unoriented: the undirected edges of the interventional essential graph (of the CPDAG when
    ``targets`` is empty)."""
    chosen = set(targets)
    oriented = {
        (a, b)
        for a, b in dag.edges
        if a in chosen or b in chosen or any(c != a and not _adjacent(dag, a, c) for c in dag.predecessors(b))
    }
    undirected = {frozenset(edge) for edge in dag.edges if edge not in oriented}
    changed = True
    while changed:
        changed = False
        for edge in sorted(undirected, key=sorted):
            for a, b in itertools.permutations(sorted(edge)):
                if _meek(dag, oriented, undirected, a, b):
                    oriented.add((a, b))
                    undirected.discard(edge)
                    changed = True
                    break
    return undirected


def _adjacent(dag: nx.DiGraph, a: str, b: str) -> bool:
    return dag.has_edge(a, b) or dag.has_edge(b, a)


def _meek(dag: nx.DiGraph, oriented: set[tuple[str, str]], undirected: set[frozenset[str]], a: str, b: str) -> bool:
    """Whether one of Meek's four rules orients the undirected edge a — b as a → b."""
    nodes = [n for n in dag.nodes if n not in (a, b)]

    def line(x: str, y: str) -> bool:
        return frozenset((x, y)) in undirected

    into_b = [c for c in nodes if (c, b) in oriented]
    return (
        any((c, a) in oriented and not _adjacent(dag, c, b) for c in nodes)  # R1
        or any((a, c) in oriented for c in into_b)  # R2
        or any(  # R3
            line(a, c) and line(a, d) and not _adjacent(dag, c, d) for c, d in itertools.combinations(into_b, 2)
        )
        or any(  # R4
            line(a, c) and (c, d) in oriented and _adjacent(dag, a, d) and not _adjacent(dag, c, b)
            for d in into_b
            for c in nodes
        )
    )


def orienting_targets(dag: nx.DiGraph, controllable: Collection[str]) -> list[str]:
    """Intervention targets, chosen greedily among ``controllable``, after which no edge of ``dag`` is
    left unoriented (every undirected edge must have a controllable end)."""
    targets: list[str] = []
    left = undirected_edges(dag)
    while left:
        candidates = sorted(n for n in controllable if n not in targets and any(n in edge for edge in left))
        best = min(candidates, key=lambda n: (len(undirected_edges(dag, [*targets, n])), n))
        targets.append(best)
        left = undirected_edges(dag, targets)
    return targets


def golden_chain(rng: random.Random, episode: CausaLabEpisode, design: GoldenDesign) -> list[Measurement]:
    """The offline interventions on the first observation crystal, each recorded with the intervention
    that produced it (ids numbered after the episode's prior records)."""
    mechanism = Mechanism.from_episode(episode)
    bases = bases_of(episode.observation_crystals[0])
    if design == "legacy":
        alphabetical = sorted(episode.controllable)
        props = [alphabetical[step % len(alphabetical)] for step in range(GOLDEN_CHAIN)]
    else:
        props = designed_targets(episode)
    chain = []
    for step, prop in enumerate(props):
        reading = mechanism.evaluate(bases)
        if design == "legacy":
            value = float(rng.randint(0, 100))
        else:
            value = float(rng.randint(*(_HIGH if reading[prop] < _MIDDLE else _LOW)))
        bases[prop] = mechanism.base_for(prop, value, bases[prop], reading)
        record_id = f"{len(episode.prior_records) + step}/golden"
        chain.append(
            measurement(record_id, mechanism.evaluate(bases), Intervention(target_prop=prop, target_value=value))
        )
    return chain


def designed_targets(episode: CausaLabEpisode) -> list[str]:
    """The designed chain's steps: the orienting targets of the episode's graph, visited twice."""
    targets = orienting_targets(episode_dag(episode), episode.controllable)
    return targets + targets
