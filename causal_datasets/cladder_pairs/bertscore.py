"""The BERTScore column of ``eval cladder_pairs --bertscore-model PATH_OR_ID``: DoVerifier App. I Table 4 scores
answers with BERTScore F1 beside BLEU and token F1, to show it rewards wrong expressions that look alike."""

from __future__ import annotations

from causal_datasets.scoring.bertscore import score


def bertscore_f1(expression: str | None, reference: str, model: str, num_layers: int | None) -> float:
    """BERTScore F1 of an answer's expression against CLadder's estimand (no expression: 0, as for BLEU)."""
    if expression is None:
        return 0.0
    return score([expression], [reference], model=model, num_layers=num_layers).f1[0]
