"""ReCAST from its published release (``RyanSaklad/ReCast`` ``test.parquet``, CC-BY-4.0): the declaration.

The configs are built by :mod:`causal_datasets.recast.build`. New papers go through
:mod:`causal_datasets.recast.raw`, which writes a Parquet file in the release's layout; build it with
``causal-datasets build recast --source that.parquet``.
"""

from __future__ import annotations

from causal_datasets.builder import DatasetBuilder, Release
from causal_datasets.recast.build import build, card_context
from causal_datasets.recast.records import RecastPromptRow, RecastSample
from causal_datasets.recast.release import RELEASE_FILE, RELEASE_REPO

BUILDER = DatasetBuilder(
    name="recast",
    history=(
        Release(
            "1.0.0",
            "First release: the 292 samples of the RyanSaklad/ReCast release with derived fields, and the `prompts` "
            "config.",
        ),
        Release(
            "1.1.0",
            "`explicitness` is the release's stored value again (1.0.0 recomputed it over the labelled nodes, which "
            "changed it in 11 samples and moved 3 across the quartiles of confounding), and the degrees of confounding "
            "follow the paper's definition over all nodes (1.0.0 counted labelled nodes only, which differs in the 77 "
            "samples that have unlabelled nodes).",
        ),
        Release(
            "1.2.0",
            "The `prompts` rows carry their request as TRL's conversational `prompt` column (was `messages`, which "
            "GRPOTrainer does not read); rows unchanged otherwise.",
        ),
    ),
    pretty_name="ReCAST: causal graphs from real-world economics papers",
    configs={"default": RecastSample, "prompts": RecastPromptRow},
    build=build,
    source_description=f"Hugging Face dataset {RELEASE_REPO}, file {RELEASE_FILE}",
    needs_source=True,
    source_name="recast/test.parquet",
    source_hint=f"FILE, a copy of {RELEASE_FILE} of the {RELEASE_REPO} release",
    downloads_source=True,
    card_context=card_context,
    citations=("saklad2025recast",),
    metrics=("recast_judge", "causal_graph_metrics"),
)
