"""The generated parts of the documentation pages are written into the Markdown files and kept current:
``scripts/render_docs.py --check`` (CI, before the site is built) fails on a stale page, the script
rewrites it, and the CLI reference's help fits the site's column without losing a character."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.site import DOCS

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "render_docs.py"
MARKERS = re.compile(r"^<!-- (cli-reference|card [^>]*) -->$", re.MULTILINE)


def render(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def generator():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import render_docs

        yield render_docs.load_generator(DOCS)
    finally:
        sys.path.remove(str(SCRIPT.parent))


def test_the_pages_in_the_repository_hold_their_generated_parts_current():
    done = render("--check")
    assert done.returncode == 0, done.stderr
    pages = {p: p.read_text(encoding="utf-8") for p in [DOCS / "cli.md", *(DOCS / "benchmarks").glob("*.md")]}
    for page, text in pages.items():  # every marker is followed by its part: no placeholder left
        markers = MARKERS.findall(text)
        assert markers and text.count("<!-- end ") == len(markers), page
    assert "## `causal-datasets build`" in pages[DOCS / "cli.md"]
    assert "CoBe asks a model to rewrite a short scenario" in pages[DOCS / "benchmarks" / "cobe.md"]


def test_a_stale_or_empty_part_fails_the_check_and_is_rewritten(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs, ignore=shutil.ignore_patterns("__pycache__"))
    cli, cobe = docs / "cli.md", docs / "benchmarks" / "cobe.md"
    current = {page: page.read_text(encoding="utf-8") for page in (cli, cobe)}
    cli.write_text(current[cli].replace("show this help message and exit", "an old help text", 1), encoding="utf-8")
    emptied = re.sub(r"(<!-- card cobe configs -->\n).*?<!-- end card -->\n", r"\1", current[cobe], flags=re.S)
    assert emptied != current[cobe]
    cobe.write_text(emptied, encoding="utf-8")  # a bare marker, as the pages were before

    check = render("--check", "--docs", str(docs))
    assert check.returncode == 1
    assert "stale: docs/cli.md" in check.stderr and "stale: docs/benchmarks/cobe.md" in check.stderr
    assert cli.read_text(encoding="utf-8") != current[cli]  # --check writes nothing

    assert render("--docs", str(docs)).returncode == 0
    assert {page: page.read_text(encoding="utf-8") for page in current} == current
    assert render("--check", "--docs", str(docs)).returncode == 0


def test_the_cli_reference_fits_the_site_column_and_keeps_every_character(generator):
    width = generator.HELP_WIDTH
    reference = generator.cli_reference()
    assert max(len(line) for line in reference.splitlines()) <= width
    long_line = "  --graph-families {" + ",".join(f"family{i}" for i in range(30)) + "} more words follow here"
    wrapped = generator.wrap_help(long_line, width=40)
    assert all(len(line) <= 40 for line in wrapped.splitlines()) and len(wrapped.splitlines()) > 3
    assert re.sub(r"\s", "", wrapped) == re.sub(r"\s", "", long_line)
    assert all(line.startswith("    ") for line in wrapped.splitlines()[1:])  # continuations indented
    assert generator.wrap_help("short line\n", width=40) == "short line\n"
