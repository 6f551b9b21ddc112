"""Run output shared by every benchmark runner: ``results.jsonl`` (one line per item) and ``summary.json``.

The JSONL file is written line by line and flushed, so an interrupted run keeps every finished
item; ``--resume`` reads it back (a torn last line from a crash is dropped, not fatal) and the
runner skips the ids already there.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from causal_datasets.errors import ResultsExist
from causal_datasets.llm.concurrency import map_concurrent

Item = TypeVar("Item")

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"


class ResultsLog:
    """Append-only per-item results keyed by ``id``."""

    def __init__(self, out_dir: Path, *, resume: bool):
        self.path = Path(out_dir) / RESULTS_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size and not resume:
            raise ResultsExist(f"{self.path} already has results; pass --resume to continue or choose another --out")
        self.items: dict[str, dict[str, Any]] = {item["id"]: item for item in read_results(self.path)}
        self._lock = threading.Lock()
        self._rewrite_clean()

    def done(self, item_id: str) -> bool:
        return item_id in self.items

    def append(self, item: dict[str, Any]) -> None:
        """Write one result line (thread-safe) and keep it in ``items``."""
        if "id" not in item:
            raise ValueError("a result item needs an 'id'")
        line = json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n"
        with self._lock:
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(line)
            self.items[item["id"]] = item

    def record_all(
        self, items: Sequence[Item], work: Callable[[Item], dict[str, Any]], *, concurrency: int, desc: str
    ) -> list[tuple[Item, Exception]]:
        """Run ``work`` over ``items`` concurrently, appending each result the moment it is done.

        Returns the items whose ``work`` raised, with the exception: nothing is recorded for them,
        so a ``--resume`` run tries them again.
        """
        outcomes = map_concurrent(lambda item: self.append(work(item)), items, concurrency=concurrency, desc=desc)
        return [(item, outcome) for item, outcome in zip(items, outcomes) if isinstance(outcome, Exception)]

    def _rewrite_clean(self) -> None:
        """Drop a torn trailing line left by a crash so appends start on a fresh line."""
        self.path.write_text(
            "".join(json.dumps(i, ensure_ascii=False, sort_keys=True) + "\n" for i in self.items.values()),
            encoding="utf-8",
        )


def read_results(path: Path) -> list[dict[str, Any]]:
    """Items of a results file; unparsable lines (a crash mid-write) are skipped."""
    path = Path(path)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        return []
    items = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return items


def write_summary(out_dir: Path, summary: dict[str, Any], run: dict[str, Any]) -> Path:
    """``summary.json``: the metric output under ``metrics`` and the run's configuration under ``run``."""
    path = Path(out_dir) / SUMMARY_FILE
    path.write_text(json.dumps({"run": run, "metrics": summary}, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
    return path


def read_summary(out_dir: Path) -> dict[str, Any]:
    return json.loads((Path(out_dir) / SUMMARY_FILE).read_text(encoding="utf-8"))


def limited(items: Iterable[Any], limit: int | None) -> list[Any]:
    items = list(items)
    return items if limit is None else items[:limit]
