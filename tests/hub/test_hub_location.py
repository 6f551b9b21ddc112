"""Datasets read by hub id and revision (``--dataset ORG/NAME --revision vX``) and local builds, checked
against their manifest; pushes of datasets and metric Spaces, all against a local Hub server."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from huggingface_hub import HfApi

from causal_datasets import registry
from causal_datasets.builder import BuildContext, Release
from causal_datasets.cli import main
from causal_datasets.errors import DatasetFolderError, HubDatasetError, PushError
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.hub.location import DatasetLocation, load_benchmark
from causal_datasets.hub.push import push_folder, push_metric
from causal_datasets.paths import metric_names, metric_path
from causal_datasets.runners.results import read_summary
from tests.support.hub_server import TOKEN, set_offline
from tests.support.tiny_dataset import tiny_builder


def api(hub) -> HfApi:
    return HfApi(endpoint=hub.endpoint, token=TOKEN)


@pytest.fixture(scope="module")
def shapeworld_build(tmp_path_factory):
    root = tmp_path_factory.mktemp("hub")
    build_to_folder(registry.get_builder("shapeworld"), root, BuildContext(seed=0))
    return root / "shapeworld"


def test_eval_reads_a_pushed_dataset_by_hub_id_and_revision_online_then_offline(
    local_hub, shapeworld_build, tmp_path, monkeypatch
):
    push_folder(shapeworld_build, "org/shapeworld", api=api(local_hub))
    empty = tmp_path / "no-local-builds"
    version = json.loads((shapeworld_build / "manifest.json").read_text())["version"]
    argv = [
        "eval",
        "shapeworld",
        "--agent",
        "oracle",
        "--dataset",
        "org/shapeworld",
        "--revision",
        f"v{version}",
        "--hub-dir",
        str(empty),
    ]

    assert main([*argv, "--out", str(tmp_path / "online")]) == 0
    set_offline(monkeypatch, True)
    seen = len(local_hub.requests)
    assert main([*argv, "--out", str(tmp_path / "offline")]) == 0
    assert len(local_hub.requests) == seen  # the second run read the Hub cache only

    for run in ("online", "offline"):
        summary = read_summary(tmp_path / run)
        assert summary["dataset"]["read_from"] == f"org/shapeworld@v{version}"
        assert summary["dataset"]["version"] == version
        assert summary["metrics"]["count"] == 84 and summary["metrics"]["accuracy"] == 1.0
    assert not empty.exists()  # nothing was built locally


def test_every_config_reads_by_hub_id_not_only_the_first(local_hub, shapeworld_build):
    """A snapshot holds only the asked config's files; the second config must load from it all the same."""
    push_folder(shapeworld_build, "org/shapeworld-configs", api=api(local_hub))
    for config in ("advanced", "core"):
        pushed = DatasetLocation(repo_id="org/shapeworld-configs").load("shapeworld", config).records
        local = DatasetLocation(hub_dir=shapeworld_build.parent).load("shapeworld", config).records
        assert pushed == local and len(pushed) > 0, config


@pytest.fixture
def tiny_registered(tmp_path, monkeypatch):
    """The tiny test dataset as a registered builder, so a DatasetLocation can read it."""
    tiny = tiny_builder(tmp_path)
    monkeypatch.setattr(registry, "builders", lambda: {"tiny": tiny})
    return tiny


def test_each_revision_is_read_exactly_also_offline(local_hub, tiny_registered, tmp_path, monkeypatch):
    """``load_dataset`` by hub id alone would, offline, return whichever revision it cached last."""
    first = build_to_folder(tiny_registered, tmp_path / "a", BuildContext(seed=7)).folder
    newer = replace(tiny_registered, history=(*tiny_registered.history, Release("2.0.0", "seed 8")))
    second = build_to_folder(newer, tmp_path / "b", BuildContext(seed=8)).folder
    push_folder(first, "org/tiny", api=api(local_hub))
    push_folder(second, "org/tiny", api=api(local_hub))
    expected = {
        "v1.2.3": DatasetLocation(hub_dir=tmp_path / "a").load("tiny", "default", "test").records,
        "v2.0.0": DatasetLocation(hub_dir=tmp_path / "b").load("tiny", "default", "test").records,
    }
    assert expected["v1.2.3"] != expected["v2.0.0"]
    for offline in (False, True):
        set_offline(monkeypatch, offline)
        for tag, records in expected.items():
            loaded = DatasetLocation(repo_id="org/tiny", revision=tag).load("tiny", "default", "test")
            assert loaded.records == records and loaded.manifest["version"] == tag[1:], (offline, tag)
    assert load_benchmark("tiny", "default", dataset="org/tiny", revision="v2.0.0") == expected["v2.0.0"]
    with pytest.warns(FutureWarning, match=r"repo_id=\.\.\.\) is deprecated; use dataset="):  # the old name still works
        assert load_benchmark("tiny", "default", repo_id="org/tiny", revision="v1.2.3") == expected["v1.2.3"]


