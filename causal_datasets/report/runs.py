"""A finished run folder (``summary.json`` + ``results.jsonl``) as the report reads it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from causal_datasets.errors import RunFolderError
from causal_datasets.runners.results import RESULTS_FILE, SUMMARY_FILE, read_results


@dataclass(frozen=True)
class Run:
    path: Path
    run: dict[str, Any]
    metrics: dict[str, Any]
    label: str = field(default="")

    @property
    def benchmark(self) -> str:
        return str(self.run.get("dataset", "unknown"))

    @cached_property
    def results(self) -> list[dict[str, Any]]:
        return read_results(self.path / RESULTS_FILE)


def load_run(path: Path) -> Run:
    """Read one run folder; the label is the model or agent that produced it (folder name if neither)."""
    summary_path = Path(path) / SUMMARY_FILE
    if not summary_path.exists():
        raise RunFolderError(f"{path} has no {SUMMARY_FILE}; is it a finished `causal-datasets eval` run?")
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise RunFolderError(f"{summary_path} is not valid JSON: {error}") from error
    if not isinstance(summary, dict) or "run" not in summary or "metrics" not in summary:
        raise RunFolderError(f"{summary_path} lacks the 'run' and 'metrics' sections")
    run = summary["run"]
    return Run(path=Path(path), run=run, metrics=summary["metrics"], label=run_label(run, Path(path)))


def run_label(run: dict[str, Any], path: Path) -> str:
    who = run.get("policy") or run.get("model") or run.get("agent")
    return f"{who} ({path.name})" if who else path.name


def lookup(data: Any, dotted: str) -> Any:
    """``data["a"]["b"]`` for ``"a.b"``; None where a key is missing."""
    for key in dotted.split("."):
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data
