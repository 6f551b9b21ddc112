"""``export-runs``: eval runs as a results dataset (details, results, runs), its card, appends, push and load by
Hub id and revision from the local Hub server, ``report`` drawn from an export, secrets, bad input."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
from huggingface_hub import metadata_load

from causal_datasets.builder import BuildContext
from causal_datasets.cli import main
from causal_datasets.exports.card import parse_model_index
from causal_datasets.exports.folder import read_export
from causal_datasets.exports.reading import load_runs
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.hub.metadata_rules import metadata_problems
from causal_datasets.report.runs import load_run
from causal_datasets.runners.results import read_results
from tests.support.tiny_dataset import tiny_builder

NAME = "sw-results"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """Two ShapeWorld core runs (84 items each) and a third for appending, made by `eval` with reference agents."""
    root = tmp_path_factory.mktemp("runs")
    agents = {"oracle": ["oracle"], "random": ["random"], "random-seed-1": ["random", "--agent-seed", "1"]}
    for name, (agent, *more) in agents.items():
        argv = [
            "eval",
            "shapeworld",
            "--config",
            "core",
            "--agent",
            agent,
            *more,
            "--hub-dir",
            str(root / "hub"),
            "--out",
            str(root / name),
        ]
        assert main(argv) in (0, 3)
    return {name: root / name for name in agents}


def _export(hub: Path, *folders: Path, name: str = NAME) -> int:
    return main(["export-runs", *map(str, folders), f"--name={name}", "--hub-dir", str(hub)])


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _front_matter_and_body(card: str) -> tuple[str, str]:
    match = re.match(r"---\n(.*?)\n---\n(.*)", card, re.S)
    assert match, "the card has front matter"
    return match[1], match[2]


def _section(body: str, heading: str) -> str:
    return body.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_two_shapeworld_runs_give_168_details_and_a_result_row_per_run_and_number(runs, tmp_path, capsys):
    hub = tmp_path / "hub"
    assert _export(hub, runs["oracle"], runs["random"]) == 0
    printed = capsys.readouterr().out
    assert "| details | train | 168 |" in printed and f"{NAME} v1.0.0" in printed
    folder = hub / NAME

    details = datasets.load_dataset(str(folder), "details", split="train")
    results = datasets.load_dataset(str(folder), "results", split="train")
    exported = datasets.load_dataset(str(folder), "runs", split="train")
    assert details.num_rows == 168 and exported.num_rows == 2
    summaries = {name: load_run(runs[name]).summary for name in ("oracle", "random")}
    ids = {row["solver"].removeprefix("agent:"): row["run_id"] for row in exported}
    assert len(set(ids.values())) == 2 and all(re.fullmatch(r"[0-9a-f]{16}", i) for i in ids.values())

    assert results.num_rows == sum(len(s.intervals.metrics) for s in summaries.values()) == 8
    for row in results:
        interval = summaries[row["solver"].removeprefix("agent:")].intervals.metrics[row["metric"]]
        assert row["run_id"] == ids[row["solver"].removeprefix("agent:")]
        assert (row["estimate"], row["se"], row["ci_low"], row["ci_high"], row["n"], row["clusters"]) == (
            interval.estimate,
            interval.se,
            interval.ci_low,
            interval.ci_high,
            interval.n,
            interval.clusters,
        )
        assert row["method"] == interval.method and row["cluster_unit"] == "initial setup"
        assert row["dataset"] == "shapeworld" and row["configs"] == ["core"] and row["split"] == "test"
        assert row["dataset_source"] == "local build" and row["package_version"] == summaries["oracle"].package_version
        assert json.loads(row["options_json"])["variant"] == "basic"

    for name, summary in summaries.items():
        rows = [row for row in details if row["run_id"] == ids[name]]
        lines = read_results(runs[name])
        assert [row["item_id"] for row in rows] == [line["id"] for line in lines]  # the run's own order
        accuracy = [next(s["value"] for s in row["scores"] if s["name"] == "accuracy") for row in rows]
        assert sum(accuracy) / len(accuracy) == pytest.approx(summary.metrics.accuracy, abs=5e-5)
        for row, line in zip(rows, lines, strict=True):
            played = line["generation"]["transcript"]
            assert row["transcript"] == played and row["transcript_field"] == "generation.transcript"
            assert row["prompt"] == next(t["content"] for t in played if t["role"] == "user")
            assert row["reply"] == [t["content"] for t in played if t["role"] == "assistant"][-1]
            own = json.loads(row["fields_json"])
            assert own["scores"] == line["scores"] and "transcript" not in own["generation"]
            assert row["cluster"] == line["cluster"]
            assert {g["slice"]: g["entries"] for g in row["groups"]} == line["groups"]
            assert details.features["status"].int2str(row["status"]) == "scored" and row["calls"] == []


def test_the_card_has_the_leaderboard_and_model_index_blocks_huggingface_hub_reads(runs, tmp_path):
    hub = tmp_path / "hub"
    assert _export(hub, runs["random"], runs["oracle"]) == 0
    folder = hub / NAME
    front, body = _front_matter_and_body((folder / "README.md").read_text())
    card = metadata_load(folder / "README.md")
    assert card["license"] == "apache-2.0" and card["configs"][0]["config_name"] == "results"
    from huggingface_hub import DatasetCardData

    assert metadata_problems(DatasetCardData(**card)) == []

    board = _section(body, "Leaderboard")
    rows = [line for line in board.splitlines() if line.startswith("| ") and not line.startswith("| #")]
    assert [row.split(" | ")[1] for row in rows] == ["agent:oracle", "agent:random"]  # ranked by accuracy
    results = {(r.solver, r.metric): r for r in read_export(folder).results}
    random_accuracy = results[("agent:random", "accuracy")]
    assert f"{random_accuracy.estimate:.4f}".rstrip("0") in rows[1]
    assert f"[{random_accuracy.ci_low:.4f}".rstrip("0") in rows[1]

    blocks = re.findall(r"#### (\S+)\n\n```yaml\n(.*?)\n```", _section(body, "Model-index"), re.S)
    assert [name for name, _ in blocks] == ["agent:random", "agent:oracle"]
    for name, text in blocks:
        evals = parse_model_index(text)
        model_card = tmp_path / f"{name.replace(':', '-')}.md"
        model_card.write_text(f"---\n{text}\n---\n# a model\n")  # as a model card would carry it
        assert metadata_load(model_card)["model-index"][0]["name"] == name
        assert {e.metric_type for e in evals} == {"accuracy", "accuracy_true", "accuracy_false", "mean_steps"}
        for result in evals:
            row = results[(name, result.metric_type)]
            assert result.metric_value == round(row.estimate, 4) and result.metric_config == row.run_id
            assert (result.task_type, result.dataset_type, result.dataset_config, result.dataset_split) == (
                "question-answering",
                "shapeworld",
                "core",
                "test",
            )
    assert "| 1.0.0 | 2 run(s) added" in _section(body, "Version History")


def test_reexporting_gives_the_same_bytes_and_new_runs_append_as_a_new_version(runs, tmp_path, capsys):
    hub = tmp_path / "hub"
    assert _export(hub, runs["oracle"], runs["random"]) == 0
    first = _files(hub / NAME)
    first_rows = read_export(hub / NAME)
    assert _export(hub, runs["random"], runs["oracle"], runs["oracle"]) == 0
    assert _files(hub / NAME) == first
    assert "already in the export" in capsys.readouterr().out

    assert _export(hub, runs["random-seed-1"], runs["oracle"]) == 0
    grown = read_export(hub / NAME)
    assert grown.version == "1.1.0" and [run.added_in for run in grown.runs] == ["1.0.0", "1.0.0", "1.1.0"]
    assert grown.details[:168] == first_rows.details and len(grown.details) == 252
    assert grown.results[:8] == first_rows.results and grown.runs[:2] == first_rows.runs
    history = _section(_front_matter_and_body((hub / NAME / "README.md").read_text())[1], "Version History")
    assert history.index("| 1.1.0 | 1 run(s) added") < history.index("| 1.0.0 | 2 run(s) added")

    fresh = tmp_path / "fresh"  # the same three runs at once: one version, other bytes than the appended one
    assert _export(fresh, runs["oracle"], runs["random"], runs["random-seed-1"]) == 0
    assert read_export(fresh / NAME).version == "1.0.0"


def _report_text(out: Path) -> str:
    return (out / "report.md").read_text()


def _same_report(export_report: str, folder_report: str, ids: dict[str, str]) -> None:
    """The two reports agree but for the runs table's source columns and the run names (id or folder)."""
    for folder_name, run_id in ids.items():
        export_report = export_report.replace(run_id, folder_name)
    a, b = export_report.splitlines(), folder_report.splitlines()
    assert len(a) == len(b)
    differing = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    assert differing and all(x.startswith("| agent:") and "local build" in x for x, _ in differing)
    assert len(differing) == len(ids)  # one runs-table row per run, nothing else


