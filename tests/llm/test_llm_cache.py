"""The SQLite response cache: keys, concurrent writers, and corrupt, truncated or locked files."""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import subprocess
import sys
import threading

from causal_datasets.llm import LLMClient, LLMConfig
from causal_datasets.llm.cache import ResponseCache, cache_key
from causal_datasets.llm.stub_server import StubServer, completion_body

WRITER = """
import sys
from pathlib import Path
from causal_datasets.llm.cache import ResponseCache
cache = ResponseCache(Path(sys.argv[1]))
for i in range(int(sys.argv[3])):
    key = f"{sys.argv[2]}-{i}"
    cache.put(key, {"k": key}, {"v": i})
    assert cache.get(key) == {"v": i}
print(cache.writes, cache.problems)
"""


def body(i: int) -> dict:
    return completion_body(f"answer {i}")


def test_key_is_sha256_of_canonical_json_of_endpoint_and_body_independent_of_key_order():
    request = {"model": "m", "messages": [{"role": "user", "content": "é"}], "temperature": 0.0}
    reordered = {"temperature": 0.0, "messages": [{"content": "é", "role": "user"}], "model": "m"}
    canonical = (
        '{"body":{"messages":[{"content":"é","role":"user"}],"model":"m","temperature":0.0},'
        '"endpoint":"http://127.0.0.1:8080/v1"}'
    )
    key = cache_key("http://127.0.0.1:8080/v1", request)
    assert key == cache_key("http://127.0.0.1:8080/v1", reordered) == hashlib.sha256(canonical.encode()).hexdigest()
    assert cache_key("http://127.0.0.1:8080/v1", {**request, "temperature": 0.5}) != key
    assert cache_key("http://127.0.0.1:9090/v1", request) != key  # another server with a model of the same name


def test_round_trip_counts_and_persistence(tmp_path):
    path = tmp_path / "sub" / "llm.sqlite"
    cache = ResponseCache(path)
    assert cache.get("a") is None
    cache.put("a", {"q": 1}, body(1))
    assert cache.get("a") == body(1)
    cache.close()
    reopened = ResponseCache(path)
    assert reopened.get("a") == body(1) and len(reopened) == 1
    assert (cache.hits, cache.misses, cache.writes) == (1, 1, 1)
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_threads_share_one_cache(tmp_path):
    cache = ResponseCache(tmp_path / "llm.sqlite")

    def work(worker: int) -> None:
        for i in range(40):
            cache.put(f"{worker}-{i}", {}, body(i))
            assert cache.get(f"{worker}-{i}") == body(i)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(cache) == 240 and cache.problems == 0 and cache.hits == 240


def test_processes_write_the_same_file(tmp_path):
    path = tmp_path / "llm.sqlite"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"p{n}", "60"], stdout=subprocess.PIPE, text=True)
        for n in range(3)
    ]
    outputs = [proc.communicate(timeout=120)[0].split() for proc in procs]
    assert all(proc.returncode == 0 for proc in procs)
    assert outputs == [["60", "0"]] * 3  # every write landed, none skipped for a lock
    assert len(ResponseCache(path)) == 180


def test_garbage_file_disables_caching_but_the_run_goes_on(tmp_path, caplog):
    path = tmp_path / "llm.sqlite"
    path.write_bytes(b"this is not a database at all" * 100)
    with StubServer() as server:
        with LLMClient(LLMConfig(model="m", base_url=server.base_url), cache_path=path) as client:
            with caplog.at_level(logging.WARNING):
                first = client.chat([{"role": "user", "content": "x"}])
                second = client.chat([{"role": "user", "content": "x"}])
            usage = client.usage_summary()
    assert first.text == second.text == "echo: x"
    assert server.count == 2  # nothing cached, nothing crashed
    assert usage["cache_enabled"] is False and usage["cache_problems"] >= 1
    assert "continuing without caching" in caplog.text


def test_truncated_file_degrades_to_no_cache(tmp_path, caplog):
    path = tmp_path / "llm.sqlite"
    cache = ResponseCache(path)
    for i in range(300):
        cache.put(f"key-{i}", {"pad": "x" * 500}, body(i))
    cache.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])
    with caplog.at_level(logging.WARNING):
        damaged = ResponseCache(path)
        answers = [damaged.get(f"key-{i}") for i in range(300)]
        damaged.put("new", {}, body(0))
    # some early pages may still read back, but the damage is noticed and caching switched off
    assert damaged.problems >= 1 and damaged.enabled is False
    assert all(a is None or a == body(i) for i, a in enumerate(answers))
    assert "unusable" in caplog.text


def test_unparsable_entry_is_a_miss(tmp_path):
    path = tmp_path / "llm.sqlite"
    ResponseCache(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO responses VALUES ('k', '{}', '{not json')")
    cache = ResponseCache(path)
    assert cache.get("k") is None
    assert (cache.misses, cache.problems, cache.enabled) == (1, 1, True)


def test_lock_held_by_another_writer_skips_only_that_write(tmp_path, caplog):
    path = tmp_path / "llm.sqlite"
    cache = ResponseCache(path, busy_timeout=0.1)
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    with caplog.at_level(logging.WARNING):
        cache.put("a", {}, body(1))
    assert cache.writes == 0 and cache.problems == 1 and cache.enabled
    assert "locked" in caplog.text
    blocker.execute("COMMIT")
    blocker.close()
    cache.put("a", {}, body(1))
    assert cache.get("a") == body(1) and cache.writes == 1


def test_unwritable_location_means_no_cache(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where a folder should be")
    cache = ResponseCache(blocker / "llm.sqlite")
    assert cache.enabled is False
    cache.put("a", {}, body(1))
    assert cache.get("a") is None
