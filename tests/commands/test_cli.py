import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import replace

import datasets
import pytest

import causal_datasets
from causal_datasets import registry
from causal_datasets.cli import main
from tests.support.data import SHARED_DATA_DIR
from tests.support.tiny_dataset import TinyRow, tiny_builder


@pytest.fixture
def tiny_registry(tmp_path, monkeypatch):
    tiny = tiny_builder(tmp_path)

    def needs_file(context):
        context.require_source("download it from the hub and pass --source")

    sourced = replace(tiny, name="sourced", needs_source=True, source_name="sourced/file.json")
    failing = replace(tiny, name="failing", build=needs_file)
    known = {"tiny": tiny, "sourced": sourced, "failing": failing}
    monkeypatch.setattr(registry, "builders", lambda directory=None: known)
    return known


def test_build_one_dataset_loads_it_back(tiny_registry, tmp_path, capsys):
    assert main(["build", "tiny", "--hub-dir", str(tmp_path / "hub"), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "| tiny | 1.2.3 | default | train | 8 |" in out
    assert "note: tiny: tiny note" in out
    loaded = datasets.load_dataset(str(tmp_path / "hub" / "tiny"), "default", split="test")
    assert loaded.features == TinyRow.features()


def test_build_all_skips_what_lacks_a_source_and_says_why(tiny_registry, tmp_path, capsys):
    assert main(["build", "--all", "--hub-dir", str(tmp_path / "hub")]) == 0
    out = capsys.readouterr().out
    assert "| tiny |" in out
    assert "skipped sourced: needs a source file" in out
    assert "skipped failing: no source given; download it from the hub" in out
    assert not (tmp_path / "hub" / "sourced").exists()


def test_build_all_finds_sources_under_the_sources_folder(tiny_registry, tmp_path, capsys):
    (tmp_path / "sources" / "sourced").mkdir(parents=True)
    (tmp_path / "sources" / "sourced" / "file.json").write_text("{}")
    assert main(["build", "--all", "--hub-dir", str(tmp_path / "hub"), "--sources", str(tmp_path / "sources")]) == 0
    assert "| sourced |" in capsys.readouterr().out


def test_a_current_build_is_kept_and_said_so_and_force_or_any_change_rebuilds(tiny_registry, tmp_path, capsys):
    """``build --all`` keeps a dataset whose folder already holds the build asked for (same version, seed,
    options and source contents); a changed source, another seed, a changed file or ``--force`` rebuilds."""
    built = []
    for name, builder in tiny_registry.items():
        counted = lambda context, b=builder: built.append(b.name) or b.build(context)  # noqa: E731
        tiny_registry[name] = replace(builder, build=counted)
    source = tmp_path / "sources" / "sourced" / "file.json"
    source.parent.mkdir(parents=True)
    source.write_text("{}")
    hub = tmp_path / "hub"
    build_all = ["build", "--all", "--hub-dir", str(hub), "--sources", str(tmp_path / "sources")]

    def run(*extra):
        built.clear()
        assert main([*build_all, *extra]) == 0
        return capsys.readouterr().out

    def kept(out):
        return [line.split(":")[0] for line in out.splitlines() if line.startswith("kept ")]

    first = run()
    assert sorted(built) == ["failing", "sourced", "tiny"] and "| tiny |" in first and not kept(first)
    manifest = (hub / "tiny" / "manifest.json").read_bytes()
    again = run()
    assert sorted(built) == ["failing"]  # failing has nothing built to keep: it is tried again
    assert f"kept tiny: {hub / 'tiny'} is already this build (version 1.2.3, seed 7," in again
    assert "kept sourced:" in again and "--force rebuilds it" in again and "| tiny |" not in again
    assert (hub / "tiny" / "manifest.json").read_bytes() == manifest

    source.write_text('{"changed": true}')
    assert kept(run()) == ["kept tiny"] and sorted(built) == ["failing", "sourced"]  # its source changed
    assert not kept(run("--seed", "3")) and "tiny" in built  # another seed
    assert main(["build", "tiny", "--hub-dir", str(hub), "--seed", "3"]) == 0 and "kept tiny" in capsys.readouterr().out
    (hub / "tiny" / "README.md").write_text("edited by hand")
    built.clear()
    assert main(["build", "tiny", "--hub-dir", str(hub), "--seed", "3"]) == 0 and built == ["tiny"]  # not the build
    capsys.readouterr()
    forced = run("--force", "--seed", "3")
    assert not kept(forced) and sorted(built) == ["failing", "sourced", "tiny"]


def test_single_build_without_its_source_is_an_error(tiny_registry, tmp_path, capsys):
    assert main(["build", "failing", "--hub-dir", str(tmp_path)]) == 2
    assert "error: no source given" in capsys.readouterr().err


def test_unknown_dataset_lists_the_known_ones(tiny_registry, capsys):
    assert main(["build", "nope"]) == 2
    assert "unknown dataset 'nope'; known: tiny, sourced, failing" in capsys.readouterr().err


def test_info_before_and_after_a_build(tiny_registry, tmp_path, capsys):
    assert main(["info", "--hub-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| tiny | 1.2.3 | default | none | no |" in out
    assert "| sourced | 1.2.3 | default | every config | no |" in out
    main(["build", "tiny", "--hub-dir", str(tmp_path)])
    capsys.readouterr()
    assert main(["info", "tiny", "--hub-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "version 1.2.3, seed 7" in out and "| default | nothing: generated | test 4, train 8 |" in out
    assert main(["info", "sourced", "--hub-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| default | the released files | not built |" in out
    assert (
        "released files: pass --source PATH, the released files, or set $CAUSAL_DATASETS_SOURCES to a folder "
        "holding sourced/file.json" in out
    )


def test_push_of_an_unbuilt_dataset_is_a_clear_error(tmp_path, capsys):
    assert main(["push", "tiny", "--dataset", "org/tiny", "--hub-dir", str(tmp_path)]) == 2
    assert "not a built dataset folder" in capsys.readouterr().err
    assert main(["push", "tiny", "--repo-id", "org/tiny", "--hub-dir", str(tmp_path)]) == 2  # the old name of --dataset
    assert capsys.readouterr().err.startswith("warning: --repo-id is deprecated; use --dataset\nerror: ")
    assert main(["push", "tiny", "--hub-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "error: give the Hub dataset to push to: --dataset ORG/NAME\n"


def test_console_script_builds_and_describes_the_real_registry(tmp_path):
    """The installed entry point end to end: every dataset that needs no source builds and loads back."""
    build = subprocess.run(
        [sys.executable, "-m", "causal_datasets.cli", "build", "--all", "--hub-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    built = {name for name, b in registry.builders().items() if (tmp_path / name / "manifest.json").exists()}
    assert "shapeworld" in built
    for name in built:
        assert f"| {name} |" in build.stdout
    for name, builder in registry.builders().items():
        if builder.needs_source:
            assert f"skipped {name}:" in build.stdout
    info = subprocess.run(
        [sys.executable, "-m", "causal_datasets.cli", "info", "shapeworld", "--hub-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "| core | nothing: generated | test 84 |" in info.stdout


def test_the_console_script_sets_the_collector_for_batch_work_and_main_alone_does_not(tmp_path, monkeypatch):
    import gc

    from causal_datasets import cli

    calls = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    monkeypatch.setattr(gc, "set_threshold", lambda *thresholds: calls.append(thresholds))
    monkeypatch.setattr(sys, "argv", ["causal-datasets", "info", "tiny", "--hub-dir", str(tmp_path)])
    assert main(["info", "shapeworld", "--hub-dir", str(tmp_path)]) == 0 and calls == []
    assert cli.entry_point() == 2  # info of an unknown dataset: the usual exit code
    assert calls[0] == "freeze" and calls[1][0] == cli.GC_THRESHOLD


def test_a_source_that_does_not_exist_is_an_error_not_a_smaller_build(tmp_path, capsys):
    missing = tmp_path / "no-such-release"
    assert main(["build", "causalab", "--source", str(missing), "--hub-dir", str(tmp_path / "hub")]) == 2
    assert capsys.readouterr().err == f"error: --source {missing} does not exist\n"
    assert main(["build", "--all", "--sources", str(missing), "--hub-dir", str(tmp_path / "hub")]) == 2
    assert capsys.readouterr().err == f"error: --sources {missing} is not a folder\n"
    assert not (tmp_path / "hub").exists()


def test_a_source_folder_without_the_files_the_builder_reads_is_named(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["build", "causalab", "--source", str(empty), "--hub-dir", str(tmp_path / "hub")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: source {empty} lacks 3nodes.jsonl, 4nodes.jsonl") and err.count("\n") == 1
    assert main(["build", "cladder_pairs", "--source", str(empty), "--hub-dir", str(tmp_path / "hub")]) == 2
    assert "lacks test-model-meta.json, test-generate-easy.json" in capsys.readouterr().err


def test_an_option_a_command_does_not_take_is_refused_under_its_own_usage(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["eval", "causalab", "--agent", "random", "--judge-model", "j", "--out", "unused"])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and err.startswith("usage: causal-datasets eval causalab ")
    assert err.splitlines()[-1] == "causal-datasets eval causalab: error: unrecognized arguments: --judge-model j"


def test_help_texts_have_no_rest_markup():
    from causal_datasets.cli import build_parser

    def parsers(parser):
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child in action.choices.values():
                    yield from parsers(child)

    for parser in parsers(build_parser()):
        text = parser.format_help()
        assert "``" not in text and not re.search(r":(class|func|mod|data|meth):`", text), parser.prog


def test_build_notes_are_one_short_line_per_finding_and_none_that_counts_zero(tmp_path, capsys):
    hub = tmp_path / "hub"
    assert (
        main(
            [
                "build",
                "cladder_pairs",
                "--rows",
                "10",
                "--source",
                str(SHARED_DATA_DIR / "cladder"),
                "--hub-dir",
                str(hub),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out.splitlines()
    card = (hub / "cladder_pairs" / "README.md").read_text()
    notes = [line for line in printed if line.startswith(("note:", "  "))]
    assert notes[0] == (
        f"note: cladder_pairs: 8 data-quality findings, each with its ids and what the build did "
        f"under Data Quality in {hub / 'cladder_pairs' / 'README.md'}:"
    )
    assert "  questions: a minus sign written as U+2212 (`−`): 103 rows" in notes
    assert all(len(line) < 160 and not line.endswith(": 0 rows") for line in notes[1:])
    # a long id list is in the manifest's notes, which the card links to
    assert "103 ids, in [manifest.json](manifest.json) (`notes`)" in card
    manifest = json.loads((hub / "cladder_pairs" / "manifest.json").read_text())
    assert any("test-generate-easy.json-5, test-generate-easy.json-6" in note for note in manifest["notes"])
    assert "| `synthetic` | repeats an earlier pair" in card  # and so is the check that found nothing


@pytest.mark.parametrize(
    "argv",
    [["equiv", "P(Y | do(X))", "P(Y | X)", "--graph", "X->Y"], ["identify", "P(Y | do(X))", "--graph", "X->Y"]],
)
def test_the_verifier_commands_start_without_the_heavy_libraries(argv):
    """``equiv``'s and ``identify``'s start-up (issues #30, #40) loads the verifier only: not datasets,
    pandas, pyarrow or networkx, which `import causal_datasets` must not pull in either, nor the graph
    comparison of the package root or ``importlib.metadata`` (only ``__version__`` reads it)."""
    heavy = ["datasets", "networkx", "pandas", "pyarrow", "causal_datasets.scoring", "importlib.metadata"]
    script = (
        f"import sys; from causal_datasets.cli import main; main({argv!r}); "
        f"print(sorted(set({heavy!r}) & set(sys.modules)))"
    )
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert shown.splitlines()[-1] == "[]"


def test_the_version_is_read_when_asked(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"causal-datasets {causal_datasets.__version__}\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["equiv", "P(Y | do(X))", "P(Y | X)", "--graph", "X->Y", "--json"],
        ["identify", "P(Y | do(X))", "--graph", "X->Y", "--json", "--proof"],
    ],
)
def test_a_reader_that_stops_early_ends_the_command_quietly(argv):
    """``--json | head``: the reader is gone before anything is written (its end closed at once): no
    traceback, exit code 141 (128 + SIGPIPE)."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "causal_datasets.cli", *argv], stdout=write, stderr=subprocess.PIPE, text=True
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, "")
