"""Dataset rows for ``cladder_pairs``: synthetic pairs, CLadder pairs and CLadder questions as typed records."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, fields

from causal_datasets.docalc.cladder import (
    NUMBER_TOLERANCE,
    CladderQuestion,
    candidate_mistakes,
    estimand_value,
    formal_expression,
    try_parse,
)
from causal_datasets.docalc.decide import Counterexample
from causal_datasets.docalc.expr import Expr, variables
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.search import Proof, SearchLimits
from causal_datasets.docalc.synthetic import generate_pairs
from causal_datasets.docalc.verdict import UnsoundProof, Verdict, check_equivalence, check_proof
from causal_datasets.records.cladder_pairs import CladderPair, CladderQuestionRow, Edge, ProofStepRow, SyntheticPair


def _edges(graph: DoGraph) -> list[Edge]:
    return [Edge(source=s, target=t) for s, t in graph.edges]


def _proof_rows(proof: Proof | None) -> list[ProofStepRow]:
    return [ProofStepRow(**asdict(step)) for step in proof.steps] if proof else []


def _counterexample_json(cx: Counterexample | None) -> str | None:
    # the fields as they are: asdict would deep-copy the model's tables first
    return json.dumps({f.name: getattr(cx, f.name) for f in fields(cx)}, sort_keys=True) if cx else None


def synthetic_rows(seed: int, count: int) -> list[SyntheticPair]:
    """``count`` proved pairs plus their verified negatives, ids in generation order."""
    rows = []
    for number, pair in enumerate(generate_pairs(seed, count)):
        rows.append(
            SyntheticPair(
                id=f"synthetic-{number:05d}",
                num_nodes=len(pair.graph.nodes),
                nodes=list(pair.graph.nodes),
                edges=_edges(pair.graph),
                expr_a=pair.a.text,
                expr_b=pair.b.text,
                equivalent=pair.equivalent,
                rule_applications=len(pair.proof) if pair.proof else 0,
                proof=_proof_rows(pair.proof),
                negative_kind=pair.negative_kind,
                counterexample_json=_counterexample_json(pair.counterexample),
            )
        )
    return rows


#: proof search bounded by nodes only (no wall-clock limit), so rebuilds and task scores are reproducible
PROOF_LIMITS = SearchLimits(max_depth=4, max_nodes=3000, time_limit=600.0)


class _Verifier:
    """check_equivalence memoized per (a, b, graph): CLadder repeats a few dozen distinct pairs.
    Gives the verdict with its proof rows and counterexample JSON."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.cache: dict[tuple[str, str, str], tuple[Verdict, list[ProofStepRow], str | None]] = {}

    def __call__(self, a: Expr, b: Expr, graph: DoGraph) -> tuple[Verdict, list[ProofStepRow], str | None]:
        key = (a.text, b.text, graph.edge_text() + "|" + ",".join(sorted(graph.latent)))
        if key not in self.cache:
            verdict = check_equivalence(a, b, graph, seed=self.seed, limits=PROOF_LIMITS)
            if verdict.proof is not None:
                check_proof(verdict.proof, graph, seed=self.seed)
            if verdict.equivalent is None and not verdict.invalid:
                raise UnsoundProof(f"CLadder pair {key} could not be decided: {verdict.error}")
            self.cache[key] = (verdict, _proof_rows(verdict.proof), _counterexample_json(verdict.counterexample))
        return self.cache[key]


def cladder_rows(questions: Sequence[CladderQuestion], seed: int) -> list[CladderPair]:
    """One row per question (of :func:`~.cladder.read_questions`) with an expression pair, then the verified hard negatives."""
    verify = _Verifier(seed)
    rows = [row for q in questions if (row := _pair_row(q, verify)) is not None]
    return rows + list(_negative_rows(questions, verify))


