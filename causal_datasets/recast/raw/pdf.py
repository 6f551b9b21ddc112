"""Text of a paper's PDF with PyMuPDF: plain text per page, or Markdown through pymupdf4llm.

PyMuPDF is AGPL-licensed and only this step uses it, so it is the optional extra ``pdf``; without
it these functions raise :class:`~causal_datasets.errors.MissingExtra` naming the extra.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

from causal_datasets.errors import MissingExtra


class PdfError(ValueError):
    """The file is not a readable PDF or holds no extractable text (a scan without OCR)."""


def pdf_text(path: Path) -> str:
    """Plain text of every page, pages separated by a blank line."""
    pymupdf = _optional("pymupdf")
    try:
        with pymupdf.open(path) as document:
            text = "\n\n".join(page.get_text() for page in document)
    except (pymupdf.FileDataError, RuntimeError) as error:
        raise PdfError(f"{path}: not a readable PDF ({error})") from error
    if not text.strip():
        raise PdfError(f"{path}: no extractable text (a scanned PDF needs OCR first)")
    return text


def pdf_markdown(path: Path) -> str:
    """Markdown of the PDF (headings, lists, tables kept) via pymupdf4llm."""
    pymupdf4llm = _optional("pymupdf4llm")
    pdf_text(path)  # same checks and errors as the plain extraction
    return pymupdf4llm.to_markdown(str(path), show_progress=False)


def _optional(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtra("reading PDFs (the raw ReCAST pipeline)", "pdf", module) from error
