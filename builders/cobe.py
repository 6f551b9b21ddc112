"""CoBe: counterfactual text-edit scenarios, their query phrasings and published model responses.

Source: the paper-format JSON or the project website's ``category-examples.json`` (which also
carries nine models' outputs and verdicts), or a construction folder (``build cobe --construct``).
The full dataset is not distributed with this package.
Thin: the build itself is :mod:`causal_datasets.cobe.build`.
"""

from __future__ import annotations

from causal_datasets.builder import BuildContext, BuildOutcome, DatasetBuilder, Release
from causal_datasets.cobe.build import build_from, card_context
from causal_datasets.cobe.records import CoBePromptRow, CoBeQuery, CoBeResponse, CoBeScenario, CoBeVariation


def build(context: BuildContext) -> BuildOutcome:
    return build_from(context.require_source(BUILDER.source_help()))


BUILDER = DatasetBuilder(
    name="cobe",
    history=(
        Release(
            "1.0.0", "First release: scenarios, queries, published responses and prompts from the CoBe website file."
        ),
        Release(
            "1.1.0",
            "The `prompts` rows carry their request as TRL's conversational `prompt` column (was `messages`, which "
            "TRL's trainers read as a whole conversation to imitate, not as a prompt).",
        ),
        Release(
            "1.2.0",
            "Built from a construction folder too (`build cobe --construct CORE`, the paper's §3.1 augmentation): "
            "a core set and its verified variations, with the config `variations` (every variation asked for, kept "
            "or not, with its provenance); `source_format` gains the label `constructed`.",
        ),
    ),
    pretty_name="CoBe: Conversational Counterfactual Text Editing",
    configs={
        "scenarios": CoBeScenario,
        "queries": CoBeQuery,
        "responses": CoBeResponse,
        "prompts": CoBePromptRow,
        "variations": CoBeVariation,
    },
    build=build,
    source_description="CoBe website file eval-results/category-examples.json "
    "(cobe-benchmark/cobe-benchmark.github.io) or the paper-format JSON",
    needs_source=True,
    source_name="cobe/category-examples.json",
    source_hint=(
        "FILE, the website file eval-results/category-examples.json of "
        "github.com/cobe-benchmark/cobe-benchmark.github.io (CC-BY-SA-4.0) or the paper-format JSON"
    ),
    card_context=card_context,
    citations=("raghavan2026cobe",),
    metrics=("cobe_edit_criteria",),
)
