"""CLadder expression pairs: (formal form, identified estimand) per question, plus hard negatives.

Reads the CLadder files described in ``../shared/data/cladder/SOURCE.md``: the generator test
files ``test-generate-*.json`` (their ``meta.model_id`` resolves to ``test-model-meta.json``, which
holds each question's full conditional probability tables) and the derived JSON Lines copy of
1,000 v1 questions. Questions whose formal form or estimand is not an expression (backdoor-set,
collider-bias and deterministic-counterfactual questions) have no pair.

Every pair is labeled by :func:`check_equivalence` under the question's graph. Where CLadder's
own causal model is available, the estimand is also evaluated on it and compared with the
question's ``groundtruth`` number.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from causal_datasets.builder import reading_source
from causal_datasets.docalc.atoms import Atom, Potential
from causal_datasets.docalc.expr import Expr, Mul, Prob, Sum, free_indices, map_atoms, sub, substitute, variables
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.semantics import EvaluationError, TableModel, evaluate

GENERATOR_FILES = ("easy", "hard", "anti", "non", "det")
DERIVED_FILE = "derived/cladder-v1-q-balanced_rand-top1000.derived.jsonl"
MODEL_FILE = "test-model-meta.json"
#: every file of the CLadder folder that :func:`read_questions` reads
SOURCE_FILES = (MODEL_FILE, *(f"test-generate-{name}.json" for name in GENERATOR_FILES), DERIVED_FILE)

#: the ten CLadder graph families (fixed structures, as in the records' reasoning step 1)
FAMILY_EDGES = {
    "chain": "X->V2,V2->Y",
    "fork": "X->Y,V2->Y",
    "collision": "X->V3,Y->V3",
    "confounding": "V1->X,V1->Y,X->Y",
    "mediation": "X->V2,X->Y,V2->Y",
    "IV": "V1->X,V2->X,V1->Y,X->Y",
    "frontdoor": "V1->X,X->V3,V1->Y,V3->Y",
    "arrowhead": "X->V3,V2->V3,X->Y,V2->Y,V3->Y",
    "diamond": "X->V3,X->V2,V2->Y,V3->Y",
    "diamondcut": "V1->V3,V1->X,X->Y,V3->Y",
}
#: the families whose stories say a variable is unobserved (every story of the family says so):
#: V1, the confounder, in IV and frontdoor; V2, the mediator–outcome confounder, in arrowhead
LATENT = {"IV": ("V1",), "frontdoor": ("V1",), "arrowhead": ("V2",)}
#: agreement of an estimand evaluated on CLadder's model with its ``groundtruth``
NUMBER_TOLERANCE = 1e-6


@dataclass(frozen=True)
class CladderQuestion:
    source_file: str
    question_id: int
    desc_id: str
    story_id: str
    graph_id: str
    query_type: str
    rung: int
    formal_form: str | None
    estimand: str | None
    groundtruth: float | None
    model: TableModel | None  # CLadder's own causal model (its conditional tables), when available
    given_info: str = ""  # the question's stated probabilities
    question: str = ""
    background: str | None = None  # the story's causal relations (v1 questions: their own; others: their model's)
    legend: str | None = None  # "Let X = ...; V2 = ...; Y = ..." (reasoning step 0)
    answer: str | None = None  # CLadder's yes/no answer

    @property
    def graph(self) -> DoGraph:
        return family_graph(self.graph_id)


@cache
def family_graph(graph_id: str) -> DoGraph:
    """The family's DAG (one shared instance per family, so its d-separation cache is reused)."""
    return DoGraph.parse(FAMILY_EDGES[graph_id], latent=LATENT.get(graph_id, ()))


def read_questions(folder: Path) -> list[CladderQuestion]:
    """Every question of the generator test files and of the derived v1 file, in file order."""
    with reading_source(folder / MODEL_FILE):
        metas = {m["model_id"]: m for m in json.loads((folder / MODEL_FILE).read_text())}
        models = {model_id: _model_or_none(meta) for model_id, meta in metas.items()}
    questions = []
    for name in GENERATOR_FILES:
        with reading_source(folder / f"test-generate-{name}.json"):
            for record in json.loads((folder / f"test-generate-{name}.json").read_text()):
                model_id = record["meta"].get("model_id")
                story = _story(record, metas.get(model_id))
                questions.append(_question(f"test-generate-{name}.json", record, models.get(model_id), story))
            _check_ids(questions, f"test-generate-{name}.json")
    with reading_source(folder / DERIVED_FILE):
        for line in (folder / DERIVED_FILE).read_text().splitlines():
            questions.append(_question("cladder-v1-q-balanced_rand-top1000", json.loads(line), None))
        _check_ids(questions, "cladder-v1-q-balanced_rand-top1000")
    return questions


