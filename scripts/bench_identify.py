"""Benchmark: ``identify`` (ID / IDC with its derivation) beside y0's ``identify_outcomes`` on the same queries,
in one run: y0's example catalogue, random ADMGs of 4-8 nodes (the tests' seeded generator) and long
graphs (a chain of 20, 40, 80 mediators).

    .venv/bin/python scripts/bench_identify.py [--random 200] [--seed 35] [--repeats 3] [--long 20,40,80]
        [--old /tmp/old]

Needs the ``y0`` extra (``pip install -e '.[y0]'``). Each query is timed best-of-``repeats`` for each
tool, the tools interleaved query by query so both see the same machine load. ``ours`` builds the
derivation without checking it (``check=False``); ``ours+check`` checks every step (the default of
``identify``). With ``--old`` (a source tree, e.g. ``git archive e881281 causal_datasets | tar -x -C
/tmp/old``), ``ours+check, old`` is the same call timed by that tree's code in a subprocess (with
``PYTHONPATH``) just before the workload's queries. Graph conversion is outside the timings.
"p50 / p99 of this / y0 per query": the median and 99th percentile over the queries of the tool's time
divided by y0's on the same query.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import warnings
from itertools import pairwise
from pathlib import Path

import networkx as nx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after PYTHONPATH (--old): the tests' catalogue and random ADMGs

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


def time_checked(queries: list[list[str]], repeats: int) -> list[float]:
    """Best-of-``repeats`` seconds of ``identify(query, graph)`` (with its checks) per ``[query, graph]``."""
    return [best_of(lambda q=q, g=g: identify(q, g), repeats)[0] for q, g in queries]


def time_old(old: str, queries: list[list[str]], repeats: int) -> list[float]:
    """:func:`time_checked` run by the code of the source tree ``old`` in a subprocess."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [old, os.environ.get("PYTHONPATH")])))
    command = [sys.executable, __file__, "--time-checked", "--repeats", str(repeats)]
    done = subprocess.run(command, input=json.dumps(queries), env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--random", type=int, default=200, help="random ADMG queries (default 200)")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--long", default="20,40,80", help="sizes of the long graphs (comma-separated)")
    parser.add_argument("--old", help="a source tree whose identify (with checks) is timed beside")
    parser.add_argument("--time-checked", action="store_true", help=argparse.SUPPRESS)  # the --old subprocess
    args = parser.parse_args()
    warnings.filterwarnings("ignore")  # y0's deprecation warnings
    if args.time_checked:
        print(json.dumps(time_checked(json.load(sys.stdin), args.repeats)))
        return
    rows = []
    for name, cases in workloads(args.random, args.seed, [int(n) for n in args.long.split(",") if n]).items():
        if not cases:
            continue
        tools = ["ours", "ours+check"] + (["ours+check, old"] if args.old else []) + ["y0"]
        times: dict[str, list[float]] = {tool: [] for tool in tools}
        timed: list[Case] = []
        identified = disagreements = failures = 0
        if args.old:
            old_times = iter(time_old(args.old, [[case.query, text] for case, text in cases], args.repeats))
        for case, text in cases:
            old_seconds = next(old_times) if args.old else None
            try:
                seconds, theirs = best_of(lambda case=case: y0_identify(case), args.repeats)
            except (KeyError, nx.NetworkXError):  # y0 0.2.11 on a graph with a node without edges
                failures += 1
                continue
            times["y0"].append(seconds)
            timed.append(case)
            seconds, ours = best_of(lambda q=case.query, g=text: identify(q, g, check=False), args.repeats)
            times["ours"].append(seconds)
            times["ours+check"].append(time_checked([[case.query, text]], args.repeats)[0])
            if old_seconds is not None:
                times["ours+check, old"].append(old_seconds)
            identified += ours.identifiable
            disagreements += ours.identifiable is not (theirs is not None)
        total = {tool: sum(values) for tool, values in times.items()}
        for tool, values in times.items():
            slowest = max(range(len(values)), key=values.__getitem__)
            ranked = sorted((ours / y0, case.name) for ours, y0, case in zip(values, times["y0"], timed, strict=True))
            ratios, names = [r for r, _ in ranked], [n for _, n in ranked]
            p99 = min(len(ratios) - 1, int(0.99 * len(ratios)))
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
                    f"{statistics.median(ratios):.1f}×",
                    f"{ratios[p99]:.1f}× ({names[p99]})",
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
                "p50 of this / y0 per query",
                "p99 of this / y0 per query (query)",
                "slowest",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    main()
