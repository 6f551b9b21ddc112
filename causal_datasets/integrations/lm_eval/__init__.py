"""lm-evaluation-harness tasks over the built ``prompts`` configs, shipped as a folder for ``--include_path``.

``python -m causal_datasets.integrations.lm_eval`` prints the folder; the tasks and how to run them
are described in its ``README.md``. ``settings.gen_kwargs`` turns a model's settings into lm-eval's
``--gen_kwargs``.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def tasks_dir() -> Path:
    """Absolute path of the folder of task YAMLs (pass it to ``lm_eval --include_path``)."""
    return Path(str(files(__name__) / "tasks")).resolve()
