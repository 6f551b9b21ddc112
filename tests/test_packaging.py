"""The installed package is the product: what ships, how builders are found, which way imports point.

The wheel itself is built, installed into a fresh virtual environment and used from outside the
checkout by ``scripts/check_wheel.sh`` (run by CI); these tests check the declarations it relies on.
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from causal_datasets import metric_path, registry
from causal_datasets.cli import main
from causal_datasets.errors import BuilderRegistrationError, MissingExtra, UnknownMetric
from causal_datasets.paths import card_template, metric_names

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def test_every_builder_module_is_registered_and_has_its_card():
    modules = sorted(p.stem for p in (ROOT / "builders").glob("*.py") if p.stem != "__init__")
    declared = PYPROJECT["project"]["entry-points"][registry.ENTRY_POINT_GROUP]
    assert sorted(declared) == modules
    assert declared == {name: f"causal_datasets.builders.{name}:BUILDER" for name in modules}
    assert list(registry.builders()) == modules
    for name in modules:
        assert card_template(name).is_file(), name


def test_every_package_and_shipped_folder_is_declared():
    # every folder with Python files is a package (setuptools warns about .py files shipped as package data)
    found = {".".join(path.parent.relative_to(ROOT).parts) for path in (ROOT / "causal_datasets").rglob("*.py")}
    mapped = {"causal_datasets.builders", "causal_datasets.cards", "causal_datasets.metrics"}
    metric_folders = {f"causal_datasets.metrics.{path.parent.name}" for path in (ROOT / "metrics").glob("*/*.py")}
    assert metric_folders == {f"causal_datasets.metrics.{name}" for name in metric_names()}
    assert set(SETUPTOOLS["packages"]) == found | mapped | metric_folders
    assert SETUPTOOLS["package-dir"] == {
        "causal_datasets": "causal_datasets",
        "causal_datasets.builders": "builders",
        "causal_datasets.cards": "cards",
        "causal_datasets.metrics": "metrics",
    }
    assert (ROOT / "causal_datasets" / "py.typed").is_file()


def test_metric_modules_are_found_by_name_and_an_unknown_one_is_named():
    assert metric_names() == sorted(p.parent.name for p in (ROOT / "metrics").glob("*/*.py") if p.stem == p.parent.name)
    assert len(metric_names()) == 6
    for name in metric_names():
        assert Path(metric_path(name), f"{name}.py").is_file()
    with pytest.raises(UnknownMetric, match="unknown metric 'nope'; known: causal_graph_metrics"):
        metric_path("nope")


def _imported_top_levels(paths: list[Path]) -> set[str]:
    names = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def _source_files() -> list[Path]:
    return [p for folder in ("causal_datasets", "builders", "metrics") for p in (ROOT / folder).rglob("*.py")]


def test_every_dependency_is_imported_by_the_package():
    """No dependency that nothing imports: each declared distribution provides a module the code imports."""
    provided_by = packages_distributions()
    used = {
        re.sub(r"[-_.]+", "-", dist).lower()
        for name in _imported_top_levels(_source_files())
        for dist in provided_by.get(name, [])
    }
    declared = {re.split(r"[<>=\[ ;]", requirement)[0] for requirement in PYPROJECT["project"]["dependencies"]}
    unused = {name for name in declared if re.sub(r"[-_.]+", "-", name).lower() not in used}
    assert not unused, f"declared but never imported: {sorted(unused)}"


def test_the_library_never_imports_the_command_line_layer():
    cli_layer = {"causal_datasets.cli", "causal_datasets.commands"}
    offenders = []
    for path in (ROOT / "causal_datasets").rglob("*.py"):
        relative = path.relative_to(ROOT / "causal_datasets")
        if relative.parts[0] in ("cli.py", "commands"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
            elif isinstance(node, ast.Import):
                targets = {alias.name for alias in node.names}
            else:
                continue
            if any(t == layer or t.startswith(layer + ".") for t in targets for layer in cli_layer):
                offenders.append(f"{relative}:{node.lineno}")
    assert offenders == []


def test_the_pdf_pipeline_names_its_extra_when_pymupdf_is_missing(monkeypatch, tmp_path):
    from causal_datasets.recast.raw.pdf import pdf_markdown, pdf_text

    monkeypatch.setitem(sys.modules, "pymupdf", None)  # what `import pymupdf` sees when it is not installed
    with pytest.raises(MissingExtra, match=r"pip install 'causal-datasets\[pdf\]'"):
        pdf_text(tmp_path / "paper.pdf")
    monkeypatch.setitem(sys.modules, "pymupdf4llm", None)
    with pytest.raises(MissingExtra, match="pymupdf4llm"):
        pdf_markdown(tmp_path / "paper.pdf")


@pytest.fixture
def third_party(tmp_path, monkeypatch):
    """A distribution installed beside ours that registers its own builder through the entry point."""

    def install(module_source: str) -> Path:
        (tmp_path / "thirdparty_bench.py").write_text(textwrap.dedent(module_source), encoding="utf-8")
        info = tmp_path / "thirdparty_bench-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: thirdparty-bench\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(
            f"[{registry.ENTRY_POINT_GROUP}]\nthirdparty = thirdparty_bench:BUILDER\n", encoding="utf-8"
        )
        monkeypatch.syspath_prepend(str(tmp_path))
        registry.builders.cache_clear()
        return tmp_path

    yield install
    sys.modules.pop("thirdparty_bench", None)
    registry.builders.cache_clear()


def test_a_third_party_package_adds_a_benchmark_without_editing_ours(third_party, capsys):
    root = third_party(
        """
        from dataclasses import replace
        from pathlib import Path

        from tests.support.tiny_dataset import tiny_builder

        BUILDER = replace(tiny_builder(Path(__file__).parent), name="thirdparty")
        """
    )
    assert "thirdparty" in registry.builders() and "shapeworld" in registry.builders()
    assert main(["info"]) == 0
    assert "| thirdparty | 1.2.3 | default |" in capsys.readouterr().out
    assert main(["build", "thirdparty", "--hub-dir", str(root / "hub")]) == 0
    assert (root / "hub" / "thirdparty" / "manifest.json").is_file()


def test_a_broken_third_party_builder_is_named(third_party):
    third_party("BUILDER = 'not a builder'\n")
    with pytest.raises(BuilderRegistrationError, match="entry point 'thirdparty'.*thirdparty-bench is str"):
        registry.builders()
