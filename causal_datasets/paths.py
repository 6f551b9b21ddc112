"""Where the package finds what it ships (card templates, evaluate modules) and the user's folders.

``cards/`` and ``metrics/`` at the top of the source tree are installed as the packages
``causal_datasets.cards`` and ``causal_datasets.metrics`` (``package-dir`` in ``pyproject.toml``),
so they are found through :mod:`importlib.resources` the same way from a checkout (editable
install) and from a wheel. Nothing here looks at the current working directory to find code.
"""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path

from causal_datasets.errors import UnknownMetric

#: default root of built dataset folders (a data folder of the user's, relative to where they run)
DEFAULT_HUB_DIR = Path("hub")
#: environment variable naming the folder of released benchmark files (one sub-folder per dataset)
SOURCES_ENV = "CAUSAL_DATASETS_SOURCES"


def metric_path(name: str) -> str:
    """Absolute path of the evaluate module folder ``name``, for ``evaluate.load``.

    >>> import evaluate
    >>> metric = evaluate.load(metric_path("causal_graph_metrics"))
    """
    folder = Path(str(files("causal_datasets.metrics") / name))
    if not (folder / f"{name}.py").is_file():
        raise UnknownMetric(f"unknown metric {name!r}; known: {', '.join(metric_names())}")
    return str(folder)


def metric_names() -> list[str]:
    """Names of the evaluate modules shipped with the package."""
    root = Path(str(files("causal_datasets.metrics")))
    return sorted(p.name for p in root.iterdir() if (p / f"{p.name}.py").is_file())


def cards_dir() -> Path:
    """The folder of the shipped card templates (``cards/``: one per dataset, plus the shared layout)."""
    return Path(str(files("causal_datasets.cards")))


def card_template(name: str) -> Path:
    """The card template shipped for dataset ``name`` (``cards/<name>.md``)."""
    return cards_dir() / f"{name}.md"


def sources_dir() -> Path | None:
    """The folder of released source files named by ``$CAUSAL_DATASETS_SOURCES``, if set."""
    value = os.environ.get(SOURCES_ENV)
    return Path(value) if value else None
