"""Reward functions for TRL trainers (``GRPOTrainer`` and friends), read off the datasets' own columns.

Each function has TRL's signature ``reward(prompts, completions, **kwargs) -> list[float]``:
``completions`` are strings (standard format) or message lists whose last assistant message is
the answer (conversational format, e.g. ``[{"role": "assistant", "content": "..."}]``); every other
dataset column arrives as a keyword holding one value per completion (class labels may come as
their integer index, as ``datasets`` stores them); anything else TRL adds (``trainer_state``,
``completion_ids``, ``log_metric`` ...) is ignored. Rewards lie in [0, 1] and are deterministic. A
completion over :data:`~causal_datasets.reward_guards.MAX_COMPLETION_CHARS` (32,000) characters,
or one stating several different answers, gets the lowest reward (:mod:`causal_datasets.reward_guards`).

No function raises on a completion or a column value: an unusable one gets the lowest reward,
0.0, and each call logs at most one warning (logger ``causal_datasets.rewards``) counting the
reasons. Each function documents the columns it reads; :data:`PROMPTS_CONFIGS` names the
training-ready config of prompts each one scores (rows in TRL's conversational ``prompt`` format,
with those columns).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from numbers import Integral
from typing import Any

from causal_datasets.cladder_pairs.cladder import cladder_reading, family_graph
from causal_datasets.cladder_pairs.estimand_task import ERROR_PREFIXES, stated_estimands
from causal_datasets.cladder_pairs.records import CladderPromptRow, CladderQuestionRow
from causal_datasets.cladder_pairs.synthetic_latent import NOT_IDENTIFIABLE
from causal_datasets.cladder_pairs.yes_no import cladder_answer
from causal_datasets.docalc.budget import REWARD_TIME_BACKSTOP, REWARD_WORK_LIMIT
from causal_datasets.docalc.expr import Expr, variables
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.identification import QueryError, identify
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.scoring_rules import SCORING_RULES, ScoringRule, all_observed, identification_error
from causal_datasets.docalc.verdict import Verdict, check_equivalence
from causal_datasets.graph import CausalGraph, GraphError
from causal_datasets.llm.structured import strip_thinking
from causal_datasets.recast.parsing import (
    AnswerFormatError,
    parse_graph_answer,
    read_prediction,
    relationships_objects,
)
from causal_datasets.reward_guards import extreme_constant, over_length, statement_problem
from causal_datasets.scoring.graph_compare import GraphComparison, compare_graphs
from causal_datasets.shapeworld.parsing import json_objects, parse_answer
from causal_datasets.shapeworld.records import ShapeWorldTask

logger = logging.getLogger(__name__)

LOWEST = 0.0
#: class-label vocabularies, in the order ``datasets`` indexes them
GRAPH_FAMILIES: tuple[str, ...] = tuple(CladderPromptRow.features()["graph_id"].names)
QUERY_TYPES: tuple[str, ...] = tuple(CladderPromptRow.features()["query_type"].names)
CLADDER_ANSWERS: tuple[str, ...] = tuple(CladderQuestionRow.features()["answer"].names)
SHAPEWORLD_ANSWERS: tuple[str, ...] = tuple(ShapeWorldTask.features()["answer"].names)


class _Lowest(Exception):
    """This completion gets the lowest reward, for ``reason`` (a short category that is counted)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class _Row:
    """The column values of one completion (TRL passes each column as a list, one value per completion)."""

    __slots__ = ("columns", "index")

    def __init__(self, columns: Mapping[str, Any], index: int):
        self.columns, self.index = columns, index

    def get(self, name: str) -> Any:
        column = self.columns.get(name)
        if isinstance(column, (list, tuple)) and self.index < len(column):
            return column[self.index]
        return None

    def text(self, *names: str) -> str:
        """The first of ``names`` that holds a non-empty string."""
        for name in names:
            value = self.get(name)
            if isinstance(value, str) and value.strip():
                return value
        raise _Lowest(f"no {' or '.join(names)} column")

    def label(self, name: str, names: Sequence[str]) -> str:
        """A class-label column as its name (given as the name or as its index)."""
        value = self.get(name)
        if isinstance(value, str) and value in names:
            return value
        if isinstance(value, Integral) and not isinstance(value, bool) and 0 <= int(value) < len(names):
            return names[int(value)]
        raise _Lowest(f"no {name} column" if value is None else f"{name} not one of {'/'.join(names)}")


