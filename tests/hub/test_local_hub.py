"""LocalHub against the real libraries: push with ``push_folder``, load by hub id with ``load_dataset``."""

from pathlib import Path

import datasets
import httpx2
import pytest
from datasets.exceptions import DatasetNotFoundError
from huggingface_hub import HfApi, HfFileSystem, hf_hub_download
from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError, RevisionNotFoundError

from causal_datasets.builder import BuildContext
from causal_datasets.errors import PushError
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.hub.push import push_folder
from tests.support.hub_server import set_offline
from tests.support.tiny_dataset import tiny_builder


def _build(tmp_path: Path, seed: int = 7) -> Path:
    return build_to_folder(tiny_builder(tmp_path), tmp_path / f"hub-{seed}", BuildContext(seed=seed)).folder


def _push(hub, folder: Path, tag: str | None = None):
    return push_folder(folder, "org/tiny", tag=tag, api=HfApi(endpoint=hub.endpoint, token="hf_test"))


def _folder_files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _assert_same(loaded: datasets.Dataset, expected: datasets.Dataset) -> None:
    assert loaded.features == expected.features
    assert loaded.to_list() == expected.to_list()


def test_pushed_tag_loads_like_the_local_folder_then_offline_from_the_cache(local_hub, tmp_path, monkeypatch):
    folder = _build(tmp_path)
    result = _push(local_hub, folder)

    assert local_hub.files("org/tiny") == _folder_files(folder)
    commit = local_hub.repo("org/tiny").branches["main"]
    assert local_hub.tags("org/tiny") == {"v1.2.3": commit}
    assert result.tag == "v1.2.3" and result.commit_url == f"{local_hub.endpoint}/datasets/org/tiny/commit/{commit}"

    local = datasets.load_dataset(str(folder), "default", split="test")
    remote = datasets.load_dataset("org/tiny", "default", split="test", revision="v1.2.3")
    _assert_same(remote, local)
    assert ("HEAD", "/datasets/org/tiny/resolve/v1.2.3/README.md") in local_hub.requests

    seen = len(local_hub.requests)
    set_offline(monkeypatch, True)
    _assert_same(datasets.load_dataset("org/tiny", "default", split="test", revision="v1.2.3"), local)
    assert len(local_hub.requests) == seen


def test_each_tag_loads_its_own_version_and_main_the_latest(local_hub, tmp_path):
    first, second = _build(tmp_path, seed=7), _build(tmp_path, seed=8)
    _push(local_hub, first)
    _push(local_hub, second, tag="v2.0.0")

    tags = local_hub.tags("org/tiny")
    assert set(tags) == {"v1.2.3", "v2.0.0"} and tags["v1.2.3"] != tags["v2.0.0"]
    assert local_hub.files("org/tiny", revision="v1.2.3") == _folder_files(first)
    assert local_hub.files("org/tiny") == _folder_files(second)
    for folder, revision in ((first, "v1.2.3"), (second, "v2.0.0"), (second, "main"), (first, tags["v1.2.3"])):
        for split in ("train", "test"):
            expected = datasets.load_dataset(str(folder), "default", split=split)
            _assert_same(datasets.load_dataset("org/tiny", "default", split=split, revision=revision), expected)


def test_tree_pages_and_paths_info(local_hub, tmp_path):
    local_hub.page_size = 1
    folder = _build(tmp_path)
    _push(local_hub, folder)

    listed = {entry.path for entry in HfApi().list_repo_tree("org/tiny", repo_type="dataset", recursive=True)}
    assert listed == set(_folder_files(folder)) | {"data", "data/default"}
    expected = datasets.load_dataset(str(folder), "default", split="train")
    _assert_same(datasets.load_dataset("org/tiny", "default", split="train", revision="v1.2.3"), expected)
    assert any(
        path.startswith("/api/datasets/org/tiny/tree/") and "data%2Fdefault" in path and "cursor=1" in path
        for _, path in local_hub.requests
    )

    paths = ["README.md", "data", "missing"]
    infos = HfApi().get_paths_info("org/tiny", paths, repo_type="dataset", revision="v1.2.3")
    assert [(type(info).__name__, info.path) for info in infos] == [("RepoFile", "README.md"), ("RepoFolder", "data")]
    assert infos[0].size == len((folder / "README.md").read_bytes())