def test_report_from_an_export_folder_is_the_report_of_its_run_folders(runs, tmp_path):
    hub = tmp_path / "hub"
    assert _export(hub, runs["oracle"], runs["random"]) == 0
    assert main(["report", str(hub / NAME), "--out", str(tmp_path / "from-export")]) == 0
    assert main(["report", str(runs["oracle"]), str(runs["random"]), "--out", str(tmp_path / "from-folders")]) == 0
    ids = {f"sw-{run.solver.removeprefix('agent:')}": run.run_id for run in read_export(hub / NAME).runs}
    renamed = {name.removeprefix("sw-"): run_id for name, run_id in ids.items()}
    _same_report(_report_text(tmp_path / "from-export"), _report_text(tmp_path / "from-folders"), renamed)
    pictures = sorted(p.name for p in (tmp_path / "from-export").glob("*.png"))
    assert pictures and pictures == sorted(p.name for p in (tmp_path / "from-folders").glob("*.png"))

    exported = load_runs(hub / NAME)
    for run in exported:
        folder_run = load_run(runs[run.summary.solver.removeprefix("agent:")])
        assert run.results == folder_run.results  # every result line comes back
        assert run.summary.intervals == folder_run.summary.intervals and run.summary.slices == folder_run.summary.slices


def test_pushed_export_loads_by_hub_id_and_revision_and_reports_from_the_hub(local_hub, runs, tmp_path, capsys):
    hub = tmp_path / "hub"
    assert _export(hub, runs["oracle"], runs["random"]) == 0
    assert main(["push", NAME, "--dataset", f"org/{NAME}", "--hub-dir", str(hub)]) == 0
    first = _files(hub / NAME)
    assert local_hub.files(f"org/{NAME}", revision="v1.0.0") == first

    for config in ("results", "details", "runs"):
        remote = datasets.load_dataset(f"org/{NAME}", config, split="train", revision="v1.0.0")
        local = datasets.load_dataset(str(hub / NAME), config, split="train")
        assert remote.features == local.features and remote.to_list() == local.to_list()
    assert datasets.load_dataset(f"org/{NAME}", "details", split="train", revision="v1.0.0").num_rows == 168

    assert _export(hub, runs["random-seed-1"]) == 0
    assert main(["push", NAME, "--dataset", f"org/{NAME}", "--hub-dir", str(hub)]) == 0
    assert set(local_hub.tags(f"org/{NAME}")) == {"v1.0.0", "v1.1.0"}
    assert datasets.load_dataset(f"org/{NAME}", "details", split="train", revision="v1.1.0").num_rows == 252
    assert datasets.load_dataset(f"org/{NAME}", "results", split="train", revision="v1.0.0").num_rows == 8

    capsys.readouterr()
    assert main(["report", f"hf://datasets/org/{NAME}@v1.0.0", "--out", str(tmp_path / "hub-report")]) == 0
    assert main(["report", str(runs["oracle"]), str(runs["random"]), "--out", str(tmp_path / "folders")]) == 0
    ids = {run.solver.removeprefix("agent:"): run.run_id for run in read_export(hub / NAME).runs[:2]}
    _same_report(_report_text(tmp_path / "hub-report"), _report_text(tmp_path / "folders"), ids)
    assert f"hf://datasets/org/{NAME}@v1.0.0 run" in _report_text(tmp_path / "hub-report")
    assert main(["report", f"hf://datasets/org/{NAME}@v9.9.9", "--out", str(tmp_path / "nope")]) == 2
    assert main(["report", "hf://datasets/just-a-name", "--out", str(tmp_path / "nope")]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error: ")]
    assert "v9.9.9" in errors[0] and "does not name a Hub dataset" in errors[1] and len(errors) == 2


# --- secrets -------------------------------------------------------------------------------------------


def test_no_secret_or_local_path_reaches_any_exported_byte(runs, tmp_path, monkeypatch):
    env_secret = "my-env-secret-value-123"
    monkeypatch.setenv("OPENAI_API_KEY", env_secret)
    run = tmp_path / "planted-run"
    hub = tmp_path / "export-root"
    shutil.copytree(runs["random"], run)
    home = str(Path.home())
    secrets = [
        "s3cret-pass",
        "alice",
        "querysecret",
        "plain-api-key-value",
        "hunter2",
        "sk-liveKEY1234567890abcdef",
        "tok-abc123456789",
        env_secret,
        "hf_abcdefghijklmnopqrstuvwxyz",
        str(run),
        str(hub),
        str(tmp_path),
        "/home/someone",
        f"{home}/private",
    ]

    summary = json.loads((run / "summary.json").read_text())
    summary["dataset"]["read_from"] = str(hub / "shapeworld")
    summary["options"] |= {
        "base_url": "https://alice:s3cret-pass@llm.example.com/v1?api_key=querysecret",
        "api_key": "plain-api-key-value",
        "notes": f"prompts in {run}/prompts.txt",
    }
    summary["items"] |= {"scored": summary["items"]["scored"] - 1, "failed": 1}  # the first item fails below
    (run / "summary.json").write_text(json.dumps(summary))
    lines = read_results(run)
    assert lines[0]["status"] == "scored" and summary["items"]["failed"] == 1
    lines[0] |= {
        "status": "failed",
        "failure": {
            "role": "model",
            "category": "llm_error",
            "detail": (
                f"401 from https://bob:hunter2@x.example/v1 for key sk-liveKEY1234567890abcdef; "
                f"see /home/someone/.config/app/token and {run}/results.jsonl and {home}/private/notes.txt"
            ),
        },
    }
    lines[1]["calls"] = [
        {
            "role": "model",
            "model": "m",
            "reply": f"the key is {env_secret} hf_abcdefghijklmnopqrstuvwxyz",
            "reasoning": f"read file://{hub}/x and {tmp_path}/y",
            "error": "Authorization: Bearer tok-abc123456789",
        }
    ]
    lines[2]["generation"]["transcript"][0]["content"] += f"\nsaved under {hub}"
    (run / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))

    assert _export(hub, run) == 0
    exported = _files(hub / NAME)
    texts = [data.decode("utf-8", "replace") for data in exported.values()]
    texts += [
        json.dumps(pq.read_table(hub / NAME / path).to_pylist(), ensure_ascii=False)
        for path in exported
        if path.endswith(".parquet")
    ]
    for secret in secrets:
        assert not any(secret in text for text in texts), secret
    details = read_export(hub / NAME).details
    assert details[0].status == "failed" and "<path>" in details[0].failure and "<redacted>" in details[0].failure
    assert details[0].failure.startswith("model llm_error: 401 from")  # the engine's words: role, category, detail
    (reread,) = load_runs(hub / NAME)
    assert (reread.results[0].failure.role, reread.results[0].failure.category) == ("model", "llm_error")
    assert details[1].calls[0].error == "Authorization: Bearer <redacted>"
    assert "saved under <path>" in details[2].transcript[0].content  # the text around a path is kept
    untouched = load_run(runs["random"]).results[3].generation.transcript  # nothing secret: nothing changes
    assert [turn.model_dump() for turn in details[3].transcript] == untouched
    quality = _section(_front_matter_and_body((hub / NAME / "README.md").read_text())[1], "Data Quality")
    assert f"{details[0].run_id}/{details[0].item_id}" in quality  # the failed item is named
    options = json.loads(read_export(hub / NAME).results[0].options_json)
    assert options["base_url"] == "https://llm.example.com/v1" and options["api_key"] == "<redacted>"


