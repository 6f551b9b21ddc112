"""TRL reward functions: completions per second on realistic batches.

For each function, ``--n`` completions (default 1,000) over rows of the real ``prompts`` configs
(made from the released files in memory, class labels encoded as ``datasets`` stores them, so the
columns are what TRL passes): about half right answers, a third wrong ones, the rest malformed, each
after a reasoning preamble (2,000 characters; ReCAST answers carry the whole graph). Each batch is
scored as TRL calls a reward function: first (the first call in the process), cold (the rewards'
memo caches emptied; what the verifier keeps per graph family stays, as in a training loop) and
warm (the same batch again: a loop sees the same prompts many times). Wall-clock time, best of
``--repeat``; the machine may be shared.

    .venv/bin/python scripts/bench_rewards.py [--n 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import time
from collections.abc import Callable
from typing import Any

from checkout import SHARED_DATA_DIR

from causal_datasets import rewards
from causal_datasets.cladder_pairs.cladder import formal_expression, read_questions
from causal_datasets.cladder_pairs.estimand_task import prompt_rows as cladder_prompt_rows
from causal_datasets.cladder_pairs.rows import question_rows
from causal_datasets.cladder_pairs.synthetic_latent import synthetic_latent_rows
from causal_datasets.docalc.atoms import Atom
from causal_datasets.docalc.expr import Prob
from causal_datasets.docalc.parser import parse
from causal_datasets.recast.parsing import parse_graph_answer
from causal_datasets.recast.prompts import prompt_rows as recast_prompt_rows
from causal_datasets.recast.release import locate_release, read_release
from causal_datasets.records.base import Record
from causal_datasets.shapeworld.generate import advanced_tasks, core_tasks

PREAMBLE = ("Let me reason about the graph step by step. " * 46)[:2000]
Case = tuple[dict[str, Any], str]  # a row's columns, one completion


def encoded(records: list[Record]) -> list[dict[str, Any]]:
    """Rows as ``datasets`` reads them back from the Parquet (class labels as their index)."""
    features = type(records[0]).features()
    return [features.encode_example(record.to_row()) for record in records]


def pick(
    rng: random.Random, rows: list[dict[str, Any]], n: int, answers: Callable[[dict[str, Any]], list[str]]
) -> list[Case]:
    """``n`` completions: per random row one of its answers, cycling right, right, wrong, right, wrong, malformed."""
    cases = []
    for index in range(n):
        row = rng.choice(rows)
        options = answers(row)
        cases.append((row, options[(0, 0, 1, 0, 1, 2)[index % 6] % len(options)]))
    return cases


def cladder_cases(rng: random.Random, n: int) -> tuple[list[Case], list[Case], list[Case]]:
    """(estimand equivalence cases, the same with every wrong answer a new expression, yes/no answer cases)."""
    questions = question_rows(read_questions(SHARED_DATA_DIR / "cladder"))
    prompts = encoded(cladder_prompt_rows(questions))
    formal = {q.id: formal_expression(q).text for q in questions}

    def estimands(row):
        return [
            f"{PREAMBLE}\nEstimand: {row['reference']}",
            rng.choice(
                [
                    f"{PREAMBLE}\nEstimand: ({row['reference']}) + P(X=1)",
                    f"{PREAMBLE}\nEstimand: P(Y=1|X=1) - P(Y=1|X=0)",
                    f"{PREAMBLE}\nEstimand: {formal[row['id']]}",
                ]
            ),
            rng.choice([PREAMBLE, f"{PREAMBLE}\nEstimand: P(Y=1|X=", f"{PREAMBLE}\nEstimand: P(Z=1)"]),
        ]

    def yes_no(row):
        names = ("yes", "no")
        return [
            f"{PREAMBLE}\nAnswer: {names[row['answer']]}",
            f"{PREAMBLE}\nAnswer: {names[1 - row['answer']]}",
            PREAMBLE,
        ]

    cases = pick(rng, prompts, n, estimands)
    unique = [
        (row, f"{PREAMBLE}\nEstimand: ({row['reference']}) + {index + 1}/{n} * P(X=1)" if index % 3 == 2 else text)
        for index, (row, text) in enumerate(cases)
    ]  # a third of the answers each need a verdict of their own
    return cases, unique, pick(rng, encoded(questions), n, yes_no)


def latent_cases(rng: random.Random, n: int) -> list[Case]:
    """Replies to ``synthetic_latent`` queries: the reference, the query with its actions read as observations
    (right only where that is the estimand), no ``Estimand:`` line."""
    rows = encoded(synthetic_latent_rows(0, 300))

    def answers(row):
        query = parse(row["query"])
        observed = Prob(query.event, (), tuple(Atom(v, x) for v, x in query.do) + query.given)
        return [f"{PREAMBLE}\nEstimand: {row['reference']}", f"{PREAMBLE}\nEstimand: {observed.text}", PREAMBLE]

    return pick(rng, rows, n, answers)


def recast_cases(rng: random.Random, n: int) -> list[Case]:
    samples = read_release(locate_release(SHARED_DATA_DIR / "recast" / "test.parquet")).samples
    rows = encoded(recast_prompt_rows(samples))

    def answers(row):
        edges = list(parse_graph_answer(row["reference"]).graph.edges)
        half = json.dumps({"relationships": [{"source": s, "sink": t} for s, t in edges[: len(edges) // 2]]})
        return [
            f"<think>{PREAMBLE}</think>\n{row['reference']}",
            f"<think>{PREAMBLE}</think>\n```json\n{half}\n```",
            f"<think>{PREAMBLE}</think>\nThe paper describes no clear graph.",
        ]

    return pick(rng, rows, n, answers)


def shapeworld_cases(rng: random.Random, n: int) -> list[Case]:
    rows = encoded(core_tasks(0) + advanced_tasks(0))

    def answers(row):
        names = ("yes", "no")
        return [
            f'{PREAMBLE}\n```json\n{{"answer": "{names[row["answer"]]}"}}\n```',
            f'{PREAMBLE}\n```json\n{{"answer": "{names[1 - row["answer"]]}"}}\n```',
            f'{PREAMBLE}\n{{"answer": ""}}',
        ]

    return pick(rng, rows, n, answers)


def trl_call(reward: Callable[..., list[float]], cases: list[Case]) -> list[float]:
    """As GRPOTrainer calls it: prompts, conversational completions, each column as a list, extra kwargs."""
    columns = {key: [row[key] for row, _ in cases] for key in cases[0][0] if key != "messages"}
    return reward(
        prompts=[row.get("messages") for row, _ in cases],
        completions=[[{"role": "assistant", "content": text}] for _, text in cases],
        completion_ids=[[0]] * len(cases),
        trainer_state=None,
        **columns,
    )


def clear_caches() -> None:
    for cached in (
        rewards._graph,
        rewards._reference_problem,
        rewards._verdict,
        rewards._reference_graph,
        rewards._identifiable_query,
    ):
        cached.cache_clear()


def timed(
    reward: Callable[..., list[float]], cases: list[Case], repeat: int
) -> tuple[float, float, float, list[float]]:
    """Seconds of the first call in this process, best cold and warm seconds for the batch, and its rewards."""
    cold, warm = [], []
    for _ in range(repeat):
        clear_caches()
        start = time.perf_counter()
        scores = trl_call(reward, cases)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        trl_call(reward, cases)
        warm.append(time.perf_counter() - start)
    return cold[0], min(cold), min(warm), scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="completions per function (default 1000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per function, best kept (default 3)")
    args = parser.parse_args()
    logging.getLogger("causal_datasets.rewards").setLevel(logging.ERROR)  # the malformed cases are on purpose
    rng = random.Random(0)
    estimands, unique, yes_no = cladder_cases(rng, args.n)
    recast = recast_cases(rng, args.n)
    batches = [
        (rewards.estimand_equivalence_reward, estimands),
        (rewards.estimand_equivalence_reward, unique),
        (rewards.recast_edge_f1_reward, recast),
        (rewards.recast_shd_reward, recast),
        (rewards.shapeworld_answer_reward, shapeworld_cases(rng, args.n)),
        (rewards.cladder_answer_reward, yes_no),
        (rewards.identify_reward, latent_cases(rng, args.n)),
    ]
    print(f"{'completions per second':<30} {'n':>6} {'first':>10} {'cold':>10} {'warm':>10} {'mean reward':>12}")
    for reward, cases in batches:
        first, cold, warm, scores = timed(reward, cases, args.repeat)
        rates = " ".join(f"{len(cases) / seconds:>10,.0f}" for seconds in (first, cold, warm))
        print(f"{reward.__name__:<30} {len(cases):>6} {rates} {sum(scores) / len(scores):>12.3f}")
        if reward in (rewards.estimand_equivalence_reward, rewards.identify_reward):
            print(f"  {rewards._verdict.cache_info().misses} distinct verdicts per cold run")


if __name__ == "__main__":
    main()