def test_files_download_whole_or_by_byte_range(local_hub, tmp_path):
    folder = _build(tmp_path)
    _push(local_hub, folder)
    manifest = (folder / "manifest.json").read_bytes()

    path = hf_hub_download("org/tiny", "manifest.json", repo_type="dataset", revision="v1.2.3")
    assert Path(path).read_bytes() == manifest
    with HfFileSystem().open("datasets/org/tiny@v1.2.3/manifest.json", "rb", block_size=16) as handle:
        handle.seek(10)
        assert handle.read(20) == manifest[10:30]
    url = f"{local_hub.endpoint}/datasets/org/tiny/resolve/main/manifest.json"
    response = httpx2.get(url, headers={"Range": "bytes=-5"})
    assert response.status_code == 206 and response.content == manifest[-5:]
    assert response.headers["Content-Range"] == f"bytes {len(manifest) - 5}-{len(manifest) - 1}/{len(manifest)}"
    assert httpx2.get(url, headers={"Range": f"bytes={len(manifest)}-"}).status_code == 416


def test_unknown_repo_revision_or_file_is_the_libraries_own_error(local_hub, tmp_path):
    _push(local_hub, _build(tmp_path))

    with pytest.raises(DatasetNotFoundError, match="doesn't exist on the Hub"):
        datasets.load_dataset("org/missing", "default", split="test")
    with pytest.raises(DatasetNotFoundError, match="Revision 'v9.9.9' doesn't exist"):
        datasets.load_dataset("org/tiny", "default", split="test", revision="v9.9.9")
    with pytest.raises(RevisionNotFoundError):
        HfApi().dataset_info("org/tiny", revision="refs/convert/parquet")
    with pytest.raises(EntryNotFoundError):
        hf_hub_download("org/tiny", "missing.txt", repo_type="dataset")
    assert ("GET", "/api/datasets/org/tiny/revision/refs%2Fconvert%2Fparquet") in local_hub.requests


def test_space_is_created_and_its_files_stored(local_hub, tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    (app / "app.py").write_text("import gradio\n", encoding="utf-8")
    (app / "assets").mkdir()
    (app / "assets" / "style.css").write_text("body {}\n", encoding="utf-8")
    api = HfApi(endpoint=local_hub.endpoint, token="hf_test")

    url = api.create_repo("org/space", repo_type="space", space_sdk="gradio")
    assert url.repo_type == "space" and url.repo_id == "org/space"
    api.upload_folder(repo_id="org/space", repo_type="space", folder_path=app, commit_message="app")
    assert local_hub.files("org/space", repo_type="space") == {
        "app.py": b"import gradio\n",
        "assets/style.css": b"body {}\n",
    }
    assert local_hub.repo("org/space", repo_type="space").sdk == "gradio"
    assert api.space_info("org/space").sdk == "gradio"

    api.create_repo("org/space", repo_type="space", space_sdk="gradio", exist_ok=True)
    with pytest.raises(HfHubHTTPError) as error:
        api.create_repo("org/space", repo_type="space", space_sdk="gradio")
    assert error.value.response.status_code == 409


def test_refused_writes_are_a_clear_push_error(local_hub, tmp_path):
    local_hub.refuse_writes = True
    with pytest.raises(PushError, match=r"HTTP 401 \(check HF_TOKEN"):
        _push(local_hub, _build(tmp_path))


def test_the_documented_command_serves_a_hub_that_push_reaches_through_the_printed_variables(tmp_path):
    """``python -m tests.support.hub_server`` (docs/data-and-hub.md) prints ``export HF_ENDPOINT=... HF_TOKEN=...``;
    ``causal-datasets push`` with exactly those variables publishes there, tag included."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    folder = _build(tmp_path)
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.hub_server"], cwd=root, stdout=subprocess.PIPE, text=True
    )
    try:
        line = server.stdout.readline().split()
        assert line[0] == "export" and line[1].startswith("HF_ENDPOINT=http://127.0.0.1:")
        variables = dict(part.split("=", 1) for part in line[1:])
        env = {**os.environ, **variables, "HF_HOME": str(tmp_path / "hf_home"), "HF_HUB_OFFLINE": "0"}
        push = [sys.executable, "-m", "causal_datasets.cli", "push", "tiny", "--hub-dir", str(folder.parent)]
        done = subprocess.run(
            [*push, "--dataset", "org/tiny"], env=env, capture_output=True, text=True, timeout=300, check=False
        )
        assert done.returncode == 0, done.stderr
        api = HfApi(endpoint=variables["HF_ENDPOINT"], token=variables["HF_TOKEN"])
        manifest = api.hf_hub_download(
            "org/tiny", "manifest.json", repo_type="dataset", revision="v1.2.3", cache_dir=tmp_path / "cache"
        )
        assert Path(manifest).read_bytes() == (folder / "manifest.json").read_bytes()
    finally:
        server.terminate()
        server.wait(timeout=30)
