"""Rows of the ``cladder_pairs`` dataset: causal expression pairs labeled by the do-calculus verifier.

``synthetic``: DoVerifier-style pairs on random DAGs with the generating proof; ``cladder``: the
(formal form, identified estimand) pair of each CLadder question plus verified hard negatives;
``questions``: the CLadder questions behind those pairs (the estimand task); ``prompts``: that
task's chat requests; ``yes_no_prompts``: CLadder's own yes/no questions as chat requests;
``synthetic_latent``: identification queries on random graphs with latent confounding, as chat requests.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Literal, TypeVar

from pydantic import Field

from causal_datasets.records.base import Record
from causal_datasets.records.prompts import PromptRow

GraphFamily = Literal[
    "chain", "fork", "collision", "confounding", "mediation", "IV", "frontdoor", "arrowhead", "diamond", "diamondcut"
]
QueryType = Literal["correlation", "marginal", "exp_away", "ate", "ett", "nde", "nie"]
Method = Literal["identical", "proof", "semantic"]
#: what an answer to a CLadder question is scored against: its formal form or its identified estimand
Reference = Literal["formal-form", "estimand"]


RowType = TypeVar("RowType", bound=Record)


def rows_of_type(rows: Sequence[Record], row_type: type[RowType]) -> list[RowType]:
    """``rows`` as the ``row_type`` each is checked to be (what a generic producer of records, the sharded
    generation or a build's configs, hands back typed as plain records)."""
    typed = [row for row in rows if isinstance(row, row_type)]
    if len(typed) != len(rows):
        raise TypeError(f"expected {row_type.__name__} rows, got {sorted({type(row).__name__ for row in rows})}")
    return typed


class Edge(Record):
    """A directed edge of the causal DAG."""

    source: str = Field(description="The cause.")
    target: str = Field(description="The effect.")


#: a CLadder row's graph: its family's nodes and edges, and the nodes its story calls unobserved
FamilyNodes = Annotated[list[str], Field(description="Nodes of the graph family.")]
FamilyEdges = Annotated[list[Edge], Field(description="Edges of the graph family.")]
StoryLatent = Annotated[
    list[str],
    Field(
        description="Unobserved nodes, as the stories say: `V1` in the IV and frontdoor families, `V2` in arrowhead."
    ),
]


class ProofStepRow(Record):
    """One rewrite: the rule, the graph condition it needed, the subterm before/after, the whole result."""

    rule: str = Field(description="The rule applied (e.g. `rule 2: action to observation`, `product rule`).")
    condition: str = Field(
        description="The graph condition the rule needed (a d-separation in a mutilated graph); "
        "empty for probability rules."
    )
    before: str = Field(description="The subterm rewritten.")
    after: str = Field(description="What the subterm became.")
    expression: str = Field(description="The whole expression after this step.")
    backward: bool = Field(
        description="Whether the step was found from the second expression's side (the rule read right to left)."
    )


class SyntheticPair(Record):
    """A pair on a random DAG: equivalent ones carry the random rule walk that derives ``expr_b``."""

    id: str = Field(
        description="`synthetic-<n>` in generation order: equivalent pairs first, then the negatives in the same order "
        "(numbers of removed duplicates are skipped)."
    )
    num_nodes: int = Field(description="Nodes of the random DAG (3–10).")
    nodes: list[str] = Field(description="Its nodes `V1` … `Vn`.")
    edges: list[Edge] = Field(description="Its edges.")
    expr_a: str = Field(
        description="The start expression, in canonical text (parse with `causal_datasets.docalc.parse`)."
    )
    expr_b: str = Field(
        description="The end of the rewrite walk (equivalent pairs) or a mistaken version of it (negatives)."
    )
    equivalent: bool = Field(description="The label: equal in every causal model compatible with the graph.")
    rule_applications: int = Field(description="Length of the generating walk, 1–4 (0 for negatives).")
    proof: list[ProofStepRow] = Field(
        description="The generating walk: a proof that `expr_a` equals `expr_b` (empty for negatives)."
    )
    negative_kind: (
        Literal[
            "dropped_action",
            "action_as_observation",
            "observation_as_action",
            "dropped_observation",
            "added_observation",
        ]
        | None
    ) = Field(description="The mistake of a negative pair; null for equivalent pairs.")
    counterexample_json: str | None = Field(
        description="For negatives, JSON: a model of the graph (conditional tables of the nodes that matter), "
        "the free-index values, and both expressions' values on it; null for equivalent pairs."
    )


class CladderQuestionKey(Record):
    """The fields that identify a CLadder question and its kind (first columns of its rows)."""

    id: str = Field(description="`<source file>-<question_id>` (hard negatives add `-<mistake>-<expression>`).")
    source_file: str = Field(description="The CLadder file the question comes from.")
    question_id: int = Field(description="CLadder's `question_id`.")
    desc_id: str = Field(description="CLadder's `desc_id`.")
    story_id: str = Field(description="CLadder's story (`meta.story_id`).")
    graph_id: GraphFamily = Field(description="CLadder's graph family; it fixes the causal graph.")
    query_type: QueryType = Field(description="CLadder's query type.")
    rung: int = Field(description="Rung of the ladder of causation: 1 association, 2 intervention, 3 counterfactual.")

    @property
    def causal_model(self) -> str:
        """``<source file>/<story>/model<N>``: the causal model (story, graph, probabilities) CLadder asked this
        question about, several query types each (the ``model<N>`` part of ``desc_id``; the whole ``desc_id``
        when it has none). Model numbers are per source file."""
        found = re.search(r"-(model\d+)-", f"-{self.desc_id}-")
        return f"{self.source_file}/{self.story_id}/{found.group(1) if found else self.desc_id}"


class CladderPair(CladderQuestionKey):
    """A CLadder question's formal form against its estimand (or a verified wrong estimand)."""

    pair_kind: Literal["formal_vs_estimand", "confounding_ignored", "wrong_adjustment", "neighbour_family_estimand"] = (
        Field(
            description="`formal_vs_estimand` (CLadder's own pair), or the mistake of a hard negative: "
            "the correlation (`confounding_ignored`), adjustment for one other variable (`wrong_adjustment`), "
            "another family's estimand."
        )
    )
    expr_a: str = Field(description="CLadder's formal form, verbatim.")
    expr_b: str = Field(description="CLadder's estimand verbatim, or the wrong estimand of a hard negative.")
    canonical_a: str = Field(
        description="The formal form as CLadder means it, canonical (natural effects as nested counterfactuals)."
    )
    canonical_b: str = Field(description="The estimand, canonical.")
    nodes: FamilyNodes
    edges: FamilyEdges
    latent: StoryLatent
    equivalent: bool = Field(description="The verdict: equal in every causal model compatible with the graph.")
    method: Method = Field(
        description="How the verdict was reached: `identical` after canonical ordering, `proof`, or `semantic` "
        "(random structural models: a counterexample, or equality on every model)."
    )
    proof: list[ProofStepRow] = Field(description="The proof, when `method` is `proof`.")
    counterexample_json: str | None = Field(
        description="JSON of the model on which the two differ (null for equivalent pairs)."
    )
    cladder_groundtruth: float | None = Field(
        description="CLadder's `groundtruth` number (null when the question has none)."
    )
    estimand_value: float | None = Field(
        description="The estimand evaluated on CLadder's own causal model (generator test files only; null otherwise)."
    )
    numbers_agree: bool | None = Field(
        description="Whether `estimand_value` equals `cladder_groundtruth` within 1e-6 (null without CLadder's model)."
    )


class CladderQuestionRow(CladderQuestionKey):
    """A CLadder question whose formal form and estimand are expressions: the estimand task's input."""

    background: str | None = Field(
        description="The story's causal relations and what is unobserved "
        "(v1 questions: their own; generator test files: their causal model's)."
    )
    legend: str | None = Field(description="The variable names, `Let X = …` (CLadder's reasoning step 0).")
    given_info: str = Field(description="The probabilities the question states.")
    question: str = Field(description="The question.")
    nodes: FamilyNodes
    edges: FamilyEdges
    latent: StoryLatent
    formal_form: str = Field(description="The causal quantity asked for, verbatim.")
    estimand: str = Field(description="CLadder's identified estimand, verbatim: the reference answer.")
    answer: Literal["yes", "no"] | None = Field(description="CLadder's yes/no answer to the question.")


class CladderPromptRow(PromptRow):
    """The estimand task's opening request for one question, with its slices."""

    rung: int = Field(description="Rung of the question (slice).")
    query_type: QueryType = Field(description="Query type of the question (slice).")
    graph_id: GraphFamily = Field(description="Graph family of the question (slice).")


class CladderYesNoPromptRow(CladderPromptRow):
    """A CLadder question as CLadder asks it, answered yes or no (``cladder_answer_reward`` reads ``answer``)."""

    answer: Literal["yes", "no"] = Field(description="CLadder's yes/no answer to the question.")


class ConfoundedPair(Record):
    """Two observed nodes with a latent common cause (``first<->second``)."""

    first: str = Field(description="One node (the lower number).")
    second: str = Field(description="The other node.")


class SyntheticLatentRow(PromptRow):
    """An identification query on a random graph with latent confounding, as a chat request; ``reference`` is the
    estimand :func:`~causal_datasets.docalc.identify` derives, or `not identifiable`."""

    num_nodes: int = Field(description="Observed nodes of the random graph (4–8).")
    nodes: list[str] = Field(description="Its nodes `V1` … `Vn`.")
    edges: list[Edge] = Field(description="Its directed edges.")
    confounded: list[ConfoundedPair] = Field(description="Its pairs of nodes with a latent common cause.")
    graph: str = Field(
        description="The graph as edge text (`V1->V2,V1<->V3,V4`), as `causal-datasets identify --graph` and "
        "`identify_reward` read it."
    )
    query: str = Field(
        description="The query, `P(Y | do(X))` with 1–2 outcomes and treatments, sometimes one condition."
    )
    algorithm: Literal["ID", "IDC"] = Field(
        description="Shpitser & Pearl's algorithm that answered: IDC for a conditional query."
    )
    identifiable: bool = Field(description="Whether an estimand exists.")
    estimand: str | None = Field(
        description="The estimand in canonical text, derived with every step checked; null when not identifiable."
    )
    derivation_steps: int = Field(description="Steps of its derivation (0 when not identifiable).")
    hedge_forest: list[str] = Field(
        description="Nodes of the hedge's C-forest F (the witness of non-identifiability); empty when identifiable."
    )
    hedge_sub_forest: list[str] = Field(
        description="Nodes of the hedge's C-forest F' inside F; empty when identifiable."
    )
