"""What the benchmark scripts read from a source checkout: the released files of ``../shared/data``.

``$CAUSAL_DATASETS_SOURCES`` names another folder. Scripts run as ``python scripts/<name>.py``,
so this module is importable as ``checkout``.
"""

from pathlib import Path

from causal_datasets.paths import sources_dir

SHARED_DATA_DIR = sources_dir() or Path(__file__).resolve().parents[1].parent / "shared" / "data"
