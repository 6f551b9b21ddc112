"""Every command and Python block of the README runs as a user types it, in order, in a fresh shell and folder.

The convention (stated in the README and on the site's Getting started page) is in
``tests/support/doc_blocks.py``; the README holds only runnable or exempt blocks. The shell starts with no
virtualenv active and the set-up's ``.venv`` beside it (this test's own virtualenv), so a block that needs
``.venv`` activated works only when the README says to activate it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.doc_blocks import (
    EXEMPT,
    RUN_KINDS,
    SETUP_SECTION,
    blocks,
    check_exempt_block,
    offline_environment,
    run_session,
    session_script,
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


def test_the_first_command_after_the_set_up_activates_its_virtualenv():
    """The set-up makes ``.venv`` and does not activate it: the first hour's first line does, once."""
    script = session_script(readme_blocks()).splitlines()
    assert script[0].split("#")[0].strip() == "source .venv/bin/activate"
    assert README.read_text(encoding="utf-8").count("source .venv/bin/activate") == 1


def test_every_offline_command_and_python_block_runs_as_typed_in_a_fresh_shell(tmp_path):
    work = work_folder(tmp_path)
    (work / ".venv").symlink_to(sys.prefix, target_is_directory=True)  # the set-up's virtualenv, beside the folder
    with LocalHub() as hub:
        run_session(readme_blocks(), work, offline_environment(tmp_path, hub.endpoint))
    assert (work / "report" / "report.md").is_file()
    assert len(list((work / "runs").iterdir())) == 2


def test_without_activating_the_first_hour_fails_as_it_did_for_a_newcomer(tmp_path):
    """The same fresh shell without the activation line: ``causal-datasets`` is not found (the issue's exit 127)."""
    work = work_folder(tmp_path)
    (work / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    [first, *_] = [block for block in readme_blocks() if block.runs]
    unactivated = type(first)(
        first.document, first.section, first.info, first.body.replace("source .venv/bin/activate", "")
    )
    with pytest.raises(AssertionError, match="exit 127, expected 0"):
        run_session([unactivated], work, offline_environment(tmp_path, "http://127.0.0.1:9"), timeout=300)


@pytest.mark.parametrize("block", [b for b in readme_blocks() if b.info in EXEMPT], ids=lambda b: b.section)
def test_exempt_blocks_name_real_commands(block):
    """Blocks that need a model server or the registry are not run, but must use real commands and flags."""
    check_exempt_block(block)
