import hashlib
import json
from collections import Counter

import datasets
import pytest
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard

from causal_datasets.builder import BuildContext
from causal_datasets.errors import DatasetFolderError
from causal_datasets.hub.folder import arrow_table, build_to_folder, load_records, read_manifest, verify_folder
from causal_datasets.registry import get_builder
from tests.support.processes import ended_process_id
from tests.support.tiny_dataset import TinyRow, generate, tiny_builder


@pytest.fixture
def builder(tmp_path):
    return tiny_builder(tmp_path)


def test_folder_layout_and_load_back(builder, tmp_path):
    written = build_to_folder(builder, tmp_path / "hub", BuildContext(seed=7))
    folder = written.folder
    assert (folder / "README.md").is_file() and (folder / "manifest.json").is_file()
    assert (folder / "data/default/train-00000-of-00001.parquet").is_file()
    assert written.row_counts == {"default": {"train": 8, "test": 4}}
    assert verify_folder(folder) == {"default": {"train": 8, "test": 4}}

    loaded = datasets.load_dataset(str(folder), "default")
    assert loaded["train"].features == TinyRow.features()
    assert load_records(folder, "default", "train", TinyRow) == generate(7)[:8]


def test_rebuild_is_byte_identical_and_seed_changes_data(builder, tmp_path):
    first = build_to_folder(builder, tmp_path / "a", BuildContext(seed=7)).folder
    second = build_to_folder(builder, tmp_path / "b", BuildContext(seed=7)).folder
    third = build_to_folder(builder, tmp_path / "c", BuildContext(seed=8)).folder
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert len(files) == 4
    for relative in files:
        assert (first / relative).read_bytes() == (second / relative).read_bytes(), relative
    assert (first / "data/default/train-00000-of-00001.parquet").read_bytes() != (
        third / "data/default/train-00000-of-00001.parquet"
    ).read_bytes()


def test_manifest_records_version_seed_and_hashes(builder, tmp_path):
    folder = build_to_folder(builder, tmp_path, BuildContext(seed=7)).folder
    manifest = read_manifest(folder)
    assert manifest["version"] == "1.2.3" and manifest["seed"] == 7
    assert manifest["notes"] == ["tiny note"]
    assert set(manifest["files"]) == {
        "README.md",
        "data/default/train-00000-of-00001.parquet",
        "data/default/test-00000-of-00001.parquet",
    }
    for relative, digest in manifest["files"].items():
        assert hashlib.sha256((folder / relative).read_bytes()).hexdigest() == digest
    with open(folder / "data/default/test-00000-of-00001.parquet", "ab") as handle:
        handle.write(b"tampered")
    with pytest.raises(DatasetFolderError, match="does not match its manifest"):
        verify_folder(folder)


@pytest.mark.parametrize(
    ("front_matter", "problem"),
    [(None, "no YAML front matter"), ("license: [mit", "not YAML"), ("- mit", "not a mapping")],
)
def test_a_card_without_readable_front_matter_is_a_folder_error(builder, tmp_path, front_matter, problem):
    folder = build_to_folder(builder, tmp_path, BuildContext(seed=7)).folder
    card = folder / "README.md"
    body = card.read_text(encoding="utf-8").split("\n---\n", 1)[1]
    card.write_text(body if front_matter is None else f"---\n{front_matter}\n---\n{body}", encoding="utf-8")
    manifest = read_manifest(folder)
    manifest["files"]["README.md"] = hashlib.sha256(
        card.read_bytes()
    ).hexdigest()  # consistent, so only the card is wrong
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(DatasetFolderError, match=problem):
        verify_folder(folder)


def test_card_yaml_is_read_back_by_datasets_and_hub(builder, tmp_path):
    folder = build_to_folder(builder, tmp_path, BuildContext(seed=7)).folder
    card = DatasetCard.load(folder / "README.md")
    assert card.data.license == "mit" and card.data.pretty_name == "Tiny test dataset"
    assert card.data.size_categories == ["n<1K"]
    configs = MetadataConfigs.from_dataset_card_data(card.data)
    assert configs["default"]["data_files"] == [
        {"split": "train", "path": "data/default/train-00000-of-00001.parquet"},
        {"split": "test", "path": "data/default/test-00000-of-00001.parquet"},
    ]
    infos = DatasetInfosDict.from_dataset_card_data(card.data)
    assert infos["default"].features == TinyRow.features()
    assert infos["default"].splits["train"].num_examples == 8


