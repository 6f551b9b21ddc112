"""Shared fixtures.

``local_llm``: the bundled SmolLM2-135M-Instruct behind the package's llama.cpp server
(:mod:`causal_datasets.llm.local_server`) on 127.0.0.1, started once per test session (each pytest-xdist
worker is its own session and gets its own free port) and stopped at the end. It exposes ``.base_url``,
``.model`` and ``.client(cache_path=None, **config_overrides)`` (an ``LLMClient``: temperature 0, 128 max
tokens unless overridden). The server reports one slot, so every client of it sends one request at a
time and waits up to 600 s for a reply (``SINGLE_SLOT_TIMEOUT``): on a loaded machine the model is slow,
never cut off. A proxy in front of it (``StubServer(forward_to(url), slots=1)``) keeps that. Mark tests
that use it with ``@pytest.mark.llm``.

``local_hub``: a fresh Hugging Face Hub-compatible server on 127.0.0.1 per test
(``tests/support/hub_server.py``), with ``huggingface_hub`` and ``datasets`` pointed at it, online,
caching under ``tmp_path/hf_home`` and authenticated with a dummy token; everything is restored
afterwards.

Every test starts with no secret registered (:mod:`causal_datasets.secret_values` keeps them per process).

The files run longest first (:data:`LONG_FILES`, then the rest by number of tests, most first): CI runs
``pytest -n 2 --dist loadfile --no-loadscope-reorder`` (``scripts/test.sh``), which hands the files to the two
workers in this order, so the last ones are short and both workers end together (by default pytest-xdist orders
files by number of tests alone, which left the one-test end-to-end files, minutes each, for the end, run by one
worker while the other had nothing left).
"""

from __future__ import annotations

from collections import Counter

import pytest

from causal_datasets import secret_values
from causal_datasets.llm.local import LocalServer
from tests.support.hub_server import local_hub  # noqa: F401 - registers the fixture

#: test files whose tests take half a minute to minutes on the shared 2-core machine (the local model's runs, full
#: builds, the documentation run as written), longest first (figures in docs/BENCHMARKS.md, "The test suite's
#: time"); run first
LONG_FILES = (
    "tests/test_end_to_end.py",
    "tests/cladder_pairs/test_cladder_pairs_task.py",
    "tests/test_docs_pages.py",
    "tests/llm/test_llm_local.py",
    "tests/integrations/test_inspect.py",
    "tests/commands/test_cli.py",
    "tests/recast/test_recast_llm.py",
    "tests/cladder_pairs/test_cladder_pairs_synthetic.py",
    "tests/cobe/test_cobe_failure_modes.py",
    "tests/test_readme.py",
    "tests/shapeworld/test_shapeworld_llm.py",
    "tests/causalab/test_causalab_llm.py",
)


def pytest_collection_modifyitems(items):
    """The long files first, then the rest by number of tests (most first); each file's tests keep their order."""
    tests_per_file = Counter(item.nodeid.split("::")[0] for item in items)
    rank = {path: place for place, path in enumerate(LONG_FILES)}

    def order(item):
        path = item.nodeid.split("::")[0]
        return rank.get(path, len(rank)), -tests_per_file[path], path

    items.sort(key=order)


@pytest.fixture(autouse=True)
def _no_secret_of_another_test(monkeypatch):
    monkeypatch.setattr(secret_values, "_secrets", set())
    monkeypatch.setattr(secret_values, "_pattern", [None])


@pytest.fixture(scope="session")
def local_llm():
    with LocalServer() as server:
        yield server
