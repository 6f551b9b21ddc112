"""No import cycle inside the package: the graph of every module's imports (deferred ones inside functions
included, ``if TYPE_CHECKING:`` blocks left out) has no cycle, and neither has the graph of its folders.

A folder is a sub-package of ``causal_datasets`` with everything below it (``causal_datasets.runners``,
``causal_datasets.recast`` with ``recast.raw``), or ``causal_datasets.builders``. A top-level module
(``causal_datasets/cli.py``, ``errors.py``, ``graph.py``) is a node of its own, and so is the package root's
``__init__``: the top-level modules sit at every layer (``errors`` and ``graph`` below everything, ``cli`` above
everything), so counting them as one folder would tie the bottom of the package to its top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import causal_datasets
import causal_datasets.builders

ROOTS = {
    "causal_datasets": Path(causal_datasets.__file__).parent,
    "causal_datasets.builders": Path(causal_datasets.builders.__file__).parent,
}


def module_files() -> dict[str, Path]:
    files = {}
    for package, folder in ROOTS.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            files[".".join((package, *parts))] = path
    return files


def _runtime_nodes(tree: ast.AST):
    """Every node of ``tree`` except the bodies of ``if TYPE_CHECKING:`` (imports for type checkers only)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and ast.unparse(child.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                stack.extend(child.orelse)
            else:
                stack.append(child)


def imported(name: str, path: Path, modules: set[str]) -> set[str]:
    """The package's modules that module ``name`` imports: ``from P import m`` of a submodule ``m`` depends on
    ``P.m`` alone (importing any module runs its parents' ``__init__`` first, which every module does)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            submodules = {f"{base}.{alias.name}" for alias in node.names} & modules
            found |= submodules or {base}
    return (found & modules) - {name}


def import_graph() -> nx.DiGraph:
    files = module_files()
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for name, path in files.items():
        graph.add_edges_from((name, target) for target in imported(name, path, set(files)))
    return graph


def test_the_package_has_no_import_cycle():
    cycles = list(nx.simple_cycles(import_graph()))
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(cycle + cycle[:1]) for cycle in cycles)


def folder_of(module: str) -> str:
    """The folder node a module belongs to: its first two dotted parts (``causal_datasets.recast`` for
    ``causal_datasets.recast.raw.pipeline``, ``causal_datasets.builders`` for a builder), which for a top-level
    module is the module itself."""
    return ".".join(module.split(".")[:2])


def folder_graph(modules: nx.DiGraph) -> nx.DiGraph:
    """The folders and which imports which (an edge per pair of folders with at least one module import)."""
    folders = nx.DiGraph()
    folders.add_nodes_from(folder_of(name) for name in modules)
    folders.add_edges_from((folder_of(a), folder_of(b)) for a, b in modules.edges if folder_of(a) != folder_of(b))
    return folders


def _cycles_with_imports(folders: nx.DiGraph, modules: nx.DiGraph) -> list[str]:
    """Each folder cycle, with the module imports that make up each of its edges."""
    found = []
    for cycle in nx.simple_cycles(folders):
        steps = []
        for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
            imports = sorted(f"{x} -> {y}" for x, y in modules.edges if folder_of(x) == a and folder_of(y) == b)
            steps.append(f"{a} -> {b} ({', '.join(imports)})")
        found.append("; ".join(steps))
    return found


def test_the_folders_have_no_import_cycle():
    modules = import_graph()
    cycles = _cycles_with_imports(folder_graph(modules), modules)
    assert not cycles, "folder import cycles: " + " | ".join(cycles)


def test_the_folder_graph_groups_subpackages_and_keeps_top_level_modules_apart():
    """What a folder is, and that a cycle between two folders is found (and named by its imports) even where
    the modules themselves form no cycle."""
    assert folder_of("causal_datasets.recast.raw.pipeline") == "causal_datasets.recast"
    assert folder_of("causal_datasets.report") == "causal_datasets.report"
    assert folder_of("causal_datasets.cli") == "causal_datasets.cli"
    assert folder_of("causal_datasets") == "causal_datasets"
    assert folder_of("causal_datasets.builders.recast") == "causal_datasets.builders"
    modules = import_graph()
    folders = folder_graph(modules)
    assert folders.has_edge("causal_datasets.cli", "causal_datasets.commands")
    assert not folders.has_edge("causal_datasets.commands", "causal_datasets.cli")
    assert folders.has_edge("causal_datasets.exports", "causal_datasets.report")
    modules.add_edge("causal_datasets.report.render", "causal_datasets.exports.reading")  # what render did
    (cycle,) = _cycles_with_imports(folder_graph(modules), modules)
    assert "causal_datasets.report.render -> causal_datasets.exports.reading" in cycle
    assert "causal_datasets.exports.reading -> causal_datasets.report.runs" in cycle


def test_the_verifier_does_not_import_the_dataset_code_built_on_it():
    graph = import_graph()
    verifier = [name for name in graph if name.startswith("causal_datasets.docalc")]
    outside = {target for name in verifier for target in graph.successors(name)} - set(verifier)
    assert outside == {
        "causal_datasets.graph",
        "causal_datasets.errors",
        "causal_datasets.llm.thinking",
        "causal_datasets.scoring.inputs",
    }
    assert any(
        graph.has_edge(name, "causal_datasets.docalc.verdict")
        for name in graph
        if name.startswith("causal_datasets.cladder_pairs")
    )


def test_the_check_sees_deferred_imports_and_submodules(tmp_path):
    """The graph the test relies on: a deferred import is an edge, ``from package import submodule`` points at
    the submodule, a type checker's import is no edge; a cycle made of them is found."""
    (tmp_path / "a.py").write_text("def f():\n    from causal_datasets.docalc import expr\n")
    (tmp_path / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from causal_datasets.docalc import verdict\n"
    )
    modules = {"causal_datasets.docalc", "causal_datasets.docalc.expr", "causal_datasets.docalc.verdict"}
    assert imported("causal_datasets.x.a", tmp_path / "a.py", modules) == {"causal_datasets.docalc.expr"}
    assert imported("causal_datasets.x.b", tmp_path / "b.py", modules) == set()
    graph = import_graph()
    assert graph.has_edge("causal_datasets.docalc.verdict", "causal_datasets.docalc.parser")
    assert graph.has_edge("causal_datasets.cladder_pairs.rows", "causal_datasets.docalc.verdict")
    assert not graph.has_edge("causal_datasets.docalc.expr", "causal_datasets.docalc.parser")
    graph.add_edge("causal_datasets.docalc.expr", "causal_datasets.docalc.parser")  # what a printer importing back did
    assert [sorted(cycle) for cycle in nx.simple_cycles(graph)] == [
        ["causal_datasets.docalc.expr", "causal_datasets.docalc.parser"]
    ]
