"""The Hub's rules for dataset card metadata that can be checked offline, and the check.

Allowed values come from the installed ``datasets`` package where it ships them (language codes,
size categories, annotation and language creators, multilinguality: ``datasets/utils/resources``).
Nothing installed lists licence ids or task categories, so those two lists are copied here from the
Hub's own sources (see :data:`LICENSES` and :data:`TASK_CATEGORIES`). ``configs`` and
``dataset_info`` are read back with the classes ``datasets`` itself uses to load a repository.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files
from typing import Any

from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCardData

#: licence ids the Hub accepts: huggingface/hub-docs, docs/hub/repositories-licenses.md
#: (commit 008d54d08fd9d5d05ed2840bebb0b61111326a15)
LICENSES = frozenset(
    "apache-2.0 mit openrail bigscience-openrail-m creativeml-openrail-m bigscience-bloom-rail-1.0 bigcode-openrail-m "
    "afl-3.0 artistic-2.0 bsl-1.0 bsd bsd-2-clause bsd-3-clause bsd-3-clause-clear c-uda cc cc0-1.0 cc-by-2.0 "
    "cc-by-2.5 cc-by-3.0 cc-by-4.0 cc-by-sa-3.0 cc-by-sa-4.0 cc-by-nc-2.0 cc-by-nc-3.0 cc-by-nc-4.0 cc-by-nd-4.0 "
    "cc-by-nc-nd-3.0 cc-by-nc-nd-4.0 cc-by-nc-sa-2.0 cc-by-nc-sa-3.0 cc-by-nc-sa-4.0 cdla-sharing-1.0 "
    "cdla-permissive-1.0 cdla-permissive-2.0 wtfpl ecl-2.0 epl-1.0 epl-2.0 etalab-2.0 eupl-1.1 agpl-3.0 gfdl gpl "
    "gpl-2.0 gpl-3.0 lgpl lgpl-2.1 lgpl-3.0 isc lppl-1.3c ms-pl mpl-2.0 odc-by odbl openrail++ osl-3.0 postgresql "
    "ofl-1.1 ncsa unlicense zlib pddl lgpl-lr deepfloyd-if-license llama2 gemma unknown other".split()
)
#: task categories the Hub knows: the keys of PIPELINE_DATA in huggingface/huggingface.js,
#: packages/tasks/src/pipelines.ts (commit 0057f4042b57b833d296ed4cf1c76cfd6619d00d)
TASK_CATEGORIES = frozenset(
    "biology text-classification token-classification table-question-answering question-answering "
    "zero-shot-classification translation summarization feature-extraction text-generation text2text-generation "
    "fill-mask sentence-similarity text-to-speech text-to-audio automatic-speech-recognition audio-to-audio "
    "audio-classification audio-text-to-text voice-activity-detection depth-estimation image-classification "
    "object-detection image-segmentation text-to-image image-to-text image-to-image image-to-video "
    "unconditional-image-generation video-classification reinforcement-learning robotics tabular-classification "
    "tabular-regression tabular-to-text table-to-text multiple-choice text-ranking text-retrieval "
    "time-series-forecasting text-to-video image-text-to-text visual-question-answering document-question-answering "
    "zero-shot-image-classification graph-ml mask-generation zero-shot-object-detection text-to-3d image-to-3d "
    "image-feature-extraction video-text-to-text keypoint-detection visual-document-retrieval any-to-any other".split()
)
#: every key a card of ours may carry (the dataset card spec, huggingface/hub-docs datasetcard.md)
KNOWN_KEYS = frozenset(
    "language license license_name license_link tags annotations_creators language_creators multilinguality "
    "language_details "
    "pretty_name size_categories source_datasets task_categories task_ids paperswithcode_id configs "
    "dataset_info".split()
)
#: keys every card of ours must have
REQUIRED_KEYS = (
    "license", "language", "pretty_name", "task_categories", "size_categories", "source_datasets",
    "annotations_creators", "tags", "configs", "dataset_info",
)  # fmt: skip
#: ``source_datasets`` entries: ``original``, ``extended``, or ``extended|<hub dataset id>``
SOURCE_DATASET = re.compile(r"^(?:original|extended(?:\|[A-Za-z0-9][\w.-]*/[\w.-]+)?)$")


def metadata_problems(data: DatasetCardData) -> list[str]:
    """Every rule of the Hub's card metadata that ``data`` breaks (empty when it passes)."""
    meta = data.to_dict()
    problems = [f"unknown key {key!r}" for key in meta if key not in KNOWN_KEYS]
    problems += [f"missing {key!r}" for key in REQUIRED_KEYS if not meta.get(key)]
    checks = {
        "license": LICENSES,
        "language": _resource("languages.json").keys(),
        "task_categories": TASK_CATEGORIES,
        "size_categories": _resource("size_categories.json"),
        "annotations_creators": _resource("creators.json")["annotations"],
        "language_creators": _resource("creators.json")["language"],
        "multilinguality": _resource("multilingualities.json").keys(),
    }
    for key, allowed in checks.items():
        problems += [
            f"{key}: {value!r} is not a value the Hub accepts"
            for value in _values(meta.get(key))
            if value not in allowed
        ]
    problems += [
        f"source_datasets: {value!r} is not 'original', 'extended' or 'extended|<owner>/<name>'"
        for value in _values(meta.get("source_datasets"))
        if not isinstance(value, str) or not SOURCE_DATASET.match(value)
    ]
    problems += [
        f"tags: {tag!r} is not a non-empty string"
        for tag in _values(meta.get("tags"))
        if not (isinstance(tag, str) and tag)
    ]
    if meta.get("configs") and meta.get("dataset_info"):
        problems += _config_problems(data)
    return problems


def _config_problems(data: DatasetCardData) -> list[str]:
    try:
        configs = MetadataConfigs.from_dataset_card_data(data)
        default = configs.get_default_config_name()
        infos = DatasetInfosDict.from_dataset_card_data(data)
    except (ValueError, TypeError, KeyError) as error:
        return [f"configs / dataset_info: {error}"]
    problems = [] if default else ["configs: no default config"]
    if set(configs) != set(infos):
        problems.append(f"configs {sorted(configs)} and dataset_info {sorted(infos)} name different configs")
    for name, info in infos.items():
        if not info.features or not info.splits:
            problems.append(f"dataset_info {name!r}: no features or no splits")
    return problems


def _values(value: Any) -> list[Any]:
    return [] if value is None else list(value) if isinstance(value, list) else [value]


@cache
def _resource(name: str) -> Any:
    return json.loads((files("datasets.utils") / "resources" / name).read_text(encoding="utf-8"))
