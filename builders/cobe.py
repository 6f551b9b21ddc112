"""CoBe: counterfactual text-edit scenarios, their query phrasings and published model responses.

Source: the paper-format JSON or the project website's ``category-examples.json`` (which also
carries nine models' outputs and verdicts). The full dataset is not distributed with this package.
"""

from __future__ import annotations

from causal_datasets.builder import BuildContext, BuildOutcome, DatasetBuilder, Release
from causal_datasets.cobe.dataset import card_tables, query_records
from causal_datasets.cobe.formats import CoBeFormatError, read_source
from causal_datasets.cobe.prompts import build_messages
from causal_datasets.cobe.quality import findings
from causal_datasets.errors import SourceUnavailable
from causal_datasets.records.cobe import CoBePromptRow, CoBeQuery, CoBeResponse, CoBeScenario
from causal_datasets.records.prompts import chat_messages


#: the card's source line per source format
SOURCES = {
    "website": "CoBe website file {name} (cobe-benchmark/cobe-benchmark.github.io, eval-results/category-examples.json)",
    "paper_json": "CoBe paper-format JSON {name}",
}


def build(context: BuildContext) -> BuildOutcome:
    source = context.require_source(BUILDER.source_help())
    try:
        parsed = read_source(source)
    except CoBeFormatError as error:
        raise SourceUnavailable(f"{source} is not a usable CoBe source: {error}") from None
    queries = query_records(parsed.scenarios)
    records = {
        "scenarios": {"test": parsed.scenarios},
        "queries": {"test": queries},
        "prompts": {"test": [prompt_row(q) for q in queries]},
    }
    notes = [f"{len(parsed.scenarios)} distinct scenarios ({parsed.source_format} format)"]
    if parsed.responses:
        records["responses"] = {"test": parsed.responses}
    else:
        notes.append("no model outputs in this source: config 'responses' not built")
    return BuildOutcome(
        records=records, notes=notes, findings=findings(parsed.scenarios, parsed.duplicates),
        source_description=SOURCES[parsed.source_format].format(name=source.name),
    )


def prompt_row(query: CoBeQuery) -> CoBePromptRow:
    """The training-ready row of a query: the runner's request and the representative answer."""
    return CoBePromptRow(
        id=query.id, prompt=chat_messages(build_messages(query)), reference=query.representative_answer,
        query_id=query.id, phrasing=query.phrasing, domain=query.domain, graph_type=query.graph_type,
    )


def card_context(records) -> dict:
    responses = records.get("responses", {}).get("test", [])
    return card_tables(records["scenarios"]["test"], responses)


BUILDER = DatasetBuilder(
    name="cobe",
    history=(
        Release("1.0.0", "First release: scenarios, queries, published responses and prompts from the CoBe website file."),
        Release(
            "1.1.0",
            "The `prompts` rows carry their request as TRL's conversational `prompt` column (was `messages`, which "
            "TRL's trainers read as a whole conversation to imitate, not as a prompt).",
        ),
    ),
    pretty_name="CoBe: Conversational Counterfactual Text Editing",
    configs={"scenarios": CoBeScenario, "queries": CoBeQuery, "responses": CoBeResponse, "prompts": CoBePromptRow},
    build=build,
    source_description="CoBe website file eval-results/category-examples.json (cobe-benchmark/cobe-benchmark.github.io) or the paper-format JSON",
    needs_source=True,
    source_name="cobe/category-examples.json",
    source_hint=("FILE, the website file eval-results/category-examples.json of "
                 "github.com/cobe-benchmark/cobe-benchmark.github.io (CC-BY-SA-4.0) or the paper-format JSON"),
    card_context=card_context,
    citations=("raghavan2026cobe",),
    metrics=("cobe_edit_criteria",),
)
