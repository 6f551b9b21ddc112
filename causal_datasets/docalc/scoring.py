"""Batch scoring of predicted expressions against references: verifier accuracy vs string match."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from causal_datasets.docalc.search import SearchLimits
from causal_datasets.graph import GraphError
from causal_datasets.docalc.verdict import Verdict, as_graph, check_equivalence

_SPACE = re.compile(r"\s+")
_SAME = str.maketrans({"−": "-", "–": "-", "[": "(", "]": ")", "×": "*", "·": "*", "Σ": "∑"})


def normalize_string(text: str) -> str:
    """The string-match baseline's normal form: no whitespace, one minus sign, round brackets."""
    return _SPACE.sub("", str(text).translate(_SAME))


def score_pairs(
    predictions: Sequence[str],
    references: Sequence[str],
    graphs: Sequence[str | Sequence],
    latents: Sequence[Sequence[str] | str | None] | None = None,
    *,
    seed: int = 0,
    prove: bool = False,
    limits: SearchLimits = SearchLimits(),
) -> dict:
    """Verdict per pair plus ``accuracy`` (share equivalent), ``string_match``, method and error counts.

    A pair that cannot be decided (parse error, unknown variable, ...) counts as not equivalent in
    ``accuracy`` and is listed in ``errors``; it never stops the batch.
    """
    count = len(references)
    latents = list(latents) if latents is not None else [None] * count
    if not (len(predictions) == len(graphs) == len(latents) == count):
        raise ValueError(
            f"lengths differ: {len(predictions)} predictions, {count} references, {len(graphs)} graphs, {len(latents)} latents"
        )
    verdicts: list[Verdict] = []
    built: dict = {}  # items with the same graph share one DoGraph (its d-separations and random models)
    for prediction, reference, graph, latent in zip(predictions, references, graphs, latents):
        try:
            names = _latent_list(latent)
            key = (graph if isinstance(graph, str) else tuple(map(tuple, graph)), tuple(names))
            if key not in built:
                try:
                    built[key] = as_graph(graph, names)
                except GraphError:
                    built[key] = graph  # check_equivalence reports it
            verdicts.append(check_equivalence(prediction, reference, built[key], names, seed=seed, prove=prove, limits=limits))
        except Exception as error:  # noqa: BLE001 - one bad item never aborts a batch
            verdicts.append(Verdict(None, "error", error=f"{type(error).__name__}: {error}"))
    matches = [normalize_string(p) == normalize_string(r) for p, r in zip(predictions, references)]
    return {
        "accuracy": sum(v.equivalent is True for v in verdicts) / count if count else 0.0,
        "string_match": sum(matches) / count if count else 0.0,
        "verdicts": [v.equivalent for v in verdicts],
        "methods": [v.method for v in verdicts],
        "errors": [v.error for v in verdicts],
        "method_counts": dict(sorted(Counter(v.method for v in verdicts).items())),
        "undecided": sum(v.equivalent is None for v in verdicts),
    }


def _latent_list(latent) -> list[str]:
    if latent is None:
        return []
    if isinstance(latent, str):
        return [name.strip() for name in latent.split(",") if name.strip()]
    return list(latent)
