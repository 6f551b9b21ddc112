"""Building the ``recast`` dataset: its configs from the published release, and its card's tables.

``default`` holds one row per paper, ``prompts`` the generation requests exactly as ``causal-datasets
eval recast`` sends them (both prompt variants, with the reference answer). The builder declaration
(``builders/recast.py``) points here.
"""

from __future__ import annotations

from causal_datasets.builder import BuildContext, BuildOutcome, BuiltRecords
from causal_datasets.recast.dataset import samples_of
from causal_datasets.recast.prompts import prompt_rows
from causal_datasets.recast.release import RELEASE_FILE, RELEASE_REPO, locate_release, read_release
from causal_datasets.recast.statistics import counts_markdown, table1_markdown


def build(context: BuildContext) -> BuildOutcome:
    """Both configs from the release at ``context.source`` (a file or its folder), else from a Hub download."""
    path = locate_release(context.source)
    imported = read_release(path)
    return BuildOutcome(
        records={"default": {"test": imported.samples}, "prompts": {"test": prompt_rows(imported.samples)}},
        findings=imported.findings,
        source_description=f"{RELEASE_REPO} release file {RELEASE_FILE} ({path.stat().st_size:,} bytes)",
    )


def card_context(records: BuiltRecords) -> dict[str, str]:
    """The card's Table 1 and count tables of the built samples."""
    samples = samples_of(records["default"]["test"])
    return {"table1": table1_markdown(samples), **counts_markdown(samples)}