def test_card_body_statistics_match_the_records(builder, tmp_path):
    folder = build_to_folder(builder, tmp_path, BuildContext(seed=7)).folder
    body = DatasetCard.load(folder / "README.md").text
    rows = generate(7)
    train, test = rows[:8], rows[8:]
    answers_train, answers_test = Counter(r.answer for r in train), Counter(r.answer for r in test)
    assert f"| yes | {answers_train['yes']} | {answers_test['yes']} |" in body
    assert f"| no | {answers_train['no']} | {answers_test['no']} |" in body
    assert "| default | 4 | 8 |" in body  # configs table, splits sorted: test, train
    sizes = [r.size for r in train]
    assert f"| size | train | {min(sizes)} |" in body
    family = Counter((r.family, r.answer) for r in rows)
    assert f"| fork | {family[('fork', 'yes')]} | {family[('fork', 'no')]} |" in body
    assert 'load_dataset("hub/tiny", "default")' in body


def test_undeclared_config_and_wrong_record_type_are_rejected(builder, tmp_path):
    from dataclasses import replace

    from causal_datasets.builder import BuildOutcome

    stray = replace(builder, build=lambda context: BuildOutcome({"other": {"test": generate(1)}}))
    with pytest.raises(ValueError, match="undeclared config 'other'"):
        build_to_folder(stray, tmp_path, BuildContext(seed=1))
    wrong = replace(builder, build=lambda context: BuildOutcome({"default": {"test": [json.loads("{}")]}}))
    with pytest.raises(TypeError, match="expected TinyRow"):
        build_to_folder(wrong, tmp_path, BuildContext(seed=1))


def test_missing_manifest_is_a_clear_error(tmp_path):
    with pytest.raises(DatasetFolderError, match="not a built dataset folder"):
        read_manifest(tmp_path)


def test_a_build_never_replaces_a_folder_that_is_not_its_build(builder, tmp_path):
    stranger = tmp_path / "tiny"
    stranger.mkdir()
    (stranger / "notes.txt").write_text("mine")
    with pytest.raises(DatasetFolderError, match="exists and is not a build"):
        build_to_folder(builder, tmp_path, BuildContext(seed=7))
    assert (stranger / "notes.txt").read_text() == "mine"
    build_to_folder(builder, tmp_path, BuildContext(seed=7), replace=True)
    assert not (stranger / "notes.txt").exists() and (stranger / "manifest.json").is_file()


def test_a_build_never_silently_drops_configs_of_the_previous_one(builder, tmp_path):
    from dataclasses import replace

    from tests.support.tiny_dataset import TinyRow

    def with_extra(context):
        outcome = builder.build(context)
        configs = dict(outcome.records)
        if context.source is not None:
            configs["extra"] = configs["default"]
        return type(outcome)(configs, outcome.notes)

    sourced = replace(builder, configs={"default": TinyRow, "extra": TinyRow}, build=with_extra)
    build_to_folder(sourced, tmp_path, BuildContext(seed=7, source=tmp_path))
    with pytest.raises(DatasetFolderError, match=r"has 1 config\(s\) this build would drop \(extra\)"):
        build_to_folder(sourced, tmp_path, BuildContext(seed=7))
    assert set(read_manifest(tmp_path / "tiny")["rows"]) == {"default", "extra"}
    build_to_folder(sourced, tmp_path, BuildContext(seed=7), replace=True)
    assert set(read_manifest(tmp_path / "tiny")["rows"]) == {"default"}


