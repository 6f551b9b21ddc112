"""Batch scoring of predicted expressions against references: verifier accuracy beside the surface baselines."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from causal_datasets.docalc.baselines import mean, surface_scores
from causal_datasets.docalc.domains import DomainError, parse_values
from causal_datasets.docalc.independence import Independences, IndependenceError
from causal_datasets.docalc.search import SearchLimits
from causal_datasets.graph import GraphError
from causal_datasets.docalc.verdict import Verdict, as_graph, check_equivalence

#: one pair's knowledge of the causal structure: a DAG (edge-list text or pairs) or independence statements
Knowledge = str | Sequence


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
    values: Mapping[str, int] | Sequence[Mapping[str, int] | str | None] | None = None,
) -> dict:
    """Verdict per pair plus ``accuracy`` (share equivalent), the surface baselines (``string_match``,
    ``bleu``, ``token_f1``, means and per pair), method and error counts.

    Each pair is judged under its DAG (``graphs``) or, where that is None, under its independence
    statements (``independences``: ``"X ⊥ Y | Z; ..."`` or a list of them; ``complete`` says they
    are every independence of the DAG). ``values`` gives the number of values of observed
    variables (2 by default): one mapping for every pair, or one per pair (a mapping, ``"Z=3,W=4"``
    or None). A pair that cannot be decided (parse error, unknown variable, statements that do not
    decide it, ...) counts as not equivalent in ``accuracy`` and is listed in ``errors``; it never
    stops the batch.
    """
    count = len(references)
    graphs = list(graphs) if graphs is not None else [None] * count
    latents = list(latents) if latents is not None else [None] * count
    independences = list(independences) if independences is not None else [None] * count
    values = [values] * count if values is None or isinstance(values, Mapping) else list(values)
    if not (len(predictions) == len(graphs) == len(latents) == len(independences) == len(values) == count):
        raise ValueError(
            f"lengths differ: {len(predictions)} predictions, {count} references, {len(graphs)} graphs, "
            f"{len(latents)} latents, {len(independences)} independences, {len(values)} values"
        )
    verdicts: list[Verdict] = []
    built: dict = {}  # items with the same graph share one DoGraph (its d-separations and random models)
    for prediction, reference, graph, latent, statements, counts in zip(predictions, references, graphs, latents,
                                                                        independences, values):
        try:
            names = _latent_list(latent)
            knowledge = _knowledge(graph, statements, names, complete, built)
            counts = parse_values(counts) if isinstance(counts, str) else counts
            verdicts.append(check_equivalence(prediction, reference, knowledge, names, seed=seed, prove=prove,
                                              limits=limits, values=counts))
        except IndependenceError as error:
            verdicts.append(Verdict(None, "error", error=f"independences: {error}", invalid=True))
        except DomainError as error:
            verdicts.append(Verdict(None, "error", error=f"values: {error}", invalid=True))
        except Exception as error:  # noqa: BLE001 - one bad item never aborts a batch
            verdicts.append(Verdict(None, "error", error=f"{type(error).__name__}: {error}"))
    surface = [surface_scores(p, r) for p, r in zip(predictions, references)]
    return {
        "accuracy": sum(v.equivalent is True for v in verdicts) / count if count else 0.0,
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
    }


def _knowledge(graph, statements, names: list[str], complete: bool, built: dict):
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


def _latent_list(latent) -> list[str]:
    if latent is None:
        return []
    if isinstance(latent, str):
        return [name.strip() for name in latent.split(",") if name.strip()]
    return list(latent)