def _check_ids(questions: list[CladderQuestion], source: str) -> None:
    """The questions of one file: at least one, each question id once (``ValueError`` otherwise)."""
    ids = Counter(q.question_id for q in questions if q.source_file == source)
    if not ids:
        raise ValueError("no questions: the file holds no rows")
    repeated = sorted(key for key, count in ids.items() if count > 1)
    if repeated:
        raise ValueError(f"{len(repeated)} question id(s) on more than one row: {', '.join(map(str, repeated[:10]))}")


def _story(record: dict, meta: dict | None) -> str | None:
    """The background of the question's causal model (the generator test files keep it there, not in
    the question), when the model is the question's own story and graph."""
    if meta is None or (meta.get("story_id"), meta.get("graph_id")) != (
        record["meta"].get("story_id"),
        record["meta"].get("graph_id"),
    ):
        return None
    return meta.get("background") or None


def _question(source_file: str, record: dict, model: TableModel | None, story: str | None = None) -> CladderQuestion:
    meta = record["meta"]
    reasoning = record.get("reasoning") or {}
    groundtruth = meta.get("groundtruth")
    return CladderQuestion(
        source_file=source_file,
        question_id=int(record["question_id"]),
        desc_id=record["desc_id"],
        story_id=meta["story_id"],
        graph_id=meta["graph_id"],
        query_type=meta["query_type"],
        rung=int(meta["rung"]),
        formal_form=meta.get("formal_form") or reasoning.get("step2"),
        estimand=meta.get("estimand") or reasoning.get("step3"),
        groundtruth=float(groundtruth) if isinstance(groundtruth, (int, float)) else None,
        model=model,
        given_info=record.get("given_info") or "",
        question=record.get("question") or "",
        background=record.get("background") or story,
        legend=reasoning.get("step0") or None,
        answer=record.get("answer") or None,
    )


#: query types whose formal form writes a mediator's nested counterfactual as a plain value
NESTED_QUERY_TYPES = frozenset({"nde", "nie"})
#: query types whose quantity is a contrast between the treatment's two values (all but the marginal)
CONTRAST_QUERY_TYPES = frozenset({"correlation", "exp_away", "ate", "ett", "nde", "nie"})


def formal_expression(q) -> Expr | None:
    """The formal form of ``q`` (a :class:`CladderQuestion` or a ``questions`` row: anything with
    ``formal_form`` and ``query_type``) as CLadder means it (:func:`cladder_reading`), or None if it is not an
    expression."""
    e = try_parse(q.formal_form)
    return None if e is None else cladder_reading(e, q.query_type)


def estimand_expression(q) -> Expr | None:
    """CLadder's estimand of ``q`` as CLadder means it (:func:`cladder_reading`), or None if it is not an
    expression."""
    e = try_parse(q.estimand)
    return None if e is None else cladder_reading(e, q.query_type)


def cladder_reading(e: Expr, query_type: str) -> Expr:
    """``e`` (a formal form, an estimand or an answer) read in CLadder's notation for a ``query_type`` question.

    - Natural effects (``nde``, ``nie``): CLadder writes ``E[Y_{X=1, V2=0} - Y_{X=0, V2=0}]`` for
      ``E[Y_{X=1, V2_{X=0}} - Y_{X=0, V2_{X=0}}]``: a mediator's subscript value k beside ``X`` stands for
      the mediator's own value under ``X=k`` (its NDE and NIE numbers follow from that reading only; read
      literally, the string is a controlled effect).
    - Contrasts (every query type but ``marginal``): a distribution (one probability term) written for the
      contrast, the treatment ``X`` left without a value, is the contrast between its two values, and an
      outcome ``Y`` left without a value is ``Y=1`` (CLadder reports ``P(Y=1)``): ``P(Y | X)`` — the
      correlation questions' formal form, the fork ATE's estimand — is ``P(Y=1 | X=1) - P(Y=1 | X=0)``, and
      ``P(Y | X=1) - P(Y | X=0)`` is the same. CLadder's ``groundtruth`` numbers follow from this reading.

    Other expressions are unchanged."""
    if query_type in NESTED_QUERY_TYPES:
        e = _nested_mediators(e)
    return _contrast(e) if query_type in CONTRAST_QUERY_TYPES else e


