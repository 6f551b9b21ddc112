import json

import pytest

from causal_datasets.errors import ResultsExist
from causal_datasets.runners.results import ResultsLog, read_results


def test_record_all_keeps_every_finished_item_and_returns_the_failures(tmp_path):
    log = ResultsLog(tmp_path, resume=False)

    def work(n: int) -> dict:
        if n % 7 == 3:
            raise RuntimeError(f"item {n} broke")
        return {"id": str(n), "payload": "x" * 2000}

    failures = log.record_all(list(range(50)), work, concurrency=8, desc="test")
    assert [n for n, _ in failures] == [3, 10, 17, 24, 31, 38, 45]
    assert all(isinstance(error, RuntimeError) for _, error in failures)
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert len(lines) == 43 and all(json.loads(line)["payload"] == "x" * 2000 for line in lines)  # no torn lines

    resumed = ResultsLog(tmp_path, resume=True)
    assert resumed.done("0") and not resumed.done("3")
    resumed.record_all([3], lambda n: {"id": str(n)}, concurrency=1, desc="retry")
    assert len(read_results(tmp_path)) == 44


def test_existing_results_need_resume_and_a_torn_line_is_dropped(tmp_path):
    (tmp_path / "results.jsonl").write_text('{"id": "a"}\n{"id": "b", "trunc')
    with pytest.raises(ResultsExist, match="--resume"):
        ResultsLog(tmp_path, resume=False)
    log = ResultsLog(tmp_path, resume=True)
    assert list(log.items) == ["a"]
    log.append({"id": "c"})
    assert [item["id"] for item in read_results(tmp_path)] == ["a", "c"]
