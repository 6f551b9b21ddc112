"""Batch scoring of predicted expressions against references: verifier accuracy beside the surface baselines."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from causal_datasets.docalc.baselines import mean, surface_scores
from causal_datasets.docalc.domains import DomainError, parse_values
from causal_datasets.docalc.expr import Expr, variables
from causal_datasets.docalc.graph import DoGraph, EdgeForm
from causal_datasets.docalc.independence import IndependenceError, Independences
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.scoring_rules import (
    SCORING_RULES,
    ScoringRule,
    all_observed,
    identification_error,
    identified,
)
from causal_datasets.docalc.search import SearchLimits
from causal_datasets.docalc.verdict import Verdict, as_graph, check_equivalence
from causal_datasets.graph import GraphError
from causal_datasets.scoring.inputs import batch_size

#: one pair's knowledge of the causal structure: a DAG (edge-list text or pairs) or independence statements
Knowledge = str | Sequence[EdgeForm]


def score_pairs(
    predictions: Sequence[str],
    references: Sequence[str],
    graphs: Sequence[Knowledge | None] | None,
    latents: Sequence[Sequence[str] | str | None] | None = None,
    *,
    independences: Sequence[str | Sequence[str] | None] | None = None,
    complete: bool = False,
    seed: int = 0,
    prove: bool = False,
    limits: SearchLimits = SearchLimits(),
    scoring: ScoringRule = "equivalence",
    values: Mapping[str, int] | Sequence[Mapping[str, int] | str | None] | None = None,
    time_limit: float | None = None,
) -> dict[str, Any]:
    """Verdict per pair plus ``accuracy`` (the share right under ``scoring``), the surface baselines
    (``string_match``, ``bleu``, ``token_f1``, means and per pair), method and error counts.

    ``scoring`` (:mod:`.scoring_rules`): ``equivalence`` (the default, DoVerifier's rule) counts a
    prediction right when it equals the reference in every model of the graph, ``do()`` and
    counterfactual terms and unobserved variables allowed; ``identification`` also asks for a formula
    in observed probabilities. Both shares are returned (``equivalence_accuracy``,
    ``identification_accuracy``), and per pair ``verdicts`` (equivalence) and ``identified``.

    Each pair is judged under its DAG (``graphs``) or, where that is None, under its independence
    statements (``independences``: ``"X ⊥ Y | Z; ..."`` or a list of them; ``complete`` says they
    are every independence of the DAG). ``values`` gives the number of values of observed
    variables (2 by default): one mapping for every pair, or one per pair (a mapping, ``"Z=3,W=4"``
    or None). ``time_limit`` bounds each pair's verdict (seconds; None, the default, keeps verdicts
    independent of the machine's speed). A pair that cannot be decided (parse error, unknown variable,
    statements that do not decide it, out of time, ...) counts as not equivalent in ``accuracy`` and is
    listed in ``errors``; it never stops the batch. A prediction that is not text or that the parser
    refuses is counted in ``unparsable`` as well. An empty batch, columns of different lengths and a
    reference that is not text are a ``ValueError`` / ``TypeError`` naming them.
    """
    if values is None or isinstance(values, Mapping):  # one mapping (or none) for every pair
        per_pair, shared = None, values
    else:
        per_pair, shared = values, None
    count = batch_size(
        predictions, references, graphs=graphs, latents=latents, independences=independences, values=per_pair
    )
    if scoring not in SCORING_RULES:
        raise ValueError(f"scoring must be one of {', '.join(SCORING_RULES)}, got {scoring!r}")
    bad = next((i for i, reference in enumerate(references) if not isinstance(reference, str)), None)
    if bad is not None:
        raise TypeError(f"references[{bad}] must be an expression (a string), not {type(references[bad]).__name__}")
    predictions = [p if isinstance(p, str) else "" for p in predictions]  # no text: unparsable, scored wrong
    graphs = list(graphs) if graphs is not None else [None] * count
    latents = list(latents) if latents is not None else [None] * count
    independences = list(independences) if independences is not None else [None] * count
    pair_values = [shared] * count if per_pair is None else list(per_pair)
    verdicts: list[Verdict] = []
    identifications: list[bool | None] = []
    unparsable = 0
    # items with the same graph share one DoGraph (its d-separations and random models)
    built: dict[Hashable, DoGraph | Knowledge] = {}
    for prediction, reference, graph, latent, statements, counts in zip(
        predictions, references, graphs, latents, independences, pair_values, strict=True
    ):
        answer = _parsed(prediction)
        unparsable += answer is None
        shape: str | None = None
        try:
            names = _latent_list(latent)
            knowledge = _knowledge(graph, statements, names, complete, built)
            if answer is not None:
                shape, knowledge, names = _answer_shape(answer, knowledge, names)
            counts = parse_values(counts) if isinstance(counts, str) else counts
            verdict = check_equivalence(
                prediction,
                reference,
                knowledge,
                names,
                seed=seed,
                prove=prove,
                limits=limits,
                values=counts,
                time_limit=time_limit,
            )
        except IndependenceError as error:
            verdict = Verdict(None, "error", error=f"independences: {error}", invalid=True)
        except DomainError as error:
            verdict = Verdict(None, "error", error=f"values: {error}", invalid=True)
        except Exception as error:  # noqa: BLE001 - one bad item never aborts a batch
            verdict = Verdict(None, "error", error=f"{type(error).__name__}: {error}")
        verdicts.append(verdict)
        identifications.append(identified(verdict.equivalent, shape))
    surface = [surface_scores(p, r) for p, r in zip(predictions, references, strict=True)]
    shares = {
        "equivalence": sum(v.equivalent is True for v in verdicts) / count,
        "identification": sum(v is True for v in identifications) / count,
    }
    return {
        "accuracy": shares[scoring],
        "scoring": scoring,
        "equivalence_accuracy": shares["equivalence"],
        "identification_accuracy": shares["identification"],
        "identified": identifications,
        "string_match": mean([s["string_match"] for s in surface]),
        "bleu": mean([s["bleu"] for s in surface]),
        "token_f1": mean([s["token_f1"] for s in surface]),
        "verdicts": [v.equivalent for v in verdicts],
        "methods": [v.method for v in verdicts],
        "errors": [v.error for v in verdicts],
        "bleu_scores": [s["bleu"] for s in surface],
        "token_f1_scores": [s["token_f1"] for s in surface],
        "method_counts": dict(sorted(Counter(v.method for v in verdicts).items())),
        "undecided": sum(v.equivalent is None for v in verdicts),
        "unparsable": unparsable,
    }


def _parsed(text: str) -> Expr | None:
    """The parsed prediction, or None when the parser refuses it."""
    try:
        return parse(text)
    except (ExprParseError, RecursionError):
        return None


def _answer_shape(
    answer: Expr, knowledge: DoGraph | Independences | Knowledge, names: list[str]
) -> tuple[str | None, DoGraph | Independences | Knowledge, list[str]]:
    """``(identification error, knowledge, latent names)`` for one parsed prediction: why it identifies
    nothing (None if it does), and the knowledge to verify it under — a DAG with its unobserved nodes
    as ordinary ones when the prediction uses them."""
    unobserved = set(names) | (knowledge.latent if isinstance(knowledge, DoGraph) else set())
    shape = identification_error(answer, unobserved)
    if isinstance(knowledge, DoGraph) and variables(answer) & unobserved:
        return shape, all_observed(as_graph(knowledge, names)), []
    return shape, knowledge, names


def _knowledge(
    graph: Knowledge | None,
    statements: str | Sequence[str] | None,
    names: list[str],
    complete: bool,
    built: dict[Hashable, DoGraph | Knowledge],
) -> DoGraph | Independences | Knowledge:
    """The pair's DAG (one DoGraph per distinct graph and latent list) or its independence statements."""
    if graph is None:
        if statements is None:
            raise ValueError("a pair needs a graph or independence statements")
        return Independences.parse(statements, complete=complete, latent=names)
    key = (graph if isinstance(graph, str) else tuple(map(tuple, graph)), tuple(names))
    if key not in built:
        try:
            built[key] = as_graph(graph, names)
        except GraphError:
            built[key] = graph  # check_equivalence reports it
    return built[key]


def _latent_list(latent: Sequence[str] | str | None) -> list[str]:
    if latent is None:
        return []
    if isinstance(latent, str):
        return [name.strip() for name in latent.split(",") if name.strip()]
    return list(latent)
