"""Benchmark: ``identify`` (ID / IDC with its derivation) beside y0's ``identify_outcomes`` on the same queries,
in one run: y0's example catalogue, random ADMGs of 4-8 nodes (the tests' seeded generator) and long
graphs (a chain of 20, 40, 80 mediators).

    .venv/bin/python scripts/bench_identify.py [--random 200] [--seed 35] [--repeats 3] [--long 20,40,80]

Needs the ``y0`` extra (``pip install -e '.[y0]'``). Each query is timed best-of-``repeats`` for each
tool, the tools interleaved query by query so both see the same machine load. ``ours`` builds the
derivation (rule steps checked by the rule checker) without the equivalence checks; ``ours+check``
also confirms the other steps with ``check_equivalence`` (the default of ``identify``). Graph
conversion is outside the timings. "p99 of this / y0 per query": the 99th percentile over the queries of
the tool's time divided by y0's on the same query.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import warnings
from itertools import pairwise
from pathlib import Path

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' catalogue and random ADMGs

from timing import best_of  # noqa: E402

from causal_datasets.docalc.identification import identify  # noqa: E402
from causal_datasets.markdown import markdown_table  # noqa: E402
from tests.support.admgs import MixedGraph, query_text, random_admg, random_query  # noqa: E402
from tests.support.y0_bridge import Case, catalogue, graph_text, to_y0, y0_identify  # noqa: E402


def long_graph(size: int) -> MixedGraph:
    """A chain of ``size`` mediators from X to Y, every seventh also a parent of Y, and a back-door Z:
    ``P(Y | do(X))`` is identified by ID's line 4 into ``size + 2`` c-components."""
    chain = [f"V{i}" for i in range(size)]
    directed = list(pairwise(chain)) + [
        ("X", chain[0]),
        (chain[-1], "Y"),
        ("X", "Y"),
        ("Z", "X"),
        ("Z", "Y"),
    ]
    directed += [(v, "Y") for v in chain[::7]]
    return MixedGraph(tuple(["Z", "X"] + chain + ["Y"]), tuple(directed), ())


def workloads(count: int, seed: int, sizes: list[int]) -> dict[str, list[tuple[Case, str]]]:
    """(y0 case, our graph text) per workload."""
    rng = np.random.default_rng(seed)
    generated = []
    for number in range(count):
        graph = random_admg(rng, int(rng.integers(4, 9)))
        ys, xs, zs = random_query(rng, graph, conditional=rng.random() < 0.3)
        generated.append((Case(f"random {number}", to_y0(graph), tuple(xs), tuple(ys), tuple(zs)), graph.text))
    assert all(case.query == query_text(case.outcomes, case.treatments, case.conditions) for case, _ in generated)
    long = [(Case(f"{size} mediators", to_y0(g), ("X",), ("Y",)), g.text) for size in sizes for g in [long_graph(size)]]
    return {
        "y0 catalogue": [(case, graph_text(case.graph)) for case in catalogue()],
        "random ADMGs": generated,
        "long graphs": long,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--random", type=int, default=200, help="random ADMG queries (default 200)")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--long", default="20,40,80", help="sizes of the long graphs (comma-separated)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")  # y0's deprecation warnings
    rows = []
    for name, cases in workloads(args.random, args.seed, [int(n) for n in args.long.split(",") if n]).items():
        times: dict[str, list[float]] = {"ours": [], "ours+check": [], "y0": []}
        timed: list[Case] = []
        identified = disagreements = failures = 0
        for case, text in cases:
            try:
                seconds, theirs = best_of(lambda case=case: y0_identify(case), args.repeats)
            except (KeyError, nx.NetworkXError):  # y0 0.2.11 on a graph with a node without edges
                failures += 1
                continue
            times["y0"].append(seconds)
            timed.append(case)
            seconds, ours = best_of(lambda q=case.query, g=text: identify(q, g, check=False), args.repeats)
            times["ours"].append(seconds)
            times["ours+check"].append(best_of(lambda q=case.query, g=text: identify(q, g), args.repeats)[0])
            identified += ours.identifiable
            disagreements += ours.identifiable is not (theirs is not None)
        total = {tool: sum(values) for tool, values in times.items()}
        for tool, values in times.items():
            slowest = max(range(len(values)), key=values.__getitem__)
            ratios = sorted(ours / theirs for ours, theirs in zip(values, times["y0"], strict=True))
            rows.append(
                [
                    name,
                    len(values),
                    failures,
                    identified,
                    disagreements,
                    tool,
                    f"{1000 * statistics.median(values):.2f} ms",
                    f"{total[tool]:.2f} s",
                    f"{total['y0'] / total[tool]:.1f}×",
                    f"{ratios[min(len(ratios) - 1, int(0.99 * len(ratios)))]:.1f}×",
                    f"{1000 * values[slowest]:.1f} ms ({timed[slowest].name})",
                ]
            )
    print(
        markdown_table(
            [
                "workload",
                "queries timed",
                "y0 raised (not timed)",
                "identified",
                "decisions differ",
                "tool",
                "median",
                "total",
                "y0 total / this",
                "p99 of this / y0 per query",
                "slowest",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    main()
