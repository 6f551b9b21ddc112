"""The judge's label sets (one closed vocabulary per question) and the label → score table.

The table is the single place where labels become numbers; the figures are those of the
authors' released scorer. Importance labels are weights, every other label a correctness score.

| label | score |
|---|---|
| PRESENCE_STRONG_MATCH, PRESENCE_GRAPH_ONLY, PRESENCE_EXPLICIT | 1.0 |
| PRESENCE_WEAK_MATCH, PRESENCE_IMPLIED | 0.5 |
| PRESENCE_NO_MATCH | 0.0 |
| SEMANTIC_STRONG, SEMANTIC_COMPLETE | 1.0 |
| SEMANTIC_MODERATE, SEMANTIC_PARTIAL | 0.5 |
| SEMANTIC_WEAK, SEMANTIC_MINIMAL | 0.25 |
| SEMANTIC_NA | 0.0 |
| ABSTRACTION_ALIGNED | 1.0 |
| ABSTRACTION_BROADER, ABSTRACTION_NARROWER | 0.5 |
| ABSTRACTION_NA | 0.0 |
| DIRECTION_CORRECT | 1.0 |
| DIRECTION_UNCLEAR | 0.5 |
| DIRECTION_REVERSED | 0.25 |
| DIRECTION_MISSING, DIRECTION_NA | 0.0 |
| INFERENCE_DIRECT, INFERENCE_DERIVED | 1.0 |
| INFERENCE_STRETCHED | 0.25 |
| INFERENCE_NA | 0.0 |
| IMPORTANCE_CORE, IMPORTANCE_CENTRAL (weight) | 1.0 |
| IMPORTANCE_INTERMEDIATE, IMPORTANCE_CONNECTING (weight) | 0.5 |
| IMPORTANCE_PERIPHERAL, IMPORTANCE_AUXILIARY (weight) | 0.25 |
"""

from __future__ import annotations

from typing import Literal, get_args

Presence = Literal["PRESENCE_STRONG_MATCH", "PRESENCE_WEAK_MATCH", "PRESENCE_NO_MATCH"]
#: edge precision against the text: is the link in the graph, stated, implied or unsupported
EvidencePresence = Literal["PRESENCE_GRAPH_ONLY", "PRESENCE_EXPLICIT", "PRESENCE_IMPLIED", "PRESENCE_NO_MATCH"]
SemanticPrecision = Literal["SEMANTIC_STRONG", "SEMANTIC_MODERATE", "SEMANTIC_WEAK", "SEMANTIC_NA"]
SemanticRecall = Literal["SEMANTIC_COMPLETE", "SEMANTIC_PARTIAL", "SEMANTIC_MINIMAL", "SEMANTIC_NA"]
Abstraction = Literal["ABSTRACTION_BROADER", "ABSTRACTION_ALIGNED", "ABSTRACTION_NARROWER", "ABSTRACTION_NA"]
DirectionPrecision = Literal["DIRECTION_CORRECT", "DIRECTION_REVERSED", "DIRECTION_NA"]
DirectionRecall = Literal["DIRECTION_CORRECT", "DIRECTION_REVERSED", "DIRECTION_UNCLEAR", "DIRECTION_MISSING"]
Inference = Literal["INFERENCE_DIRECT", "INFERENCE_DERIVED", "INFERENCE_STRETCHED", "INFERENCE_NA"]
NodeImportance = Literal["IMPORTANCE_CORE", "IMPORTANCE_INTERMEDIATE", "IMPORTANCE_PERIPHERAL"]
EdgeImportance = Literal["IMPORTANCE_CENTRAL", "IMPORTANCE_CONNECTING", "IMPORTANCE_AUXILIARY"]

NO_MATCH = "PRESENCE_NO_MATCH"
#: what a dependent label must be when its block's presence is NO_MATCH
NOT_APPLICABLE_SUFFIX = "_NA"
DIRECTION_MISSING = "DIRECTION_MISSING"

LABEL_SCORES: dict[str, float] = {
    "PRESENCE_STRONG_MATCH": 1.0,
    "PRESENCE_GRAPH_ONLY": 1.0,
    "PRESENCE_EXPLICIT": 1.0,
    "PRESENCE_WEAK_MATCH": 0.5,
    "PRESENCE_IMPLIED": 0.5,
    "PRESENCE_NO_MATCH": 0.0,
    "SEMANTIC_STRONG": 1.0,
    "SEMANTIC_COMPLETE": 1.0,
    "SEMANTIC_MODERATE": 0.5,
    "SEMANTIC_PARTIAL": 0.5,
    "SEMANTIC_WEAK": 0.25,
    "SEMANTIC_MINIMAL": 0.25,
    "SEMANTIC_NA": 0.0,
    "ABSTRACTION_ALIGNED": 1.0,
    "ABSTRACTION_BROADER": 0.5,
    "ABSTRACTION_NARROWER": 0.5,
    "ABSTRACTION_NA": 0.0,
    "DIRECTION_CORRECT": 1.0,
    "DIRECTION_UNCLEAR": 0.5,
    "DIRECTION_REVERSED": 0.25,
    "DIRECTION_MISSING": 0.0,
    "DIRECTION_NA": 0.0,
    "INFERENCE_DIRECT": 1.0,
    "INFERENCE_DERIVED": 1.0,
    "INFERENCE_STRETCHED": 0.25,
    "INFERENCE_NA": 0.0,
    "IMPORTANCE_CORE": 1.0,
    "IMPORTANCE_CENTRAL": 1.0,
    "IMPORTANCE_INTERMEDIATE": 0.5,
    "IMPORTANCE_CONNECTING": 0.5,
    "IMPORTANCE_PERIPHERAL": 0.25,
    "IMPORTANCE_AUXILIARY": 0.25,
}

ALL_LABEL_SETS = (
    Presence,
    EvidencePresence,
    SemanticPrecision,
    SemanticRecall,
    Abstraction,
    DirectionPrecision,
    DirectionRecall,
    Inference,
    NodeImportance,
    EdgeImportance,
)


def labels_of(label_set: object) -> tuple[str, ...]:
    """The labels of one ``Literal`` label set, in rubric order."""
    return get_args(label_set)


def score(label: str) -> float:
    """The score (or importance weight) of one label; ``KeyError`` for an unknown label."""
    return LABEL_SCORES[label]
