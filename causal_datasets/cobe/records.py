"""Row models of the CoBe dataset: counterfactual text-edit scenarios, their queries and model responses.

Three configs share these types: ``scenarios`` (one row per ``XXXvYY`` scenario), ``queries`` (one
row per scenario × query phrasing, the unit a model answers) and ``responses`` (one row per query ×
model, with the verdict published alongside, when the source carries model outputs). A constructed
set (``build cobe --construct``) adds ``variations``: every variation asked for, kept or not, with
its provenance.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field

from causal_datasets.records.base import Record
from causal_datasets.records.prompts import PromptRow

#: the seven domains of the paper's Table 3 (the website file uses longer, older names; see cobe.labels)
Domain = Literal[
    "Health and Medicine",
    "Engineering",
    "History and Geography",
    "Economics and Finance",
    "Arts and Entertainment",
    "Science and Technology",
    "Human Activities and Behavior",
]
DOMAINS: tuple[Domain, ...] = get_args(Domain)

#: the six causal-graph families of the paper's Fig. 3 / Table 4
GraphType = Literal["chain", "collider", "correlated", "diamond", "fork", "hybrid"]
GRAPH_TYPES: tuple[GraphType, ...] = get_args(GraphType)

#: the three query phrasings (A) "Rewrite the original text…", (B) "Based on the preceding text…",
#: (C) "Rewrite the above passage…" (paper §3.1)
Phrasing = Literal["A", "B", "C"]
PHRASINGS: tuple[Phrasing, ...] = get_args(Phrasing)


#: the keys that tie a config's rows to each other, described once
CoreSetId = Annotated[int, Field(description="The core-set example `XXX`.")]
VariationId = Annotated[int, Field(description="The variation `YY`.")]
ScenarioId = Annotated[str, Field(description="The scenario's `id` in `scenarios`.")]
QueryId = Annotated[str, Field(description="The query's `id` in `queries`.")]
SourceFormat = Literal["paper_json", "website", "constructed"]
Verdict = Literal["correct", "wrong", "unknown"]
VERDICTS: tuple[Verdict, ...] = get_args(Verdict)

#: data-quality findings a record can carry (see cobe.quality)
QualityKind = Literal[
    "criterion_not_in_text",
    "criterion_in_both_lists",
    "query_off_template",
    "unknown_domain",
    "unknown_graph_type",
    "missing_criteria",
]
QUALITY_KINDS: tuple[QualityKind, ...] = get_args(QualityKind)


class QualityIssue(Record):
    """One data-quality finding about a scenario; reported, never used to drop the row."""

    kind: QualityKind = Field(
        description="What was found: a criterion the text does not contain or contradicts "
        "(`criterion_not_in_text`), one event both kept and changed (`criterion_in_both_lists`), "
        "a query off its phrasing's template, an unknown label spelling, or missing criteria."
    )
    detail: str = Field(description="The sentence or label concerned.")


class Query(Record):
    """One phrasing of a scenario's counterfactual request."""

    phrasing: Phrasing = Field(description="Phrasing A, B or C of the counterfactual request.")
    text: str = Field(description="The request.")
    source_index: int | None = Field(
        default=None, description="The website file's `query_idx` (null in the paper format)."
    )


class CoBeScenario(Record):
    """One scenario ``XXXvYY``: text, its query phrasings, a representative answer and the criteria.

    Criteria lists: ``should_not_change`` (E1, non-descendants), ``should_change`` (E2, descendants),
    ``numerical_change`` (E4, expected direction of a quantity), ``latent_factors`` (E5, unobserved
    conditions to hold fixed). ``domain_raw`` / ``graph_type_raw`` keep the source's own spelling
    (e.g. the website's ``Hydrid``).
    """

    id: str = Field(description="Scenario id `XXXvYY`: core-set example `XXX`, variation `YY`.")
    core_set_id: CoreSetId
    variation_id: VariationId
    domain: Domain | None = Field(
        description="Domain (the paper's seven names); null when the source does not give one."
    )
    domain_raw: str | None = Field(description="The domain as the source spells it.")
    graph_type: GraphType | None = Field(description="Causal-graph family; null when the source does not give one.")
    graph_type_raw: str | None = Field(description="The graph type as the source spells it (e.g. `Hydrid`).")
    text: str = Field(description="The original scenario.")
    queries: list[Query] = Field(description="The phrasings of the counterfactual request the source gives.")
    representative_answer: str = Field(description="One valid rewrite (other answers may be valid too).")
    should_not_change: list[str] = Field(
        description="Events that must stay as they are (E1: non-descendants of the intervention)."
    )
    should_change: list[str] = Field(description="Events that must change (E2: descendants of the intervention).")
    numerical_change: list[str] = Field(description="Expected directions of quantities (E4).")
    latent_factors: list[str] = Field(description="Unobserved conditions to hold fixed (E5).")
    source_format: SourceFormat = Field(
        description="Format of the source file: `paper_json`, `website` or `constructed`."
    )
    source_groups: list[str] = Field(
        description="Where the source lists the scenario, e.g. `by_domain/Engineering`; "
        "more than one for a repeated listing."
    )
    quality_issues: list[QualityIssue] = Field(
        description="Data-quality findings (heuristics; the row is never dropped)."
    )