def test_a_build_that_fails_midway_leaves_the_previous_build_untouched(builder, tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    build_to_folder(builder, tmp_path, BuildContext(seed=7))
    before = {p.name: p.read_bytes() for p in (tmp_path / "tiny").rglob("*") if p.is_file()}
    written = []

    def fail_on_second(table, path, **options):
        written.append(path)
        if len(written) == 2:
            raise OSError("disk full")
        return real_write(table, path, **options)

    real_write = pq.write_table
    monkeypatch.setattr(pq, "write_table", fail_on_second)
    with pytest.raises(OSError, match="disk full"):
        build_to_folder(builder, tmp_path, BuildContext(seed=8))
    assert {p.name: p.read_bytes() for p in (tmp_path / "tiny").rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny", "tiny.md"]  # no staging folder left behind
    verify_folder(tmp_path / "tiny")


def test_a_rebuild_never_deletes_a_file_it_did_not_write(builder, tmp_path):
    build_to_folder(builder, tmp_path, BuildContext(seed=7))
    mine = [tmp_path / "tiny" / "analysis.ipynb", tmp_path / "tiny" / "data" / "default" / "notes.txt"]
    for path in mine:
        path.write_text("mine")
    with pytest.raises(
        DatasetFolderError,
        match=r"holds 2 file\(s\) no build wrote.*: analysis.ipynb, data/default/notes.txt; "
        r".*--force",
    ):
        build_to_folder(builder, tmp_path, BuildContext(seed=8))
    assert all(path.read_text() == "mine" for path in mine)
    assert read_manifest(tmp_path / "tiny")["seed"] == 7  # refused before anything was built or moved
    build_to_folder(builder, tmp_path, BuildContext(seed=8), replace=True)
    assert not any(path.exists() for path in mine) and read_manifest(tmp_path / "tiny")["seed"] == 8


def test_a_build_removes_the_staging_folders_a_killed_build_left(builder, tmp_path):
    """A killed build leaves ``.tiny.building.PID-*`` (and, between its two renames, ``.tiny.old.PID-*``);
    the next build removes those whose process is gone, never a running build's or another dataset's."""
    import os

    dead = ended_process_id()
    stale = [
        tmp_path / f".tiny.building.{dead}-x1",
        tmp_path / f".tiny.old.{dead}-x2",
        tmp_path / ".tiny.building-legacy",
    ]
    live = [tmp_path / f".tiny.building.{os.getpid()}-x3", tmp_path / f".other.building.{dead}-x4"]
    for folder in stale + live:
        (folder / "data").mkdir(parents=True)
        (folder / "data" / "part.parquet").write_bytes(b"half")
    build_to_folder(builder, tmp_path, BuildContext(seed=7))
    assert not any(folder.exists() for folder in stale) and all(folder.exists() for folder in live)
    verify_folder(tmp_path / "tiny")


def test_a_split_without_rows_is_a_source_error_naming_the_source(builder, tmp_path):
    from dataclasses import replace

    from causal_datasets.errors import SourceFormatError

    def empty(context):
        return type(builder.build(context))({"default": {"train": []}})

    with pytest.raises(
        SourceFormatError, match=r"source.parquet: tiny config 'default' split 'train' would have no rows"
    ):
        build_to_folder(
            replace(builder, build=empty), tmp_path, BuildContext(seed=7, source=tmp_path / "source.parquet")
        )
    assert not (tmp_path / "tiny").exists()


def test_other_configs_are_read_back_with_the_features_their_card_declares(builder, tmp_path):
    from dataclasses import replace

    import pyarrow.parquet as pq

    def with_extra(context):
        outcome = builder.build(context)
        return type(outcome)({**outcome.records, "extra": outcome.records["default"]}, outcome.notes)

    two_configs = replace(builder, configs={"default": TinyRow, "extra": TinyRow}, build=with_extra)
    folder = build_to_folder(two_configs, tmp_path, BuildContext(seed=7)).folder
    assert verify_folder(folder) == {"default": {"train": 8, "test": 4}, "extra": {"train": 8, "test": 4}}
    extra = folder / "data/extra/test-00000-of-00001.parquet"
    pq.write_table(pq.read_table(extra).drop_columns(["id"]), extra)
    manifest = read_manifest(folder)
    manifest["files"]["data/extra/test-00000-of-00001.parquet"] = hashlib.sha256(extra.read_bytes()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(DatasetFolderError, match="other features than its card declares"):
        verify_folder(folder)


@pytest.mark.parametrize(("name", "config"), [("causalab", "3nodes"), ("shapeworld", "advanced")])
def test_the_written_table_is_the_one_dataset_from_list_holds(name, config):
    """Null structs, nested lists and class labels: the same columns, schema with metadata and buffer sizes (the
    card's num_bytes) as ``datasets``' own table, so the same Parquet bytes."""
    builder = get_builder(name)
    records = builder.build(BuildContext(seed=builder.default_seed)).records[config]["test"]
    features = builder.configs[config].features()
    expected = datasets.Dataset.from_list([r.to_row() for r in records], features=features).data.table
    table = arrow_table(records, features)
    assert table.equals(expected) and table.schema.equals(expected.schema, check_metadata=True)
    assert table.nbytes == expected.nbytes
