"""Every command and Python block of the documentation site runs as written.

The pages run in the order of the site's navigation (``docs/index.md``'s tables of contents), one
after the other in one fresh folder, with their generated parts expanded exactly as the site shows
them (the dataset cards' examples included), then the ``>>>`` examples of the docstrings the API
reference shows. The convention is the README's (``tests/support/doc_blocks.py``).
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys

import pytest

from causal_datasets.registry import get_builder
from tests.support.data import SHARED_DATA_DIR
from tests.support.doc_blocks import (
    EXEMPT,
    NOT_CODE,
    RUN_KINDS,
    blocks,
    check_exempt_block,
    offline_environment,
    run_block,
    work_folder,
)
from tests.support.hub_server import LocalHub
from tests.support.site import DOCS, api_modules, navigation, page_text

RUN_DOCTESTS = """
import doctest, importlib, sys
failed = sum(doctest.testmod(importlib.import_module(name), verbose=False).failed for name in sys.argv[1:])
sys.exit(1 if failed else 0)
"""


def site_blocks():
    return [block for page in navigation() for block in blocks(page_text(page), f"docs/{page}.md")]


def test_the_navigation_reaches_every_page_once():
    pages = navigation()
    on_disk = sorted(
        p.relative_to(DOCS).with_suffix("").as_posix() for p in DOCS.rglob("*.md") if "_ext" not in p.parts
    )
    assert sorted(pages) == on_disk
    assert len(set(pages)) == len(pages)


def test_every_block_of_the_site_is_run_checked_or_not_code():
    kinds = {block.info for block in site_blocks() if not block.is_directive}
    assert kinds <= RUN_KINDS | EXEMPT | NOT_CODE, kinds - (RUN_KINDS | EXEMPT | NOT_CODE)


def test_every_offline_block_of_the_site_runs_in_order(tmp_path):
    work = work_folder(tmp_path)
    with LocalHub() as hub:
        env = offline_environment(tmp_path, hub.endpoint)
        ran = {}
        for block in site_blocks():
            if block.runs:
                ran[block.document] = ran.get(block.document, 0) + run_block(block, work, env)
        assert f"v{get_builder('shapeworld').version}" in hub.tags("ORG/shapeworld")  # the push reached the local Hub
        assert "v1.0.0" in hub.tags("ORG/causal-results")
        done = subprocess.run(
            [sys.executable, "-c", RUN_DOCTESTS, *api_modules()],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-3000:]
    assert set(ran) >= {f"docs/{page}.md" for page in ("getting-started", "running-models", "metrics", "training")}
    assert sum(ran.values()) >= 40
    assert (work / "report" / "report.md").is_file() and (work / "run-summary.schema.json").stat().st_size > 1000


@pytest.mark.parametrize(
    "block", [b for b in site_blocks() if b.info in EXEMPT], ids=lambda b: f"{b.document}:{b.section}"
)
def test_exempt_blocks_of_the_site_name_real_commands(block):
    check_exempt_block(block)


def test_the_cladder_page_names_the_configs_built_with_and_without_the_released_files():
    """The CLadder page's sentence on its source: the configs it says the files build, and those it says are built
    without them, are the builder's (``synthetic_latent`` is generated too)."""
    builder = get_builder("cladder_pairs")
    text = " ".join((DOCS / "benchmarks" / "cladder_pairs.md").read_text(encoding="utf-8").split())
    with_files, without = text.split("builds ", 1)[1].split(" are built.", 1)[0].split("without them", 1)
    assert set(re.findall(r"`(\w+)`", with_files)) == set(builder.source_configs)
    assert set(re.findall(r"`(\w+)`", without)) == set(builder.configs) - set(builder.source_configs)


def test_the_data_page_lists_every_released_file_with_its_sha256_and_each_builder_place():
    """docs/data-and-hub.md: one row per file under ../shared/data (SOURCE.md aside) with its size and sha256 as
    they are, and the place each sourced builder reads under the sources folder."""
    text = (DOCS / "data-and-hub.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| ([\d,]+) \| `([0-9a-f]{64})` \|$", text, re.MULTILINE)
    files = sorted(p for p in SHARED_DATA_DIR.rglob("*") if p.is_file() and p.name != "SOURCE.md")
    assert sorted(path for path, _, _ in rows) == [p.relative_to(SHARED_DATA_DIR).as_posix() for p in files]
    for path, size, digest in rows:
        data = (SHARED_DATA_DIR / path).read_bytes()
        assert (int(size.replace(",", "")), hashlib.sha256(data).hexdigest()) == (len(data), digest), path
    for name in ("causalab", "cladder_pairs", "cobe", "recast"):
        assert f"| `{name}` | `{get_builder(name).source_name}` |" in text
    assert "python -m tests.support.hub_server" in text and "data-and-hub" in (DOCS / "index.md").read_text()
