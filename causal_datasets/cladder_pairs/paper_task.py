"""DoVerifier's own CLadder task (App. G): one prompt asking for the expression, the graph, the reasoning and
a yes/no answer.

The prompt is App. G of the DoVerifier paper as printed (:data:`PAPER_PROMPT`; a prompt is benchmark
data, so it is quoted verbatim): five numbered instructions, two worked examples on CLadder's
"liking spicy food" story whose ``Expression:`` line holds CLadder's formal form (``P(Y | X)``,
``E[Y | do(X = 1)] - E[Y | do(X = 0)]``) and whose ``Reasoning:`` starts from the estimand, and the
request to solve the question's description in the same format, all in one user message. The
description is placed as App. G's examples place theirs: CLadder's own prompt text (the story, the stated
probabilities, the question) after ``Prompt:``, then CLadder's legend of the variable names on its own
line (``Let V2 = water company; V1 = poverty; X = liking spicy food; Y = cholera``), since the answer is
scored in those names. The graph is not given: the
model writes it (``Graphical Representation:``). :func:`read_answer` reads the ``Expression:``,
``Graphical Representation:`` and ``Final Answer:`` lines; :func:`model_graph` turns the model's edges
into a :class:`DoGraph` or a typed reason it cannot (``no_graph``, ``unreadable_graph``,
``cyclic_graph``), so the expression can be verified under the true graph and under the model's own,
and the final answer scored against CLadder's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from causal_datasets.cladder_pairs.estimand_task import Messages, extract_labelled, labelled_line
from causal_datasets.cladder_pairs.records import CladderQuestionRow
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.graph import GraphError

#: App. G of "Uncovering Hidden Correctness in LLM Causal Reasoning via Symbolic Verification"
#: (DoVerifier), verbatim as printed, its wrapped listing lines joined and the damage of the text
#: extraction repaired (:data:`APP_G_REPAIRS`); ``{description}`` is the question. (The examples' first
#: sentence reads as printed; CLadder's stories say "... causal relationships: Poverty has a direct effect
#: on liking spicy food and cholera.")
PAPER_PROMPT = """## Instructions:
1. For each problem, identify the correct expression that represents the query
2. Draw the graphical representation as a text description of edges
3. Show your mathematical reasoning step by step
4. Provide a final yes/no answer
5. Keep your response concise and focused on the solution
## Examples:
Example 1:
Prompt: Imagine a self-contained, hypothetical world with only the following conditions, and without any \
unmentioned factors or causal effect on liking spicy food and cholera. Water company has a direct effect on \
liking spicy food. Liking spicy food has a direct effect on cholera. Poverty is unobserved. The overall \
probability of liking spicy food is 81%. The probability of not liking spicy food and cholera contraction is \
13%. The probability of liking spicy food and cholera contraction is 17%. Is the chance of cholera contraction \
larger when observing liking spicy food?
Let V2 = water company; V1 = poverty; X = liking spicy food; Y = cholera
Expression: P(Y | X)
Graphical Representation: V1->X, V2->X, V1->Y, X->Y
Reasoning: P(X = 1, Y = 1)/P(X = 1) - P(X = 0, Y = 1)/P(X = 0)
P(X=1) = 0.81
P(Y=1, X=0) = 0.13
P(Y=1, X=1) = 0.17
0.17/0.81 - 0.13/0.19 = -0.44
-0.44 < 0
Final Answer: No
Example 2:
Prompt: Imagine a self-contained, hypothetical world with only the following conditions, and without any \
unmentioned factors or causal effect on liking spicy food and cholera. Water company has a direct effect on \
liking spicy food. Liking spicy food has a direct effect on cholera. Poverty is unobserved. For people served \
by a local water company, the probability of cholera contraction is 64%. For people served by a global water \
company, the probability of cholera contraction is 66%. For people served by a local water company, the \
probability of liking spicy food is 50%. For people served by a global water company, the probability of \
liking spicy food is 45%. Will liking spicy food decrease the chance of cholera contraction?
Let V2 = water company; V1 = poverty; X = liking spicy food; Y = cholera.
Expression: E[Y | do(X = 1)] - E[Y | do(X = 0)]
Graphical Representation: V1->X,V2->X,V1->Y, X->Y
Reasoning: E[Y | do(X = 1)] - E[Y | do(X = 0)]
[P(Y=1|V2=1)-P(Y=1|V2=0)]/[P(X=1|V2=1)-P(X=1|V2=0)]
P(Y=1 | V2=0) = 0.64
P(Y=1 | V2=1) = 0.66
P(X=1 | V2=0) = 0.50
P(X=1 | V2=1) = 0.45
(0.66 - 0.64) / (0.45 - 0.50) = -0.39
-0.39 < 0
Final Answer: Yes
## Your Task:
Solve the following problem using the format above. Begin your response with "Solution:" and provide only \
the expression, graphical representation, reasoning, and final answer.
Prompt: {description}"""

#: the three places where the paper's text, as extracted from its PDF, differs from App. G's listing, and the
#: repair: the wrapped ``0)]`` of Example 2's ``Expression:`` and ``Reasoning:`` lines was set over the
#: ``1)]`` before it (each line reads "E[Y | do(X = 1)] - E[Y | do(X = 1)] 0)]"), and the opening quote of
#: "Solution:" was lost
APP_G_REPAIRS = (
    ("Expression: E[Y | do(X = 1)] - E[Y | do(X = 1)] 0)]", "Expression: E[Y | do(X = 1)] - E[Y | do(X = 0)]"),
    ("Reasoning: E[Y | do(X = 1)] - E[Y | do(X = 1)] 0)]", "Reasoning: E[Y | do(X = 1)] - E[Y | do(X = 0)]"),
    ('with Solution:" and', 'with "Solution:" and'),
)

#: how a revised answer is asked for (verifier feedback under this prompt)
ANSWER_FORMAT = (
    "Answer in the same format: the lines Expression:, Graphical Representation:, Reasoning: and "
    "Final Answer: Yes or No."
)

_EXPRESSION = labelled_line("expression")
_GRAPH = labelled_line(r"(?:graphical\s+representation|causal\s+graph|graph)")
_FINAL = labelled_line(r"final\s+answer")
_YES_NO = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)


def question_story(q: CladderQuestionRow, separator: str = " ") -> str:
    """The question's description as CLadder tells it: the story's causal relations, the probabilities, the question."""
    parts = (q.background or "", q.given_info, q.question)
    return separator.join(part.strip() for part in parts if part and part.strip())


def description(q: CladderQuestionRow) -> str:
    """The question as App. G's examples give theirs: CLadder's prompt text, then its legend on its own line."""
    return "\n".join(part for part in (question_story(q), (q.legend or "").strip()) if part)


def build_messages(q: CladderQuestionRow) -> Messages:
    """App. G with the question's description (:func:`description`) filled in, as one user message."""
    return [{"role": "user", "content": PAPER_PROMPT.replace("{description}", description(q))}]


@dataclass(frozen=True)
class PaperAnswer:
    """The labelled parts of a reply; None where the reply has no such line."""

    expression: str | None
    graph: str | None
    final_answer: str | None  # "yes" / "no"


def read_answer(text: str) -> PaperAnswer:
    final = extract_labelled(text, _FINAL)
    match = _YES_NO.match(final or "")
    return PaperAnswer(
        extract_labelled(text, _EXPRESSION), extract_labelled(text, _GRAPH), match.group(1).lower() if match else None
    )


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
