"""``results.jsonl``: appended line by line from many threads, compacted atomically to the latest line per item."""

import json
import os

import pytest

from causal_datasets.errors import ResultsExist, RunFolderError
from causal_datasets.runners import results
from causal_datasets.runners.records import ItemResult, Untyped
from causal_datasets.runners.results import read_results
from tests.support.processes import ended_process_id

LINE = ItemResult[Untyped, Untyped]


def open_log(folder, *, resume):
    return results.ResultsLog(folder, resume=resume, model=LINE)


def line(item_id: str, status: str = "scored", **fields) -> dict:
    failure = None if status == "scored" else {"role": "model", "category": "timeout", "detail": "x"}
    return {
        "id": item_id,
        "config": "c",
        "status": status,
        "failure": failure,
        "scores": fields if status == "scored" else None,
    }


def test_concurrent_appends_keep_every_line_whole(tmp_path):
    log = open_log(tmp_path, resume=False)
    log.record_all(list(range(50)), lambda n: line(str(n), payload="x" * 2000), concurrency=8, desc="test")
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert len(lines) == 50 and all(
        json.loads(text)["scores"]["payload"] == "x" * 2000 for text in lines
    )  # no torn lines


def test_failed_items_run_again_scored_ones_never_and_compaction_keeps_the_latest(tmp_path):
    log = open_log(tmp_path, resume=False)
    for item in (line("a"), line("b", "failed"), line("c")):
        log.append(item)
    resumed = open_log(tmp_path, resume=True)
    assert [resumed.needs_run(i) for i in ("a", "b", "c", "d")] == [False, True, False, True]
    resumed.append(line("b", answer=42))
    assert [i["id"] for i in read_results(tmp_path)] == ["a", "b", "c", "b"]  # appended, not rewritten
    resumed.compact()
    assert [(i["id"], i["status"]) for i in read_results(tmp_path)] == [
        ("a", "scored"),
        ("b", "scored"),
        ("c", "scored"),
    ]
    assert read_results(tmp_path)[1]["scores"]["answer"] == 42
    assert [p.name for p in tmp_path.iterdir()] == ["results.jsonl"]  # no temporary file left


def test_existing_results_need_resume_and_a_torn_line_is_skipped_then_dropped(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(line("a")) + '\n{"id": "b", "trunc')
    with pytest.raises(ResultsExist, match="--resume"):
        open_log(tmp_path, resume=False)
    log = open_log(tmp_path, resume=True)
    assert list(log.items) == ["a"]
    log.append(line("c"))
    assert [item["id"] for item in read_results(tmp_path)] == ["a", "c"]  # "c" started on a line of its own
    log.compact()
    assert path.read_text().count("\n") == 2 and "trunc" not in path.read_text()


def test_opening_a_log_never_rewrites_the_file(tmp_path):
    """A kill right after a resume starts must not lose anything: opening only reads."""
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(line(str(i))) + "\n" for i in range(1000)))
    before = (path.stat().st_ino, path.stat().st_mtime_ns, path.read_bytes())
    open_log(tmp_path, resume=True)
    assert (path.stat().st_ino, path.stat().st_mtime_ns, path.read_bytes()) == before


def test_compaction_replaces_the_file_in_one_rename(tmp_path, monkeypatch):
    log = open_log(tmp_path, resume=False)
    log.append(line("a"))
    renames = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (renames.append((src, dst)), real(src, dst)))
    log.compact()
    assert len(renames) == 1 and renames[0][1] == tmp_path / "results.jsonl"


def test_a_run_removes_the_temporary_files_a_killed_run_left(tmp_path):
    """A kill during compaction leaves ``.results.jsonl.PID-*`` (117 MB in one test); the next
    invocation removes those of ended processes and keeps a running one's."""
    (tmp_path / "results.jsonl").write_text(json.dumps(line("a")) + "\n")
    dead = ended_process_id()
    stale = [
        tmp_path / f".results.jsonl.{dead}-x1",
        tmp_path / f".summary.json.{dead}-x2",
        tmp_path / ".results.jsonl.legacy",
    ]
    live = tmp_path / f".results.jsonl.{os.getpid()}-x3"
    for path in (*stale, live):
        path.write_text("half a file")
    log = open_log(tmp_path, resume=True)
    assert not any(path.exists() for path in stale) and live.exists()
    assert list(log.items) == ["a"] and (tmp_path / "results.jsonl").exists()


def test_results_of_an_older_version_are_named_not_misread(tmp_path):
    (tmp_path / "results.jsonl").write_text('{"id": "a", "error": "llm_error"}\n')
    with pytest.raises(RunFolderError, match="written by another causal-datasets .field 'config'"):
        open_log(tmp_path, resume=True)


def test_text_utf8_cannot_encode_is_written_as_its_json_escape(tmp_path):
    log = open_log(tmp_path, resume=False)
    log.append(line("a", reply="half a pair: \ud800 and é"))
    log.compact()
    (item,) = read_results(tmp_path)
    assert item["scores"]["reply"] == "half a pair: \ud800 and é"
