"""Sphinx configuration of the documentation site.

Pages are the Markdown files of docs/ (MyST); the API reference comes from the docstrings
(autodoc, which reads their reStructuredText roles as written), the CLI reference and the card
prose are written into the pages by ``scripts/render_docs.py`` (``_ext/generated_pages.py``, which
also checks them here). Build: ``sphinx-build -W -b html docs build/docs``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

# Imported here, before autodoc imports anything: imported first through autodoc's importer, pydantic
# refuses the `extra="allow"` model runners.records.Untyped ("annotation for __pydantic_extra__").
import causal_datasets.runners.task  # noqa: E402,F401
from causal_datasets import __version__  # noqa: E402

project = "causal-datasets"
release = __version__
extensions = ["myst_parser", "sphinx.ext.autodoc", "generated_pages"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_ext"]
root_doc = "index"

myst_heading_anchors = 3  # GitHub's heading anchors (#sharded-generation-shardingpy), as the README links them
myst_enable_extensions = ["attrs_block"]

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "signature"

html_theme = "furo"
html_title = f"causal-datasets {release}"
html_show_sourcelink = False
html_copy_source = False
