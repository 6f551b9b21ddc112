"""The rows an lm-eval task reads: a benchmark's built ``prompts`` config, from a local build or a Hub id.

Each task YAML names one loader here as ``custom_dataset``; lm-eval calls it with the run's
``--metadata`` merged with its ``--model_args``, so a loader reads its own keys and ignores the rest:

- ``hub_dir``: the root of built dataset folders (default ``hub``, relative to where lm_eval runs,
  as ``causal-datasets --hub-dir``); the dataset must be built there (it is not built on demand: a
  build can need released files and take minutes);
- ``dataset``: a Hub id ``ORG/NAME`` instead, with ``dataset_revision`` (a tag, branch or commit;
  default ``main``; not ``revision``, which lm-eval would also take from ``--model_args``);
- ``scoring`` (``causal_cladder_estimand`` only): the rule of its ``accuracy``, ``identification``
  (default: the prompts ask for an identified estimand) or ``equivalence`` (DoVerifier's); both rules
  are reported as ``identification_accuracy`` and ``equivalence_accuracy`` either way.

Either way the files are checked against the dataset's manifest (:class:`DatasetLocation`). Rows
keep the ``prompts`` columns (labels as names) plus what scoring needs from the sibling config.
"""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path
from typing import Any, TypeVar

import datasets

from causal_datasets.cladder_pairs.records import CladderPromptRow, CladderQuestionRow, CladderYesNoPromptRow
from causal_datasets.cobe.prompts import CriteriaSet
from causal_datasets.cobe.records import CoBePromptRow, CoBeQuery
from causal_datasets.docalc.scoring_rules import SCORING_RULES
from causal_datasets.errors import DatasetFolderError, RunConfigurationError
from causal_datasets.hub.layout import MANIFEST
from causal_datasets.hub.location import DatasetLocation
from causal_datasets.paths import DEFAULT_HUB_DIR
from causal_datasets.recast.records import RecastPromptRow
from causal_datasets.records.base import Record

METADATA_KEYS = ("hub_dir", "dataset", "dataset_revision")

RecordT = TypeVar("RecordT", bound=Record)


def location(name: str, metadata: dict[str, Any]) -> DatasetLocation:
    """Where dataset ``name`` is read from, per the run's metadata (see the module docstring)."""
    hub_dir, dataset, revision = (metadata.get(key) for key in METADATA_KEYS)
    for key, value in (("dataset", dataset), ("dataset_revision", revision)):
        if value is not None and not isinstance(value, str):
            raise RunConfigurationError(f"--metadata {key} must be a string, got {value!r}")
    if dataset is not None:
        if hub_dir is not None:
            raise RunConfigurationError("--metadata: give hub_dir (a local build) or dataset (a Hub id), not both")
        if dataset.count("/") != 1:
            raise RunConfigurationError(f"--metadata dataset must be a Hub id ORG/NAME, got {dataset!r}")
        return DatasetLocation(repo_id=dataset, revision=revision)
    if revision is not None:
        raise RunConfigurationError(
            "--metadata dataset_revision needs dataset=ORG/NAME (a local build has no revisions)"
        )
    if hub_dir is not None and not isinstance(hub_dir, (str, os.PathLike)):
        raise RunConfigurationError(f"--metadata hub_dir must be a folder, got {hub_dir!r}")
    root = Path(hub_dir or DEFAULT_HUB_DIR).expanduser().resolve()
    if not (root / name / MANIFEST).is_file():
        raise DatasetFolderError(
            f"no built {name} dataset in {root} (--metadata hub_dir): build it with "
            f"`causal-datasets build {name} --hub-dir {root} ...`, or read a pushed one with "
            f'--metadata \'{{"dataset": "ORG/{name}"}}\''
        )
    return DatasetLocation(hub_dir=root)


def _records(where: DatasetLocation, name: str, config: str, kind: type[RecordT]) -> list[RecordT]:
    """The records of ``name``'s ``config``, each a ``kind`` (the record model its builder declares for it)."""
    records = where.load(name, config).records
    typed = [record for record in records if isinstance(record, kind)]
    if len(typed) != len(records):
        raise DatasetFolderError(f"{name}/{config} holds records other than {kind.__name__}")
    return typed


def _dataset(rows: list[dict[str, Any]]) -> datasets.DatasetDict:
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def load_cladder_yes_no(**metadata: Any) -> datasets.DatasetDict:
    """``cladder_pairs/yes_no_prompts``: CLadder's own yes/no questions, each with CLadder's ``answer``."""
    where = location("cladder_pairs", metadata)
    return _dataset(
        [
            row.model_dump(mode="json")
            for row in _records(where, "cladder_pairs", "yes_no_prompts", CladderYesNoPromptRow)
        ]
    )


def load_cladder_estimand(**metadata: Any) -> datasets.DatasetDict:
    """``cladder_pairs/prompts``, each row with its ``questions`` row as JSON (``question``), which
    :func:`~causal_datasets.cladder_pairs.estimand_task.score_answer` scores against (the config holds the questions
    ``causal-datasets eval`` asks: not those whose estimand uses an unobserved node)."""
    scoring = metadata.get("scoring", "identification")
    if scoring not in SCORING_RULES:
        raise RunConfigurationError(f"--metadata scoring must be one of {', '.join(SCORING_RULES)}, got {scoring!r}")
    where = location("cladder_pairs", metadata)
    questions = {q.id: q for q in _records(where, "cladder_pairs", "questions", CladderQuestionRow)}
    return _dataset(
        [
            row.model_dump(mode="json") | {"question": questions[row.id].model_dump_json(), "scoring": scoring}
            for row in _records(where, "cladder_pairs", "prompts", CladderPromptRow)
        ]
    )


def load_recast_graph(**metadata: Any) -> datasets.DatasetDict:
    """``recast/prompts``, standard variant (the model names the variables itself)."""
    rows = _records(location("recast", metadata), "recast", "prompts", RecastPromptRow)
    return _dataset([row.model_dump(mode="json") for row in rows if row.variant == "standard"])


def load_cobe_queries(**metadata: Any) -> datasets.DatasetDict:
    """``cobe/prompts``, each row with its query's criteria lists (what a CoBe judge checks)."""
    where = location("cobe", metadata)
    queries = {q.id: q for q in _records(where, "cobe", "queries", CoBeQuery)}
    criteria = [f.name for f in fields(CriteriaSet)]
    return _dataset(
        [
            row.model_dump(mode="json") | {name: getattr(queries[row.query_id], name) for name in criteria}
            for row in _records(where, "cobe", "prompts", CoBePromptRow)
        ]
    )