Score = Callable[[str, _Row], float]


def _rewards(name: str, completions: Sequence[Any], columns: Mapping[str, Any], score: Score) -> list[float]:
    """``score`` of every completion; the lowest reward where it raises, the reasons counted in one warning."""
    rewards: list[float] = []
    reasons: Counter[str] = Counter()
    for index, completion in enumerate(completions):
        try:
            text = _completion_text(completion)
            if over_length(text):
                raise _Lowest("over_length")
            rewards.append(score(text, _Row(columns, index)))
        except _Lowest as low:
            reasons[low.reason] += 1
            rewards.append(LOWEST)
        except Exception as error:  # noqa: BLE001 - a reward never stops a training loop
            reasons[f"unexpected {type(error).__name__}"] += 1
            rewards.append(LOWEST)
    if reasons:
        counts = ", ".join(f"{reason}: {n}" for reason, n in reasons.most_common())
        logger.warning(
            "%s: %d of %d completions got the lowest reward (%s)", name, reasons.total(), len(rewards), counts
        )
    return rewards


def _completion_text(completion: Any) -> str:
    """A standard completion (a string), or the last assistant message of a conversational one."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, (list, tuple)):
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role", "assistant") == "assistant":
                content = message.get("content")
                if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
                    content = "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
                if isinstance(content, str):
                    return content
                break
    raise _Lowest("malformed completion")


# ---- CLadder estimand (do-calculus equivalence) ----------------------------------------------------

GraphKey = tuple[Any, ...]


def estimand_equivalence_reward(
    prompts: Sequence[Any], completions: Sequence[Any], *, scoring: ScoringRule = "identification", **kwargs: Any
) -> list[float]:
    """1.0 when the completion's expression is right for the row's reference under ``scoring``, else 0.0.

    The expression is the last ``Estimand: ...`` line
    (:func:`~causal_datasets.cladder_pairs.estimand_task.extract_estimand`), or the whole completion
    (outside ``<think>``) when it parses as one expression; in a CLadder natural-effect row
    (``query_type`` ``nde``/``nie``) it is read in CLadder's notation, as the benchmark reads answers.
    It is compared with the reference under the row's graph by
    :func:`~causal_datasets.docalc.verdict.check_equivalence` on random models of the graph (the proof
    search, which only explains a verdict, is skipped; a graph too large for exact models, or a pair
    not decided within :data:`~causal_datasets.docalc.budget.REWARD_WORK_LIMIT` table entries of work
    (about 1 s; the same on any machine and load, unlike a time limit), gets no verdict: 0.0, reason
    ``undecided`` — never scored as correct). Verdicts are memoized (an undecided one too: the same
    answer scores the same for the rest of the run).

    ``scoring`` (:mod:`~causal_datasets.docalc.scoring_rules`): ``identification``, the default,
    also asks for an estimand, as the prompts do — no ``do()``, no counterfactual subscript (reason
    ``not_identified``), no unobserved variable (``unobserved_variable``). It is the default because a
    policy rewarded under ``equivalence`` earns full reward by copying the asked quantity from the
    prompt. ``equivalence`` is DoVerifier's rule (any expression equal to the reference); pass it with
    ``functools.partial(estimand_equivalence_reward, scoring="equivalence")``.

    Columns: ``reference`` (``prompts`` config) or ``estimand`` (``questions`` config); the graph
    from ``nodes``/``edges``/``latent`` (``questions``), else ``graph`` (edge-list text such as
    ``X->Y, Z->X``, ``A<->B`` for a latent common cause; with ``latent`` if any), else ``graph_id``
    (a CLadder graph family, by name or class-label index: the ``prompts`` config).
    """
    if scoring not in SCORING_RULES:
        raise ValueError(f"scoring must be one of {', '.join(SCORING_RULES)}, got {scoring!r}")
    return _rewards(
        "estimand_equivalence_reward", completions, kwargs, lambda text, row: _estimand_score(text, row, scoring)
    )


def _estimand_score(text: str, row: _Row, scoring: str) -> float:
    reference = row.text("reference", "estimand")
    key = _graph_key(row)
    problem = _reference_problem(reference, key)
    if problem:
        raise _Lowest(problem)
    expression = _expression(*_answer(text))
    query_type = row.get("query_type")
    if query_type is not None:  # answer and reference read in CLadder's notation (its shorthand P(Y | X) included)
        expression = cladder_reading(expression, _query_type(query_type))
        reference = cladder_reading(parse(reference), _query_type(query_type)).text
    graph = _graph(key)
    shape = identification_error(expression, graph.latent)
    if scoring == "identification" and shape is not None:
        raise _Lowest(shape)
    return _decided(_verdict(expression, reference, key, latent_as_observed=bool(variables(expression) & graph.latent)))


def _answer(text: str) -> tuple[str, bool]:
    """The answer of a completion: its ``Estimand: ...`` lines' expression (and True; lines stating different
    ones, or too many: :func:`~causal_datasets.reward_guards.statement_problem`), else the whole completion
    outside ``<think>`` (and False)."""
    stated = stated_estimands(text)
    problem = statement_problem(stated)
    if problem:
        raise _Lowest(problem)
    return (stated[-1], True) if stated else (strip_thinking(text).strip(), False)


def _expression(answer: str, labelled: bool) -> Expr:
    try:
        expression = parse(answer)
    except ExprParseError:
        raise _Lowest("unparsable" if labelled else "no_expression") from None
    if extreme_constant(expression):
        raise _Lowest("extreme_constant")
    return expression


def _decided(verdict: Verdict) -> float:
    if verdict.equivalent is None:
        raise _Lowest(
            next(
                (category for prefix, category in ERROR_PREFIXES if (verdict.error or "").startswith(prefix)),
                "undecided",
            )
        )
    return float(verdict.equivalent)


def _query_type(value: Any) -> str:
    """A ``query_type`` column value as its name (``datasets`` may give the class-label index)."""
    if isinstance(value, Integral) and not isinstance(value, bool) and 0 <= int(value) < len(QUERY_TYPES):
        return QUERY_TYPES[int(value)]
    return value if isinstance(value, str) else ""


def _graph_key(row: _Row) -> GraphKey:
    """A hashable description of the row's graph (the memo key of its :class:`DoGraph`)."""
    latent = _names(row.get("latent") or (), "latent")
    edges = row.get("edges")
    if edges is not None:
        return ("edges", _edge_pairs(edges), _names(row.get("nodes") or (), "nodes"), latent)
    graph = row.get("graph")
    if isinstance(graph, str):
        return ("text", graph, latent)
    if row.get("graph_id") is not None:
        return ("family", row.label("graph_id", GRAPH_FAMILIES))
    raise _Lowest("no graph column (nodes/edges/latent, graph or graph_id)")


