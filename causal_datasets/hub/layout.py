"""Names of the files in a hub-layout dataset folder."""

MANIFEST = "manifest.json"
CARD = "README.md"

#: rows per Parquet file: a larger split is written as several files, which ``load_dataset`` reads as one split
ROWS_PER_FILE = 100_000


def parquet_path(config: str, split: str, shard: int = 0, shards: int = 1) -> str:
    """Relative path of one Parquet file of a split (the hub's ``data/<config>/<split>-NNNNN-of-MMMMM`` convention)."""
    return f"data/{config}/{split}-{shard:05d}-of-{shards:05d}.parquet"


def split_data_files(config: str, split: str, shards: int) -> str | list[str]:
    """The card's ``data_files`` path of a split: its one file, or the list of its ``shards`` files."""
    paths = [parquet_path(config, split, shard, shards) for shard in range(shards)]
    return paths[0] if shards == 1 else paths
