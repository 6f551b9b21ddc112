"""Building the ``causalab`` dataset: the generated suites always, the authors' released suites
(``upstream_<suite>``) when the release is given, and the card's suite tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from pydantic import BaseModel, Field

from causal_datasets.builder import BuildContext, BuildOutcome, BuiltRecords
from causal_datasets.causalab.generator import generate_suites
from causal_datasets.causalab.golden import GoldenDesign
from causal_datasets.causalab.quality import upstream_findings
from causal_datasets.causalab.records import CausaLabEpisode
from causal_datasets.causalab.statistics import suite_table
from causal_datasets.causalab.suites import EPISODES_PER_SUITE, SUITE_SPECS
from causal_datasets.causalab.upstream import SUITES, load_suite

SPLIT = "test"
UPSTREAM_PREFIX = "upstream_"


class CausaLabBuildOptions(BaseModel):
    episodes_per_suite: int = Field(
        default=EPISODES_PER_SUITE,
        ge=1,
        le=1_000_000,
        description="episodes of every generated suite (the release's 50)",
    )
    golden: GoldenDesign = Field(
        default="designed",
        description="the Golden suites' intervention chains: designed to orient the graph's Markov equivalence class "
        "(1.2.0 on), or legacy (properties in alphabetical order, random values: rebuilds the rows of 1.1.0)",
    )


def build_episodes(context: BuildContext, source_help: str) -> BuildOutcome:
    """Every generated suite, and every released one when ``context`` has the release (``source_help``:
    how to give it, for the error when it lacks a suite and the note when it is not given)."""
    release = (
        None if context.source is None else context.require_source(source_help, files=[f"{s}.jsonl" for s in SUITES])
    )
    options = context.options if isinstance(context.options, CausaLabBuildOptions) else CausaLabBuildOptions()
    # the release is read first: a broken or empty suite file stops the build before any generation
    upstream = (
        {}
        if release is None
        else {UPSTREAM_PREFIX + suite: load_suite(release, suite, context.seed) for suite in SUITES}
    )
    generated = generate_suites(
        list(SUITE_SPECS.values()), context.seed, options.episodes_per_suite, context.num_proc, options.golden
    )
    records: BuiltRecords = {name: {SPLIT: episodes} for name, episodes in {**generated, **upstream}.items()}
    notes = (
        []
        if release is not None
        else [f"upstream_<suite> configs skipped (they need the CausaLab release): {source_help}"]
    )
    return BuildOutcome(records=records, notes=notes, findings=upstream_findings(upstream) if upstream else [])


def card_context(records: BuiltRecords) -> dict[str, str]:
    """The card's tables of the generated and the released suites."""
    # every config of the dataset holds CausaLabEpisode rows
    episodes = cast(Mapping[str, Mapping[str, Sequence[CausaLabEpisode]]], records)
    generated = {name: split[SPLIT] for name, split in episodes.items() if not name.startswith(UPSTREAM_PREFIX)}
    upstream = {name: split[SPLIT] for name, split in episodes.items() if name.startswith(UPSTREAM_PREFIX)}
    return {
        "generated_table": suite_table(generated),
        "upstream_table": suite_table(upstream)
        if upstream
        else "Not included in this build (built without the release).",
    }
