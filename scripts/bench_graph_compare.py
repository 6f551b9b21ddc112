"""Speed of compare_graphs against gadjid's shd, and ReCAST-sized throughput (prints a Markdown report).

1. Random sparse DAGs with n = |E| = 1,000 / 20,000 / 100,000, prediction = reference with 5% of
   edges deleted and 5% reversed. gadjid (Rust) is timed on the input it prefers, an int8
   ``scipy.sparse.csr_matrix``; compare_graphs on the same csr matrices, and on the edge lists
   a language model or a dataset gives (``(name, name)`` pairs and ``{"source", "target"}`` dicts),
   with gadjid's end-to-end time from those lists (name → index table + csr build + shd) beside it.
2. 100,000 comparisons of ReCAST-sized graphs (25 nodes, 37 edges, dict edges) through
   compare_graphs, compare_graph_batch and the evaluate module on one core: one ``compute`` call
   (the package's BatchMetric hands the batch straight to the module) and evaluate's incremental
   path (``add_batch`` then ``compute()``, through Arrow).

Times are the best of ``--repeats`` runs (section 1) and CPU seconds of this process
(``time.process_time``; the machine may be shared) for section 2.

    .venv/bin/python scripts/bench_graph_compare.py [--repeats 5] [--comparisons 100000]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
from collections.abc import Callable
from functools import partial
from importlib.metadata import version

import evaluate
import gadjid
import numpy as np
import scipy.sparse as sp
from timing import best_of

from causal_datasets import compare_graph_batch, compare_graphs
from causal_datasets.markdown import markdown_table
from causal_datasets.paths import metric_path


def sparse_pair(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(reference sources, targets, prediction sources, targets): n DAG edges i<j, 5% deleted, 5% reversed."""
    keys: np.ndarray = np.empty(0, dtype=np.int64)
    while keys.size < n:
        a, b = rng.integers(0, n, size=(2, 2 * n))
        low, high = np.minimum(a, b), np.maximum(a, b)
        fresh = low[low < high].astype(np.int64) * n + high[low < high]
        keys = np.unique(np.concatenate([keys, fresh]))
    keys = rng.permutation(keys)[:n]
    source, target = keys // n, keys % n
    cut = n // 20
    pred_source, pred_target = source[cut:].copy(), target[cut:].copy()
    pred_source[:cut], pred_target[:cut] = target[cut : 2 * cut], source[cut : 2 * cut]
    return source, target, pred_source, pred_target


def gadjid_from_pairs(prediction: list[tuple[str, str]], reference: list[tuple[str, str]]) -> int:
    """What a gadjid user with named edges has to do: index the names, build csr matrices, call shd."""
    index: dict[str, int] = {}
    for edges in (reference, prediction):
        for source, target in edges:
            index.setdefault(source, len(index))
            index.setdefault(target, len(index))
    n = len(index)

    def matrix(edges: list[tuple[str, str]]) -> sp.csr_matrix:
        rows = np.fromiter((index[s] for s, _ in edges), dtype=np.int64, count=len(edges))
        cols = np.fromiter((index[t] for _, t in edges), dtype=np.int64, count=len(edges))
        return sp.csr_matrix((np.ones(len(edges), dtype=np.int8), (rows, cols)), shape=(n, n))

    return gadjid.shd(matrix(reference), matrix(prediction))[1]