def _pair_row(q: CladderQuestion, verify: _Verifier, kind: str = "formal_vs_estimand", wrong: Expr | None = None):
    a, b = formal_expression(q), wrong if wrong is not None else try_parse(q.estimand)
    if a is None or b is None:
        return None
    verdict, proof_rows, counterexample = verify(a, b, q.graph)
    if verdict.invalid and kind == "formal_vs_estimand" and uses_unobserved(b, q.graph):
        # CLadder's own estimand adjusts for a variable its story calls unobserved (the arrowhead natural
        # effects and V2): the pair is still an identity to label, on the same DAG with every node modeled
        verdict, proof_rows, counterexample = verify(a, b, all_observed(q.graph))
    if verdict.invalid:  # e.g. a candidate mistake that adjusts for the unobserved V1: no estimand at all
        return None
    value = estimand_value(b, q) if kind == "formal_vs_estimand" else None
    agree = None if value is None or q.groundtruth is None else abs(value - q.groundtruth) <= NUMBER_TOLERANCE
    suffix = "" if kind == "formal_vs_estimand" else f"-{kind}-{b.text}"
    return CladderPair(
        id=f"{q.source_file}-{q.question_id}{suffix}",
        **_question_fields(q),
        pair_kind=kind,
        expr_a=q.formal_form,
        expr_b=q.estimand if wrong is None else b.text,
        canonical_a=verdict.a,
        canonical_b=verdict.b,
        equivalent=bool(verdict.equivalent),
        method=verdict.method,
        proof=proof_rows,
        counterexample_json=counterexample,
        cladder_groundtruth=q.groundtruth,
        estimand_value=value,
        numbers_agree=agree,
    )


def uses_unobserved(e: Expr, graph: DoGraph) -> bool:
    """Whether ``e`` names a node ``graph`` marks as latent."""
    return bool(variables(e) & graph.latent)


def all_observed(graph: DoGraph) -> DoGraph:
    """The same DAG with no node latent (kept, like the family graphs, so verdicts and models are cached once)."""
    if graph.latent and "all_observed" not in graph._cache:
        graph._cache["all_observed"] = DoGraph(graph.nodes, graph.edges, frozenset(), dict(graph.domains))
    return graph._cache.get("all_observed", graph)


def _question_fields(q: CladderQuestion) -> dict:
    """The fields every CLadder-derived row carries: where the question comes from, its slices, its graph."""
    return {
        "source_file": q.source_file, "question_id": q.question_id, "desc_id": q.desc_id, "story_id": q.story_id,
        "graph_id": q.graph_id, "query_type": q.query_type, "rung": q.rung,
        "nodes": list(q.graph.nodes), "edges": _edges(q.graph), "latent": sorted(q.graph.latent),
    }


def _negative_rows(questions: Iterable[CladderQuestion], verify: _Verifier):
    """For every ATE question: each candidate mistake that the verifier refutes under its graph."""
    ate = [q for q in questions if q.query_type == "ate" and try_parse(q.estimand) is not None]
    estimands: dict[str, Expr] = {}
    for q in ate:
        estimands.setdefault(q.graph_id, try_parse(q.estimand))
    for q in ate:
        ids = set()
        for kind, wrong in candidate_mistakes(q.graph_id, estimands):
            row = _pair_row(q, verify, kind, wrong)
            if row is not None and not row.equivalent and row.id not in ids:
                ids.add(row.id)
                yield row


def question_rows(questions: Sequence[CladderQuestion]) -> list[CladderQuestionRow]:
    """One row per CLadder question whose formal form and estimand both parse, in file order."""
    rows = []
    for q in questions:
        if try_parse(q.formal_form) is None or try_parse(q.estimand) is None:
            continue
        rows.append(
            CladderQuestionRow(
                id=f"{q.source_file}-{q.question_id}",
                **_question_fields(q),
                background=q.background,
                legend=q.legend,
                given_info=q.given_info,
                question=q.question,
                formal_form=q.formal_form,
                estimand=q.estimand,
                answer=q.answer,
            )
        )
    return rows
