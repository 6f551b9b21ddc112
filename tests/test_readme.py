"""Every command and Python block of the README runs as written, in order, in a fresh folder.

The convention (stated in the README and on the site's Getting started page) is in
``tests/support/doc_blocks.py``; the README holds only runnable or exempt blocks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.doc_blocks import (
    EXEMPT,
    RUN_KINDS,
    SETUP_SECTION,
    blocks,
    check_exempt_block,
    offline_environment,
    run_block,
    work_folder,
)
from tests.support.hub_server import LocalHub

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_blocks():
    return blocks(README.read_text(encoding="utf-8"), "README.md")


def test_every_block_follows_the_convention():
    kinds = [block.info for block in readme_blocks()]
    assert set(kinds) <= RUN_KINDS | EXEMPT, kinds
    setup = [block.body.strip() for block in readme_blocks() if block.section == SETUP_SECTION]
    assert setup == [
        "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/causal-datasets build --all",
        "bash scripts/test.sh",
    ]


def test_every_offline_command_and_python_block_runs_in_order(tmp_path):
    work = work_folder(tmp_path)
    with LocalHub() as hub:
        env = offline_environment(tmp_path, hub.endpoint)
        ran = sum(run_block(block, work, env) for block in readme_blocks() if block.runs)
    assert ran >= 5
    assert (work / "report" / "report.md").is_file()


@pytest.mark.parametrize("block", [b for b in readme_blocks() if b.info in EXEMPT], ids=lambda b: b.section)
def test_exempt_blocks_name_real_commands(block):
    """Blocks that need a model server or the registry are not run, but must use real commands and flags."""
    check_exempt_block(block)
