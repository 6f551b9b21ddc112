"""A corrupted or malformed released file is one line naming it (exit code 2), before any long work,
never a traceback and never a smaller build: truncated, corrupt, of another format, without rows,
without a column the builder reads, with an id twice, or nested deeper than a source may be."""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from causal_datasets.cli import main
from causal_datasets.errors import SourceUnavailable
from causal_datasets.integrations import inspect_tasks
from tests.support.data import SHARED_DATA_DIR


def recast_sources(tmp_path):
    good = (SHARED_DATA_DIR / "recast" / "test.parquet").read_bytes()
    middle = bytearray(good)
    middle[len(good) // 2 : len(good) // 2 + 200] = b"x" * 200
    yield "truncated", good[:100_000]
    yield "corrupted in the middle", bytes(middle)
    yield "empty", b""
    yield "JSON, not Parquet", b'{"id": 1}'
    table = pa.table({"x": [1, 2]})
    pq.write_table(table, tmp_path / "wrong.parquet")
    yield "Parquet without the release's columns", (tmp_path / "wrong.parquet").read_bytes()
    release = pq.read_table(SHARED_DATA_DIR / "recast" / "test.parquet")
    yield "the release sliced to 0 rows", parquet_bytes(release.slice(0, 0), tmp_path)
    yield "the release without its nodes column", parquet_bytes(release.drop_columns(["nodes"]), tmp_path)
    same_id = release.set_column(
        release.column_names.index("id"), "id", pa.array([1] * release.num_rows, release.schema.field("id").type)
    )
    yield "292 rows sharing one id", parquet_bytes(same_id, tmp_path)


def parquet_bytes(table: pa.Table, tmp_path) -> bytes:
    pq.write_table(table, tmp_path / "made.parquet")
    return (tmp_path / "made.parquet").read_bytes()


def cobe_sources(tmp_path):
    yield "not JSON", b"not json"
    yield "binary", bytes(range(256))
    yield "empty", b""
    yield "a list of the wrong entries", json.dumps([{"x": 1}]).encode()
    yield "an object of the wrong kind", b"{}"
    yield "an empty list (no rows)", b"[]"
    yield "nested 100,000 deep", b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize(
    "dataset, make, name",
    [
        ("recast", recast_sources, "test.parquet"),
        ("cobe", cobe_sources, "category-examples.json"),
    ],
)
def test_a_broken_source_file_is_named_in_one_line(dataset, make, name, tmp_path, capsys):
    for label, content in make(tmp_path):
        source = tmp_path / label.replace(" ", "_") / name
        source.parent.mkdir()
        source.write_bytes(content)
        code = main(["build", dataset, "--source", str(source), "--hub-dir", str(tmp_path / "hub")])
        err = capsys.readouterr().err
        assert code == 2, label
        assert err.startswith("error: ") and err.count("\n") == 1 and str(source) in err, (label, err)
        assert "Traceback" not in err and not (tmp_path / "hub" / dataset).exists(), label


def causalab_damage(good: bytes) -> dict[str, bytes]:
    first = good.splitlines(keepends=True)[0]
    return {
        "a broken line": b'{"graph_id": "x", "nodes',
        "bytes that are not UTF-8": b"\xff\xfe\x00",
        "a line of the wrong schema": b'{"graph_id": "g", "nodes": 3}\n',
        "an empty suite file": b"",
        "only blank lines": b"\n\n",
        "a line nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000 + b"\n",
        "a graph_id twice": first + good,
    }


@pytest.mark.parametrize("damage", list(causalab_damage(b"{}\n")))
def test_a_broken_causalab_release_names_the_file_before_any_generation(damage, tmp_path, capsys, monkeypatch):
    import causal_datasets.causalab.build

    monkeypatch.setattr(
        causal_datasets.causalab.build,
        "generate_suites",
        lambda *args: pytest.fail("generated before reading the release"),
    )
    release = tmp_path / "data"
    shutil.copytree(SHARED_DATA_DIR / "causalab" / "data", release)
    broken = release / "4nodes.jsonl"
    broken.write_bytes(causalab_damage(broken.read_bytes())[damage])
    assert main(["build", "causalab", "--source", str(release), "--hub-dir", str(tmp_path / "hub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {broken}") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "file, content",
    [
        ("test-model-meta.json", b"[1, 2"),
        ("test-generate-easy.json", b'[{"question_id": 1}]'),
        ("derived/cladder-v1-q-balanced_rand-top1000.derived.jsonl", b"garbage\n"),
        ("test-generate-easy.json", b"[]"),
        ("derived/cladder-v1-q-balanced_rand-top1000.derived.jsonl", b""),
        ("test-generate-det.json", "A QUESTION TWICE"),
    ],
)
def test_a_broken_cladder_file_is_named_before_the_synthetic_pairs_are_built(file, content, tmp_path, capsys):
    folder = tmp_path / "cladder"
    shutil.copytree(SHARED_DATA_DIR / "cladder", folder)
    if content == "A QUESTION TWICE":
        records = json.loads((folder / file).read_text())
        content = json.dumps(records + records[:1]).encode()
    (folder / file).write_bytes(content)
    assert main(["build", "cladder_pairs", "--source", str(folder), "--hub-dir", str(tmp_path / "hub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {folder / file} is not a usable source") and err.count("\n") == 1


def test_a_cladder_run_without_the_cladder_files_fails_before_building(tmp_path, monkeypatch, capsys):
    """`eval cladder_pairs` (and inspect's task) in a fresh folder without the CLadder files: one line naming
    the flag, the files and the environment variable, at once; nothing is built."""
    monkeypatch.delenv("CAUSAL_DATASETS_SOURCES", raising=False)
    hub = tmp_path / "hub"
    assert (
        main(
            [
                "eval",
                "cladder_pairs",
                "--limit",
                "10",
                "--model",
                "m",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--hub-dir",
                str(hub),
                "--out",
                str(tmp_path / "run"),
            ]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert (
        error.startswith(
            f"error: cladder_pairs config 'questions' is built from released files, and none were "
            f"given, so {hub / 'cladder_pairs'} was not built: pass --source DIR, the folder of "
            "CLadder's test-generate-*.json"
        )
        and "$CAUSAL_DATASETS_SOURCES" in error
    )
    assert error.count("\n") == 1 and not hub.exists()
    with pytest.raises(SourceUnavailable, match="--source DIR"):
        inspect_tasks.cladder_estimand(hub_dir=str(hub))
    assert not hub.exists()
