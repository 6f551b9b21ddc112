"""Typed run records: one ``ItemResult`` per line of ``results.jsonl`` and the ``RunSummary`` of ``summary.json``.

Shared fields are named once here, whatever the benchmark; the benchmark's own numbers are a
typed sub-model (``metrics``, discriminated by ``benchmark``) and its breakdowns are ``slices``
(``{"by_<field>": {value: {metric: number}}}``). ``causal-datasets schema run-summary`` and
``schema item-result`` print the JSON Schema of both. ``SUMMARY_FORMAT`` is raised whenever the
layout changes; a reader meets an older file with a clear message naming the version that wrote it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from causal_datasets.uncertainty.intervals import ALPHA, CONFIDENCE, POWER, RESAMPLES, SEED, Interval

#: the layout of summary.json written by this version (1: the untyped summaries of 0.1; 2: without ``intervals``
#: and ``selection``, still read, and resumed as far as it recorded the run)
SUMMARY_FORMAT = 3

Role = Literal["model", "judge", "corrector"]
ItemStatus = Literal["scored", "failed"]
RunStatus = Literal["complete", "incomplete", "failed", "interrupted", "empty"]

Number = int | float | None
#: ``{"by_<field>": {value: {metric: number or nested counts}}}``
Slices = dict[str, dict[str, dict[str, Any]]]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelCall(_Strict):
    """One model call an item made, in the order made: who asked, the reply and its reasoning kept apart,
    and the tokens. (The request itself is not kept: the benchmark's own fields hold its prompts.)"""

    role: Role
    model: str = Field(description="the model that answered, as the server names it")
    reply: str | None = Field(default=None, description="the reply's text as sent (None: the call failed)")
    reasoning: str | None = Field(default=None, description=(
        "the reply's reasoning: the server's reasoning_content/reasoning field and the <think> sections of the reply"))
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = Field(default=0, description="reasoning tokens included")
    reasoning_tokens: int = 0
    cache_read_tokens: int = Field(default=0, description="prompt tokens the server read from its prompt cache")
    error: str | None = Field(default=None, description="'<category>: <detail>' of a call that failed")


class ItemResult(BaseModel):
    """One line of ``results.jsonl``: the shared fields, then the benchmark's own (transcript, scores...).

    ``status`` is ``failed`` when a model or transport error ended the item (``failure`` says which):
    it is left out of the metrics and run again by ``--resume``; ``scored`` items never are.
    """

    model_config = ConfigDict(extra="allow")

    id: str = Field(description="the dataset row's id")
    config: str = Field(description="the dataset config the row comes from")
    status: ItemStatus
    failure: str | None = Field(default=None, description="'<category>: <message>' of the error that ended a failed item")
    calls: list[ModelCall] = Field(default_factory=list, description=(
        "every model call of the item, in order (empty for a reference agent, and in runs written before calls "
        "were kept)"))
    cluster: str | None = Field(default=None, description="the unit the item shares with others (its cluster)")
    groups: dict[str, list[str]] | None = Field(default=None, description="the slice entries the item belongs to")


class DatasetRef(_Strict):
    name: str
    version: str
    seed: int
    read_from: str = Field(description="the local folder or 'ORG/NAME@revision' the rows were read from")
    configs: list[str]
    split: str


class RunSelection(_Strict):
    """What the run was asked for beyond its dataset, configs, split, solver and options: ``--resume``
    continues exactly this selection, ``--extend`` may raise the limit (and add configs)."""

    limit: int | None = Field(description="--limit: only the first N items (None: every item)")
    models: dict[Role, dict[str, Any]] = Field(
        default_factory=dict,
        description="per role, the model settings that decide its replies (model, sampling, seed ...)")


class ItemCounts(_Strict):
    selected: int = Field(description="items the run was asked for (after --limit and filters)")
    scored: int
    failed: int = Field(description="items ended by a model or transport error (run again by --resume)")
    missing: int = Field(description="selected items with no result yet (a run stopped before reaching them)")


class Usage(_Strict):
    """Calls, tokens and cost of one role (or all roles together), summed over every invocation of the run.

    ``prompt_tokens`` and ``completion_tokens`` are those of calls sent to the server; of them,
    ``cache_read_tokens`` were read from the provider's prompt cache (billed at the cached-input price)
    and ``reasoning_tokens`` spent on reasoning. ``cached_*`` count replies served by the local
    response cache (not sent, not billed)."""

    calls: int = 0
    http_requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = Field(default=0, description="of completion_tokens, spent on reasoning")
    cache_read_tokens: int = Field(default=0, description="of prompt_tokens, read from the provider's prompt cache")
    cached_prompt_tokens: int = Field(default=0, description="prompt tokens of replies the response cache served")
    cached_completion_tokens: int = Field(default=0,
                                          description="completion tokens of replies the response cache served")
    cost_usd: float | None = None

    def __add__(self, other: Usage) -> Usage:
        counts = {name: getattr(self, name) + getattr(other, name) for name in USAGE_COUNTS}
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return Usage(**counts, cost_usd=round(sum(costs), 6) if costs else None)


USAGE_COUNTS = ("calls", "http_requests", "prompt_tokens", "completion_tokens", "reasoning_tokens", "cache_read_tokens",
                "cached_prompt_tokens", "cached_completion_tokens")


# --- the benchmarks' own metrics ------------------------------------------------------------------


class ShapeWorldMetrics(_Strict):
    benchmark: Literal["shapeworld"] = "shapeworld"
    episodes: int = Field(title="episodes")
    accuracy: float | None = Field(title="accuracy", description="right answers / episodes (an episode without one is wrong)")
    accuracy_true: float | None = Field(title="accuracy (yes cases)")
    accuracy_false: float | None = Field(title="accuracy (no cases)")
    true_cases: int = Field(title="yes cases")
    false_cases: int = Field(title="no cases")
    answered: int = Field(title="answered")
    predicted_yes: int = Field(title="answered yes")
    mean_steps: float | None = Field(title="mean steps", description="actions before a final answer, over answered episodes")
    error_total: int = Field(title="errors")
    accuracy_se: float | None = Field(default=None, title="accuracy SE over setups",
                                      description="standard error of the per-setup accuracies (Fig. 2 error bars)")
    setups: int = Field(default=0, title="initial setups")
    unparsable: int = Field(default=0, title="unparsable (no yes/no answer: wrong)")
    errors: dict[str, int] = Field(title="errors by mode")
    failure_patterns: dict[str, int] = Field(title="failure patterns")
    failure_pattern_shares: dict[str, float | None] | None = Field(default=None, title="failure patterns (share of wrong answers)")


class CausaLabMetrics(_Strict):
    benchmark: Literal["causalab"] = "causalab"
    count: int = Field(title="episodes")
    regime: str | None = Field(default=None, title="regime", description=(
        "observation-only (no intervention), intervention-only (no prior record), mixed, or several"))
    prior_observations: float | None = Field(default=None, title="prior observations", description="mean per episode")
    budget: float | None = Field(default=None, title="intervention budget", description="mean per episode")
    task_accuracy: float | None = Field(default=None, title="task accuracy")
    edge_precision: float | None = Field(default=None, title="edge precision")
    edge_recall: float | None = Field(default=None, title="edge recall")
    edge_f1: float | None = Field(default=None, title="edge F1")
    shd: float | None = Field(default=None, title="SHD")
    freq_edge_f1: float | None = Field(default=None, title="frequency-edge F1")
    coefficient_f1: float | None = Field(default=None, title="coefficient F1")
    root_f1: float | None = Field(default=None, title="root-node F1")
    formula_hit: float | None = Field(default=None, title="formula hit")
    budget_used: float | None = Field(default=None, title="budget used", description="mean share of the budget spent")
    invalid_steps: float | None = Field(default=None, title="invalid steps per episode")
    reasks: float | None = Field(default=None, title="re-asks per episode", description="unreadable replies asked again")
    consistent: float | None = Field(default=None, title="consistent with own data", description=(
        "share of episodes whose final frequency equation is within the tolerance of every record the agent saw"))
    outcomes: dict[str, int] = Field(default_factory=dict, title="outcomes")
    budget_used_by_success: dict[str, float | None] | None = Field(default=None, title="budget used by success")
    consistent_by_success: dict[str, float | None] | None = Field(default=None, title="consistent with own data by success")


class CladderMetrics(_Strict):
    """DoVerifier's tables: the headline row is Table 1 (verifier, string match, LLM judge, beside the
    token baselines), under both scoring rules; ``feedback`` is Table 2 (accuracy before and after
    feedback, under the run's rule)."""

    benchmark: Literal["cladder_pairs"] = "cladder_pairs"
    n: int = Field(title="questions")
    scoring: Literal["equivalence", "identification"] = Field(
        default="identification", title="scoring rule",
        description="the rule of `accuracy`: equivalence (DoVerifier's) or identification (the package's stricter task)")
    accuracy: float = Field(title="accuracy (the run's scoring rule)",
                            description="share of answers right under the run's scoring rule")
    equivalence_accuracy: float | None = Field(
        default=None, title="equivalent (DoVerifier's rule)",
        description="share of answers the verifier finds equal to the estimand under the question's graph, "
        "do() and counterfactual answers included")
    identification_accuracy: float | None = Field(
        default=None, title="identified (stricter)",
        description="share of answers equal to the estimand and written in observed probabilities only")
    string_match: float = Field(title="string match", description="share equal to the reference after normalization")
    judge: float | None = Field(default=None, title="LLM judge",
                                description="share the judge calls equivalent (None: no judge model)")
    bleu: float | None = Field(default=None, title="BLEU", description="mean sentence BLEU-4 against the reference")
    token_f1: float | None = Field(default=None, title="token F1", description="mean token-multiset F1 against the reference")
    accuracy_own_graph: float | None = Field(default=None, title="right under the model's graph",
                                             description="paper prompt: share right (the run's rule) under the graph "
                                             "the model wrote")
    answer_accuracy: float | None = Field(default=None, title="yes/no accuracy",
                                          description="paper prompt: share of final answers equal to CLadder's")
    graph_edge_f1: float | None = Field(default=None, title="graph edge F1",
                                        description="paper prompt: mean edge F1 of the model's graph (unreadable: 0)")
    accuracy_after_feedback: float | None = Field(default=None, title="accuracy after feedback",
                                                  description="share right (the run's rule) after the last feedback round")
    derivation_valid_share: float | None = Field(default=None, title="valid derivation steps",
                                                 description="mean share of valid steps over answers with a derivation")
    errors: dict[str, int] = Field(title="answers by error category")
    identification_errors: dict[str, int] = Field(
        default_factory=dict, title="answers that identify nothing",
        description="not_identified (a do() or counterfactual term left), unobserved_variable")
    methods: dict[str, int] = Field(title="verdicts by method")
    proof_lengths: dict[str, int] = Field(title="proof lengths")
    judge_agreement: dict[str, float | int | None] | None = Field(
        default=None, title="judge agreement with the verifier",
        description="against the equivalence verdict, over answers both decided: accuracy, precision, recall, F1, "
        "Cohen's kappa, counts")
    feedback: dict[str, dict[str, float | int | None]] | None = Field(
        default=None, title="accuracy before and after feedback (Table 2), by the first diagnosis",
        description="per diagnosis of the first round and over all answers: n, accuracy before, after, answers "
        "fixed, answers broken (the run's rule)")
    feedback_stops: dict[str, int] | None = Field(
        default=None, title="why feedback stopped",
        description="nothing_to_correct (graph checks), accepted (oracle), rounds_used")
    graph_errors: dict[str, int] | None = Field(default=None, title="model graphs by error category")
    derivation_steps: dict[str, int] | None = Field(default=None, title="derivation steps by status")


class RecastMetrics(_Strict):
    """ReCAST: generation outcomes, name-based and judge scores (mean ± population SD, as Table 2), the
    knowledge-cutoff test (App. Table 3) and confounding vs size (Fig. 3); the other analyses are slices."""

    benchmark: Literal["recast"] = "recast"
    samples: int = Field(title="samples")
    scored_share: float = Field(title="scored share", description="samples with a predicted graph / samples")
    excluded: int = Field(default=0, title="excluded (too long for the context window)",
                          description="samples that do not fit the model's context window: not sent, left out of every score")
    unparsable: int = Field(default=0, title="unparsable answers (scored the worst)",
                            description="samples without a readable graph: every score 0, the maximal SHD, kept in every mean")
    corrected: int = Field(title="answers fixed by the corrector")
    judge_errors: int = Field(title="samples with a judge error")
    generation: dict[str, int] = Field(title="generation outcomes")
    deterministic: dict[str, dict[str, float | None]] = Field(title="name-based scores by node matching (mean, SD)")
    judge: dict[str, float | int | None] | None = Field(default=None, title="judge scores (mean, SD, count)")
    knowledge_cutoff: dict[str, float | int | None] | None = Field(
        default=None, title="knowledge cutoff: Mann–Whitney U test, recent vs older papers",
        description="group sizes and, per score, U (of the recent group) and the two-sided p")
    size_confounding_r2: dict[str, float | None] | None = Field(
        default=None, title="R² of the lenient degree of confounding on log10 size",
        description="least-squares fit over the scored samples, per size attribute")


class CoBeMetrics(_Strict):
    """CoBe: accuracy (also as mean ± SD over the phrasings, Table 5), E1–E5 failure rates, errors, agreement
    with the published verdicts and the scenarios' text statistics (Table 2); per-model tables are slices."""

    benchmark: Literal["cobe"] = "cobe"
    n: int = Field(title="responses")
    accuracy: float | None = Field(title="accuracy", description="responses passing every criterion / responses")
    accuracy_phrasing_mean: float | None = Field(default=None, title="accuracy, mean over phrasings",
                                                 description="mean of the accuracies of the query phrasings (Table 5)")
    accuracy_phrasing_sd: float | None = Field(default=None, title="accuracy, SD over phrasings",
                                               description="population SD of the accuracies of the query phrasings")
    correct: int = Field(title="correct")
    wrong: int = Field(title="wrong")
    unknown: int = Field(title="unknown", description="responses with a criterion the judge could not decide")
    failure_rate: dict[str, float | None] = Field(title="failure rate per criterion")
    criteria: dict[str, dict[str, float | int | None]] = Field(title="criterion counts")
    errors: dict[str, dict[str, int]] = Field(title="errors (items, criteria)")
    agreement: dict[str, float | int | None] | None = Field(default=None, title="agreement with the published verdicts")
    text_statistics: dict[str, float | int | None] | None = Field(
        default=None, title="scenario text statistics", description="words, sentences and clauses per scenario (Table 2)")


BenchmarkMetrics = Annotated[
    ShapeWorldMetrics | CausaLabMetrics | CladderMetrics | RecastMetrics | CoBeMetrics, Field(discriminator="benchmark")
]


class RunIntervals(_Strict):
    """Standard errors and 95% intervals of the summary's numbers (:mod:`causal_datasets.uncertainty`),
    with each interval's method, its unit and the smallest difference the run can detect."""

    confidence: float = CONFIDENCE
    alpha: float = ALPHA
    power: float = POWER
    bootstrap_resamples: int = RESAMPLES
    seed: int = SEED
    unit: str = Field(description="what the items of one cluster share ('item': nothing)")
    clusters: int = Field(description="distinct units among the scored items")
    metrics: dict[str, Interval] = Field(description="per number of `metrics` (inside a mapping: its dotted path)")
    slices: dict[str, dict[str, dict[str, Interval]]] = Field(
        default_factory=dict, description="per slice, entry and number (dotted paths inside an entry), as `slices`")


class RunSummary(_Strict):
    """``summary.json``: what was run, on what, by whom, how many items ended how, usage, metrics and slices."""

    format: Literal[2, 3] = SUMMARY_FORMAT
    benchmark: str
    status: RunStatus = Field(description=(
        "complete: every selected item scored; incomplete: some failed or are missing (--resume goes on); "
        "failed: none scored; interrupted: stopped by Ctrl-C; empty: nothing was selected"))
    package_version: str
    dataset: DatasetRef
    solver: str = Field(description="who answered: 'model:<name>', 'agent:<name>' or 'published' (judging released outputs)")
    models: dict[Role, str] = Field(description="model name per role used")
    options: dict[str, Any] = Field(description="the task's own options as given")
    selection: RunSelection | None = Field(
        default=None,
        description="the run's limit and model settings (None in format 2 summaries, written without them)")
    items: ItemCounts
    failures: dict[str, int] = Field(description="failed items by error category")
    invocations: int = Field(description="how many times the run was started (1 + resumes)")
    usage: dict[Role, Usage] = Field(description="per role, summed over invocations")
    usage_total: Usage = Field(description="all roles (a client serving two roles counted once)")
    metrics: BenchmarkMetrics
    slices: Slices = Field(default_factory=dict)
    intervals: RunIntervals | None = Field(default=None, description="None in format 2 summaries (no intervals yet)")

    @model_validator(mode="after")
    def _benchmark_matches_metrics(self) -> RunSummary:
        if self.metrics.benchmark != self.benchmark:
            raise ValueError(f"metrics of {self.metrics.benchmark!r} in a summary of {self.benchmark!r}")
        return self


SCHEMAS: dict[str, type[BaseModel]] = {"run-summary": RunSummary, "item-result": ItemResult}
