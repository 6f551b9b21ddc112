"""DoVerifier in full: what a feedback round, derivation checking and independence reasoning cost; App. I.

1. Feedback: CPU per diagnosis (:func:`diagnose` + :func:`feedback_message`) over every distinct
   CLadder question and five usual wrong answers, the size of a feedback turn, and a whole
   ``eval cladder_pairs --feedback-rounds 2`` against a stub model (wall time per item with 0 and
   2 rounds: everything but the model). ``--local`` adds SmolLM2-135M (llama.cpp) on a few
   questions: wall time and tokens of the first answer and of a feedback round.
2. Derivations: CPU per checked step (:func:`check_derivation`) on the verifier's own proofs of
   every distinct CLadder pair (valid steps) and on the same derivations with one rule name
   changed (invalid steps: the permissive search and the semantic check run too).
3. Independences: CPU per pair when every CLadder family's graph is replaced by all of its
   independences (``complete``) or by a random half of them (partial, proof search).
4. App. I on the synthetic config: string match, BLEU and token F1 per label, verifier verdicts.

    .venv/bin/python scripts/bench_docalc_doverifier.py [--synthetic N] [--questions N] [--local]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from checkout import SHARED_DATA_DIR

from causal_datasets.builder import BuildContext
from causal_datasets.cladder_pairs import build as cladder_build
from causal_datasets.cladder_pairs.cladder import FAMILY_EDGES, family_graph, formal_expression, read_questions
from causal_datasets.cladder_pairs.estimand_task import build_messages, reference_unobserved, score_answer
from causal_datasets.cladder_pairs.feedback import diagnose, feedback_message
from causal_datasets.cladder_pairs.replies import ESTIMAND_FORMAT
from causal_datasets.cladder_pairs.rows import PROOF_LIMITS, question_rows, synthetic_rows
from causal_datasets.cladder_pairs.statistics import baseline_table
from causal_datasets.cli import build_parser
from causal_datasets.commands.eval import settings_from_args
from causal_datasets.docalc.derivation import WrittenStep, check_derivation
from causal_datasets.docalc.independence import Independences, graph_independences
from causal_datasets.docalc.scoring import score_pairs
from causal_datasets.docalc.search import SearchLimits
from causal_datasets.docalc.verdict import check_equivalence
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from causal_datasets.registry import get_builder
from causal_datasets.runners import tasks
from causal_datasets.runners.engine import run_task
from causal_datasets.runners.results import read_results
from tests.support.stub_flags import stub_flags

CLADDER = SHARED_DATA_DIR / "cladder"
CONFOUNDED = "Estimand: P(Y=1|X=1) - P(Y=1|X=0)"


def report(label: str, times: list[float], unit: str = "ms") -> None:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    scale = 1e3 if unit == "ms" else 1e6
    print(
        f"  {label:<58} n={len(times):>5}  median {statistics.median(times) * scale:8.3f} {unit}  "
        f"p99 {p99 * scale:9.3f} {unit}  total {sum(times):6.2f} s"
    )


def distinct(questions):
    """One question per graph family, query type, estimand and formal form, of those ``eval`` asks."""
    found = {}
    for q in questions:
        if not reference_unobserved(q):
            found.setdefault((q.graph_id, q.query_type, q.estimand, q.formal_form), q)
    return list(found.values())


def bench_diagnosis(questions) -> None:
    print("1. feedback")
    others = {}
    for q in questions:
        others.setdefault(q.graph_id, q.estimand)
    times, kinds, sizes = [], Counter(), []
    for q in distinct(questions):
        graph = family_graph(q.graph_id)
        wrong = [
            "P(Y=1|X=1) - P(Y=1|X=0)",
            formal_expression(q).text,
            "P(Y=1|X=",
            None,
            *(e for family, e in others.items() if family != q.graph_id),
        ]
        for answer in wrong:
            if score_answer(answer, q)["identified"] is True:  # the oracle loop's "wrong": not an identified estimand
                continue
            start = time.process_time()
            findings = diagnose(answer, graph, query_type=q.query_type)
            note = feedback_message(findings, ESTIMAND_FORMAT)
            times.append(time.process_time() - start)
            kinds[findings[0].kind if findings else "not_accepted"] += 1
            sizes.append(len(note))
    report("diagnose + feedback_message per wrong answer", times)
    print(f"  first diagnosis: {dict(kinds.most_common())}")
    print(
        f"  feedback turn: {min(sizes)}–{max(sizes)} characters (median {statistics.median(sizes):.0f}); the first "
        f"request is {statistics.median(sum(len(m['content']) for m in build_messages(q)) for q in questions):.0f} "
        "characters (median), so each round adds the answer and about a tenth of the request"
    )


def eval_args(hub: Path, out: Path, base_url: str, *flags: str) -> list[str]:
    return [
        "eval",
        "cladder_pairs",
        "--out",
        str(out),
        "--hub-dir",
        str(hub),
        "--no-cache",
        "--concurrency",
        "1",
        *stub_flags(base_url, cache=True),
        *flags,
    ]


def run(argv: list[str]):
    args = build_parser().parse_args(argv)
    task = tasks()[args.task]
    return run_task(task, settings_from_args(task, args))


def bench_feedback_runs(hub: Path, count: int, local: bool) -> None:
    with (
        StubServer(lambda request, index: StubReply(body=completion_body(CONFOUNDED))) as server,
        tempfile.TemporaryDirectory() as folder,
    ):
        run(
            eval_args(
                hub,
                Path(folder) / "warm",
                server.base_url,
                "--limit",
                str(count),
                "--graph-families",
                "confounding",
                "IV",
            )
        )  # load the dataset, memoize the verdicts
        walls = {}
        for rounds in (0, 2):
            start = time.perf_counter()
            summary = run(
                eval_args(
                    hub,
                    Path(folder) / f"r{rounds}",
                    server.base_url,
                    "--limit",
                    str(count),
                    "--graph-families",
                    "confounding",
                    "IV",
                    "--feedback-rounds",
                    str(rounds),
                )
            )
            walls[rounds] = (time.perf_counter() - start) / summary.items.selected
            calls = summary.usage["model"].calls
        items = read_results(Path(folder) / "r2")
        made = sum(len(i["generation"]["feedback"]) for i in items)
    per_round = (walls[2] - walls[0]) * count / made if made else float("nan")
    print(
        f"  eval, stub model answering the correlation, {count} confounding and IV questions: "
        f"{walls[0] * 1e3:.1f} ms per item without feedback, "
        f"{walls[2] * 1e3:.1f} ms with up to 2 rounds ({made} rounds, {calls} model calls): "
        f"{per_round * 1e3:.1f} ms per round besides the model"
    )
    if local:
        bench_local(hub)


def bench_local(hub: Path) -> None:
    from causal_datasets.llm.local import LocalServer

    with LocalServer() as server, tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        summary = run(
            [
                "eval",
                "cladder_pairs",
                "--out",
                str(Path(folder) / "local"),
                "--hub-dir",
                str(hub),
                "--no-cache",
                "--concurrency",
                "1",
                "--model",
                server.model,
                "--base-url",
                server.base_url,
                "--max-tokens",
                "128",
                "--graph-families",
                "confounding",
                "--query-types",
                "ate",
                "--limit",
                "3",
                "--feedback-rounds",
                "1",
            ]
        )
        wall = time.perf_counter() - start
        items = read_results(Path(folder) / "local")
    usage = summary.usage["model"]
    rounds = sum(len(i["generation"]["feedback"]) for i in items)
    print(
        f"  SmolLM2-135M, 3 confounding ATE questions, 1 round: {wall:.0f} s wall, {usage.calls} calls "
        f"({rounds} feedback rounds), {usage.prompt_tokens} prompt + {usage.completion_tokens} completion tokens; "
        f"accuracy {summary.metrics.accuracy} before, {summary.metrics.accuracy_after_feedback} after"
    )


def bench_derivations(questions) -> None:
    print("2. derivations")
    proofs = []
    for q in distinct(questions):
        proof = check_equivalence(formal_expression(q), q.estimand, family_graph(q.graph_id), limits=PROOF_LIMITS).proof
        if proof is not None and proof.steps:
            proofs.append(
                (q, [WrittenStep(proof.start, None)] + [WrittenStep(s.expression, s.rule) for s in proof.steps])
            )
    for label, change in (("valid steps (the verifier's own proofs)", False), ("a do-calculus rule renamed", True)):
        per_step, statuses = [], Counter()
        for q, steps in proofs:
            if change:
                steps = list(steps)
                at = next((i for i, s in enumerate(steps) if (s.rule or "").startswith("rule")), None)
                if at is None:
                    continue
                renamed = {"1": "rule 2", "2": "rule 3", "3": "rule 1"}[steps[at].rule[5]]
                steps[at] = WrittenStep(steps[at].expression, renamed)
            start = time.process_time()
            score = check_derivation(steps, family_graph(q.graph_id))
            per_step.append((time.process_time() - start) / len(score.steps))
            statuses.update(s.status for s in score.steps)
        report(f"check_derivation per step, {label}", per_step)
        print(f"  {len(per_step)} derivations, steps: {dict(statuses)}")


def bench_independences(questions) -> None:
    print("3. independences in place of the CLadder graphs")
    rng = random.Random(0)
    pairs = [(q.graph_id, formal_expression(q), q.estimand) for q in distinct(questions)]
    for mode in ("complete", "partial"):
        times, outcomes = [], Counter()
        for family in FAMILY_EDGES:
            graph = family_graph(family)
            statements = graph_independences(graph)
            if mode == "partial":
                statements = rng.sample(statements, (len(statements) + 1) // 2)
            for graph_id, a, b in pairs:
                if graph_id != family:
                    continue
                start = time.process_time()  # statements parsed per pair: the closure is part of the cost
                known = Independences.parse(statements, complete=mode == "complete", latent=graph.latent)
                verdict = check_equivalence(
                    a, b, known, prove=mode == "partial", limits=SearchLimits(max_nodes=3000, time_limit=600.0)
                )
                times.append(time.process_time() - start)
                truth = check_equivalence(a, b, graph, prove=False).equivalent
                outcomes[
                    "agrees"
                    if verdict.equivalent == truth
                    else "undecided"
                    if verdict.equivalent is None
                    else "CONTRADICTS"
                ] += 1
        report(f"{mode} statements, per distinct pair", times)
        print(f"  {dict(outcomes)}")


def bench_synthetic(count: int) -> None:
    print(f"4. App. I on the synthetic config ({count} proven pairs and their refuted mistakes, seed 0)")
    start = time.process_time()
    rows = synthetic_rows(0, count)
    print(f"  generated in {time.process_time() - start:.1f} s CPU")
    print(baseline_table(rows))
    start = time.process_time()
    graphs = [",".join([f"{e.source}->{e.target}" for e in r.edges] + list(r.nodes)) for r in rows]
    scored = score_pairs([r.expr_b for r in rows], [r.expr_a for r in rows], graphs)
    agree = sum(v == r.equivalent for v, r in zip(scored["verdicts"], rows, strict=True))
    print(
        f"  verifier: {agree}/{len(rows)} verdicts equal the labels; string match {scored['string_match']:.3f}, "
        f"BLEU {scored['bleu']:.3f}, token F1 {scored['token_f1']:.3f} over all pairs "
        f"({time.process_time() - start:.1f} s CPU for score_pairs)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=2000, help="proven synthetic pairs for App. I (default 2000)")
    parser.add_argument("--questions", type=int, default=40, help="questions in the stub feedback runs (default 40)")
    parser.add_argument("--local", action="store_true", help="also time feedback on SmolLM2-135M")
    args = parser.parse_args()
    questions = question_rows(read_questions(CLADDER))
    bench_diagnosis(questions)
    with tempfile.TemporaryDirectory() as hub:
        builder = get_builder("cladder_pairs")
        cladder_build.SYNTHETIC_POSITIVES = 5  # the runs read the questions config only
        build_to_folder(builder, Path(hub), BuildContext(seed=0, source=CLADDER))
        bench_feedback_runs(Path(hub), args.questions, args.local)
    bench_derivations(questions)
    bench_independences(questions)
    bench_synthetic(args.synthetic)


if __name__ == "__main__":
    main()
