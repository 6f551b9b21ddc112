"""The collection order CI's two xdist workers take files in (tests/conftest.py): the long files first."""

from pathlib import Path
from types import SimpleNamespace

from tests.conftest import LONG_FILES, pytest_collection_modifyitems

ROOT = Path(__file__).resolve().parents[1]


def test_every_long_file_exists_once():
    assert len(set(LONG_FILES)) == len(LONG_FILES)
    assert [path for path in LONG_FILES if not (ROOT / path).is_file()] == []


def test_long_files_come_first_then_by_number_of_tests_and_each_file_keeps_its_order():
    ids = [
        "tests/a.py::one",
        "tests/b.py::one",
        "tests/b.py::two",
        f"{LONG_FILES[1]}::one",
        f"{LONG_FILES[0]}::first",
        f"{LONG_FILES[0]}::second",
        "tests/c.py::Class::one",
        "tests/c.py::Class::two",
        "tests/c.py::three",
    ]
    items = [SimpleNamespace(nodeid=nodeid) for nodeid in ids]
    pytest_collection_modifyitems(items)
    assert [item.nodeid for item in items] == [
        f"{LONG_FILES[0]}::first",
        f"{LONG_FILES[0]}::second",
        f"{LONG_FILES[1]}::one",
        "tests/c.py::Class::one",
        "tests/c.py::Class::two",
        "tests/c.py::three",
        "tests/b.py::one",
        "tests/b.py::two",
        "tests/a.py::one",
    ]
