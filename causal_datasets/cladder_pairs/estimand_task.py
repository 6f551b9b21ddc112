"""The CLadder estimand task (DoVerifier's setting): prompt, answer extraction and scoring.

The model reads a CLadder question — its graph family as edges, which variables are observed,
the story, the stated probabilities, the question and the causal quantity it asks for (the
formal form in canonical notation, as CLadder means it: see :func:`.cladder.formal_expression`) — and
answers with the identified estimand on a final line ``Estimand: <expression>``. The answer is
scored against CLadder's estimand by :func:`check_equivalence` under the question's graph and,
side by side, by the normalized string match of the ``do_calculus_equivalence`` metric.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

from causal_datasets.cladder_pairs.cladder import (
    cladder_reading,
    estimand_expression,
    family_graph,
    formal_expression,
    try_parse,
)
from causal_datasets.cladder_pairs.records import CladderPromptRow, CladderQuestionRow, Edge, Reference
from causal_datasets.cladder_pairs.rows import PROOF_LIMITS
from causal_datasets.docalc.baselines import surface_scores
from causal_datasets.docalc.expr import Expr, variables
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.scoring_rules import all_observed, identification_error, identified
from causal_datasets.docalc.verdict import Verdict, check_equivalence
from causal_datasets.llm.structured import strip_thinking
from causal_datasets.records.prompts import chat_messages

Messages = list[dict[str, str]]

SYSTEM_PROMPT = """You are an expert in causal inference. You will read a causal question about a small
world whose causal graph is given, and you must identify the causal quantity it asks for: rewrite
it as an expression over probabilities of the OBSERVED variables only (no do(), no counterfactual
subscripts, no unobserved variable), valid in every causal model with this graph.

Notation (binary variables, 1 = true, 0 = false):
- probabilities: P(Y=1|X=1), P(X=1, Y=1), P(V2=v|X=0) with an index v that is summed over
- sums over an index: \\sum_{V1=v} P(V1=v)*[P(Y=1|V1=v,X=1) - P(Y=1|V1=v,X=0)]
- use + - * / and brackets [ ] or ( ); the variable names are exactly those of the graph
- in the quantity asked for: do(X=1) is an intervention; Y_{X=1} is Y had X been 1; Y_{X=1, V2_{X=0}}
  is Y had X been 1 and V2 been what it would have been with X=0

