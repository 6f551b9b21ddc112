"""Inter-annotator agreement: a second transcription of the same diagrams against the first (the gold).

``python -m causal_datasets.recast.raw.agreement GOLD_DIR SECOND_DIR`` reads the annotation files
(``source -> sink`` lines, :mod:`~causal_datasets.recast.raw.annotation`) that the two folders
share by name and prints the paper's two tables (App. Tables 4 and 5): per diagram the nodes, edges
and the node and edge false positives (in the second, not the gold) and false negatives; then per
category (nodes, edges, both together) the mean ± population SD over diagrams of precision,
recall, F1, SHD (false positives + false negatives) and normalized SHD (SHD / gold items), and for
edges Cohen's κ over every ordered pair of distinct node names (an edge or not: the negatives of
a graph are its non-edges, which nodes lack). The pooled edge precision, recall, F1 and κ over all
diagrams follow, as the paper's main text reports them.

Names are compared exactly (``--matching normalized``: case, punctuation and plural ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean, pstdev
from typing import Literal

from causal_datasets.agreement import cohen_kappa_counts
from causal_datasets.markdown import markdown_table
from causal_datasets.recast.raw.annotation import read_annotation
from causal_datasets.scoring.node_matching import normalize_name

Matching = Literal["exact", "normalized"]
CATEGORIES = ("nodes", "edges", "combined")
MEASURES = ("precision", "recall", "f1", "shd", "normalized_shd", "kappa")


@dataclass(frozen=True)
class Counts:
    """Items both annotators have (``tp``), only the second (``fp``) and only the gold (``fn``)."""

    tp: int
    fp: int
    fn: int

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def scores(self) -> dict[str, float | None]:
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else None
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else None
        f1 = 2 * self.tp / (2 * self.tp + self.fp + self.fn) if self.tp + self.fp + self.fn else None
        gold = self.tp + self.fn
        shd = self.fp + self.fn
        return {
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "shd": shd,
            "normalized_shd": shd / gold if gold else None,
        }


@dataclass(frozen=True)
class GraphAgreement:
    """One diagram: the gold's size, node and edge counts, and the ordered pairs the edge κ runs over."""

    name: str
    gold_nodes: int
    gold_edges: int
    nodes: Counts
    edges: Counts
    pairs: int

    @property
    def edge_kappa(self) -> float | None:
        tn = self.pairs - self.edges.tp - self.edges.fp - self.edges.fn
        return cohen_kappa_counts(self.edges.tp, self.edges.fp, self.edges.fn, tn)

    def scores(self, category: str) -> dict[str, float | None]:
        counts = {"nodes": self.nodes, "edges": self.edges, "combined": self.nodes + self.edges}[category]
        return counts.scores() | {"kappa": self.edge_kappa if category == "edges" else None}


def compare(
    name: str, gold: Iterable[tuple[str, str]], second: Iterable[tuple[str, str]], matching: Matching = "exact"
) -> GraphAgreement:
    """Agreement of two edge lists of one diagram (repeated edges count once; nodes are the edges' ends)."""
    key = (lambda n: n) if matching == "exact" else normalize_name
    gold_edges = {(key(s), key(t)) for s, t in gold}
    second_edges = {(key(s), key(t)) for s, t in second}
    gold_nodes = {n for edge in gold_edges for n in edge}
    second_nodes = {n for edge in second_edges for n in edge}
    names = len(gold_nodes | second_nodes)
    return GraphAgreement(
        name=name,
        gold_nodes=len(gold_nodes),
        gold_edges=len(gold_edges),
        nodes=_counts(gold_nodes, second_nodes),
        edges=_counts(gold_edges, second_edges),
        pairs=names * (names - 1) + len({(s, t) for s, t in gold_edges | second_edges if s == t}),
    )


def _counts(gold: set, second: set) -> Counts:
    return Counts(tp=len(gold & second), fp=len(second - gold), fn=len(gold - second))


