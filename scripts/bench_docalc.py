"""Speed of the do-calculus equivalence verifier on CLadder pairs and synthetic pairs, with a peer.

Prints median / p99 CPU time per pair (``time.process_time``: the machine may be shared, so wall
time overstates the cost):

* CLadder: every (formal form, estimand) pair of ``../shared/data/cladder``, verdict only
  (``prove=False``, what the metric does) and, for the distinct pairs, with the proof search.
* synthetic: the ``synthetic`` config's rows verified from their text as a user would — expressions
  parsed and each row's graph built fresh from its edge list — with every verdict checked against
  the row's label. Rows come from a built folder (``--dataset hub/cladder_pairs``: the whole
  config) or are generated (``--synthetic-count N`` positives + N negatives).
* peer: the same semantic decision with pgmpy's exact inference (variable elimination on the
  mutilated network) evaluating every probability term on the same random models, side by side
  with ours on the first ``--peer-pairs`` synthetic rows; verdicts and values must agree.

    .venv/bin/python scripts/bench_docalc.py [--dataset hub/cladder_pairs | --synthetic-count 1000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings
from pathlib import Path

import numpy as np
from checkout import SHARED_DATA_DIR

from causal_datasets.cladder_pairs.cladder import family_graph, formal_expression, read_questions, try_parse
from causal_datasets.cladder_pairs.records import SyntheticPair
from causal_datasets.cladder_pairs.rows import synthetic_rows
from causal_datasets.docalc.decide import semantic_check
from causal_datasets.docalc.expr import free_indices, variables
from causal_datasets.docalc.families import random_models
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.scoring import score_pairs
from causal_datasets.docalc.semantics import IndexDomains, TableModel, evaluate
from causal_datasets.docalc.verdict import canonical_indices, check_equivalence
from causal_datasets.hub.folder import load_records

FULL_SYNTHETIC = 20_000


def report(label: str, times: list[float]) -> None:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    print(
        f"{label:<62} n={len(times):>6}  median {statistics.median(times) * 1e3:7.2f} ms"
        f"  p99 {p99 * 1e3:8.2f} ms  total {sum(times):6.1f} s CPU"
    )


def timed(pairs, prove: bool) -> list[float]:
    times = []
    for a, b, graph in pairs:
        start = time.process_time()
        check_equivalence(a, b, graph, prove=prove)
        times.append(time.process_time() - start)
    return times


def row_graph(row: SyntheticPair) -> DoGraph:
    return DoGraph.from_edges([(e.source, e.target) for e in row.edges], nodes=row.nodes)


def verify_rows(rows: list[SyntheticPair], prove: bool) -> tuple[list[float], int]:
    """CPU time per row (parse + fresh graph + verdict) and the number of verdicts that differ from the labels."""
    times, wrong = [], 0
    for row in rows:
        start = time.process_time()
        verdict = check_equivalence(row.expr_a, row.expr_b, row_graph(row), prove=prove)
        times.append(time.process_time() - start)
        wrong += verdict.equivalent is not row.equivalent
    return times, wrong


# ---- the peer: pgmpy exact inference under the same interpreter -------------------------------


class PgmpyFamily:
    """The members of a :class:`TableModel` as pgmpy networks; ``prob`` by variable elimination.

    Each (member, action values, variables) joint table is queried once and conditionals are
    read from it, the efficient way to use pgmpy for many terms over the same variables."""

    def __init__(self, tables: TableModel) -> None:
        from pgmpy.factors.discrete import TabularCPD
        from pgmpy.models import DiscreteBayesianNetwork

        graph = tables.graph
        self.members = tables.members
        self.networks = []
        for member in range(self.members):
            network = DiscreteBayesianNetwork(list(graph.edges))
            network.add_nodes_from(graph.nodes)
            for node in graph.order:
                parents = list(graph.parents(node))
                table = tables.table(node, member)
                values = table.reshape(-1, graph.domain(node)).T
                cards = [graph.domain(p) for p in parents]
                network.add_cpds(
                    TabularCPD(node, graph.domain(node), values, evidence=parents or None, evidence_card=cards or None)
                )
            self.networks.append(network)
        self._engines: dict = {}
        self._tables: dict = {}

    def _engine(self, member: int, do_vars: tuple[str, ...]):
        from pgmpy.inference import VariableElimination

        key = (member, do_vars)
        if key not in self._engines:
            network = self.networks[member].do(list(do_vars)) if do_vars else self.networks[member]
            self._engines[key] = VariableElimination(network)
        return self._engines[key]

    def _joint(self, member: int, do: tuple, variables: tuple[str, ...]):
        key = (member, do, variables)
        if key not in self._tables:
            engine = self._engine(member, tuple(v for v, _ in do))
            factor = engine.query(list(variables), evidence=dict(do) or None, joint=True, show_progress=False)
            factor = factor.copy()
            factor.values = np.moveaxis(
                factor.values, [factor.variables.index(v) for v in variables], range(len(variables))
            )
            self._tables[key] = factor.values
        return self._tables[key]

    def prob(self, event, do, given) -> np.ndarray:
        variables = tuple(sorted({a.var for a in event + given}))
        values = []
        for member in range(self.members):
            table = self._joint(member, do, variables)
            both = {a.var: a.value for a in event + given}
            numerator = table[tuple(both[v] for v in variables)]
            condition = {a.var: a.value for a in given}
            denominator = table[tuple(condition.get(v, slice(None)) for v in variables)].sum()
            values.append(numerator / denominator)
        return np.array(values)


def peer_check(a, b, graph: DoGraph, models: int = 3) -> bool:
    """Equal on the same ``models`` random models (of the same ancestral subgraph), every term evaluated by pgmpy."""
    graph = graph.ancestral(variables(a) | variables(b))
    family = PgmpyFamily(random_models(graph, 0, models, counterfactual=False))
    domains = IndexDomains.of(graph, a, b)
    names = sorted(free_indices(a) | free_indices(b))
    for env in domains.assignments(names):
        if not np.allclose(evaluate(a, family, graph, env), evaluate(b, family, graph, env), rtol=1e-9, atol=1e-12):
            return False
    return True


def compare_with_peer(rows: list[SyntheticPair]) -> None:
    ours, theirs, disagreements = [], [], 0
    for row in rows:
        start = time.process_time()
        graph = row_graph(row)
        a, b = canonical_indices(parse(row.expr_a)), canonical_indices(parse(row.expr_b))
        our_verdict = semantic_check(a, b, graph).equal
        ours.append(time.process_time() - start)
        start = time.process_time()
        graph = row_graph(row)
        a, b = canonical_indices(parse(row.expr_a)), canonical_indices(parse(row.expr_b))
        peer_verdict = peer_check(a, b, graph)
        theirs.append(time.process_time() - start)
        disagreements += our_verdict is not peer_verdict
    report("peer pgmpy: semantic verdict, same models, every term by VE", theirs)
    report("ours on the same rows", ours)
    print(
        f"peer / ours: {sum(theirs) / sum(ours):.0f}x total, "
        f"{statistics.median(theirs) / statistics.median(ours):.0f}x median;"
        f" verdict disagreements {disagreements} of {len(rows)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, help="a built cladder_pairs folder: verify its whole synthetic config")
    parser.add_argument(
        "--synthetic-count", type=int, default=1000, help="without --dataset: positive pairs to generate"
    )
    parser.add_argument(
        "--proof-rows", type=int, default=2000, help="synthetic rows verified again with the proof search"
    )
    parser.add_argument("--peer-pairs", type=int, default=200, help="synthetic rows also decided with pgmpy (0: skip)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=FutureWarning)

    questions = [
        q for q in read_questions(SHARED_DATA_DIR / "cladder") if formal_expression(q) and try_parse(q.estimand)
    ]
    cladder = [(formal_expression(q), try_parse(q.estimand), family_graph(q.graph_id)) for q in questions]
    distinct = list({(a.text, b.text, id(g)): (a, b, g) for a, b, g in cladder}.values())
    report("CLadder pairs, verdict only (every question)", timed(cladder, prove=False))
    report("CLadder distinct pairs, verdict + proof search", timed(distinct, prove=True))
    start = time.process_time()
    graphs = [family_graph(q.graph_id) for q in questions]
    scored = score_pairs(
        [formal_expression(q).text for q in questions],
        [q.estimand for q in questions],
        [g.edge_text() for g in graphs],
        [sorted(g.latent) for g in graphs],
    )
    spent = time.process_time() - start
    print(
        f"CLadder through the metric (score_pairs on the strings, edge-list text): {len(questions)} pairs in"
        f" {spent:.2f} s CPU ({spent / len(questions) * 1e3:.2f} ms/pair), accuracy {scored['accuracy']:.3f}"
    )

    if args.dataset:
        rows = load_records(args.dataset, "synthetic", "test", SyntheticPair)
    else:
        start = time.process_time()
        rows = synthetic_rows(seed=0, count=args.synthetic_count)
        generation = time.process_time() - start
        print(
            f"synthetic generation: {len(rows)} rows in {generation:.1f} s CPU "
            f"({generation / len(rows) * 1e3:.1f} ms/row)"
        )
    times, wrong = verify_rows(rows, prove=False)
    report("synthetic rows from text, verdict only", times)
    print(f"  verdicts differing from the labels: {wrong} of {len(rows)}")
    if len(rows) < FULL_SYNTHETIC:
        print(
            f"  projected whole synthetic config ({FULL_SYNTHETIC} rows): "
            f"{statistics.mean(times) * FULL_SYNTHETIC:.0f} s CPU"
        )
    if args.proof_rows:
        half = args.proof_rows // 2
        times, _ = verify_rows(rows[:half] + rows[len(rows) // 2 : len(rows) // 2 + half], prove=True)
        report("synthetic rows from text, verdict + proof search", times)
    if args.peer_pairs:
        half = args.peer_pairs // 2
        compare_with_peer(rows[:half] + rows[len(rows) // 2 : len(rows) // 2 + half])
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