def large_graphs(sizes: list[int], repeats: int) -> list[dict]:
    rng = np.random.default_rng(2024)
    rows = []
    for n in sizes:
        source, target, pred_source, pred_target = sparse_pair(n, rng)
        reference = sp.csr_matrix((np.ones(source.size, np.int8), (source, target)), shape=(n, n))
        prediction = sp.csr_matrix((np.ones(pred_source.size, np.int8), (pred_source, pred_target)), shape=(n, n))
        ref_pairs = [(f"v{s}", f"v{t}") for s, t in zip(source.tolist(), target.tolist(), strict=True)]
        pred_pairs = [(f"v{s}", f"v{t}") for s, t in zip(pred_source.tolist(), pred_target.tolist(), strict=True)]
        ref_dicts = [{"source": s, "target": t} for s, t in ref_pairs]
        pred_dicts = [{"source": s, "target": t} for s, t in pred_pairs]

        t_gadjid, (_, shd_gadjid) = best_of(partial(gadjid.shd, reference, prediction), repeats)
        t_csr, ours_csr = best_of(partial(compare_graphs, prediction, reference), repeats)
        t_pairs, ours_pairs = best_of(partial(compare_graphs, pred_pairs, ref_pairs), repeats)
        t_dicts, ours_dicts = best_of(partial(compare_graphs, pred_dicts, ref_dicts), repeats)
        t_gadjid_pairs, shd_gadjid_pairs = best_of(partial(gadjid_from_pairs, pred_pairs, ref_pairs), repeats)
        shds = {shd_gadjid, ours_csr.shd, ours_pairs.shd, ours_dicts.shd, shd_gadjid_pairs}
        if len(shds) != 1:
            raise AssertionError(f"n={n}: SHDs disagree: {shds}")
        rows.append(
            {
                "n = edges": f"{n:,}",
                "SHD": f"{shd_gadjid:,}",
                "gadjid csr (ms)": f"{t_gadjid * 1e3:.2f}",
                "ours csr (ms)": f"{t_csr * 1e3:.2f}",
                "ratio csr": f"{t_csr / t_gadjid:.2f}",
                "ours name pairs (ms)": f"{t_pairs * 1e3:.1f}",
                "ours dicts (ms)": f"{t_dicts * 1e3:.1f}",
                "gadjid from name pairs (ms)": f"{t_gadjid_pairs * 1e3:.1f}",
                "ratio name pairs": f"{t_pairs / t_gadjid_pairs:.2f}",
            }
        )
    return rows


def recast_sized_pairs(count: int, seed: int = 7) -> tuple[list, list]:
    """``count`` (prediction, reference) pairs of 25-node, 37-edge graphs (dict edges), a few edits each."""
    rng = random.Random(seed)
    names = [f"economic variable {i}" for i in range(25)]
    pool_predictions, pool_references = [], []
    for _ in range(1000):
        pairs = rng.sample([(a, b) for a in names for b in names if a != b], 40)
        reference, spare = pairs[:37], pairs[37:]
        prediction = reference[3:] + [(b, a) for a, b in reference[:2]] + spare
        rng.shuffle(prediction)
        pool_references.append([{"source": a, "target": b} for a, b in reference])
        pool_predictions.append([{"source": a, "target": b} for a, b in prediction])
    predictions = [pool_predictions[i % 1000] for i in range(count)]
    references = [pool_references[i % 1000] for i in range(count)]
    return predictions, references


def cpu_seconds(function: Callable[[], object]) -> tuple[float, float, object]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = function()
    return time.process_time() - cpu, time.perf_counter() - wall, result


def incremental(metric: evaluate.EvaluationModule, predictions: list, references: list) -> dict:
    """evaluate's own path: the batch written to Arrow and read back before the module computes."""
    metric.add_batch(predictions=predictions, references=references)
    return metric.compute()


def throughput(count: int) -> list[dict]:
    predictions, references = recast_sized_pairs(count)
    metric = evaluate.load(metric_path("causal_graph_metrics"), keep_in_memory=True)
    runs = {
        "compare_graphs (loop)": lambda: [compare_graphs(p, r) for p, r in zip(predictions, references, strict=True)],
        "compare_graph_batch": lambda: compare_graph_batch(predictions, references),
        "evaluate module .compute (one call: no Arrow)": lambda: metric.compute(
            predictions=predictions, references=references
        ),
        "evaluate module add_batch + compute() (Arrow)": lambda: incremental(metric, predictions, references),
    }
    rows = []
    for name, run in runs.items():
        cpu, wall, _ = cpu_seconds(run)
        rows.append(
            {
                "path": name,
                "comparisons": f"{count:,}",
                "CPU s": f"{cpu:.2f}",
                "wall s": f"{wall:.2f}",
                "comparisons per 10 s (CPU)": f"{count / cpu * 10:,.0f}",
                "µs per comparison": f"{cpu / count * 1e6:.1f}",
            }
        )
    return rows


def table(rows: list[dict]) -> str:
    return markdown_table(list(rows[0]), [list(row.values()) for row in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--comparisons", type=int, default=100_000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 20_000, 100_000])
    args = parser.parse_args()
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, gadjid {version('gadjid')}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"\n### Large sparse graphs (best of {args.repeats})\n")
    print(table(large_graphs(args.sizes, args.repeats)))
    print("\n### ReCAST-sized graphs (25 nodes, 37 edges, dict edges)\n")
    print(table(throughput(args.comparisons)))


if __name__ == "__main__":
    main()
