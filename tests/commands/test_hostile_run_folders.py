"""A torn, corrupted, foreign or hostile run folder given to ``rescore``, ``compare``, ``export-runs`` or ``report``:
exit 2 with one line naming what is wrong, nothing written, never a traceback; and what a run folder says never
chooses where anything is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causal_datasets.cli import main
from causal_datasets.errors import UnreadableFile
from causal_datasets.files import MAX_DEPTH, parse_json, read_json_lines

ITEMS = 12


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    """Two ShapeWorld runs of 12 items (and one of 8), with the dataset they read."""
    root = tmp_path_factory.mktemp("runs")
    for name, agent, limit in (("oracle", "oracle", ITEMS), ("random", "random", ITEMS), ("short", "oracle", 8)):
        argv = ["eval", "shapeworld", "--config", "core", "--agent", agent, "--limit", str(limit)]
        assert main([*argv, "--hub-dir", str(root / "hub"), "--out", str(root / name)]) in (0, 3)
    return {"hub": root / "hub", **{name: root / name for name in ("oracle", "random", "short")}}


def _copy(made: dict[str, Path], tmp_path: Path, name: str = "oracle") -> Path:
    folder = tmp_path / f"copy-of-{name}"
    shutil.copytree(made[name], folder)
    return folder


def _commands(run: Path, made: dict[str, Path], tmp_path: Path) -> dict[str, list[str]]:
    hub = ["--hub-dir", str(made["hub"])]
    return {
        "rescore": ["rescore", str(run), "--out", str(tmp_path / "rescored"), *hub],
        "compare": ["compare", str(run), str(made["oracle"])],
        "export-runs": ["export-runs", str(run), "--name", "hostile", "--hub-dir", str(tmp_path / "exports")],
        "report": ["report", str(run), "--out", str(tmp_path / "report")],
    }


def _refused(argv: list[str], capsys, *fragments: str) -> str:
    """``argv`` exits 2 with one line on stderr holding every fragment."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    for fragment in fragments:
        assert fragment in err, err
    return err


def _set_line(run: Path, number: int, data: bytes) -> None:
    lines = (run / "results.jsonl").read_bytes().split(b"\n")
    lines[number - 1] = data
    (run / "results.jsonl").write_bytes(b"\n".join(lines))


HOSTILE_LINES = {
    "deep": (b"[" * 100_000, f"nested over {MAX_DEPTH} deep"),
    "not-utf8": (b'{"id": "\xff"}', "not UTF-8 text: byte 0xff"),
    "torn": (b'{"id": "core-3", "sta', "not valid JSON"),
    "not-an-object": (b"[1, 2]", "not a JSON object with 'id'"),
}


@pytest.mark.parametrize("command", ["rescore", "compare", "export-runs", "report"])
@pytest.mark.parametrize("case", sorted(HOSTILE_LINES))
def test_a_hostile_middle_results_line_is_one_error_naming_it(made, tmp_path, capsys, command, case):
    run = _copy(made, tmp_path)
    data, reason = HOSTILE_LINES[case]
    _set_line(run, 6, data)
    argv = _commands(run, made, tmp_path)[command]
    _refused(argv, capsys, f"{run / 'results.jsonl'} line 6", reason)
    assert not (tmp_path / "rescored").exists() and not (tmp_path / "exports" / "hostile").exists()


HOSTILE_SUMMARIES = {
    "deep": (b"[" * 100_000, f"summary.json is not valid JSON: nested over {MAX_DEPTH} deep"),
    "not-utf8": (b'{"format": 4, "benchmark": "\xff"}', "summary.json is not UTF-8 text: byte 0xff at offset 28"),
    "not-json": (b'{"format": 4,', "summary.json is not valid JSON"),
}


@pytest.mark.parametrize("command", ["rescore", "compare", "export-runs", "report"])
@pytest.mark.parametrize("case", sorted(HOSTILE_SUMMARIES))
def test_a_hostile_summary_is_one_error_naming_it(made, tmp_path, capsys, command, case):
    run = _copy(made, tmp_path)
    data, reason = HOSTILE_SUMMARIES[case]
    (run / "summary.json").write_bytes(data)
    _refused(_commands(run, made, tmp_path)[command], capsys, reason)


def test_a_run_that_lost_a_line_is_not_exported_as_complete(made, tmp_path, capsys):
    """The summary says 12 scored; results.jsonl holds 11 (a line dropped): refused, not a complete row over 11."""
    run = _copy(made, tmp_path)
    lines = (run / "results.jsonl").read_text().splitlines()
    (run / "results.jsonl").write_text("\n".join(lines[:5] + lines[6:]) + "\n")
    for command in ("export-runs", "compare", "rescore"):
        _refused(
            _commands(run, made, tmp_path)[command],
            capsys,
            f"holds {ITEMS - 1} scored and 0 failed items, its summary.json counts {ITEMS} and 0",
        )


