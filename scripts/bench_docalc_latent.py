"""The verifier on random ADMGs: wrong verdicts, undecided share and tail latency, old code beside new.

Pairs come from ``tests/support/admg.py``: random ADMGs, for random queries P(y | do(x)) the ID
formula, its mutations and plausible wrong answers (conditional, back-door adjustments for the
parents or all non-descendants of x), each labelled by the test suite's independent evaluator
(explicit latent variables with ``--latent-values`` values, observed variables with 2 or 3).

* verdicts: every pair verified, verdict only (``prove=False``, with the rewards' 1 s ``time_limit``
  where the code has one, as the rewards run it) by the code of this checkout and — in a subprocess,
  with ``PYTHONPATH`` — by the code of ``--old`` (a source tree, e.g. ``git archive f29bd4a
  causal_datasets | tar -x -C /tmp/old``):
  wrong verdicts against the labels, undecided share, CPU time per pair (median, p99, max, and the
  max without the time Python's garbage collector spent in the pair).
  Each pair's graph is built fresh from its edge list with the pair's numbers of values.
* y0's example catalogue (``--catalogue``, needs the ``y0`` extra): for every query ``identify``
  answers, the query against our estimand and against y0 0.2.11's, verdict only, labelled as
  ``tests/docalc/test_docalc_identify_y0.py`` asserts them (y0's estimand is wrong on four graphs);
* undecided again with the default proof search (1 s limit);
* ``equiv`` start-up: wall time of ``causal-datasets equiv`` on a one-edge graph (median of 5).

    .venv/bin/python scripts/bench_docalc_latent.py --pairs 4000 --old /tmp/old30
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after PYTHONPATH: the test support: the generator and the independent evaluator

from tests.support.admg import Pair, corpus  # noqa: E402


@dataclass(frozen=True)
class _Text:
    """A graph given by its edge text (what :func:`verify` reads of a pair's graph)."""

    edges: str

    def text(self) -> str:
        return self.edges


@dataclass(frozen=True)
class CataloguePair:
    """A query of y0's catalogue against an estimand (expressions, not text: y0's names do not all parse back)."""

    graph: _Text
    a: object
    b: object
    equivalent: bool
    name: str
    domains: dict = field(default_factory=dict)


def catalogue_pairs() -> list[CataloguePair]:
    """The query against our estimand and against y0's, for every catalogue query ``identify`` answers."""
    import warnings

    from causal_datasets.docalc.identification import identify
    from tests.docalc.test_docalc_identify_y0 import Y0_WRONG
    from tests.support.y0_bridge import catalogue, graph_text, to_expr, y0_identify

    warnings.filterwarnings("ignore")  # y0's deprecation warnings
    pairs = []
    for case in catalogue():
        graph = graph_text(case.graph)
        ours = identify(case.query, graph, check=False)
        if not ours.identifiable:
            continue
        theirs = to_expr(y0_identify(case))
        pairs.append(CataloguePair(_Text(graph), case.query, ours.estimand, True, f"{case.name} (ours)"))
        pairs.append(CataloguePair(_Text(graph), case.query, theirs, case.name not in Y0_WRONG, f"{case.name} (y0)"))
    return pairs


def verify(pairs: list[Pair], prove: bool) -> list[tuple[bool | None, float, float]]:
    """(verdict, CPU seconds, of which in Python's garbage collector) per pair, with the code
    importable as ``causal_datasets`` here."""
    import inspect

    from causal_datasets.docalc.graph import DoGraph
    from causal_datasets.docalc.verdict import check_equivalence

    check_equivalence("P(Y | do(X))", "P(Y | X)", "X->Y")  # imports and caches warmed, not timed
    # the budget the rewards use, where the code has one (the code before issue #40 has none)
    budget = {"time_limit": 1.0} if "time_limit" in inspect.signature(check_equivalence).parameters else {}
    collecting = [0.0, 0.0]  # when the running collection started, seconds collected during this pair

    def clock(phase: str, info: dict) -> None:
        if phase == "start":
            collecting[0] = time.process_time()
        else:
            collecting[1] += time.process_time() - collecting[0]

    gc.callbacks.append(clock)
    results = []
    for pair in pairs:
        collecting[1] = 0.0
        start = time.process_time()
        graph = DoGraph.parse(pair.graph.text(), domains=pair.domains)
        verdict = check_equivalence(pair.a, pair.b, graph, prove=prove, **budget)
        results.append((verdict.equivalent, time.process_time() - start, collecting[1]))
    gc.callbacks.remove(clock)
    return results


def run_elsewhere(source: Path, pairs_file: Path, prove: bool) -> list[tuple[bool | None, float, float]]:
    """:func:`verify` in a subprocess importing ``causal_datasets`` from ``source``."""
    environment = {**os.environ, "PYTHONPATH": f"{source}{os.pathsep}{ROOT}"}
    command = [sys.executable, __file__, "--worker", str(pairs_file)] + (["--prove"] if prove else [])
    output = subprocess.run(command, env=environment, capture_output=True, text=True, check=True).stdout
    return [tuple(row) for row in json.loads(output)]


def summary(label: str, pairs: list[Pair], results: list[tuple[bool | None, float, float]]) -> None:
    """Wrong verdicts, undecided share and CPU time per pair; the max again without the time Python's
    garbage collector spent in the pair (a full collection walks the whole process, the corpus included)."""
    times = sorted(t for _, t, _ in results)
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    undecided = sum(v is None for v, _, _ in results)
    wrong = sum(v is not None and v != p.equivalent for (v, _, _), p in zip(results, pairs, strict=True))
    false_equal = sum(v is True and not p.equivalent for (v, _, _), p in zip(results, pairs, strict=True))
    collected = max(results, key=lambda r: r[2])[2]
    print(
        f"{label:<44} n={len(results):>5}  wrong {wrong:>3} (false 'equivalent' {false_equal:>3})  undecided "
        f"{undecided:>3} ({undecided / len(results):.2%})  median {statistics.median(times) * 1e3:6.2f} ms  "
        f"p99 {p99 * 1e3:7.2f} ms  max {times[-1] * 1e3:8.1f} ms  (without garbage collection "
        f"{max(t - c for _, t, c in results) * 1e3:.1f} ms; longest collection {collected * 1e3:.1f} ms)",
        flush=True,
    )


def startup(source: Path | None) -> float:
    """Median wall time of ``causal-datasets equiv`` (5 runs), this checkout's code or ``source``'s."""
    environment = {**os.environ, **({"PYTHONPATH": str(source)} if source else {})}
    command = [sys.executable, "-m", "causal_datasets.cli", "equiv", "P(Y | do(X))", "P(Y | X)", "--graph", "X->Y"]
    walls = []
    # run elsewhere than this checkout: ``-m`` imports from the working directory first
    with tempfile.TemporaryDirectory() as elsewhere:
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run(command, env=environment, capture_output=True, check=False, cwd=elsewhere)
            walls.append(time.perf_counter() - start)
    return statistics.median(walls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pairs", type=int, default=2000, help="labelled pairs on graphs of 4-8 nodes, 0-17 latent edges"
    )
    parser.add_argument(
        "--large", type=int, default=200, help="pairs on graphs of 9-12 nodes, 12-20 latent edges (0: skip)"
    )
    parser.add_argument("--catalogue", action="store_true", help="also y0's catalogue (the y0 extra)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latent-values", default="2,3,4", help="values of the evaluator's latent variables")
    parser.add_argument("--old", type=Path, help="a source tree of the old code (its causal_datasets package)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--prove", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:  # a subprocess: verify the pickled pairs, print (verdict, seconds) as JSON
        print(json.dumps(verify(pickle.loads(args.worker.read_bytes()), args.prove)))
        return

    latent_values = tuple(int(v) for v in args.latent_values.split(","))
    start = time.perf_counter()
    pairs = corpus(
        args.seed, args.pairs, nodes=(4, 8), latent_edges=(0, 17), label_models=3, latent_values=latent_values
    )
    large = (
        corpus(args.seed + 1, args.large, nodes=(9, 12), latent_edges=(12, 20), label_models=2, latent_values=(2, 3))
        if args.large
        else []
    )
    equal = sum(p.equivalent for p in pairs)
    print(
        f"{len(pairs)} pairs ({equal} equivalent by the evaluator) and {len(large)} large-graph pairs generated and "
        f"labelled in {time.perf_counter() - start:.0f} s",
        flush=True,
    )
    listed = catalogue_pairs() if args.catalogue else []
    with tempfile.TemporaryDirectory() as folder:
        pairs_file, large_file = Path(folder) / "pairs.pickle", Path(folder) / "large.pickle"
        pairs_file.write_bytes(pickle.dumps(pairs))
        large_file.write_bytes(pickle.dumps(large))
        if listed:
            listed_file = Path(folder) / "catalogue.pickle"
            listed_file.write_bytes(pickle.dumps(listed))
            for label, source in (("old", args.old), ("new", ROOT)):
                if source is None:
                    continue
                results = run_elsewhere(source, listed_file, prove=False)
                summary(f"{label} code, y0 catalogue, verdict only", listed, results)
                slowest = max(range(len(results)), key=lambda i: results[i][1])
                print(
                    f"  slowest: {listed[slowest].name} {results[slowest][1]:.2f} s; undecided: "
                    + (", ".join(p.name for p, r in zip(listed, results, strict=True) if r[0] is None) or "none")
                )
        if args.old:
            summary("old code, 4-8 nodes, verdict only", pairs, run_elsewhere(args.old, pairs_file, prove=False))
        summary("new code, 4-8 nodes, verdict only", pairs, run_elsewhere(ROOT, pairs_file, prove=False))
        summary("new code, 4-8 nodes, with proof search", pairs, run_elsewhere(ROOT, pairs_file, prove=True))
        if large:
            if args.old:
                summary("old code, 9-12 nodes, verdict only", large, run_elsewhere(args.old, large_file, prove=False))
            summary("new code, 9-12 nodes, verdict only", large, run_elsewhere(ROOT, large_file, prove=False))
    if args.old:
        print(f"equiv start-up (median wall of 5): old {startup(args.old):.2f} s, new {startup(None):.2f} s")
    else:
        print(f"equiv start-up (median wall of 5): {startup(None):.2f} s")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
