"""Ray is asked for, never needed: the package and a local build import no Ray, ``--ray`` without Ray is one clear
error; a build written to an fsspec URL has the local build's bytes; ``score_batch`` in this process."""

from __future__ import annotations

import socket
import subprocess
import sys

import fsspec
import pytest

from causal_datasets.batch_scoring import score_batch
from causal_datasets.cli import main
from causal_datasets.errors import UnknownName
from causal_datasets.rewards import cladder_answer_reward

SMALL = ["shapeworld", "--sizes", "4", "--graphs-per-size", "3", "--num-proc", "1"]


def test_importing_the_package_and_a_local_build_import_no_ray(tmp_path):
    script = (
        "import sys\n"
        "import causal_datasets, causal_datasets.cli, causal_datasets.batch_scoring, causal_datasets.sharding\n"
        "from causal_datasets.cli import main\n"
        f"assert main({['build', *SMALL, '--hub-dir', str(tmp_path)]!r}) == 0\n"
        "print(sorted(name for name in sys.modules if name == 'ray' or name.startswith('ray.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "shapeworld" / "manifest.json").is_file()


def test_ray_asked_for_without_ray_installed_is_one_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` sees when it is not installed
    assert main(["build", *SMALL, "--ray", "--hub-dir", str(tmp_path)]) == 2
    assert "pip install 'causal-datasets[ray]'" in capsys.readouterr().err
    assert not (tmp_path / "shapeworld").exists()


def test_an_address_where_nothing_answers_is_one_clear_error_at_once(tmp_path, capsys):
    with socket.socket() as listener:  # a port this machine just had free: nothing listens on it now
        listener.bind(("127.0.0.1", 0))
        port = listener.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        assert main(["build", *SMALL, "--ray", address, "--hub-dir", str(tmp_path)]) == 2
        err = capsys.readouterr().err.strip()
        assert f"cannot reach Ray at {address}: nothing answers there" in err and "\n" not in err
        assert "ray" not in sys.modules or not sys.modules["ray"].is_initialized()
    assert not (tmp_path / "shapeworld").exists()


def _files(fs: fsspec.AbstractFileSystem, folder: str) -> dict[str, bytes]:
    return {path[len(folder) + 1 :]: fs.cat_file(path) for path in sorted(fs.find(folder))}


def test_a_build_written_to_an_fsspec_url_has_the_local_builds_bytes(tmp_path, capsys):
    memory = fsspec.filesystem("memory")
    if memory.exists("/hub-test"):
        memory.rm("/hub-test", recursive=True)
    assert main(["build", *SMALL, "--hub-dir", str(tmp_path)]) == 0
    assert main(["build", *SMALL, "--hub-dir", "memory://hub-test"]) == 0
    assert "memory:///hub-test/shapeworld" in capsys.readouterr().out
    folder = tmp_path / "shapeworld"
    local = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert _files(memory, "/hub-test/shapeworld") == local
    assert main(["build", *SMALL, "--hub-dir", f"file://{tmp_path}"]) == 0  # a file:// URL is the local folder
    assert "kept shapeworld" in capsys.readouterr().out
    memory.pipe_file("/hub-test/shapeworld/notes.txt", b"mine")  # a file no build wrote: kept unless --force
    assert main(["build", *SMALL, "--hub-dir", "memory://hub-test"]) == 2
    assert "1 file(s) no build wrote (notes.txt)" in capsys.readouterr().err
    assert main(["build", *SMALL, "--hub-dir", "memory://hub-test", "--force"]) == 0
    assert _files(memory, "/hub-test/shapeworld") == local  # the foreign file replaced, the build's bytes again
    memory.rm("/hub-test", recursive=True)


def test_score_batch_in_this_process_is_the_reward_over_every_batch():
    items = [{"answer": "yes" if n % 2 else "no", "prompt": [{"role": "user", "content": "?"}]} for n in range(25)]
    completions = ["Answer: yes", "No.", "maybe", "Answer: no", "yes"] * 5
    expected = cladder_answer_reward(
        [item["prompt"] for item in items], completions, answer=[i["answer"] for i in items]
    )
    assert score_batch("cladder_answer_reward", completions, items, batch_size=4) == expected
    assert score_batch(cladder_answer_reward, completions, items) == expected
    assert 0.0 in expected and 1.0 in expected
    with pytest.raises(UnknownName, match="known: cladder_answer_reward"):
        score_batch("no_such_reward", completions, items)
    with pytest.raises(ValueError, match="25 completions for 24 items"):
        score_batch(cladder_answer_reward, completions, items[:-1])