# --- bad input -------------------------------------------------------------------------------------------


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_a_folder_that_is_no_run_and_an_unreadable_summary_write_nothing(runs, tmp_path, capsys):
    hub = tmp_path / "hub"
    empty = tmp_path / "not-a-run"
    empty.mkdir()
    assert _export(hub, runs["oracle"], empty) == 2
    assert "has no summary.json" in _one_error_line(capsys)
    old = tmp_path / "old-run"
    old.mkdir()
    (old / "summary.json").write_text(json.dumps({"run": {"package_version": "0.1.3"}, "metrics": {}}))
    assert _export(hub, old) == 2
    assert "old untyped layout written by causal-datasets 0.1.3" in _one_error_line(capsys)
    newer = tmp_path / "newer-run"
    shutil.copytree(runs["oracle"], newer)
    summary = json.loads((newer / "summary.json").read_text())
    (newer / "summary.json").write_text(json.dumps(summary | {"format": 99}))
    assert _export(hub, newer) == 2
    assert "summary format 99, written by a newer causal-datasets" in _one_error_line(capsys)
    broken = tmp_path / "broken-lines"
    shutil.copytree(runs["oracle"], broken)
    (broken / "results.jsonl").write_text(json.dumps({"id": "x", "status": "scored"}) + "\n")
    assert _export(hub, broken) == 2
    assert "item #1 (id='x'): field 'config'" in _one_error_line(capsys)
    assert not hub.exists()


