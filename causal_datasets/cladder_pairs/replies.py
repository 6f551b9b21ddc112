"""One model reply: the request that asks for it, what it says read without the reference (its
expression and, with the paper's prompt, its graph and yes/no answer), and its scores against the question
under both rules and against both references (:func:`score_reply`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from causal_datasets.cladder_pairs import estimand_task, paper_task
from causal_datasets.cladder_pairs.cladder import formal_expression
from causal_datasets.cladder_pairs.options import CladderOptions
from causal_datasets.cladder_pairs.records import CladderQuestionRow, Reference
from causal_datasets.docalc.derivation import DERIVATION_REQUEST, same_expression, score_derivation
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.scoring_rules import credited
from causal_datasets.scoring.graph_compare import compare_graphs

ESTIMAND_FORMAT = "End your reply with one line `Estimand: <expression>` and nothing after it."
#: the references every answer is scored against, and what each result line keeps of each (``by_reference``)
REFERENCES: tuple[Reference, ...] = ("formal-form", "estimand")
REFERENCE_FIELDS = ("equivalent", "identified", "string_match", "bleu", "token_f1", "error")


@dataclass(frozen=True)
class Reply:
    """What one model reply says, read without the reference: its expression and, with the paper's
    prompt, its graph (or why there is none) and its yes/no answer."""

    raw: str
    expression: str | None
    graph_text: str | None = None
    graph: DoGraph | None = None
    graph_error: str | None = None
    graph_detail: str | None = None
    final_answer: str | None = None

    def fields(self) -> dict[str, Any]:
        read = {"raw": self.raw, "expression": self.expression}
        if self.graph_text is not None or self.graph_error is not None:
            read |= {
                "graph_text": self.graph_text,
                "graph_error": self.graph_error,
                "graph_detail": self.graph_detail,
                "final_answer": self.final_answer,
            }
        return read


def read_reply(raw: str, q: CladderQuestionRow, options: CladderOptions) -> Reply:
    if options.prompt == "estimand":
        return Reply(raw, estimand_task.extract_estimand(raw))
    answer = paper_task.read_answer(raw)
    graph, error, detail = paper_task.model_graph(answer.graph, q)
    return Reply(raw, answer.expression, answer.graph, graph, error, detail, answer.final_answer)


def request(q: CladderQuestionRow, options: CladderOptions) -> list[dict[str, str]]:
    """The opening messages for ``q`` under the chosen prompt."""
    if options.prompt == "paper":
        return paper_task.build_messages(q)
    messages = estimand_task.build_messages(q)
    if options.derivation:
        messages[0] = {"role": "system", "content": f"{messages[0]['content']}\n\n{DERIVATION_REQUEST}"}
    return messages


def score_reply(reply: Reply, q: CladderQuestionRow, options: CladderOptions) -> dict[str, Any]:
    """A reply's scores: both rules' verdicts and the surface baselines under the question's graph against
    the run's reference, and those against each reference (``by_reference``, so a rescore can switch);
    with the paper's prompt also the verdicts under the model's own graph, its graph's edge F1 and SHD
    and its yes/no answer; with ``--derivation`` every step of the written derivation."""
    seed, chosen = options.verifier_seed, options.reference or "estimand"
    both = {ref: estimand_task.score_answer(reply.expression, q, seed=seed, reference=ref) for ref in REFERENCES}
    scores = both[chosen] | {
        "by_reference": {ref: {name: one[name] for name in REFERENCE_FIELDS} for ref, one in both.items()}
    }
    if options.derivation:
        scores |= _derivation(reply.raw, q, seed=options.verifier_seed)
    if options.prompt != "paper":
        return scores
    scores["answer_correct"] = None if q.answer is None else reply.final_answer == q.answer
    if reply.graph is None:
        return scores | {
            "equivalent_own_graph": None,
            "identified_own_graph": None,
            "own_graph_error": reply.graph_error,
            "graph_edge_f1": 0.0,
            "graph_shd": None,
        }
    own = estimand_task.score_answer(reply.expression, q, seed=seed, graph=reply.graph, reference=chosen)
    comparison = compare_graphs(list(reply.graph.edges), [(e.source, e.target) for e in q.edges])
    return scores | {
        "equivalent_own_graph": own["equivalent"],
        "identified_own_graph": own["identified"],
        "own_graph_error": own["error"],
        "graph_edge_f1": comparison.edge_f1,
        "graph_shd": comparison.shd,
    }


def is_credited(scores: Any, rule: str, *, suffix: str = "") -> bool:
    """Whether scores (a mapping or a scores model; or their ``suffix`` variants, e.g. ``_after_feedback``)
    count as right under ``rule``."""
    get = scores.get if isinstance(scores, dict) else (lambda name: getattr(scores, name, None))
    return credited({"equivalence": get(f"equivalent{suffix}"), "identification": get(f"identified{suffix}")}, rule)


def _derivation(raw: str, q: CladderQuestionRow, *, seed: int) -> dict[str, Any]:
    derivation = score_derivation(raw, estimand_task.question_graph(q), seed=seed)
    query = formal_expression(q)
    return {
        "derivation": derivation.to_dict(),
        "derivation_valid_share": derivation.valid_share,
        "derivation_from_query": None
        if derivation.start is None or query is None
        else same_expression(derivation.start, query),
    }