class CoBeQuery(Record):
    """One scenario × phrasing: exactly what a model is asked, plus what it is judged against."""

    id: str = Field(description="`<scenario id>-<phrasing>`.")
    scenario_id: ScenarioId
    core_set_id: CoreSetId
    variation_id: VariationId
    phrasing: Phrasing = Field(description="Phrasing A, B or C.")
    domain: Domain | None = Field(description="Domain of the scenario (null when the source gives none).")
    graph_type: GraphType | None = Field(
        description="Causal-graph family of the scenario (null when the source gives none)."
    )
    text: str = Field(description="The original scenario, shown first.")
    query: str = Field(description="The counterfactual request, shown after the text.")
    representative_answer: str = Field(description="One valid rewrite.")
    should_not_change: list[str] = Field(description="Events that must stay as they are (E1).")
    should_change: list[str] = Field(description="Events that must change (E2).")
    numerical_change: list[str] = Field(description="Expected directions of quantities (E4).")
    latent_factors: list[str] = Field(description="Unobserved conditions to hold fixed (E5).")
    num_quality_issues: int = Field(
        description="Data-quality findings of the scenario (see `scenarios.quality_issues`)."
    )


class CoBeResponse(Record):
    """One published model output for a query and the verdict the source gives it."""

    id: str = Field(description="`<query id>-<model>`.")
    query_id: QueryId
    scenario_id: ScenarioId
    model: str = Field(description="The model's name as the source gives it.")
    response: str = Field(description="The model's rewrite.")
    verdict: Verdict = Field(
        description="The verdict the source publishes with it (`unknown` is the source's own value)."
    )


class CoBePromptRow(PromptRow):
    """A query's request exactly as ``eval cobe`` sends it; ``reference`` is the representative answer."""

    query_id: QueryId
    phrasing: Phrasing = Field(description="Phrasing A, B or C (slice).")
    domain: Domain | None = Field(description="Domain of the scenario (slice).")
    graph_type: GraphType | None = Field(description="Causal-graph family of the scenario (slice).")


#: the paper's three kinds of variation (§3.1 "Augmentation"): sentence structure, clause order, domain
VariationKind = Literal["sentence_structure", "clause_order", "domain"]
VARIATION_KINDS: tuple[VariationKind, ...] = get_args(VariationKind)
#: accepted: kept as a scenario; rejected: the reply or the checks failed it; failed: the model call failed
VariationStatus = Literal["accepted", "rejected", "failed"]
#: why a variation was not kept: a malformed reply, a copy of its core, a criteria check, the judge, a failed call
VariationCategory = Literal[
    "reply_no_json",
    "reply_unreadable",
    "reply_invalid",
    "same_as_core",
    QualityKind,  # a criteria check's finding on the variation
    "answer_fails_criteria",
    "judge_unresolved",
    "call_failed",
]
VARIATION_CATEGORIES: tuple[VariationCategory, ...] = get_args(VariationCategory)


class CriterionCheck(Record):
    """The judge's verdict on one criterion of a variation's own representative answer."""

    code: str = Field(description="Criterion code E1-E5.")
    passed: bool | None = Field(description="True/False, or null when the judge gave no valid answer.")
    error: str | None = Field(description="Why there is no verdict (the judge's error category), else null.")


class CoBeVariation(Record):
    """One variation a construction asked a generator model for, kept or not, with its provenance."""

    id: str = Field(description="`<core scenario id>/<kind>/<n>`: the request, fixed before any model call.")
    core_id: str = Field(description="The core scenario it varies (`XXXvYY` of the core file).")
    core_set_id: CoreSetId
    kind: VariationKind = Field(description="Sentence structure, clause order or domain (paper §3.1).")
    index: int = Field(description="The n-th variation of this kind asked for this core scenario (from 1).")
    target_domain: Domain | None = Field(description="The domain asked for (domain variations; else the core's).")
    status: VariationStatus = Field(description="`accepted` (a row of `scenarios`), `rejected` or `failed`.")
    category: VariationCategory | None = Field(description="Why it was not kept; null when accepted.")
    detail: str | None = Field(description="What the check or the call said, when it was not kept.")
    scenario_id: str | None = Field(description="Its `XXXvYY` id in `scenarios` when accepted, else null.")
    model: str = Field(description="The generator model.")
    judge_model: str = Field(description="The judge model of the representative-answer check.")
    prompt_sha256: str = Field(description="sha256 of the generation request's messages (canonical JSON).")
    reply: str | None = Field(description="The generator's last reply (null when no call succeeded).")
    verdicts: list[CriterionCheck] = Field(description="The judge's verdicts on the representative answer.")
    quality_issues: list[QualityIssue] = Field(description="The CoBe criteria checks' findings on the variation.")