def test_a_run_holding_another_runs_results_is_refused(made, tmp_path, capsys):
    run = _copy(made, tmp_path)
    shutil.copy(made["short"] / "results.jsonl", run / "results.jsonl")
    for command in ("export-runs", "compare", "rescore"):
        _refused(_commands(run, made, tmp_path)[command], capsys, "the two files are not of one run")


def test_results_of_a_config_the_run_did_not_ask_for_are_refused(made, tmp_path, capsys):
    run = _copy(made, tmp_path)
    lines = [json.loads(text) for text in (run / "results.jsonl").read_text().splitlines()]
    lines[0]["config"] = "counterfactual"
    (run / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    _refused(_commands(run, made, tmp_path)["export-runs"], capsys, "of config 'counterfactual', which the run")


def test_a_summary_never_chooses_where_rescore_builds(made, tmp_path, capsys):
    run = _copy(made, tmp_path)
    summary = json.loads((run / "summary.json").read_text())
    steered = tmp_path / "elsewhere" / "shapeworld"
    summary["dataset"]["read_from"] = str(steered)
    (run / "summary.json").write_text(json.dumps(summary))
    _refused(["rescore", str(run), "--out", str(tmp_path / "new")], capsys, f"from {steered}, which holds no build")
    assert not (tmp_path / "elsewhere").exists() and not (tmp_path / "new").exists()
    summary["dataset"]["read_from"] = str(made["hub"] / "not-shapeworld")  # a folder named otherwise: not read
    (run / "summary.json").write_text(json.dumps(summary))
    _refused(["rescore", str(run), "--out", str(tmp_path / "new")], capsys, "which holds no build")
    # the command line names the folder: built or read there
    assert main(["rescore", str(run), "--out", str(tmp_path / "new"), "--hub-dir", str(made["hub"])]) == 0


def test_rescore_into_a_file_or_a_run_is_one_line_without_resume(made, tmp_path, capsys):
    run = _copy(made, tmp_path)
    _refused(["rescore", str(run), "--out", str(run / "summary.json")], capsys, "is a file, not a run folder")
    err = _refused(["rescore", str(run), "--out", str(made["random"])], capsys, "choose another --out")
    assert "--resume" not in err


def test_rescore_of_a_run_with_a_failed_item_points_at_eval_not_at_its_own_resume(made, tmp_path, capsys):
    run = _copy(made, tmp_path)
    lines = [json.loads(text) for text in (run / "results.jsonl").read_text().splitlines()]
    lines[0] |= {"status": "failed", "failure": {"role": "model", "category": "timeout", "detail": "planted"}}
    (run / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    summary = json.loads((run / "summary.json").read_text())
    summary["items"] |= {"scored": ITEMS - 1, "failed": 1}
    (run / "summary.json").write_text(json.dumps(summary))
    assert main(["rescore", str(run), "--out", str(tmp_path / "new"), "--hub-dir", str(made["hub"])]) == 3
    status = capsys.readouterr().err.strip().splitlines()[-1]
    assert status.endswith(f"`causal-datasets eval ... --resume` into {run} runs them, then rescore it"), status
    assert "; --resume runs them again" not in status


# --- the reader itself ----------------------------------------------------------------------------------------


def test_the_reader_keeps_torn_lines_apart_and_a_strict_reader_names_the_first(tmp_path):
    path = tmp_path / "lines.jsonl"
    path.write_bytes(b'{"id": "a"}\n\xff\n{"id": "b"}\n[[[\n{"id": "c", "x": ')
    found = read_json_lines(path)
    assert [value["id"] for value in found.values] == ["a", "b"]
    assert [(u.number, u.reason.split(":")[0]) for u in found.unreadable] == [
        (2, "the line is not UTF-8 text"),
        (4, "the line is not valid JSON"),
        (5, "torn (a write that did not finish)"),
    ]
    with pytest.raises(UnreadableFile, match=r"lines.jsonl line 2: the line is not UTF-8 .* \(3 unreadable lines"):
        found.check()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300) | st.text(alphabet='[]{}":,0123456789abc \\\n\xff', max_size=300).map(str.encode))
def test_the_reader_never_raises_anything_but_its_error(data):
    try:
        value = parse_json(data, "fuzz")
    except UnreadableFile as error:
        assert str(error).startswith("fuzz ") and "\n" not in str(error)
    else:
        assert value == json.loads(data.decode("utf-8"))


@pytest.mark.parametrize("data", [b"[" * 100_000, b'{"name": "\xff"}', b"[1]"], ids=["deep", "not-utf8", "not-a-map"])
def test_a_hostile_export_manifest_is_one_error_for_export_runs_and_report(made, tmp_path, capsys, data):
    exports = tmp_path / "exports"
    assert main(["export-runs", str(made["oracle"]), "--name", "hostile", "--hub-dir", str(exports)]) == 0
    capsys.readouterr()
    (exports / "hostile" / "manifest.json").write_bytes(data)
    _refused(["export-runs", str(made["random"]), "--name", "hostile", "--hub-dir", str(exports)], capsys, "manifest")
    _refused(["report", str(exports / "hostile"), "--out", str(tmp_path / "report")], capsys, "manifest")
