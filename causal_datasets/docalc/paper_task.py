"""DoVerifier's own CLadder task (App. G): a two-shot prompt asking for the expression, the graph and a yes/no answer.

Unlike :mod:`.task` the graph is not given: the model reads the story (its causal relations, the
stated probabilities, the question, the variable names) and answers in four labelled parts —
``Expression:`` (the quantity asked for, over observed variables), ``Graphical Representation:``
(its causal graph as edges), ``Reasoning:`` and ``Final Answer: Yes/No``. :func:`read_answer`
reads them; :func:`model_graph` turns the model's edges into a :class:`DoGraph` or a typed reason
it cannot (``no_graph``, ``unreadable_graph``, ``cyclic_graph``), so the expression can be verified
under the true graph and under the model's own, and the final answer scored against CLadder's.
The two worked examples are ours (other stories than CLadder's), one "Yes" and one "No".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.task import Messages, extract_labelled, labelled_line
from causal_datasets.graph import GraphError
from causal_datasets.records.cladder_pairs import CladderQuestionRow

INSTRUCTIONS = """You solve causal reasoning problems about small, self-contained worlds. For each problem:
1. Write the expression for the quantity the question asks about, using probabilities of observed
   variables only (identify it from the causal graph; binary variables, 1 = true, 0 = false).
2. Write the causal graph as a list of edges such as V1->X, X->Y.
3. Reason step by step with the numbers given.
4. Give a final yes/no answer.
Answer in the format of the examples, with the lines Expression:, Graphical Representation:,
Reasoning: and Final Answer:, and nothing else."""

ANSWER_FORMAT = ("Answer in the same format: the lines Expression:, Graphical Representation:, Reasoning: and "
                 "Final Answer: Yes or No.")

_EXAMPLES = (
    (
        "Rainfall has a direct effect on soil moisture. Soil moisture has a direct effect on crop yield. "
        "The overall probability of high soil moisture is 60%. The probability of low soil moisture and a good "
        "yield is 12%. The probability of high soil moisture and a good yield is 42%. "
        "Is a good yield more likely when soil moisture is high?",
        "Let V1 = rainfall; X = soil moisture; Y = crop yield.",
        "Expression: P(Y=1|X=1) - P(Y=1|X=0)\n"
        "Graphical Representation: V1->X, X->Y\n"
        "Reasoning: P(Y=1|X=1) - P(Y=1|X=0) = P(X=1, Y=1)/P(X=1) - P(X=0, Y=1)/P(X=0)\n"
        "0.42/0.60 - 0.12/0.40 = 0.70 - 0.30 = 0.40\n0.40 > 0\n"
        "Final Answer: Yes",
    ),
    (
        "Family income has a direct effect on private tutoring and on passing the exam. Private tutoring has a "
        "direct effect on passing the exam. For low-income students without tutoring, the probability of passing "
        "is 40%. For low-income students with tutoring, it is 55%. For high-income students without tutoring, it "
        "is 60%. For high-income students with tutoring, it is 80%. The share of high-income students is 30%. "
        "Will private tutoring decrease the chance of passing the exam?",
        "Let V1 = family income; X = private tutoring; Y = passing the exam.",
        "Expression: \\sum_{V1=v} P(V1=v)*[P(Y=1|V1=v,X=1) - P(Y=1|V1=v,X=0)]\n"
        "Graphical Representation: V1->X, V1->Y, X->Y\n"
        "Reasoning: E[Y | do(X = 1)] - E[Y | do(X = 0)] adjusted for the common cause V1:\n"
        "0.70 * (0.55 - 0.40) + 0.30 * (0.80 - 0.60) = 0.105 + 0.060 = 0.165\n0.165 > 0, so tutoring increases it\n"
        "Final Answer: No",
    ),
)

_EXPRESSION = labelled_line("expression")
_GRAPH = labelled_line(r"(?:graphical\s+representation|causal\s+graph|graph)")
_FINAL = labelled_line(r"final\s+answer")
_YES_NO = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)


def render_problem(story: str, legend: str | None) -> str:
    return f"Prompt: {story}" + (f"\n{legend}" if legend else "")


def question_story(q: CladderQuestionRow) -> str:
    """The question as CLadder tells it: the story's causal relations, the probabilities, the question."""
    return " ".join(part.strip() for part in (q.background or "", q.given_info, q.question) if part and part.strip())


def build_messages(q: CladderQuestionRow) -> Messages:
    """Instructions, the two worked examples as user/assistant turns, then the question."""
    messages = [{"role": "system", "content": INSTRUCTIONS}]
    for story, legend, answer in _EXAMPLES:
        messages += [{"role": "user", "content": render_problem(story, legend)}, {"role": "assistant", "content": answer}]
    messages.append({"role": "user", "content": render_problem(question_story(q), q.legend)})
    return messages


@dataclass(frozen=True)
class PaperAnswer:
    """The labelled parts of a reply; None where the reply has no such line."""

    expression: str | None
    graph: str | None
    final_answer: str | None  # "yes" / "no"


def read_answer(text: str) -> PaperAnswer:
    final = extract_labelled(text, _FINAL)
    match = _YES_NO.match(final or "")
    return PaperAnswer(extract_labelled(text, _EXPRESSION), extract_labelled(text, _GRAPH),
                       match.group(1).lower() if match else None)


def model_graph(text: str | None, q: CladderQuestionRow) -> tuple[DoGraph | None, str | None, str | None]:
    """``(graph, error, detail)``: the model's edges as a DAG (the question's unobserved variables
    that it names stay unobserved), or the reason there is none."""
    if not text:
        return None, "no_graph", None
    try:
        graph = DoGraph.parse(text)
    except GraphError as error:
        kind = "cyclic_graph" if "cycle" in str(error) else "unreadable_graph"
        return None, kind, str(error)[:300]
    hidden = set(q.latent) & set(graph.nodes)
    return (DoGraph(graph.nodes, graph.edges, graph.latent | hidden) if hidden else graph), None, None