def _names(values: Any, column: str) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
        raise _Lowest(f"{column} not a list of names")
    return tuple(values)


def _edge_pairs(edges: Any) -> tuple[Any, ...]:
    """``{"source", "target"}`` dicts (or a dict of two lists), pairs or ``"A -> B"`` strings, hashable."""
    if isinstance(edges, Mapping) and isinstance(edges.get("source"), list) and isinstance(edges.get("target"), list):
        edges = [{"source": s, "target": t} for s, t in zip(edges["source"], edges["target"], strict=False)]
    if not isinstance(edges, (list, tuple)):
        raise _Lowest("edges not a list")
    pairs: list[tuple[Any, ...] | str] = []
    for edge in edges:
        if isinstance(edge, Mapping):
            pairs.append((edge.get("source"), edge.get("target")))
        elif isinstance(edge, (list, tuple)) and len(edge) == 2:
            pairs.append(tuple(edge))
        elif isinstance(edge, str):
            pairs.append(edge)
        else:
            raise _Lowest("edges not a list of edges")
    return tuple(pairs)


@lru_cache(maxsize=4096)
def _graph(key: GraphKey) -> DoGraph:
    kind, *rest = key
    if kind == "family":
        return family_graph(rest[0])
    if kind == "text":
        text, latent = rest
        return DoGraph.parse(text, latent=latent)
    edges, nodes, latent = rest
    return DoGraph.from_edges(edges, nodes=nodes, latent=latent)


@lru_cache(maxsize=65_536)
def _reference_problem(reference: str, key: GraphKey) -> str | None:
    """Why the row's reference and graph cannot be scored against (None: they can)."""
    try:
        graph = _graph(key)
    except (GraphError, TypeError, ValueError):
        return "bad graph"
    try:
        graph.check_variables(parse(reference))
    except (ExprParseError, GraphError):
        return "bad reference"
    return None


