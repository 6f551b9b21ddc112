"""Schemas of the judge's YAML answers, one per evaluation type, validated strictly.

An answer is accepted only if every item is numbered 1…N exactly once (N = the items the judge
was asked about), every label comes from its question's label set, and the Not-Applicable rule
holds: when a block's presence is ``PRESENCE_NO_MATCH`` its other labels (importance aside) are
the ``*_NA`` labels — ``DIRECTION_MISSING`` for edge recall — and ``DIRECTION_MISSING`` appears
only with ``PRESENCE_NO_MATCH``. Anything else is rejected, and the caller asks again.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from causal_datasets.recast.judge.labels import (
    DIRECTION_MISSING,
    NO_MATCH,
    NOT_APPLICABLE_SUFFIX,
    Abstraction,
    DirectionPrecision,
    DirectionRecall,
    EdgeImportance,
    EvidencePresence,
    Inference,
    NodeImportance,
    Presence,
    SemanticPrecision,
    SemanticRecall,
)

EvaluationKind = Literal["node_precision", "node_recall", "edge_precision", "edge_recall"]
EVALUATION_KINDS: tuple[str, ...] = get_args(EvaluationKind)


class LabelBlock(BaseModel):
    """Labels of one comparison; its composite is the mean score of every label but importance."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _canonical(cls, value: Any) -> Any:
        return value.strip().upper() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _not_applicable_rule(self) -> LabelBlock:
        labels = self.correctness_labels()
        presence = labels["presence_label"]  # every block has one
        for name, label in labels.items():
            if name == "presence_label":
                continue
            if presence == NO_MATCH and not (label.endswith(NOT_APPLICABLE_SUFFIX) or label == DIRECTION_MISSING):
                raise ValueError(f"{name} must be a Not-Applicable label when presence is {NO_MATCH}, got {label}")
            if label == DIRECTION_MISSING and presence != NO_MATCH:
                raise ValueError(f"{DIRECTION_MISSING} is only valid with {NO_MATCH}, presence is {presence}")
        return self

    def correctness_labels(self) -> dict[str, str]:
        """The labels that enter the composite, by field name."""
        return {
            name: value
            for name, value in self.model_dump().items()
            if name.endswith("_label") and name != "importance_label"
        }


class NodeGraphBlock(LabelBlock):
    presence_label: Presence
    semantic_label: SemanticPrecision
    abstraction_label: Abstraction


class EdgeGraphBlock(LabelBlock):
    presence_label: Presence
    directionality_label: DirectionPrecision
    abstraction_label: Abstraction


class EdgeTextBlock(LabelBlock):
    presence_label: EvidencePresence
    inference_label: Inference
    abstraction_label: Abstraction


class NodePrecisionItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    node_number: int
    graph_evaluation: NodeGraphBlock
    text_evaluation: NodeGraphBlock


class EdgePrecisionItem(BaseModel):
    model_config = ConfigDict(extra="forbid")
    edge_number: int
    graph_evaluation: EdgeGraphBlock
    text_evaluation: EdgeTextBlock


class NodeRecallItem(LabelBlock):
    node_number: int
    importance_label: NodeImportance
    presence_label: Presence
    semantic_label: SemanticRecall
    abstraction_label: Abstraction


class EdgeRecallItem(LabelBlock):
    edge_number: int
    importance_label: EdgeImportance
    presence_label: Presence
    directionality_label: DirectionRecall
    abstraction_label: Abstraction


class JudgeAnswer(BaseModel):
    """Base of the four answer schemas: one list of items under a fixed key, numbered 1…N."""

    model_config = ConfigDict(extra="forbid")
    kind: ClassVar[str]
    number_field: ClassVar[str]
    expected_count: ClassVar[int] = 0

    @model_validator(mode="after")
    def _numbered_once_each(self) -> JudgeAnswer:
        numbers = [getattr(item, self.number_field) for item in self.items()]
        wanted = list(range(1, self.expected_count + 1))
        if sorted(numbers) != wanted:
            missing = sorted(set(wanted) - set(numbers))
            extra = sorted(n for n in set(numbers) if n not in wanted or numbers.count(n) > 1)
            raise ValueError(
                f"{self.kind}_evaluations must number items 1..{self.expected_count} exactly once"
                f" (missing {missing}, unexpected or repeated {extra})"
            )
        return self

    def items(self) -> list[Any]:
        """Items in number order."""
        return sorted(getattr(self, f"{self.kind}_evaluations"), key=lambda item: getattr(item, self.number_field))


class NodePrecisionAnswer(JudgeAnswer):
    kind: ClassVar[str] = "node_precision"
    number_field: ClassVar[str] = "node_number"
    node_precision_evaluations: list[NodePrecisionItem]


class NodeRecallAnswer(JudgeAnswer):
    kind: ClassVar[str] = "node_recall"
    number_field: ClassVar[str] = "node_number"
    node_recall_evaluations: list[NodeRecallItem]


class EdgePrecisionAnswer(JudgeAnswer):
    kind: ClassVar[str] = "edge_precision"
    number_field: ClassVar[str] = "edge_number"
    edge_precision_evaluations: list[EdgePrecisionItem]


class EdgeRecallAnswer(JudgeAnswer):
    kind: ClassVar[str] = "edge_recall"
    number_field: ClassVar[str] = "edge_number"
    edge_recall_evaluations: list[EdgeRecallItem]


ANSWER_SCHEMAS: dict[str, type[JudgeAnswer]] = {
    schema.kind: schema for schema in (NodePrecisionAnswer, NodeRecallAnswer, EdgePrecisionAnswer, EdgeRecallAnswer)
}


def answer_schema(kind: str, count: int) -> type[JudgeAnswer]:
    """The schema of ``kind`` answers about exactly ``count`` items (a subclass fixing the count)."""
    base = ANSWER_SCHEMAS[kind]
    return type(f"{base.__name__}Of{count}", (base,), {"expected_count": count, "__module__": __name__})
