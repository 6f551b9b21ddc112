"""The ``cladder_pairs`` build: every config's rows from the seed (``synthetic``, ``synthetic_latent``) and the
CLadder files (``cladder``, ``questions``, ``prompts``, ``yes_no_prompts``), the data-quality findings, and the
card's tables. ``builders/cladder_pairs.py`` declares the dataset (configs, releases) on these.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field, field_validator

from causal_datasets.builder import BuildContext, BuildOutcome, BuiltRecords, Finding
from causal_datasets.cladder_pairs.cladder import SOURCE_FILES, read_questions
from causal_datasets.cladder_pairs.estimand_task import prompt_rows
from causal_datasets.cladder_pairs.quality import distinct_synthetic, spelling_findings, unobserved_estimand_findings
from causal_datasets.cladder_pairs.records import (
    CladderPair,
    CladderQuestionRow,
    SyntheticLatentRow,
    SyntheticPair,
    rows_of_type,
)
from causal_datasets.cladder_pairs.rows import cladder_rows, question_rows, synthetic_config
from causal_datasets.cladder_pairs.statistics import (
    baseline_table,
    cladder_tables,
    latent_query_table,
    synthetic_tables,
)
from causal_datasets.cladder_pairs.synthetic_latent import LATENT_QUERIES, synthetic_latent_config
from causal_datasets.cladder_pairs.yes_no import yes_no_prompt_rows
from causal_datasets.markdown import markdown_table
from causal_datasets.records.base import Record
from causal_datasets.sharding import generate_together

#: positive pairs generated for the synthetic config (the paper's 10,000); each gets one verified
#: negative; repeated pairs are removed afterwards
SYNTHETIC_POSITIVES = 10_000


class CladderPairsBuildOptions(BaseModel):
    rows: int = Field(
        default=2 * SYNTHETIC_POSITIVES,
        ge=2,
        le=10_000_000,
        description=(
            "rows generated for the synthetic config (half proved pairs, half refuted mistakes; repeats removed after)"
        ),
    )

    @field_validator("rows")
    @classmethod
    def _even(cls, rows: int) -> int:
        if rows % 2:
            raise ValueError(f"must be even (one refuted mistake per proved pair), got {rows}")
        return rows


def build(context: BuildContext, source_help: str) -> BuildOutcome:
    """Every config the context allows; without CLadder's files (``source_help`` says how to give them) the
    generated ones only, with a note."""
    cladder = None  # read first: a missing or broken source fails before the long synthetic part
    if context.source is not None:
        cladder = read_questions(context.require_source(source_help, files=SOURCE_FILES))
    options = context.options or CladderPairsBuildOptions(rows=2 * SYNTHETIC_POSITIVES)
    if not isinstance(options, CladderPairsBuildOptions):
        raise TypeError(f"cladder_pairs build options must be CladderPairsBuildOptions, got {type(options).__name__}")
    generated, latent = generate_together(  # one pool: the latent identifications fill it as synthetic ends
        [synthetic_config(context.seed, options.rows // 2), synthetic_latent_config(context.seed, LATENT_QUERIES)],
        context.num_proc,
    )
    synthetic, repeats = distinct_synthetic(rows_of_type(generated, SyntheticPair))
    records: dict[str, dict[str, Sequence[Record]]] = {
        "synthetic": {"test": synthetic},
        "synthetic_latent": {"test": latent},
    }
    notes: list[str] = []
    findings: list[Finding] = [repeats]
    if cladder is None:
        notes.append(
            f"configs cladder, questions, prompts and yes_no_prompts skipped (they need the CLadder files): "
            f"{source_help}"
        )
    else:
        pairs = cladder_rows(cladder, context.seed)
        questions = question_rows(cladder)
        prompts = prompt_rows(questions)
        records.update(
            {
                "cladder": {"test": pairs},
                "questions": {"test": questions},
                "prompts": {"test": prompts},
                "yes_no_prompts": {"test": yes_no_prompt_rows(questions)},
            }
        )
        findings += spelling_findings("cladder", {r.id: (r.expr_a, r.expr_b) for r in pairs}, "`expr_a` / `expr_b`")
        findings += spelling_findings(
            "questions", {q.id: (q.formal_form, q.estimand) for q in questions}, "`formal_form` / `estimand`"
        )
        findings += spelling_findings("prompts", {r.id: (r.reference,) for r in prompts}, "`reference`")
        findings += unobserved_estimand_findings(pairs, questions)
    return BuildOutcome(records=records, notes=notes, findings=findings)


def card_context(records: BuiltRecords) -> dict[str, str]:
    """The card's tables: synthetic statistics and baselines, latent queries, and the CLadder configs' when built."""
    synthetic = rows_of_type(records["synthetic"]["test"], SyntheticPair)
    context = synthetic_tables(synthetic)
    context["synthetic_baselines"] = baseline_table(synthetic)
    if "synthetic_latent" in records:
        context["latent_queries"] = latent_query_table(
            rows_of_type(records["synthetic_latent"]["test"], SyntheticLatentRow)
        )
    if "cladder" in records:
        context.update(cladder_tables(rows_of_type(records["cladder"]["test"], CladderPair)))
        context["question_counts"] = question_table(rows_of_type(records["questions"]["test"], CladderQuestionRow))
    return context


def question_table(questions: list[CladderQuestionRow]) -> str:
    """Questions of the estimand task: one row per (rung, query type), one column per graph family."""
    counts = Counter((q.rung, q.query_type, q.graph_id) for q in questions)
    families = sorted({q.graph_id for q in questions})
    kinds = sorted({(q.rung, q.query_type) for q in questions})
    rows = [
        [
            rung,
            query,
            *(counts[(rung, query, f)] or "—" for f in families),
            sum(counts[(rung, query, f)] for f in families),
        ]
        for rung, query in kinds
    ]
    return markdown_table(["rung", "query type", *families, "all"], rows)