@cache
def _contrast(e: Expr) -> Expr:
    free = free_indices(e)
    if "Y" in free:
        e = substitute(e, {"Y": 1})
    if isinstance(e, Prob) and "X" in free:  # one distribution, not any expression with a free X
        return sub(substitute(e, {"X": 1}), substitute(e, {"X": 0}))
    return e


@cache
def _nested_mediators(e: Expr) -> Expr:
    def mediator(var, value):
        return Potential(var, (("X", value),)) if var != "X" and isinstance(value, int) else value

    return map_atoms(e, lambda a: Atom(a.var, a.value, tuple((v, mediator(v, x)) for v, x in a.cf)))


@cache
def try_parse(text: str | None) -> Expr | None:
    """The parsed expression, or None for empty or non-expression strings (memoized)."""
    if not text:
        return None
    try:
        return parse(text)
    except ExprParseError:
        return None


# ---- CLadder's own numbers ------------------------------------------------------------------------

_PARAM_KEY = re.compile(r"^p\((\w+)(?:\s*\|\s*([\w\s,]+))?\)$")


def cladder_model(graph: DoGraph, params: dict) -> TableModel:
    """A table model from CLadder's ``params`` (``"p(Y | X, V2)": [[P(Y=1|X=0,V2=0), ...], ...]``)."""
    tables = {}
    for key, values in params.items():
        match = _PARAM_KEY.match(key.strip())
        if match is None:
            raise EvaluationError(f"unreadable CLadder parameter {key!r}")
        node = match.group(1)
        parents = [p.strip() for p in (match.group(2) or "").split(",") if p.strip()]
        p_one = np.asarray(values, dtype=float).reshape(tuple(graph.domain(p) for p in parents))
        table = np.stack([1 - p_one, p_one], axis=-1)
        order = [parents.index(p) for p in graph.parents(node)]
        tables[node] = np.transpose(table, order + [len(parents)])
    return TableModel.single(graph, tables)


def _model_or_none(meta: dict) -> TableModel | None:
    """CLadder's model as tables, or None (deterministic models, unreadable parameters)."""
    if meta.get("equation_type") != "bernoulli":
        return None
    try:
        return cladder_model(family_graph(meta["graph_id"]), meta["params"])
    except (EvaluationError, KeyError, ValueError):
        return None


def estimand_value(estimand: Expr, question: CladderQuestion) -> float | None:
    """The estimand on CLadder's own model (free indices at 1, as CLadder reports P(Y=1)), or None."""
    if question.model is None:
        return None
    try:
        value = evaluate(estimand, question.model, question.graph, {name: 1 for name in free_indices(estimand)})[0]
    except EvaluationError:
        return None
    return None if math.isnan(value) else float(value)


# ---- hard negatives ----------------------------------------------------------------------------


def _adjusted(var: str, treatment_values=(1, 0)) -> Expr:
    """Σ_var P(var) * [P(Y=1 | var, X=1) - P(Y=1 | var, X=0)]: adjustment for ``var``."""
    z = Atom(var, var)
    effects = [Prob((Atom("Y", 1),), (), (z, Atom("X", x))) for x in treatment_values]
    return Sum(var, var, Mul((Prob((z,)), sub(*effects))))


def candidate_mistakes(graph_id: str, estimands_by_family: dict[str, Expr]) -> Iterator[tuple[str, Expr]]:
    """Realistic estimands for an ATE under ``graph_id``: (kind, expression). Only those the
    verifier refutes become hard negatives (some are right in some families)."""
    graph = family_graph(graph_id)
    correlation = sub(Prob((Atom("Y", 1),), (), (Atom("X", 1),)), Prob((Atom("Y", 1),), (), (Atom("X", 0),)))
    yield "confounding_ignored", correlation
    for var in graph.nodes:
        if var not in graph.latent and var not in ("X", "Y"):
            yield "wrong_adjustment", _adjusted(var)
    for family, estimand in sorted(estimands_by_family.items()):
        if family != graph_id and variables(estimand) <= set(graph.nodes):
            yield "neighbour_family_estimand", estimand
