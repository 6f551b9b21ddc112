"""New ReCAST samples from raw papers: PDF + annotation file + metadata → :class:`RecastSample`.

Per paper: PDF text (pymupdf4llm Markdown, or PyMuPDF plain text) → optional LLM clean-up →
annotation checks → validated LLM variable merge → normalization loop (the final graph as
reference) → domain labels (unless given) → node-explicitness labels → sample. Every LLM step goes
through its client in :class:`StepModels` (one client for all, or one per step as the paper did:
Mistral Small for the clean-up, o3-mini for the merge and the normalization, R1 for the labels;
use cached ``LLMClient`` objects to make reruns free). A paper that fails a
step gets that step's error category and its finished steps are kept in ``steps``; other papers
go on. :func:`write_release` then writes a release-layout Parquet that the ``recast`` builder reads.

Error categories: ``pdf_error``, ``cleanup_failed``, ``annotation_error``, ``normalization_failed``,
``labeling_failed``, ``not_economics`` (the paper's rule: every sample is an economics paper).
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict

from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.concurrency import map_concurrent
from causal_datasets.recast.raw.annotation import read_annotation
from causal_datasets.recast.raw.cleanup import clean_markdown
from causal_datasets.recast.raw.labeling import label_domains, label_explicitness
from causal_datasets.recast.raw.merge import merge_variables
from causal_datasets.recast.raw.normalize import normalize_text
from causal_datasets.recast.raw.pdf import PdfError, pdf_markdown, pdf_text
from causal_datasets.recast.records import Domain, Publisher, RecastSample
from causal_datasets.recast.samples import make_sample

ECONOMICS = "Economics & Public Policy"


class RawPaper(BaseModel):
    """One paper to add: metadata, its PDF and its annotation file (paths relative to the manifest)."""

    model_config = ConfigDict(extra="forbid")

    id: int
    title: str
    source: Publisher
    url: str
    abstract: str
    publication_date: datetime.date | None = None
    pdf: Path
    annotation: Path
    domains: list[Domain] | None = None


#: the LLM steps of the pipeline, each of which may have its own model
STEPS = ("cleanup", "merge", "normalize", "label")


@dataclass(frozen=True)
class StepModels:
    """The chat client of each LLM step (``label``: the domain and the node-explicitness labels; ``cleanup``
    None: that step is skipped)."""

    cleanup: ChatClient | None
    merge: ChatClient
    normalize: ChatClient
    label: ChatClient

    @classmethod
    def of(cls, client: ChatClient | StepModels) -> StepModels:
        """``client`` itself when it is a :class:`StepModels`, else one client for every step."""
        return client if isinstance(client, StepModels) else cls(client, client, client, client)

    def names(self) -> dict[str, str]:
        """The model name of each step (``?`` for a client without a config)."""
        return {step: getattr(getattr(getattr(self, step), "config", None), "model", "?") for step in STEPS}


@dataclass
class PaperOutcome:
    paper_id: int
    sample: RecastSample | None = None
    error: str | None = None
    detail: str | None = None
    steps: dict[str, Any] = field(default_factory=dict)


def load_papers(manifest: Path) -> list[RawPaper]:
    """Papers listed in a JSON or YAML manifest (a list of :class:`RawPaper` fields)."""
    manifest = Path(manifest)
    entries = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    papers = [RawPaper.model_validate(entry) for entry in entries]
    base = manifest.parent
    return [p.model_copy(update={"pdf": base / p.pdf, "annotation": base / p.annotation}) for p in papers]


def process_paper(
    client: ChatClient | StepModels,
    paper: RawPaper,
    *,
    cleanup: bool = True,
    extractor: Literal["markdown", "text"] = "markdown",
    max_rounds: int = 8,
    max_attempts: int = 3,
) -> PaperOutcome:
    """Run every step on one paper (see the module docstring); ``client``: one client or one per step."""
    models = StepModels.of(client)
    outcome = PaperOutcome(paper.id)
    steps = outcome.steps
    steps["models"] = models.names()
    try:
        text = pdf_markdown(paper.pdf) if extractor == "markdown" else pdf_text(paper.pdf)
    except PdfError as error:
        return _failed(outcome, "pdf_error", str(error))
    steps["extracted_chars"] = len(text)
    if cleanup:
        if models.cleanup is None:
            raise ValueError("the cleanup step needs a model: give StepModels a cleanup client or pass cleanup=False")
        cleaned = clean_markdown(models.cleanup, text, max_attempts=max_attempts)
        steps["cleanup"] = {"attempts": cleaned.attempts, "error": cleaned.error}
        if cleaned.text is None:
            return _failed(outcome, "cleanup_failed", cleaned.error)
        text = cleaned.text

    annotation = read_annotation(paper.annotation)
    steps["annotation"] = {
        "corrections": annotation.corrections,
        "problems": annotation.problems,
        "repeated_edges": annotation.repeated_edges(),
        "self_loops": annotation.self_loops(),
        "near_duplicates": annotation.near_duplicates(),
    }
    if not annotation.edges:
        return _failed(outcome, "annotation_error", "; ".join(annotation.problems) or "the annotation has no links")
    merged = merge_variables(models.merge, annotation.edges, max_attempts=max_attempts)
    steps["merge"] = {"renamed": merged.renamed, "rejected": merged.rejected, "error": merged.error}
    edges = merged.edges

    graph_text = "\n".join(f"{s} -> {t}" for s, t in edges)
    normalized = normalize_text(models.normalize, text, graph_text, max_rounds=max_rounds, max_attempts=max_attempts)
    steps["normalization"] = {
        "rounds": normalized.rounds,
        "converged": normalized.converged,
        "applied": normalized.applied,
        "rejected": normalized.rejected,
    }
    if normalized.error:
        return _failed(outcome, "normalization_failed", normalized.error)

    domains = paper.domains
    if domains is None:
        labeled = label_domains(models.label, paper.title, paper.abstract, max_attempts=max_attempts)
        if labeled.value is None:
            return _failed(outcome, "labeling_failed", f"domains: {labeled.error}")
        domains = labeled.value
    steps["domains"] = domains
    if ECONOMICS not in domains:
        return _failed(outcome, "not_economics", f"domains {domains} do not include {ECONOMICS}")

    nodes = list(dict.fromkeys(name for edge in edges for name in edge))
    levels = label_explicitness(models.label, nodes, normalized.text, max_attempts=max_attempts)
    if levels.value is None:
        return _failed(outcome, "labeling_failed", f"explicitness: {levels.error}")
    outcome.sample = make_sample(
        id=paper.id,
        title=paper.title,
        source=paper.source,
        url=paper.url,
        publication_date=paper.publication_date,
        domains=domains,
        nodes=[(n, levels.value[n]) for n in nodes],
        edges=edges,
        input_text=normalized.text,
        abstract=paper.abstract,
    )
    return outcome


def process_papers(
    client: ChatClient | StepModels, papers: Sequence[RawPaper], *, concurrency: int = 2, **options: Any
) -> list[PaperOutcome]:
    """:func:`process_paper` on each paper, in input order; an unexpected crash is that paper's error."""
    results = map_concurrent(
        lambda p: process_paper(client, p, **options), papers, concurrency=concurrency, desc="papers"
    )
    return [
        r if not isinstance(r, Exception) else PaperOutcome(p.id, error="crashed", detail=repr(r))
        for p, r in zip(papers, results, strict=True)
    ]


def write_report(outcomes: Sequence[PaperOutcome], path: Path) -> Path:
    """A JSON report of every paper's steps and outcome (samples summarized by id)."""
    rows = [
        {
            "paper_id": o.paper_id,
            "error": o.error,
            "detail": o.detail,
            "steps": o.steps,
            "sample_id": o.sample.id if o.sample else None,
        }
        for o in outcomes
    ]
    path.write_text(json.dumps(rows, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    return path


def _failed(outcome: PaperOutcome, error: str, detail: str | None) -> PaperOutcome:
    outcome.error, outcome.detail = error, detail
    return outcome
