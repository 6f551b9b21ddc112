"""``eval shapeworld --entities-file``: a user's theme played, recorded and rescored without the file; bad files
refused in one line (exit 2); the reader fuzzed."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causal_datasets.builder import BuildContext
from causal_datasets.cli import main
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.registry import get_builder
from causal_datasets.runners.results import read_summary
from causal_datasets.shapeworld.parsing import normal_text
from causal_datasets.shapeworld.theme_file import EntitiesFileError, ThemeSpec, parse_theme, read_theme_file
from tests.support.runs import item_fields

FRUITS = {
    "name": "fruits",
    "noun": "fruit",
    "plural": "fruits",
    "entities": ["apple", "pear", "plum", "fig", "kiwi", "lime", "date", "grape"],
}


@pytest.fixture(scope="module")
def dataset_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    build_to_folder(get_builder("shapeworld"), out, BuildContext(seed=0))
    return out


def run(dataset_dir, out, *flags) -> int:
    return main(
        ["eval", "shapeworld", "--agent", "oracle", "--limit", "6", "--hub-dir", str(dataset_dir)]
        + [
            "--out",
            str(out),
            *flags,
        ]
    )


def test_a_theme_file_is_played_recorded_and_rescored_without_it(dataset_dir, tmp_path):
    theme = tmp_path / "fruits.json"
    theme.write_text(json.dumps(FRUITS))
    assert run(dataset_dir, tmp_path / "a", "--entities-file", str(theme)) == 0
    assert run(dataset_dir, tmp_path / "b", "--entities-file", str(theme)) == 0
    first, again = item_fields(tmp_path / "a"), item_fields(tmp_path / "b")
    assert {i["id"]: i["transcript"] for i in first} == {i["id"]: i["transcript"] for i in again}  # deterministic
    opening = "\n".join(m["content"] for m in first[0]["transcript"])
    assert "world of fruits" in opening and '{"fruit": "", "action": ""}' in opening and "circle" not in opening
    assert all(i["theme"] == "fruits" and i["theme_file"] == FRUITS for i in first)
    assert all(i["correct"] for i in first)  # the oracle plays the renamed world right
    assert {a["shape"] for i in first for a in i["actions"]} <= set(FRUITS["entities"])
    assert read_summary(tmp_path / "a")["options"]["entities_file"] == FRUITS  # the theme itself, not the path
    theme.unlink()  # neither scoring again nor resuming reads the file
    assert main(["rescore", str(tmp_path / "a"), "--out", str(tmp_path / "re")]) == 0
    assert {i["id"]: i["correct"] for i in item_fields(tmp_path / "re")} == {i["id"]: i["correct"] for i in first}
    assert run(dataset_dir, tmp_path / "a", "--resume") == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "is not valid JSON"),
        ("[]", "Input should be a valid dictionary"),
        (json.dumps(FRUITS | {"entities": FRUITS["entities"][:7]}), "entities: Tuple should have at least 8 items"),
        (json.dumps(FRUITS | {"entities": ["apple"] * 8}), "repeat a name"),
        (json.dumps(FRUITS | {"entities": ["Apple", *FRUITS["entities"][1:]]}), "lower case"),
        (json.dumps(FRUITS | {"entities": ['a"b', *FRUITS["entities"][1:]]}), "letters, digits"),
        (json.dumps(FRUITS | {"name": "animals"}), "built-in theme"),
        (json.dumps(FRUITS | {"noun": "action"}), "other key of an action"),
        (json.dumps(FRUITS | {"colour": "red"}), "colour: Extra inputs are not permitted"),
    ],
)
def test_a_bad_file_stops_the_run_in_one_line(dataset_dir, tmp_path, capsys, content, message):
    theme = tmp_path / "theme.json"
    theme.write_text(content)
    assert run(dataset_dir, tmp_path / "run", "--entities-file", str(theme)) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --entities-file") and message in err and "\n" not in err
    assert not (tmp_path / "run").exists()


def test_a_missing_file_is_named(dataset_dir, tmp_path, capsys):
    assert run(dataset_dir, tmp_path / "run", "--entities-file", str(tmp_path / "nope.json")) == 2
    assert "nope.json is not a file" in capsys.readouterr().err


WORDS = st.text(alphabet=st.sampled_from("abcXYZ é'_-\"{} .\n0"), max_size=12)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | WORDS,
    lambda inner: st.lists(inner, max_size=9) | st.dictionaries(WORDS, inner, max_size=5),
    max_leaves=30,
)
THEMES = st.fixed_dictionaries(
    {"name": WORDS, "noun": WORDS, "plural": WORDS, "entities": st.lists(WORDS, min_size=7, max_size=9)}
)


@settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(st.one_of(JSON_VALUES, THEMES))
def test_the_reader_gives_a_theme_or_one_line_error(value):
    try:
        spec = parse_theme(value, "f.json")
    except EntitiesFileError as error:
        assert str(error).startswith("f.json: ") and "\n" not in str(error)
        return
    theme = spec.theme()  # a valid spec is a playable theme: eight distinct names as replies read back
    assert len(set(theme.entities)) == 8 and ThemeSpec.of(theme) == spec
    assert all(normal_text(word) == word for word in (*theme.entities, theme.noun, theme.plural))


@settings(max_examples=100, deadline=2000, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(st.binary(max_size=300))
def test_any_file_bytes_give_a_theme_or_the_error(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "theme.json"
    path.write_bytes(data)
    try:
        read_theme_file(path)
    except EntitiesFileError as error:
        assert str(path) in str(error)
