"""The released benchmark files the tests read: ``$CAUSAL_DATASETS_SOURCES``, else ``../shared/data`` beside the
checkout."""

from pathlib import Path

from causal_datasets.paths import sources_dir

SHARED_DATA_DIR = sources_dir() or Path(__file__).resolve().parents[2].parent / "shared" / "data"
