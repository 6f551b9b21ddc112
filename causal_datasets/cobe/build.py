"""Building the CoBe dataset from a released source file: its four configs, its findings and the card's tables.

:mod:`causal_datasets.builders.cobe` declares the builder (configs, releases, source) and calls these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from causal_datasets.builder import BuildOutcome, BuiltRecords
from causal_datasets.cobe.constructed import build_constructed, construction_table, is_construction
from causal_datasets.cobe.dataset import card_tables, query_records
from causal_datasets.cobe.formats import CoBeFormatError, read_source
from causal_datasets.cobe.prompts import build_messages
from causal_datasets.cobe.quality import findings
from causal_datasets.cobe.records import CoBePromptRow, CoBeQuery, CoBeResponse, CoBeScenario, CoBeVariation
from causal_datasets.errors import SourceUnavailable
from causal_datasets.records.base import Record
from causal_datasets.records.prompts import chat_messages

#: the card's source line per source format
SOURCES = {
    "website": "CoBe website file {name} "
    "(cobe-benchmark/cobe-benchmark.github.io, eval-results/category-examples.json)",
    "paper_json": "CoBe paper-format JSON {name}",
}


def build_from(source: Path) -> BuildOutcome:
    """The configs of the paper-format JSON or website file ``source`` (``responses`` only when it has model
    outputs), or of a construction folder (``variations`` instead); :class:`SourceUnavailable` for anything else."""
    if is_construction(source):
        outcome = build_constructed(source)
        queries = cast(Sequence[CoBeQuery], outcome.records["queries"]["test"])
        return replace(outcome, records={**outcome.records, "prompts": {"test": [prompt_row(q) for q in queries]}})
    try:
        parsed = read_source(source)
    except CoBeFormatError as error:
        raise SourceUnavailable(f"{source} is not a usable CoBe source: {error}") from None
    queries = query_records(parsed.scenarios)
    records: dict[str, dict[str, Sequence[Record]]] = {
        "scenarios": {"test": parsed.scenarios},
        "queries": {"test": queries},
        "prompts": {"test": [prompt_row(q) for q in queries]},
    }
    notes = [f"{len(parsed.scenarios)} distinct scenarios ({parsed.source_format} format)"]
    if parsed.responses:
        records["responses"] = {"test": parsed.responses}
    else:
        notes.append("no model outputs in this source: config 'responses' not built")
    notes.append("config 'variations' not built: it comes from a construction (build cobe --construct CORE)")
    return BuildOutcome(
        records=records,
        notes=notes,
        findings=findings(parsed.scenarios, parsed.duplicates),
        source_description=SOURCES[parsed.source_format].format(name=source.name),
    )


def prompt_row(query: CoBeQuery) -> CoBePromptRow:
    """The training-ready row of a query: the runner's request and the representative answer."""
    return CoBePromptRow(
        id=query.id,
        prompt=chat_messages(build_messages(query)),
        reference=query.representative_answer,
        query_id=query.id,
        phrasing=query.phrasing,
        domain=query.domain,
        graph_type=query.graph_type,
    )


def card_context(records: BuiltRecords) -> dict[str, Any]:
    """The card's tables of the built configs (the builder declares their row types)."""
    scenarios = cast(Sequence[CoBeScenario], records["scenarios"]["test"])
    responses = cast(Sequence[CoBeResponse], records.get("responses", {}).get("test", []))
    variations = cast(Sequence[CoBeVariation], records.get("variations", {}).get("test", []))
    construction = construction_table(variations) if variations else ""
    return card_tables(scenarios, responses) | {"construction_table": construction}