@pytest.mark.parametrize("name", ["bad name", "org/sw", "-sw", "a..b", "x" * 97, "sw.git"])
def test_a_name_the_hub_refuses_is_one_error_line(runs, tmp_path, capsys, name):
    assert _export(tmp_path / "hub", runs["oracle"], name=name) == 2
    assert "is not a valid dataset name" in _one_error_line(capsys)
    assert not (tmp_path / "hub").exists()


def test_an_existing_folder_that_is_not_an_export_is_left_as_it_is(runs, tmp_path, capsys):
    hub = tmp_path / "hub"
    (hub / "notes").mkdir(parents=True)
    (hub / "notes" / "mine.txt").write_text("keep me")
    assert _export(hub, runs["oracle"], name="notes") == 2
    assert "is not a results export (no manifest.json)" in _one_error_line(capsys)
    assert _files(hub / "notes") == {"mine.txt": b"keep me"}

    build_to_folder(tiny_builder(tmp_path), hub, BuildContext(seed=7))
    before = _files(hub / "tiny")
    assert _export(hub, runs["oracle"], name="tiny") == 2
    assert "holds a build of 'tiny', not a results export" in _one_error_line(capsys)
    assert _files(hub / "tiny") == before

    assert _export(hub, runs["oracle"]) == 0
    (hub / NAME / "data" / "extra.csv").write_text("a,b\n")
    before = _files(hub / NAME)
    assert _export(hub, runs["random"]) == 2
    assert "1 file(s) no build wrote" in _one_error_line(capsys) and _files(hub / NAME) == before
    (hub / NAME / "data" / "extra.csv").unlink()
    parquet = hub / NAME / "data" / "runs" / "train-00000-of-00001.parquet"
    parquet.write_bytes(parquet.read_bytes()[:-10])
    assert _export(hub, runs["random"]) == 2
    assert "does not match its manifest sha256" in _one_error_line(capsys)
    manifest = json.loads((hub / NAME / "manifest.json").read_text())
    manifest["options"]["format"] = 2
    (hub / NAME / "manifest.json").write_text(json.dumps(manifest))
    assert _export(hub, runs["random"]) == 2
    assert "an export of format 2" in _one_error_line(capsys)


