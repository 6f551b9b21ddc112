"""Fixtures of the CausaLab tests."""

import pytest

from causal_datasets.causalab.upstream_run import read_upstream_run
from tests.causalab.data import SAMPLE


@pytest.fixture(scope="module")
def sample():
    """The authors' sample run and its episode."""
    run = read_upstream_run(SAMPLE)
    return run, run.episode()
