"""Write the generated parts of the documentation pages (the CLI reference, the dataset cards' prose) into
the Markdown files, after their markers (``docs/_ext/generated_pages.py``), so the pages read whole where
they are read as files.

    python scripts/render_docs.py            # rewrite the pages whose parts are stale, naming them
    python scripts/render_docs.py --check    # CI: exit 1 naming each stale page, write nothing
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def load_generator(docs: Path):
    """``docs/_ext/generated_pages.py``, the code that makes the parts (and that Sphinx checks pages with)."""
    spec = importlib.util.spec_from_file_location("generated_pages", docs / "_ext" / "generated_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stale_pages(docs: Path) -> dict[Path, str]:
    """Every page under ``docs`` whose generated parts differ from the code's, with its text made current."""
    expand = load_generator(docs).expand
    found = {}
    for page in sorted(docs.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        if (current := expand(text)) != text:
            found[page] = current
    return found


def write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}-")
    with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
        out.write(text)
    os.replace(temporary, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a page is stale")
    parser.add_argument("--docs", type=Path, default=DOCS, help="the documentation folder (default: docs/)")
    args = parser.parse_args(argv)
    stale = stale_pages(args.docs)
    for page, text in stale.items():
        name = page.relative_to(args.docs.parent)
        if args.check:
            print(f"stale: {name} (run python scripts/render_docs.py)", file=sys.stderr)
        else:
            write_atomically(page, text)
            print(f"wrote {name}")
    if not stale:
        print("every generated part is current")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