def test_a_run_without_items_is_refused(runs, tmp_path, capsys):
    empty_run = tmp_path / "empty-run"
    shutil.copytree(runs["oracle"], empty_run)
    (empty_run / "results.jsonl").write_text("")
    assert _export(tmp_path / "hub", empty_run) == 2  # its summary counts 84 items
    assert "holds 0 scored and 0 failed items, its summary.json counts 84 and 0" in _one_error_line(capsys)
    summary = json.loads((empty_run / "summary.json").read_text())
    summary["items"] |= {"scored": 0, "failed": 0}
    (empty_run / "summary.json").write_text(json.dumps(summary))
    assert _export(tmp_path / "hub", empty_run) == 2
    assert "hold no item results" in _one_error_line(capsys)
    assert not (tmp_path / "hub" / NAME).exists()


def test_run_ids_do_not_depend_on_where_the_run_folder_lies(runs, tmp_path):
    moved = tmp_path / "elsewhere" / "copy"
    shutil.copytree(runs["oracle"], moved)
    assert _export(tmp_path / "a", runs["oracle"]) == 0 and _export(tmp_path / "b", moved) == 0
    assert _files(tmp_path / "a" / NAME) == _files(tmp_path / "b" / NAME)


def test_a_summary_without_intervals_is_kept_in_runs_and_named_in_the_card(runs, tmp_path, capsys):
    old = tmp_path / "format-2"
    shutil.copytree(runs["random"], old)
    summary = json.loads((old / "summary.json").read_text())
    (old / "summary.json").write_text(json.dumps(summary | {"format": 2, "intervals": None}))
    assert _export(tmp_path / "alone", old) == 2
    assert "no run given has headline numbers with intervals" in _one_error_line(capsys)

    hub = tmp_path / "hub"
    assert _export(hub, runs["oracle"], old) == 0
    exported = read_export(hub / NAME)
    old_id = exported.runs[1].run_id
    assert len(exported.runs) == 2 and len(exported.details) == 168
    assert {row.run_id for row in exported.results} == {exported.runs[0].run_id}
    quality = _section(_front_matter_and_body((hub / NAME / "README.md").read_text())[1], "Data Quality")
    assert "summary format 2" in quality and old_id in quality
    (reloaded,) = [run for run in load_runs(hub / NAME) if run.summary.intervals is None]
    assert reloaded.format == 2 and len(reloaded.results) == 84
