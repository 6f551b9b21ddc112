"""Hub-layout dataset folders: write, verify, load back (locally or by hub id), push."""

from causal_datasets.hub.folder import WrittenDataset, build_to_folder, load_records, read_manifest, verify_folder
from causal_datasets.hub.location import DatasetLocation, LoadedConfig, load_benchmark
from causal_datasets.hub.push import PushResult, push_folder

__all__ = [
    "DatasetLocation",
    "LoadedConfig",
    "PushResult",
    "WrittenDataset",
    "build_to_folder",
    "load_benchmark",
    "load_records",
    "push_folder",
    "read_manifest",
    "verify_folder",
]
