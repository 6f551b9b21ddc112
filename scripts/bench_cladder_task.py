"""The CLadder estimand task: cost of prompting and scoring, and two consistency checks.

Scores every question twice with :func:`score_answer` (what the runner does per item, proof
search included): with CLadder's estimand as the answer (an oracle: must be 100 % equivalent and
100 % string match) and with the question's formal form (as CLadder means it) as the answer (the verdicts must equal
the ``cladder`` config's ``formal_vs_estimand`` labels). Prints CPU time per answer
(``time.process_time``; the machine is shared; verdicts are memoized per distinct answer, as in a
run) and the request size.

    .venv/bin/python scripts/bench_cladder_task.py [--limit N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from checkout import SHARED_DATA_DIR

from causal_datasets.cladder_pairs.cladder import formal_expression, read_questions
from causal_datasets.cladder_pairs.estimand_task import build_messages, score_answer
from causal_datasets.cladder_pairs.rows import cladder_rows, question_rows

CLADDER = SHARED_DATA_DIR / "cladder"


def timed_scores(questions, answer_of) -> tuple[list[dict], list[float]]:
    scores, times = [], []
    for q in questions:
        start = time.process_time()
        scores.append(score_answer(answer_of(q), q))
        times.append(time.process_time() - start)
    return scores, times


def report(label: str, times: list[float]) -> None:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    print(
        f"{label:<40} n={len(times):>5}  median {statistics.median(times) * 1e3:7.2f} ms  "
        f"p99 {p99 * 1e3:8.2f} ms  total {sum(times):6.1f} s CPU"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="only the first N questions")
    args = parser.parse_args()
    questions = question_rows(read_questions(CLADDER))[: args.limit]

    start = time.process_time()
    sizes = [sum(len(m["content"]) for m in build_messages(q)) for q in questions]
    print(
        f"build_messages: {(time.process_time() - start) / len(questions) * 1e6:.0f} µs per question; "
        f"request {min(sizes)}–{max(sizes)} characters (median {statistics.median(sizes):.0f})"
    )

    oracle, times = timed_scores(questions, lambda q: q.estimand)
    report("score_answer, answer = estimand", times)
    equivalent = sum(s["equivalent"] is True for s in oracle)
    matched = sum(s["string_match"] for s in oracle)
    print(f"  oracle: {equivalent}/{len(oracle)} equivalent, {matched}/{len(oracle)} string match")

    formal, times = timed_scores(questions, lambda q: formal_expression(q).text)
    report("score_answer, answer = formal form", times)
    labels = {
        r.id: r.equivalent for r in cladder_rows(read_questions(CLADDER), seed=0) if r.pair_kind == "formal_vs_estimand"
    }
    agree = sum(s["equivalent"] == labels[q.id] for q, s in zip(questions, formal, strict=True))
    print(
        f"  formal form: {sum(s['equivalent'] is True for s in formal)}/{len(formal)} equivalent "
        f"({dict(Counter(s['method'] for s in formal))}); verdict = cladder config label for {agree}/{len(formal)}"
    )
    lengths = Counter(s["proof_length"] for s in formal if s["proof_length"] is not None)
    print(f"  proof lengths: {dict(sorted(lengths.items()))}")


if __name__ == "__main__":
    main()
