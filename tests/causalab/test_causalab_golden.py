"""Golden chains: a designed chain identifies its episode's graph (checked by enumerating the Markov
equivalence class, independently of the Meek rules the design uses); the legacy chain is kept."""

from __future__ import annotations

import itertools
import random

import networkx as nx
import pytest

from causal_datasets.builder import BuildContext
from causal_datasets.causalab.build import CausaLabBuildOptions, build_episodes
from causal_datasets.causalab.generator import generate_suite
from causal_datasets.causalab.golden import GOLDEN_CHAIN, episode_dag, undirected_edges
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.causalab.suites import SUITE_SPECS, SuiteSpec

#: the released Golden suites, and Golden variants of every size (and with a frequency that has children)
SPECS = [
    SUITE_SPECS["4nodes_golden"],
    SUITE_SPECS["6nodes_golden"],
    *(SuiteSpec(f"{n}nodes_golden", n, golden=True) for n in (3, 5, 7)),
    SuiteSpec("5nodes_freqparent_golden", 5, frequency_can_be_parent=True, golden=True),
]


def v_structures(dag: nx.DiGraph) -> set[tuple[str, str, str]]:
    return {
        (a, b, c)
        for b in dag.nodes
        for a, c in itertools.combinations(sorted(dag.predecessors(b)), 2)
        if not dag.has_edge(a, c) and not dag.has_edge(c, a)
    }


def interventional_mec(dag: nx.DiGraph, targets: set[str]) -> list[set[tuple[str, str]]]:
    """Every DAG with ``dag``'s skeleton and v-structures (its Markov equivalence class) that orients
    each edge at a target as ``dag`` does (single-node interventions), by brute force."""
    fixed = [e for e in dag.edges if targets & set(e)]
    free = [e for e in dag.edges if not targets & set(e)]
    truth = v_structures(dag)
    members = []
    for flips in itertools.product((False, True), repeat=len(free)):
        edges = fixed + [(b, a) if flip else (a, b) for (a, b), flip in zip(free, flips, strict=True)]
        candidate = nx.DiGraph(edges)
        candidate.add_nodes_from(dag.nodes)
        if nx.is_directed_acyclic_graph(candidate) and v_structures(candidate) == truth:
            members.append(set(edges))
    return members


def chain_targets(episode: CausaLabEpisode) -> list[str]:
    return [r.intervention.target_prop for r in episode.prior_records if r.intervention]


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name)
def test_every_designed_chain_identifies_the_graph(spec):
    """Over 4 seeds × 50 episodes: the interventional MEC of the chain's targets is the graph alone,
    each target is visited twice, and without its last target the class holds more than one DAG
    (the greedy design stops as soon as the graph is identified)."""
    empty = 0
    for seed in range(4):
        for episode in generate_suite(spec, seed=seed):
            dag = episode_dag(episode)
            steps = chain_targets(episode)
            targets = list(dict.fromkeys(steps))
            assert steps == targets + targets and "resonanceFreq" not in targets
            assert interventional_mec(dag, set(targets)) == [set(dag.edges)]
            if targets:
                assert len(interventional_mec(dag, set(targets[:-1]))) > 1
            empty += not targets
    assert empty < 4 * 50  # the observations alone orient only some graphs


def random_dag(rng: random.Random, n: int) -> nx.DiGraph:
    order = [f"x{i}" for i in range(n)]
    dag = nx.DiGraph()
    dag.add_nodes_from(order)
    dag.add_edges_from(pair for pair in itertools.combinations(order, 2) if rng.random() < 0.5)
    return dag


def test_essential_graph_matches_the_enumerated_class():
    """The Meek closure's undirected edges are exactly the edges that members of the (interventional)
    class orient both ways, on 300 random DAGs of 2–6 nodes and random targets."""
    rng = random.Random(46)
    for _ in range(300):
        dag = random_dag(rng, rng.randint(2, 6))
        targets = {node for node in dag.nodes if rng.random() < 0.2}
        members = interventional_mec(dag, targets)
        varying = {frozenset(e) for e in dag.edges if any(e not in member for member in members)}
        assert undirected_edges(dag, targets) == varying


def test_legacy_chain_and_the_build_option():
    """``golden="legacy"`` keeps 1.1.0's chain (alphabetical, six steps); the designed chain changes
    only the Golden suites."""
    legacy = generate_suite(SUITE_SPECS["4nodes_golden"], count=5, golden="legacy")
    for episode in legacy:
        alphabetical = sorted(episode.controllable)
        assert chain_targets(episode) == [alphabetical[i % len(alphabetical)] for i in range(GOLDEN_CHAIN)]
    outcomes = {
        golden: build_episodes(
            BuildContext(seed=0, options=CausaLabBuildOptions(episodes_per_suite=3, golden=golden)), "hint"
        ).records
        for golden in ("designed", "legacy")
    }
    differing = {name for name in outcomes["designed"] if outcomes["designed"][name] != outcomes["legacy"][name]}
    assert differing == {"4nodes_golden", "6nodes_golden"}
