"""The options of ``causal-datasets eval cladder_pairs`` (prompt, reference, headline rule, feedback, judge,
derivations, the questions asked) and the combinations the run refuses."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator

from causal_datasets.cladder_pairs.judge import DEFAULT_ATTEMPTS
from causal_datasets.cladder_pairs.records import GraphFamily, QueryType, Reference
from causal_datasets.docalc.scoring_rules import ScoringRule
from causal_datasets.errors import RunConfigurationError
from causal_datasets.runners.records import Role
from causal_datasets.runners.task import RunSettings
from causal_datasets.scoring.bertscore import check_layer


class CladderOptions(BaseModel):
    verifier_seed: int = Field(default=0, ge=0, description="seed of the verifier's random causal models")
    prompt: Literal["estimand", "paper"] = Field(
        default="estimand",
        description="estimand: the package's task, the graph is given and the answer is the "
        "identified estimand; paper: DoVerifier's App. G prompt verbatim, the model writes the expression, its graph "
        "and a yes/no answer",
    )
    reference: Reference | None = Field(
        default=None,
        description="what answers are scored against (both are recorded for every answer): formal-form, CLadder's "
        "formal form, the paper's ground truth (Table 1); estimand, CLadder's identified estimand, the package's "
        "task. Default: formal-form with --prompt paper, estimand with --prompt estimand",
    )
    scoring: ScoringRule | None = Field(
        default=None,
        description="the headline rule (both are computed for every answer): equivalence, DoVerifier's "
        "(equal to CLadder's estimand under the question's graph; do() and counterfactual answers allowed), or "
        "identification, the package's stricter task (also a formula in observed probabilities). Default: "
        "equivalence with --prompt paper, identification with --prompt estimand",
    )
    feedback_rounds: int = Field(
        default=0, ge=0, le=10, description="rounds of verifier feedback (DoVerifier §4.3, Table 2)"
    )
    feedback: Literal["graph", "oracle"] = Field(
        default="graph",
        description="graph: App. H, the feedback and whether to give it come from the answer and "
        "the graph alone (the model's own graph with --prompt paper), never the reference; rounds stop when the graph "
        "checks find nothing to correct. oracle: feedback while the reference says the answer is wrong (an upper "
        "bound, not the paper's Table 2)",
    )
    judge_graph: Literal["true", "generated"] | None = Field(
        default=None,
        description="the graph the judge sees: generated (the model's own, as the paper's judge; the "
        "question's when the model gave none) or true (the question's). Default: generated with --prompt paper",
    )
    derivation: bool = Field(
        default=False,
        description="ask for a derivation from the causal quantity to the estimand "
        "and check every step (estimand prompt)",
    )
    judge_attempts: int = Field(
        default=DEFAULT_ATTEMPTS, ge=1, description="judge asks per answer until a verdict line"
    )
    bertscore_model: str | None = Field(
        default=None,
        description="also score each answer by BERTScore F1 against the estimand with this encoder (a folder or a "
        "Hugging Face id; DoVerifier App. I Table 4)",
    )
    bertscore_layers: int | None = Field(
        default=None, ge=0, description="the encoder layer BERTScore reads (default: the last)"
    )
    graph_families: list[GraphFamily] | None = Field(default=None, description="only questions of these graph families")
    query_types: list[QueryType] | None = Field(default=None, description="only questions of these query types")

    @property
    def rule(self) -> ScoringRule:
        """The headline rule: ``scoring``, the prompt's default when not given."""
        return self.scoring or ("equivalence" if self.prompt == "paper" else "identification")

    @model_validator(mode="after")
    def _defaults_by_prompt(self) -> CladderOptions:
        """The paper's rule and judge input with the paper's prompt; the package's own with its own."""
        paper = self.prompt == "paper"
        if self.reference is None:
            self.reference = "formal-form" if paper else "estimand"
        if self.scoring is None:
            self.scoring = "equivalence" if paper else "identification"
        if self.judge_graph is None:
            self.judge_graph = "generated" if paper else "true"
        return self


def check(settings: RunSettings, options: CladderOptions, roles: frozenset[Role]) -> None:
    if options.derivation and options.prompt != "estimand":
        raise RunConfigurationError(
            "--derivation goes with --prompt estimand (the paper's prompt shows no causal quantity to derive from)"
        )
    if options.judge_graph == "generated" and options.prompt != "paper":
        raise RunConfigurationError(
            "--judge-graph generated goes with --prompt paper (only that prompt asks the model for a graph)"
        )
    if options.bertscore_model:
        check_layer(options.bertscore_model, options.bertscore_layers)  # the encoder loads before any item