Reason briefly, then end your reply with one final line of the form
Estimand: <expression>
and nothing after it."""


def _example(family: str, story_id: str, **story: str) -> CladderQuestionRow:
    """A worked example: an ATE question (rung 2, answer yes) on ``family``'s graph, told by ``story``
    (background, legend, given_info, question, estimand)."""
    graph = family_graph(family)
    return CladderQuestionRow(
        id=f"example-{family}",
        source_file="example",
        question_id=0,
        desc_id="example",
        story_id=story_id,
        query_type="ate",
        rung=2,
        graph_id=family,
        nodes=list(graph.nodes),
        edges=[Edge(source=s, target=t) for s, t in graph.edges],
        latent=sorted(graph.latent),
        formal_form="E[Y | do(X = 1)] - E[Y | do(X = 0)]",
        answer="yes",
        **story,
    )


#: one worked example per family it can stand for; the first whose family differs from the question's is used
_EXAMPLES = (
    (
        _example(
            "confounding",
            "tutoring",
            background="Family income has a direct effect on private tutoring and on passing the exam. "
            "Private tutoring has a direct effect on passing the exam.",
            legend="Let V1 = family income; X = private tutoring; Y = passing the exam.",
            given_info="For low-income students without tutoring, the probability of passing is 40%. "
            "For low-income students with tutoring, it is 55%. For high-income students without tutoring, "
            "it is 60%. For high-income students with tutoring, it is 80%. The share of high-income students is 30%.",
            question="Will private tutoring increase the chance of passing the exam?",
            estimand="\\sum_{V1=v} P(V1=v)*[P(Y=1|V1=v,X=1) - P(Y=1|V1=v,X=0)]",
        ),
        "Family income V1 is an observed common cause of X and Y, so the back-door path X <- V1 -> Y "
        "is blocked by adjusting for V1.",
    ),
    (
        _example(
            "frontdoor",
            "gene_tar",
            background="An unobserved gene has a direct effect on smoking and on lung disease. Smoking has a "
            "direct effect on tar in the lungs. Tar in the lungs has a direct effect on lung disease.",
            legend="Let V1 = gene; X = smoking; V3 = tar in the lungs; Y = lung disease.",
            given_info="The probabilities of smoking, of tar given smoking, and of lung disease given smoking "
            "and tar are known.",
            question="Will smoking increase the chance of lung disease?",
            estimand="\\sum_{V3=v} [P(V3=v|X=1) - P(V3=v|X=0)] * [\\sum_{X=h} P(Y=1|X=h,V3=v)*P(X=h)]",
        ),
        "The confounder V1 is unobserved, but X affects Y only through the observed V3 (front door): "
        "combine the effect of X on V3 with the effect of V3 on Y adjusted for X.",
    ),
)


def example_for(family: str) -> tuple[CladderQuestionRow, str]:
    """The worked example (question, reasoning) shown with a question of ``family``: never the same family."""
    return next(example for example in _EXAMPLES if example[0].graph_id != family)


def render_question(q: CladderQuestionRow) -> str:
    """The user turn of one question: graph, observed variables, story, numbers, question, quantity."""
    observed = [n for n in q.nodes if n not in q.latent]
    lines = [
        f"Causal graph: {', '.join(f'{e.source} -> {e.target}' for e in q.edges)}",
        f"Observed variables: {', '.join(observed)}",
        f"Unobserved variables: {', '.join(q.latent) if q.latent else 'none'}",
    ]
    if q.legend:
        lines.append(f"Variables: {q.legend}")
    if q.background:
        lines.append(f"Background: {q.background}")
    lines += [
        f"Given: {q.given_info}",
        f"Question: {q.question}",
        f"Causal quantity to identify: {_quantity(q).text}",
    ]
    return "\n".join(lines)


def _quantity(q: CladderQuestionRow) -> Expr:
    """The causal quantity ``q`` asks for (its formal form as CLadder means it); every questions row has one."""
    quantity = formal_expression(q)
    if quantity is None:
        raise ValueError(f"question {q.id}: its formal form {q.formal_form!r} is not an expression")
    return quantity


def build_messages(q: CladderQuestionRow) -> Messages:
    """System instructions, one worked example (another graph family) as a user/assistant turn, the question."""
    example, reasoning = example_for(q.graph_id)
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": render_question(example)},
        {"role": "assistant", "content": f"{reasoning}\nEstimand: {example.estimand}"},
        {"role": "user", "content": render_question(q)},
    ]


def prompt_rows(questions: list[CladderQuestionRow]) -> list[CladderPromptRow]:
    """The ``prompts`` config: each question's messages, its estimand as the reference, its slices; the
    questions ``eval`` leaves out (:func:`reference_unobserved`) are left out here too, since no answer
    the prompt asks for can earn a reward on them."""
    return [
        CladderPromptRow(
            id=q.id,
            prompt=chat_messages(build_messages(q)),
            reference=q.estimand,
            rung=q.rung,
            query_type=q.query_type,
            graph_id=q.graph_id,
        )
        for q in questions
        if not reference_unobserved(q)
    ]


# ---- answers -------------------------------------------------------------------------------------

#: what opens and closes a value: markdown, LaTeX and quote delimiters (and a full stop at the end)
#: amid whitespace; the closing run is matched at the start of the reversed value (a pattern anchored
#: at the end would be tried from every character: quadratic in a run of backticks)
_OPENING = re.compile(r"""(?:[\s`$*"']|\\\(|\\\[)*""")
_CLOSING_REVERSED = re.compile(r"""(?:[\s`$*"'}.]|\)\\|\]\\)*""")


def labelled_line(label: str) -> re.Pattern:
    """A line ``<label>: <value>`` (also ``"label": "value"`` in JSON, markdown around the label)."""
    return re.compile(rf"""^[\s>*#_`"'{{-]*{label}[*_`"']*\s*[:=]\s*(?P<value>.+)$""", re.IGNORECASE | re.MULTILINE)


_ANSWER_LINE = labelled_line("estimand")


def extract_labelled(text: str, line: re.Pattern) -> str | None:
    """The value of the last ``line`` match outside any think block, markdown, LaTeX or quote
    delimiters stripped; None when there is none."""
    values = labelled_values(text, line)
    return (values[-1] or None) if values else None


def labelled_values(text: str, line: re.Pattern) -> list[str]:
    """The value of every ``line`` match outside any think block, in order, delimiters stripped (maybe empty)."""
    values = []
    for match in line.finditer(strip_thinking(text or "")):
        value = match.group("value")  # greedy to the line's end: linear time
        value = value[_run_at_start(_OPENING, value) :]
        value = value[: len(value) - _run_at_start(_CLOSING_REVERSED, value[::-1])]
        values.append(value.replace("\\\\", "\\"))
    return values


def _run_at_start(pattern: re.Pattern, text: str) -> int:
    """The length of ``pattern``'s match at the start of ``text`` (the delimiter patterns match the empty string)."""
    found = pattern.match(text)
    return found.end() if found else 0


def extract_estimand(text: str) -> str | None:
    """The expression of the last ``Estimand: ...`` line (also ``"estimand": "..."`` in JSON, markdown
    or LaTeX delimiters around it), outside any think block; None when there is none."""
    return extract_labelled(text, _ANSWER_LINE)


def stated_estimands(text: str) -> list[str]:
    """The expression of every ``Estimand: ...`` line outside any think block, in order (empty ones left out)."""
    return [value for value in labelled_values(text, _ANSWER_LINE) if value]


def question_graph(q: CladderQuestionRow) -> DoGraph:
    """The question's DAG: its family's graph with the row's unobserved nodes (an older release may list
    fewer), one shared instance per family and latent list."""
    return _graph(q.graph_id, tuple(sorted(q.latent)))


@cache
def _graph(graph_id: str, latent: tuple[str, ...]) -> DoGraph:
    graph = family_graph(graph_id)
    return graph if frozenset(latent) == graph.latent else DoGraph(graph.nodes, graph.edges, frozenset(latent))


@lru_cache(maxsize=65_536)
def _verdict(
    expression: str, estimand: str, graph_id: str, latent: tuple[str, ...], seed: int, observed: bool
) -> Verdict:
    """check_equivalence memoized (answers repeat across CLadder's questions: few distinct estimands per
    family, and a proof search can take a second); ``observed``: with every node observed (:func:`all_observed`)."""
    return _checked(expression, estimand, _graph(graph_id, latent), seed, observed)


@lru_cache(maxsize=4_096)
def _verdict_under(
    expression: str, estimand: str, edges: str, latent: tuple[str, ...], seed: int, observed: bool
) -> Verdict:
    """check_equivalence under another graph (a model's own), memoized the same way."""
    return _checked(expression, estimand, DoGraph.parse(edges, latent=latent), seed, observed)


def _checked(expression: str, estimand: str, graph: DoGraph, seed: int, observed: bool) -> Verdict:
    """The verdict under ``graph`` (every node observed if ``observed``), CLadder's variables binary."""
    if observed:
        graph = all_observed(graph)
    return check_equivalence(expression, estimand, graph, seed=seed, limits=PROOF_LIMITS, values=_binary(graph))


def _binary(graph: DoGraph) -> dict[str, int]:
    """CLadder's variables are binary: a value above 1 in an answer is bad input, not a larger domain."""
    return {n: 2 for n in graph.nodes if n not in graph.latent}


def reference_unobserved(q: CladderQuestionRow) -> bool:
    """Whether CLadder's estimand for ``q`` uses a variable its story calls unobserved (the arrowhead
    natural effects adjust for V2): no estimand over observed variables can equal it."""
    reference = try_parse(q.estimand)
    return reference is not None and bool(variables(reference) & set(q.latent))


def read_answer_expression(expression: str, q: CladderQuestionRow) -> Expr:
    """An answer's expression as the verifier reads it for ``q``: parsed, and read in CLadder's notation as
    CLadder's own formal forms and estimands are (:func:`.cladder.cladder_reading`: natural effects, contrasts).
    Raises :class:`~causal_datasets.docalc.parser.ExprParseError`."""
    return cladder_reading(parse(expression), q.query_type)


ERROR_PREFIXES = (
    ("parse error", "unparsable"),
    ("graph error", "unknown_variable"),
    ("uses the unobserved", "unobserved_variable"),
)


def reference_text(q: CladderQuestionRow, reference: Reference) -> str:
    """The reference answer of ``q`` verbatim: its formal form or its estimand."""
    return q.formal_form if reference == "formal-form" else q.estimand


def score_answer(
    expression: str | None,
    q: CladderQuestionRow,
    *,
    seed: int = 0,
    graph: DoGraph | None = None,
    reference: Reference = "estimand",
) -> dict[str, Any]:
    """An extracted answer expression against the question's ``reference`` (its estimand, or its formal form:
    both read as CLadder means them, :func:`.cladder.cladder_reading`), under both scoring rules
    (:mod:`~causal_datasets.docalc.scoring_rules`), beside the surface baselines against the reference's own
    text (``string_match``, ``bleu``, ``token_f1``).

    ``equivalent``: the verifier's verdict (True/False/None) under the question's graph (or ``graph``,
    e.g. the one a model wrote) — DoVerifier's rule: ``do()``, counterfactual terms and unobserved
    variables may appear (an unobserved node is then one more binary variable of the graph, as in
    CLadder's own models). ``identified``: the package's stricter rule — additionally a formula in
    observed probabilities (False with ``identification_error`` ``not_identified`` or
    ``unobserved_variable`` otherwise). ``method`` and ``proof_length`` explain the verdict; ``error``
    names why it was not decided (``no_expression``, ``reference_unobserved`` — see
    :func:`reference_unobserved` —, ``unparsable``, ``unknown_variable``, ``undecided``, ``scoring_error``)."""
    surface = surface_scores(expression, reference_text(q, reference))
    unscored = {
        "equivalent": None,
        "identified": None,
        "identification_error": None,
        "method": None,
        "proof_length": None,
        **surface,
    }
    if expression is None:
        return unscored | {"error": "no_expression", "detail": None}
    if reference_unobserved(q):
        return unscored | {
            "error": "reference_unobserved",
            "detail": f"CLadder's estimand uses {sorted(q.latent)}, which the story says is unobserved",
        }
    latent = tuple(sorted(q.latent if graph is None else graph.latent))
    try:
        answer = read_answer_expression(expression, q)
    except ExprParseError as error:
        return unscored | {"error": "unparsable", "detail": f"parse error: {error}"}
    except RecursionError as error:  # the parser bounds nesting; this is the last line of defence
        return unscored | {"error": "unparsable", "detail": f"RecursionError: {error}"}
    target = formal_expression(q) if reference == "formal-form" else estimand_expression(q)
    if target is None:  # a questions row's formal form and estimand both parse
        raise ValueError(f"question {q.id}: its {reference} is not an expression")
    shape = identification_error(answer, latent)
    # equivalence allows unobserved variables, as ordinary nodes
    observed = bool((variables(answer) | variables(target)) & set(latent))
    try:
        if graph is None:
            verdict = _verdict(answer.text, target.text, q.graph_id, latent, seed, observed)
        else:
            linked = {n for edge in graph.edges for n in edge}
            text = ",".join([f"{s}->{t}" for s, t in graph.edges] + [n for n in graph.nodes if n not in linked])
            verdict = _verdict_under(answer.text, target.text, text, latent, seed, observed)
    except Exception as crash:  # noqa: BLE001 - e.g. RecursionError on absurdly nested answers: one item, not the run
        return unscored | {
            "identification_error": shape,
            "method": "error",
            "error": "scoring_error",
            "detail": f"{type(crash).__name__}: {crash}",
        }
    category = None
    if verdict.equivalent is None:
        category = next(
            (category for prefix, category in ERROR_PREFIXES if (verdict.error or "").startswith(prefix)), "undecided"
        )
    return {
        "equivalent": verdict.equivalent,
        "identified": identified(verdict.equivalent, shape),
        "identification_error": shape,
        "method": verdict.method,
        "proof_length": len(verdict.proof.steps) if verdict.proof is not None else None,
        **surface,
        "error": category,
        "detail": verdict.error,
    }
