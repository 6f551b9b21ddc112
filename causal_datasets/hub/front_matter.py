"""A card's YAML front matter, written through the official classes.

The template declares what a person chooses (licence, languages, task categories, tags, creators,
source datasets); ``pretty_name``, ``size_categories``, ``configs`` and ``dataset_info`` are
computed from the build and written with ``datasets``' own :class:`MetadataConfigs` and
:class:`DatasetInfosDict`, the classes it reads them back with. The result is checked against
the Hub's rules (:mod:`.metadata_rules`) before a card is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import datasets
from datasets.info import DatasetInfo, DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCardData

from causal_datasets.errors import BuilderRegistrationError
from causal_datasets.hub.layout import split_data_files
from causal_datasets.hub.metadata_rules import metadata_problems

#: upper bounds of the Hub's size categories (``datasets/utils/resources/size_categories.json``)
SIZE_CATEGORIES = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
                   (10_000_000, "1M<n<10M")]  # fmt: skip
COMPUTED_KEYS = ("pretty_name", "size_categories", "configs", "dataset_info")


@dataclass(frozen=True)
class SplitFiles:
    """One written split: rows, Arrow bytes (``num_bytes``), Parquet file bytes (``download_size``) and
    the number of Parquet files it is written as."""

    rows: int
    num_bytes: int
    file_bytes: int
    files: int = 1


def card_data(
    declared: Mapping[str, Any],
    pretty_name: str,
    features: Mapping[str, datasets.Features],
    splits: Mapping[str, Mapping[str, SplitFiles]],
    name: str,
) -> DatasetCardData:
    """The complete, checked metadata of one build; the first config is the default one.

    Raises :class:`BuilderRegistrationError` when the template sets a computed key or the result
    breaks a rule of the Hub."""
    clash = sorted(set(declared) & set(COMPUTED_KEYS))
    if clash:
        raise BuilderRegistrationError(f"card template of {name!r} sets computed keys {clash}")
    total = sum(files.rows for config in splits.values() for files in config.values())
    data = DatasetCardData(**declared, pretty_name=pretty_name, size_categories=[size_category(total)])
    MetadataConfigs(
        {
            config: {
                "data_files": [
                    {"split": split, "path": split_data_files(config, split, files.files)}
                    for split, files in config_splits.items()
                ],
                **({"default": True} if index == 0 else {}),
            }
            for index, (config, config_splits) in enumerate(splits.items())
        }
    ).to_dataset_card_data(data)
    # back to the builder's order, default first (MetadataConfigs sorts by name): ``load_dataset(folder, config)``
    # resolves the data files of every config listed before ``config``, so the first one should be the default
    order = list(splits)
    data["configs"] = sorted(data["configs"], key=lambda entry: order.index(entry["config_name"]))
    DatasetInfosDict(
        {config: _info(config, features[config], config_splits) for config, config_splits in splits.items()}
    ).to_dataset_card_data(data)
    problems = metadata_problems(data)
    if problems:
        raise BuilderRegistrationError(f"card of {name!r} breaks the Hub's metadata rules: " + "; ".join(problems))
    return data


def size_category(rows: int) -> str:
    for bound, label in SIZE_CATEGORIES:
        if rows < bound:
            return label
    raise ValueError(f"{rows} rows: beyond the size categories this package writes")


def _info(config: str, features: datasets.Features, splits: Mapping[str, SplitFiles]) -> DatasetInfo:
    split_dict = datasets.SplitDict()
    for split, files in splits.items():
        split_dict.add(datasets.SplitInfo(name=split, num_bytes=files.num_bytes, num_examples=files.rows))
    return DatasetInfo(
        config_name=config,
        features=features,
        splits=split_dict,
        download_size=sum(files.file_bytes for files in splits.values()),
        dataset_size=sum(files.num_bytes for files in splits.values()),
    )