def compare_folders(
    gold_dir: Path, second_dir: Path, matching: Matching = "exact"
) -> tuple[list[GraphAgreement], list[str]]:
    """Every annotation file the two folders share (by file name, sorted) and the names only one has."""
    gold = {p.name: p for p in Path(gold_dir).iterdir() if p.is_file()}
    second = {p.name: p for p in Path(second_dir).iterdir() if p.is_file()}
    graphs = [
        compare(Path(name).stem, read_annotation(gold[name]).edges, read_annotation(second[name]).edges, matching)
        for name in sorted(gold.keys() & second.keys())
    ]
    return graphs, sorted(gold.keys() ^ second.keys())


def summary(graphs: Sequence[GraphAgreement]) -> dict[str, dict[str, dict[str, float | None]]]:
    """Per category and measure: mean and population SD over the diagrams where it is defined."""
    table: dict[str, dict[str, dict[str, float | None]]] = {}
    for category in CATEGORIES:
        table[category] = {}
        for measure in MEASURES:
            values = [v for g in graphs if (v := g.scores(category)[measure]) is not None]
            table[category][measure] = {
                "mean": fmean(values) if values else None,
                "sd": pstdev(values) if values else None,
            }
    return table


def pooled_edges(graphs: Sequence[GraphAgreement]) -> dict[str, float | int | None]:
    """Edge agreement over all diagrams' edges and pairs at once (the paper's main-text figures)."""
    counts = sum((g.edges for g in graphs), Counts(0, 0, 0))
    tn = sum(g.pairs for g in graphs) - counts.tp - counts.fp - counts.fn
    return {
        "tp": counts.tp,
        "fp": counts.fp,
        "fn": counts.fn,
        **counts.scores(),
        "kappa": cohen_kappa_counts(counts.tp, counts.fp, counts.fn, tn),
    }


def per_graph_markdown(graphs: Sequence[GraphAgreement]) -> str:
    counts = [[g.gold_nodes, g.gold_edges, g.nodes.fp, g.nodes.fn, g.edges.fp, g.edges.fn] for g in graphs]
    totals = [sum(row[i] for row in counts) for i in range(6)]
    rows = [[g.name, *row] for g, row in zip(graphs, counts, strict=True)] + [["total", *totals]]
    return markdown_table(["diagram", "nodes", "edges", "node FP", "node FN", "edge FP", "edge FN"], rows)


def summary_markdown(graphs: Sequence[GraphAgreement]) -> str:
    table = summary(graphs)
    cell = lambda s: "N/A" if s["mean"] is None else f"{s['mean']:.4f} ± {s['sd']:.4f}"  # noqa: E731
    rows = [[category, *(cell(table[category][m]) for m in MEASURES)] for category in CATEGORIES]
    return markdown_table(["category", "precision", "recall", "F1", "SHD", "normalized SHD", "Cohen's κ"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m causal_datasets.recast.raw.agreement",
        description="Agreement of a second transcription of ReCAST diagrams with the first.",
    )
    parser.add_argument("gold", type=Path, help="folder of the first (gold) annotation files")
    parser.add_argument("second", type=Path, help="folder of the second annotator's files (same file names)")
    parser.add_argument(
        "--matching", choices=("exact", "normalized"), default="exact", help="how node names are compared"
    )
    parser.add_argument("--json", type=Path, help="also write every number as JSON to this file")
    args = parser.parse_args(argv)
    for folder in (args.gold, args.second):
        if not folder.is_dir():
            parser.error(f"{folder} is not a folder")
    graphs, unmatched = compare_folders(args.gold, args.second, args.matching)
    if not graphs:
        parser.error(f"{args.gold} and {args.second} share no annotation file")
    print(per_graph_markdown(graphs), summary_markdown(graphs), sep="\n\n")
    pooled = pooled_edges(graphs)
    print(
        "\nedges over all diagrams: "
        + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in pooled.items())
    )
    if unmatched:
        print(f"only in one folder (not compared): {', '.join(unmatched)}")
    if args.json:
        document = {
            "graphs": [{"name": g.name, **{c: g.scores(c) for c in CATEGORIES}} for g in graphs],
            "summary": summary(graphs),
            "pooled_edges": pooled,
            "unmatched": unmatched,
        }
        staged = args.json.with_name(f".{args.json.name}.partial")
        staged.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        os.replace(staged, args.json)  # a reader sees the old file or the whole new one
    return 0


if __name__ == "__main__":
    sys.exit(main())