def test_hub_failures_are_typed_and_name_the_dataset(local_hub, tiny_registered, tmp_path, monkeypatch):
    folder = build_to_folder(tiny_registered, tmp_path / "a", BuildContext(seed=7)).folder
    push_folder(folder, "org/tiny", api=api(local_hub))
    with pytest.raises(HubDatasetError, match="org/tiny@v9.9.9"):
        DatasetLocation(repo_id="org/tiny", revision="v9.9.9").load("tiny", "default")
    with pytest.raises(HubDatasetError, match="org/missing@main"):
        DatasetLocation(repo_id="org/missing").load("tiny", "default")
    set_offline(monkeypatch, True)
    with pytest.raises(HubDatasetError, match="offline mode is on"):
        DatasetLocation(repo_id="org/tiny", revision="v1.2.3").load("tiny", "default")


def test_a_repository_holding_another_dataset_is_refused(local_hub, tiny_registered, tmp_path, monkeypatch):
    folder = build_to_folder(tiny_registered, tmp_path / "a", BuildContext(seed=7)).folder
    push_folder(folder, "org/other", api=api(local_hub))
    monkeypatch.setattr(
        registry, "builders", lambda: {"tiny": tiny_registered, "other": replace(tiny_registered, name="other")}
    )
    with pytest.raises(HubDatasetError, match="org/other@v1.2.3 holds the dataset 'tiny', not 'other'"):
        DatasetLocation(repo_id="org/other", revision="v1.2.3").load("other", "default")


def test_a_local_build_that_differs_from_its_manifest_is_not_read(tiny_registered, tmp_path):
    folder = build_to_folder(tiny_registered, tmp_path, BuildContext(seed=7)).folder
    with open(folder / "data/default/test-00000-of-00001.parquet", "ab") as handle:
        handle.write(b"tampered")
    with pytest.raises(DatasetFolderError, match="does not match its manifest sha256"):
        DatasetLocation(hub_dir=tmp_path).load("tiny", "default", "test")


def test_revision_without_a_hub_id_is_an_error(tmp_path, capsys):
    assert main(["eval", "shapeworld", "--agent", "oracle", "--revision", "v1", "--out", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == "error: --revision needs --dataset ORG/NAME (a local build has no revisions)\n"
    assert not (tmp_path / "r").exists()


def test_push_metric_creates_a_gradio_space_with_the_complete_module(local_hub, capsys, monkeypatch):
    from causal_datasets import __version__

    assert main(["push-metric", "causal_graph_metrics", "--repo-id", "org/causal_graph_metrics"]) == 0
    assert "org/causal_graph_metrics" in capsys.readouterr().out
    space = local_hub.repo("org/causal_graph_metrics", "space")
    assert space.sdk == "gradio"
    files = local_hub.files("org/causal_graph_metrics", "space")
    assert set(files) == {"causal_graph_metrics.py", "app.py", "requirements.txt", "README.md"}
    folder = metric_path("causal_graph_metrics")
    for name, content in files.items():
        assert content == open(f"{folder}/{name}", "rb").read(), name
    assert set(local_hub.tags("org/causal_graph_metrics", "space")) == {f"v{__version__}"}

    for name in metric_names():  # every module publishes the same way
        result = push_metric(name, f"org/{name}-space", api=api(local_hub))
        assert "app.py" in local_hub.files(f"org/{name}-space", "space") and result.tag == f"v{__version__}"


def test_push_metric_refused_by_the_hub_is_one_clear_line(local_hub, capsys):
    local_hub.refuse_writes = True
    with pytest.raises(PushError, match=r"HTTP 401 \(check HF_TOKEN"):
        push_metric("shapeworld_accuracy", "org/sw", api=api(local_hub))
    assert main(["push-metric", "shapeworld_accuracy", "--repo-id", "org/sw"]) == 2
    assert capsys.readouterr().err.startswith("error: the hub refused the push to org/sw with HTTP 401")


def test_a_pushed_metric_space_loads_back_through_evaluate(local_hub, tmp_path, monkeypatch):
    """What a user of the Space does: ``evaluate.load("ORG/NAME")`` downloads the module and runs it."""
    import evaluate
    import evaluate.config

    push_metric("causal_graph_metrics", "org/causal_graph_metrics", api=api(local_hub))
    monkeypatch.setattr(
        evaluate.config, "HUB_EVALUATE_URL", local_hub.endpoint + "/spaces/{path}/resolve/{revision}/{name}"
    )
    monkeypatch.setattr(evaluate.config, "HF_EVALUATE_OFFLINE", False)
    monkeypatch.setattr(evaluate.config, "HF_EVALUATE_CACHE", tmp_path / "evaluate")
    monkeypatch.setattr(evaluate.config, "DOWNLOADED_EVALUATE_PATH", tmp_path / "evaluate" / "downloads")
    metric = evaluate.load("org/causal_graph_metrics")
    assert ("GET", "/spaces/org/causal_graph_metrics/resolve/main/causal_graph_metrics.py") in local_hub.requests
    result = metric.compute(predictions=[["A -> B", "C -> B"]], references=[["A -> B", "B -> C"]])
    assert result["shd"] == 1.0 and result["edge_f1"] == 0.5
