"""The documentation site's pages (docs/), in the order of its navigation, as Sphinx reads them."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

from tests.support.doc_blocks import FENCE

DOCS = Path(__file__).resolve().parents[2] / "docs"
AUTOMODULE = re.compile(r"^\.\. automodule:: (?P<name>\S+)\n(?P<imported>   :imported-members:\n)?", re.MULTILINE)


@cache
def _generated_pages():
    """docs/_ext/generated_pages.py, the code that expands a page's generated parts at build time."""
    spec = importlib.util.spec_from_file_location("generated_pages", DOCS / "_ext" / "generated_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def navigation(page: str = "index") -> list[str]:
    """``page`` and every page below it in its ``{toctree}`` blocks, depth first: the site's reading order."""
    order = [page]
    text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
    folder = Path(page).parent
    for match in FENCE.finditer(text):
        if match["info"].strip() == "{toctree}":
            for line in match["body"].splitlines():
                if line.strip() and not line.startswith(":"):
                    order += navigation((folder / line.strip()).as_posix())
    return order


def page_text(page: str) -> str:
    """The Markdown of ``page`` with its generated parts (CLI reference, card prose) expanded."""
    return _generated_pages().expand((DOCS / f"{page}.md").read_text(encoding="utf-8"))


def api_modules() -> list[str]:
    """The modules whose docstrings the API reference shows (``automodule`` in ``docs/api/*.md``; a package
    documented with its imported members: every module under it)."""
    modules = set()
    for page in (DOCS / "api").glob("*.md"):
        for match in AUTOMODULE.finditer(page.read_text(encoding="utf-8")):
            modules.add(match["name"])
            if match["imported"]:
                package = importlib.import_module(match["name"])
                modules.update(info.name for info in pkgutil.walk_packages(package.__path__, f"{match['name']}."))
    return sorted(modules)


def build(out: Path) -> subprocess.CompletedProcess:
    """Build the site into ``out`` with warnings as errors, as CI does."""
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)]
    return subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