@lru_cache(maxsize=65_536)
def _verdict(expression: Expr, reference: str, key: GraphKey, *, latent_as_observed: bool) -> Verdict:
    """The verdict under the row's graph; ``latent_as_observed``: with its unobserved nodes as ordinary
    ones (an answer that uses them is verified as a quantity of the model, under ``equivalence``)."""
    graph = _graph(key)
    return check_equivalence(
        expression,
        reference,
        all_observed(graph) if latent_as_observed else graph,
        prove=False,
        work_limit=REWARD_WORK_LIMIT,  # a batch waits for its slowest reward; the same verdict on any machine
        time_limit=REWARD_TIME_BACKSTOP,
    )


# ---- identification (no reference answer) -----------------------------------------------------------


def identify_reward(prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """1.0 when the completion identifies the row's query under its graph, else 0.0; no reference answer is needed.

    The answer is the last ``Estimand: ...`` line (or the whole completion outside ``<think>``). ``not
    identifiable`` earns 1.0 exactly when :func:`~causal_datasets.docalc.identify` finds a hedge (ID and IDC
    are complete: no estimand exists then). An expression earns 1.0 when it is in observed probabilities only
    (reasons ``not_identified``, ``unobserved_variable``) and :func:`~causal_datasets.docalc.check_equivalence`
    finds it equal to the query itself on random models of the graph (the proof search is skipped; a graph too
    large for exact models, or a pair not decided within the work budget, gets no verdict: 0.0, reason
    ``undecided``). Any
    correct estimand counts, however it is written. Verdicts are memoized.

    Columns: ``query`` (``P(Y | do(X))``, ``P(Y | do(X), Z)``) and ``graph`` (edge text, ``A<->B`` for a latent
    common cause; its other graph columns are not read: ``edges`` holds the directed edges only), as the
    ``cladder_pairs`` ``synthetic_latent`` config holds them; its ``reference``, when the row has one, is
    ID/IDC's estimand: an answer that is the same expression is right without a check (a large one may not
    be decided within the time limit) (reasons ``bad graph``, ``bad query`` when
    ``identify`` refuses them).
    """

    def score(text: str, row: _Row) -> float:
        query, key = row.text("query"), ("text", row.text("graph"), _names(row.get("latent") or (), "latent"))
        identifiable = _identifiable(query, key)
        answer, labelled = _answer(text)
        if answer.strip().rstrip(".").lower() == NOT_IDENTIFIABLE:
            return float(not identifiable)
        expression = _expression(answer, labelled)
        shape = identification_error(expression, _graph(key).latent)
        if shape is not None:
            raise _Lowest(shape)
        if expression == _parsed(row.get("reference")):  # ID/IDC's own estimand: right by construction
            return 1.0
        return _decided(_verdict(expression, query, key, latent_as_observed=False))

    return _rewards("identify_reward", completions, kwargs, score)


@lru_cache(maxsize=65_536)
def _parsed(reference: Any) -> Expr | None:
    """The row's reference estimand parsed (None: no reference column, or not an expression)."""
    try:
        return parse(reference) if isinstance(reference, str) else None
    except ExprParseError:
        return None


@lru_cache(maxsize=65_536)
def _identifiable_query(query: str, key: GraphKey) -> bool:
    return identify(query, _graph(key), check=False).identifiable  # the decision alone: the steps need no check


def _identifiable(query: str, key: GraphKey) -> bool:
    try:
        _graph(key)
    except (GraphError, TypeError, ValueError):
        raise _Lowest("bad graph") from None
    try:
        return _identifiable_query(query, key)
    except (ExprParseError, GraphError, QueryError):  # a query identify does not take, an unknown variable
        raise _Lowest("bad query") from None


# ---- ReCAST graph ------------------------------------------------------------------------------------


def recast_edge_f1_reward(prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """Edge F1 of the completion's graph against the row's reference graph.

    The graph is the last ``{"relationships": [{"source", "sink"}, ...]}`` JSON of the completion
    (:func:`~causal_datasets.recast.parsing.parse_graph_answer`; none: 0.0, reason ``no relationships JSON``).
    Node names are matched ``normalized`` (case, whitespace, punctuation and plurals ignored) by
    :func:`~causal_datasets.scoring.graph_compare.compare_graphs`; name-assisted rows compare node
    ids, which both sides use. Column: ``reference`` (the ``recast`` ``prompts`` config's JSON code
    block, or ``A -> B`` lines).
    """
    return _rewards(
        "recast_edge_f1_reward", completions, kwargs, lambda text, row: _recast_comparison(text, row).edge_f1
    )


def recast_shd_reward(prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """``max(0, 1 − SHD / |reference edges|)``: 1.0 for the reference graph, 0.0 for no edges or worse.

    SHD = missing + extra + reversed edges (a reversal counts once), after the same parsing and
    node matching as :func:`recast_edge_f1_reward`. It is normalized by the reference's edge count
    (``normalization="reference_edges"``) rather than ReCAST's n(n−1), under which an empty answer
    to a sparse graph would still earn nearly 1. Column: ``reference``.
    """
    return _rewards(
        "recast_shd_reward",
        completions,
        kwargs,
        lambda text, row: max(0.0, 1.0 - _recast_comparison(text, row).normalized_shd),
    )


def _recast_comparison(text: str, row: _Row) -> GraphComparison:
    reference = _reference_graph(row.text("reference"))
    if isinstance(reference, str):
        raise _Lowest(reference)
    stated = relationships_objects(strip_thinking(text))
    if not stated:  # the benchmark also reads a graph left inside an unclosed <think>; a reward does not
        raise _Lowest("no relationships JSON")
    problem = statement_problem(stated)
    if problem:
        raise _Lowest(problem)
    try:
        prediction = parse_graph_answer(text).graph
    except AnswerFormatError:
        raise _Lowest("no relationships JSON") from None
    return compare_graphs(prediction, reference, node_matching="normalized", normalization="reference_edges")


@lru_cache(maxsize=4096)
def _reference_graph(reference: str) -> CausalGraph | str:
    """The reference graph, or why it cannot be read."""
    try:
        return read_prediction(reference)
    except AnswerFormatError:
        return "bad reference"


# ---- yes/no answers ---------------------------------------------------------------------------------


def shapeworld_answer_reward(prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """1.0 when the completion's final ``{"answer": "yes" | "no"}`` equals the row's answer, else 0.0.

    The answer is read as the ShapeWorld protocol reads it
    (:func:`~causal_datasets.shapeworld.parsing.parse_answer`: the last JSON object with an
    ``answer`` key outside ``<think>``; reasons ``invalid_format`` / ``invalid_answer``).
    Column: ``answer`` (``yes``/``no`` or its class-label index) of the ``shapeworld`` ``prompts``
    config (or ``core``/``advanced``, which hold no prompts).
    """

    def score(text: str, row: _Row) -> float:
        expected = row.label("answer", SHAPEWORLD_ANSWERS)
        problem = statement_problem(obj["answer"] for obj in json_objects(text) if "answer" in obj)
        if problem:
            raise _Lowest(problem)
        parsed = parse_answer(text)
        if parsed.error:
            raise _Lowest(parsed.error)
        return float(parsed.value == expected)

    return _rewards("shapeworld_answer_reward", completions, kwargs, score)


def cladder_answer_reward(prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """1.0 when the completion's yes/no (:func:`cladder_answer`) equals the question's answer, else 0.0.

    Column: ``answer`` of the ``cladder_pairs`` ``yes_no_prompts`` config (or ``questions``;
    ``yes``/``no`` or its class-label index; a row without one gets 0.0, reason ``no answer column``).
    """

    def score(text: str, row: _Row) -> float:
        expected = row.label("answer", CLADDER_ANSWERS)
        answer = cladder_answer(text)
        if answer is None:
            raise _Lowest("no yes/no answer")
        return float(answer == expected)

    return _rewards("cladder_answer_reward", completions, kwargs, score)


#: the training-ready config of prompts each reward function scores, as (dataset, config)
PROMPTS_CONFIGS: dict[Callable[..., list[float]], tuple[str, str]] = {
    estimand_equivalence_reward: ("cladder_pairs", "prompts"),
    cladder_answer_reward: ("cladder_pairs", "yes_no_prompts"),
    identify_reward: ("cladder_pairs", "synthetic_latent"),
    recast_edge_f1_reward: ("recast", "prompts"),
    recast_shd_reward: ("recast", "prompts"),
    shapeworld_answer_reward: ("shapeworld", "prompts"),
}
