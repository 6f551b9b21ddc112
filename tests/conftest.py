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
"""

from __future__ import annotations

import pytest

from causal_datasets import secret_values
from causal_datasets.llm.local import LocalServer
from tests.support.hub_server import local_hub  # noqa: F401 - registers the fixture


@pytest.fixture(autouse=True)
def _no_secret_of_another_test(monkeypatch):
    monkeypatch.setattr(secret_values, "_secrets", set())
    monkeypatch.setattr(secret_values, "_pattern", [None])


@pytest.fixture(scope="session")
def local_llm():
    with LocalServer() as server:
        yield server
