"""Scoring the authors' own CausaLab run folders as published transcripts (``causal-datasets
score-upstream-run``): each run's replies are the model's calls, its episode replayed as the loop would
have recorded it, scored with the task's own scoring into a run folder ``report`` reads like any other."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from causal_datasets.causalab.play import CausaLabGeneration
from causal_datasets.causalab.summary import CausaLabMetrics
from causal_datasets.causalab.task import TASK
from causal_datasets.causalab.upstream_run import CONFIG_FILE, TRACKING_FILE, UpstreamRunError, read_upstream_run
from causal_datasets.registry import get_builder
from causal_datasets.runners.records import DatasetRef, ModelCall, RunSummary
from causal_datasets.runners.rescore import score_published
from causal_datasets.runners.task import Item, Transcript


def upstream_run_folders(paths: Sequence[Path]) -> list[Path]:
    """Every upstream run folder in ``paths``: a path that holds one, or any folder below it that does."""
    folders = []
    for path in map(Path, paths):
        if (path / CONFIG_FILE).is_file():
            folders.append(path)
        elif path.is_dir():
            folders += sorted(
                found.parent for found in path.rglob(CONFIG_FILE) if (found.parent / TRACKING_FILE).is_file()
            )
        else:
            raise UpstreamRunError(f"{path} does not exist")
    if not folders:
        raise UpstreamRunError(f"no upstream run folder (one holding {CONFIG_FILE}) in {', '.join(map(str, paths))}")
    return folders


def score_upstream_runs(paths: Sequence[Path], out: Path) -> RunSummary[CausaLabMetrics]:
    """Score the authors' run folders under ``paths`` as published transcripts — each run's replies
    the model's calls, its episode replayed as the loop would have recorded it — with the task's own
    scoring, and write them as a run folder ``out`` (solver ``published``) that ``report`` reads like
    any other. Every folder is read before anything is written."""
    folders = upstream_run_folders(paths)
    runs = [(folder, read_upstream_run(folder)) for folder in folders]
    ids: Counter[str] = Counter()
    transcripts = []
    for folder, run in runs:
        episode = run.episode()
        item_id = f"{episode.id}@{folder.name}"
        ids[item_id] += 1
        if ids[item_id] > 1:
            item_id += f"#{ids[item_id]}"
        calls = tuple(
            ModelCall(role="model", model=_upstream_model(folder) or "published", reply=reply) for reply in run.replies
        )
        generation = CausaLabGeneration.of(run.result(episode), "published")
        transcripts.append((Item(item_id, f"upstream_{run.suite}", episode), Transcript(calls, generation)))
    models = sorted({model for folder, _ in runs if (model := _upstream_model(folder))})
    dataset = DatasetRef(
        name=TASK.dataset,
        version=get_builder(TASK.dataset).version,
        seed=0,
        read_from=", ".join(map(str, paths)),
        configs=sorted({i.config for i, _ in transcripts}),
        split="upstream runs",
    )
    return score_published(
        TASK, transcripts, out, dataset=dataset, models={"model": ", ".join(models)} if models else {}
    )


def _upstream_model(folder: Path) -> str | None:
    """The action model named by a run's ``source_config.json`` (None when it has none)."""
    path = folder / "source_config.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))["models"]["action"]["generator_params"]["model"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
