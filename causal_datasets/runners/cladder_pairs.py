"""``causal-datasets eval cladder_pairs``: the CLadder estimand task (DoVerifier's setting).

Each question of the ``cladder_pairs/questions`` config is sent as
:func:`causal_datasets.docalc.task.build_messages`; the ``Estimand:`` line of the answer is scored
against CLadder's estimand by the equivalence verifier and by string match.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from causal_datasets.docalc.task import build_messages, extract_estimand, score_answer
from causal_datasets.records.cladder_pairs import CladderQuestionRow
from causal_datasets.runners.records import CladderMetrics, Slices
from causal_datasets.runners.task import Item, Outcome, RoleSpec, Task, TaskContext

SLICES = (("by_rung", "rung"), ("by_query_type", "query_type"), ("by_graph_family", "graph_id"))


class CladderOptions(BaseModel):
    verifier_seed: int = Field(default=0, ge=0, description="seed of the verifier's random causal models")


def items(context: TaskContext) -> list[Item]:
    return [Item(q.id, "questions", q) for q in context.load("questions").records]


def solve(item: Item, context: TaskContext) -> Outcome:
    question: CladderQuestionRow = item.row
    messages = build_messages(question)
    raw = context.clients["model"].chat(messages).text  # an LLMError makes the item failed
    expression = extract_estimand(raw)
    return Outcome({
        "messages": messages, "reference": question.estimand, "rung": question.rung,
        "query_type": question.query_type, "graph_id": question.graph_id, "raw": raw, "expression": expression,
        **score_answer(expression, question, seed=context.options.verifier_seed),
    })


def summarize(results: list[dict[str, Any]], context: TaskContext) -> tuple[CladderMetrics, Slices]:
    """Equivalence accuracy and string match overall and per rung, query type and graph family; error
    categories, verdict methods and proof lengths."""
    lengths = Counter(r["proof_length"] for r in results if r["proof_length"] is not None)
    metrics = CladderMetrics(
        **_rates(results),
        errors=dict(sorted(Counter(r["error"] for r in results if r["error"]).items())),
        methods=dict(sorted(Counter(r["method"] for r in results if r["method"]).items())),
        proof_lengths={str(length): n for length, n in sorted(lengths.items())},
    )
    slices = {}
    for name, field in SLICES:
        groups: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        for result in results:
            groups[result[field]].append(result)
        slices[name] = {str(value): _rates(group) for value, group in sorted(groups.items())}
    return metrics, slices


def _rates(results: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(results)
    return {
        "n": n,
        "accuracy": sum(r["equivalent"] is True for r in results) / n if n else 0.0,
        "string_match": sum(bool(r["string_match"]) for r in results) / n if n else 0.0,
    }


def item_scores(result: Mapping[str, Any]) -> dict[str, float]:
    """Verified equivalent, and string match (each 0 or 1): their means are the run's rates."""
    return {"accuracy": float(result["equivalent"] is True), "string_match": float(bool(result["string_match"]))}


TASK = Task(
    name="cladder_pairs",
    help="CLadder estimand task: the model identifies the estimand of a CLadder question; scored by the "
    "do-calculus equivalence verifier and by string match",
    dataset="cladder_pairs",
    configs=("questions",),
    default_configs=("questions",),
    items=items,
    solve=solve,
    summarize=summarize,
    item_scores=item_scores,
    roles=(RoleSpec("model", "a chat model to answer the questions", required=True),),
    options=CladderOptions,
    from_files=True,
)
