"""Card tables for ``cladder_pairs``, computed from the built records."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from causal_datasets.cladder_pairs.records import CladderPair, SyntheticLatentRow, SyntheticPair
from causal_datasets.docalc.baselines import mean, surface_scores
from causal_datasets.markdown import markdown_table


def _count_table(headers: list[str], values: Iterable[str | int | None]) -> str:
    """A two-column table: each distinct value, in order, and how often it occurs."""
    return markdown_table(headers, sorted(Counter(values).items()))


def synthetic_tables(rows: Sequence[SyntheticPair]) -> dict[str, str]:
    by_length = Counter((r.rule_applications, r.equivalent) for r in rows)
    lengths = sorted({length for length, _ in by_length})
    length_table = markdown_table(
        ["rule applications", "equivalent pairs", "non-equivalent pairs"],
        [[length or "— (negative)", by_length[(length, True)], by_length[(length, False)]] for length in lengths],
    )
    rules = Counter(step.rule for r in rows for step in r.proof)
    rule_table = markdown_table(["rule", "uses in proofs"], sorted(rules.items(), key=lambda kv: (-kv[1], kv[0])))
    kind_table = _count_table(["mistake", "pairs"], (r.negative_kind for r in rows if not r.equivalent))
    size_table = _count_table(["nodes", "pairs"], (r.num_nodes for r in rows))
    return {
        "synthetic_lengths": length_table,
        "synthetic_rules": rule_table,
        "synthetic_negatives": kind_table,
        "synthetic_sizes": size_table,
        "synthetic_vs_paper": paper_comparison_table(rows),
    }


#: DoVerifier §4.1's figures for its synthetic set ("over 10,000 expression pairs")
PAPER_SYNTHETIC = {
    "edges": "mean 7, min 3, max 10",
    "rule 1": "21,172",
    "rule 2": "29,563",
    "rule 3": "22,508",
    "nodes": "at most 10 (random DAGs, edge probability 0.5)",
    "walks": "1–4 rule applications",
}


def paper_comparison_table(rows: Sequence[SyntheticPair]) -> str:
    """The equivalent pairs' graphs and proofs beside DoVerifier §4.1's statistics of its synthetic set."""
    positives = [r for r in rows if r.equivalent]
    edges = [len(r.edges) for r in positives]
    uses = Counter(step.rule.split(":")[0] for r in positives for step in r.proof)
    lengths = [r.rule_applications for r in positives]
    do_calculus = sum(uses[f"rule {n}"] for n in (1, 2, 3))
    ours = {
        "nodes": f"{min(r.num_nodes for r in positives)}–{max(r.num_nodes for r in positives)}" if positives else "–",
        "edges": (
            f"mean {mean(edges):.1f}, min {min(edges)}, max {max(edges)}; {edges.count(0):,} graphs without an edge"
        )
        if edges
        else "–",
        **{f"rule {n}": f"{uses[f'rule {n}']:,}" for n in (1, 2, 3)},
        "walks": f"{min(lengths)}–{max(lengths)} rule applications, {sum(uses.values()):,} in all, {do_calculus:,} of "
        "them do-calculus rules"
        if lengths
        else "–",
    }
    names = {
        "nodes": "nodes per graph",
        "edges": "edges per graph",
        "rule 1": "rule 1 uses",
        "rule 2": "rule 2 uses",
        "rule 3": "rule 3 uses",
        "walks": "rewrite walk",
    }
    return markdown_table(
        [f"equivalent pairs ({len(positives):,})", "this config", "DoVerifier §4.1"],
        [[names[key], ours[key], PAPER_SYNTHETIC[key]] for key in names],
    )


def surface_baselines(rows: Sequence[SyntheticPair]) -> dict[bool, dict[str, float]]:
    """DoVerifier App. I on pairs: per label, the pairs, the share string match calls equal, mean BLEU
    and token F1 of ``expr_b`` against ``expr_a``, and the lowest and highest token F1."""
    table = {}
    for label in (True, False):
        scores = [surface_scores(r.expr_b, r.expr_a) for r in rows if r.equivalent is label]
        f1 = [s["token_f1"] for s in scores]
        table[label] = {
            "pairs": len(scores),
            "string_match": mean([s["string_match"] for s in scores]),
            "bleu": mean([s["bleu"] for s in scores]),
            "token_f1": mean(f1),
            "token_f1_min": min(f1, default=0.0),
            "token_f1_max": max(f1, default=0.0),
        }
    return table


def baseline_table(rows: Sequence[SyntheticPair]) -> str:
    """:func:`surface_baselines` as the card's table (the labels are the verifier's verdicts)."""
    table = surface_baselines(rows)
    return markdown_table(
        ["pairs", "count", "string match says equal", "mean BLEU", "mean token F1", "token F1 range"],
        [
            [
                "equivalent" if label else "not equivalent",
                t["pairs"],
                f"{t['string_match']:.1%}",
                f"{t['bleu']:.3f}",
                f"{t['token_f1']:.3f}",
                f"{t['token_f1_min']:.2f}–{t['token_f1_max']:.2f}",
            ]
            for label, t in table.items()
        ],
    )


def cladder_tables(rows: Sequence[CladderPair]) -> dict[str, str]:
    pairs = [r for r in rows if r.pair_kind == "formal_vs_estimand"]
    groups: dict[tuple, list[CladderPair]] = defaultdict(list)
    for r in pairs:
        groups[(r.rung, r.query_type)].append(r)
    query_rows = []
    for (rung, query), members in sorted(groups.items()):
        numeric = [r for r in members if r.numbers_agree is not None]
        diffs = [
            abs(r.estimand_value - r.cladder_groundtruth)
            for r in numeric
            if r.estimand_value is not None and r.cladder_groundtruth is not None
        ]
        query_rows.append(
            [
                rung,
                query,
                len(members),
                sum(r.equivalent for r in members),
                len(numeric),
                sum(r.numbers_agree is True for r in numeric),
                max(diffs) if diffs else "—",
            ]
        )
    query_table = markdown_table(
        [
            "rung",
            "query type",
            "pairs",
            "equivalent",
            "with CLadder model",
            "estimand = groundtruth (±1e-6)",
            "max abs difference",
        ],
        query_rows,
    )
    family = Counter((r.graph_id, r.equivalent) for r in pairs)
    families = sorted({g for g, _ in family})
    family_table = markdown_table(
        ["graph family", "equivalent", "not equivalent"], [[g, family[(g, True)], family[(g, False)]] for g in families]
    )
    distinct: dict[tuple[str, str, str, str], CladderPair] = {}
    for r in pairs:
        distinct.setdefault((r.graph_id, r.query_type, r.canonical_a, r.canonical_b), r)
    verdict_table = markdown_table(
        ["graph", "query", "formal form", "estimand", "verdict", "method", "proof steps"],
        [
            [g, q, a, b, "equivalent" if r.equivalent else "not equivalent", r.method, len(r.proof) or "—"]
            for (g, q, a, b), r in sorted(distinct.items())
        ],
    )
    negatives = Counter((r.pair_kind, r.graph_id) for r in rows if r.pair_kind != "formal_vs_estimand")
    negative_table = markdown_table(
        ["mistake", "graph family", "pairs"], [[k, g, n] for (k, g), n in sorted(negatives.items())]
    )
    proof_table = _count_table(["proof steps", "pairs"], (len(r.proof) for r in rows if r.method == "proof"))
    return {
        "cladder_queries": query_table,
        "cladder_families": family_table,
        "cladder_verdicts": verdict_table,
        "cladder_negatives": negative_table,
        "cladder_proof_lengths": proof_table,
    }


def latent_query_table(rows: Sequence[SyntheticLatentRow]) -> str:
    """``synthetic_latent``: queries per graph size, how many are identifiable (conditional ones apart), and the
    derivations' lengths."""
    table = []
    for size in sorted({r.num_nodes for r in rows}):
        group = [r for r in rows if r.num_nodes == size]
        identified = [r for r in group if r.identifiable]
        steps = sorted(r.derivation_steps for r in identified)
        table.append(
            [
                size,
                len(group),
                len(identified),
                sum(r.algorithm == "IDC" for r in group),
                sum(r.algorithm == "IDC" and r.identifiable for r in group),
                f"{steps[len(steps) // 2]} ({steps[0]}–{steps[-1]})" if steps else "—",
            ]
        )
    return markdown_table(
        [
            "nodes",
            "queries",
            "identifiable",
            "conditional (IDC)",
            "conditional, identifiable",
            "derivation steps: median (range)",
        ],
        table,
    )
