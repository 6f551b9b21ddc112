"""A ReCAST sample's scores as a run stores them, and the per-sample values read off them.

:class:`RecastScores` is what the task's scoring step keeps per sample; :func:`sample_scores` gives
the two scores the analyses use, :func:`item_scores` the per-item values of ``eval`` and its
estimates, :func:`usable` whether the sample had a readable predicted graph.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

#: sample attributes kept in each result (the report's scatter plots read them)
SAMPLE_FIELDS = ("text_length", "num_nodes", "num_edges", "confounding_lenient", "confounding_strict")


class RecastScores(BaseModel):
    """A sample's scores: its size and confounding (the analyses' axes), whether it was judged, the
    name-based scores and the judge's of its predicted graph (None without a prediction), and the
    error category of the generation or of the scoring."""

    text_length: int
    num_nodes: int
    num_edges: int
    confounding_lenient: float | None
    confounding_strict: float | None
    judged: bool
    error: str | None
    prediction_edges: list[list[str]] | None = None
    deterministic: dict[str, dict[str, Any]] | None = None
    judge: dict[str, Any] | None = None


def sample_scores(scores: RecastScores) -> dict[str, float | None]:
    """The two scores the analyses use: the judge's overall F1 (None unless judged) and normalized edge F1."""
    judge = (scores.judge or {}).get("scores") or {}
    edge_f1 = scores.deterministic["normalized"]["edge_f1"] if scores.deterministic is not None else None
    return {"judge_f1": judge.get("f1"), "edge_f1_normalized": edge_f1}


def item_scores(scores: RecastScores) -> dict[str, float]:
    """Whether a graph was predicted, its normalized-name edge F1 and, when judged, the judge's F1.

    A sample without a usable prediction scores 0 on both F1s (the worst, as in ``summarize``); an
    unscored judge F1 counts 0.
    """
    deterministic = scores.deterministic
    result = {
        "usable": usable(scores),
        "edge_f1_normalized": float(deterministic["normalized"]["edge_f1"]) if deterministic is not None else 0.0,
    }
    if scores.judged:
        result["judge_f1"] = float((scores.judge or {}).get("scores", {}).get("f1") or 0.0)
    return result


def usable(scores: RecastScores) -> float:
    """1 for a sample with a readable predicted graph."""
    return float(scores.deterministic is not None and scores.error != "format_error")
