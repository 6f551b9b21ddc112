"""Per-item scores of the lm-eval tasks (their ``process_results``), by the benchmarks' own functions.

lm-eval averages each key over the items that report it (``aggregation: mean`` in the YAMLs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from causal_datasets.cladder_pairs.estimand_task import extract_estimand, score_answer
from causal_datasets.cladder_pairs.records import CladderQuestionRow
from causal_datasets.cladder_pairs.yes_no import cladder_answer
from causal_datasets.docalc.scoring_rules import credited
from causal_datasets.recast.parsing import AnswerFormatError, parse_graph_answer
from causal_datasets.records.base import record_from_json
from causal_datasets.scoring.graph_compare import compare_graphs


def score_cladder_estimand(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, float]:
    """Each 0 or 1, as ``causal-datasets eval cladder_pairs`` scores an item
    (:func:`~causal_datasets.cladder_pairs.estimand_task.score_answer` on the reply's ``Estimand:`` expression):
    ``equivalence_accuracy`` (equal to CLadder's estimand under the question's graph),
    ``identification_accuracy`` (also in observed probabilities only), ``accuracy`` (the rule the
    row's ``scoring`` column names, from ``--metadata``) and ``string_match``."""
    question = record_from_json(doc["question"], CladderQuestionRow, "the question column")
    scores = score_answer(extract_estimand(results[0]), question)
    verdicts = {"equivalence": scores["equivalent"], "identification": scores["identified"]}
    return {
        "accuracy": float(credited(verdicts, doc["scoring"])),
        "equivalence_accuracy": float(verdicts["equivalence"] is True),
        "identification_accuracy": float(verdicts["identification"] is True),
        "string_match": float(scores["string_match"]),
    }


def score_cladder_yes_no(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, float]:
    """``accuracy`` (0/1: the reply's final yes/no, read by
    :func:`~causal_datasets.cladder_pairs.yes_no.cladder_answer`, equals CLadder's) and ``answered`` (0/1: a
    yes/no could be read), as ``causal-datasets eval cladder_yes_no`` scores an item."""
    answer = cladder_answer(results[0])
    return {"accuracy": float(answer == doc["answer"]), "answered": float(answer is not None)}


def score_recast_graph(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, float]:
    """``parsed`` (0/1: the reply holds ``relationships`` JSON); for a parsed reply also ``edge_f1``
    and ``shd`` with normalized node names and ``edge_f1_exact`` with exact ones, against the row's
    reference graph (a reversed edge counts once). As in ``causal-datasets eval recast``, an
    unparsed reply is left out of the graph means, but no formatting-correction call is made first."""
    try:
        prediction = parse_graph_answer(results[0]).graph
    except AnswerFormatError:
        return {"parsed": 0.0}
    reference = parse_graph_answer(doc["reference"]).graph
    normalized = compare_graphs(prediction, reference, node_matching="normalized")
    exact = compare_graphs(prediction, reference, node_matching="exact")
    return {"parsed": 1.0, "edge_f1": normalized.edge_f1, "edge_f1_exact": exact.edge_f1, "shd": normalized.shd}


def score_cobe_queries(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, float]:
    """``nonempty`` (0/1): the only part of CoBe's verdict that needs no judge (an empty rewrite is
    wrong without a judge call); the criteria E1–E5 need the judge (see the tasks' README)."""
    return {"nonempty": float(bool(results[0].strip()))}
