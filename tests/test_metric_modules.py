"""Every folder under ``metrics/`` is a complete ``evaluate`` module Space, and its card is true.

A folder ``metrics/<name>/`` must hold ``<name>.py`` (the module), ``app.py`` (evaluate's Gradio
widget, loading ``<name>.py`` next to it), ``requirements.txt`` (``causal-datasets`` pinned at the
version in ``pyproject.toml`` plus ``evaluate``) and ``README.md`` (the metric card: Space front
matter and evaluate's card sections).

Card example convention (checked below):

* A block fenced as plain ```` ```python ```` is a runnable example. It must run offline, on its
  own, in a fresh namespace and a temporary working directory. Lines in it that start with
  ``#>`` show what the block prints: they are compared, in order, with the block's standard
  output (``#> text`` is the output line ``text``).
* A block fenced as ```` ```python title="needs a model server" ```` needs an OpenAI-compatible
  endpoint (a real judge). It is compiled but not run.
* Any other ``python`` fence is an error, so an example cannot silently escape the test.

Under ``### Inputs`` every argument of ``_compute`` is documented as a bold code name
(``**`reversal_cost`**``); under ``### Output Values`` likewise every key the examples' results
hold.

Run: ``HF_DATASETS_OFFLINE=1 .venv/bin/python -m pytest tests/test_metric_modules.py -q``.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import re
import runpy
import shutil
import sys
import tomllib
import types
from pathlib import Path

import evaluate
import pytest
import yaml
from evaluate.utils.gradio import infer_gradio_input_types
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from causal_datasets import metric_base

ROOT = Path(__file__).resolve().parent.parent
METRICS = ROOT / "metrics"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

NAMES = sorted(p.name for p in METRICS.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
EXPECTED = {
    "causal_graph_metrics",
    "causalab_mechanism",
    "cobe_edit_criteria",
    "do_calculus_equivalence",
    "recast_judge",
    "shapeworld_accuracy",
}

FRONT_MATTER_KEYS = (
    "title",
    "emoji",
    "colorFrom",
    "colorTo",
    "sdk",
    "sdk_version",
    "app_file",
    "pinned",
    "tags",
    "description",
)
#: the colours a Space's front matter may name
SPACE_COLORS = {"red", "yellow", "green", "blue", "indigo", "purple", "pink", "gray"}
#: the card's headings, in this order (evaluate's metric card layout)
HEADINGS = (
    "## Metric Description",
    "## How to Use",
    "### Inputs",
    "### Output Values",
    "### Examples",
    "## Limitations and Bias",
    "## Citation",
    "## Further References",
)
RUNNABLE = "python"
NEEDS_MODEL = 'python title="needs a model server"'
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
FRONT_MATTER = re.compile(r"\A---\n(?P<yaml>.*?)\n---\n", re.DOTALL)
BIBTEX_ENTRY = re.compile(r"@(article|inproceedings|misc)\{[^,\s]+,(?P<fields>.*?)\n\}", re.DOTALL)

_loaded: dict[str, evaluate.EvaluationModule] = {}


def module(name: str) -> evaluate.EvaluationModule:
    """The module of ``metrics/<name>``, loaded once per test session by absolute path."""
    if name not in _loaded:
        _loaded[name] = evaluate.load(str(METRICS / name), keep_in_memory=True)
    return _loaded[name]


def card(name: str) -> str:
    return (METRICS / name / "README.md").read_text(encoding="utf-8")


def front_matter(name: str) -> dict:
    match = FRONT_MATTER.match(card(name))
    assert match, f"{name}/README.md does not open with a --- YAML block ---"
    data = yaml.safe_load(match["yaml"])
    assert isinstance(data, dict), f"{name}/README.md front matter is not a mapping"
    return data


def section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same or a higher level (code
    blocks, whose ``# comments`` look like headings, are skipped)."""
    level = heading.split(" ", 1)[0]
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    fences = [(m.start(), m.end()) for m in FENCE.finditer(text)]
    for match in re.finditer(rf"^#{{1,{len(level)}}} ", text[start:], re.MULTILINE):
        position = start + match.start()
        if not any(begin <= position < end for begin, end in fences):
            return text[start:position]
    return text[start:]


def code_blocks(text: str, info: str) -> list[str]:
    return [m["body"] for m in FENCE.finditer(text) if m["info"].strip() == info]


def python_fences(text: str) -> list[str]:
    return [m["info"].strip() for m in FENCE.finditer(text) if m["info"].strip().startswith("python")]


def expected_output(block: str) -> list[str]:
    return [
        line.strip()[3:] if line.strip() != "#>" else "" for line in block.splitlines() if line.strip().startswith("#>")
    ]


def compute_signature(name: str) -> list[str]:
    parameters = inspect.signature(type(module(name))._compute).parameters
    return [p for p in parameters if p != "self"]


# ---------------------------------------------------------------- folder layout


def test_every_metric_folder_is_found():
    assert EXPECTED <= set(NAMES), f"missing metric folders: {sorted(EXPECTED - set(NAMES))}"


@pytest.mark.parametrize("name", NAMES)
def test_folder_is_complete(name):
    folder = METRICS / name
    missing = [f for f in (f"{name}.py", "app.py", "requirements.txt", "README.md") if not (folder / f).is_file()]
    assert not missing, f"metrics/{name} lacks {missing}"


# ---------------------------------------------------------------- requirements.txt


def _requirements(name: str) -> list[Requirement]:
    lines = (METRICS / name / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return [Requirement(line) for line in (raw.split("#", 1)[0].strip() for raw in lines) if line]


def _module_imports(name: str) -> set[str]:
    tree = ast.parse((METRICS / name / f"{name}.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return {canonicalize_name(n) for n in found}


@pytest.mark.parametrize("name", NAMES)
def test_requirements_pin_the_package_version(name):
    version = PYPROJECT["project"]["version"]
    evaluate_spec = next(
        Requirement(d).specifier for d in PYPROJECT["project"]["dependencies"] if Requirement(d).name == "evaluate"
    )
    requirements = {canonicalize_name(r.name): r for r in _requirements(name)}
    assert "causal-datasets" in requirements and "evaluate" in requirements, f"{name}: {sorted(requirements)}"
    assert str(requirements["causal-datasets"].specifier) == f"=={version}"
    assert requirements["evaluate"].specifier == evaluate_spec
    extra = set(requirements) - {"causal-datasets", "evaluate"} - _module_imports(name)
    assert not extra, f"{name}/requirements.txt names packages its module does not import: {sorted(extra)}"


# ---------------------------------------------------------------- app.py


@pytest.mark.parametrize("name", NAMES)
def test_app_loads_the_module_file_next_to_it(name):
    tree = ast.parse((METRICS / name / "app.py").read_text(encoding="utf-8"))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]

    def called(function: str) -> list[ast.Call]:
        return [c for c in calls if (getattr(c.func, "attr", None) or getattr(c.func, "id", None)) == function]

    with_name = called("with_name")
    assert len(with_name) == 1, f"{name}/app.py should name its module file once with Path(__file__).with_name(...)"
    (argument,) = with_name[0].args
    assert isinstance(argument, ast.Constant) and argument.value == f"{name}.py"
    path = with_name[0].func.value
    assert isinstance(path, ast.Call) and getattr(path.func, "id", None) == "Path"
    assert [getattr(a, "id", None) for a in path.args] == ["__file__"]
    (load,) = called("load")
    assert ast.unparse(load.func) == "evaluate.load" and with_name[0] in ast.walk(load)
    (launch,) = called("launch_gradio_widget")
    assert isinstance(launch.args[0], ast.Name)


@pytest.mark.parametrize("name", NAMES)
def test_the_gradio_widget_can_drive_the_module(name):
    """launch_gradio_widget builds its table from the first feature set, one input type per feature."""
    features = module(name).features
    first = features[0] if isinstance(features, list) else features
    feature_names, feature_types = zip(*first.items(), strict=True)
    assert feature_names == ("predictions", "references")
    input_types = infer_gradio_input_types(feature_types)
    assert len(input_types) == len(feature_names)
    assert set(input_types) <= {"number", "str", "json"}


def fake_gradio(record: dict) -> types.ModuleType:
    """A stand-in for the gradio 3 API that ``launch_gradio_widget`` calls (gradio is not installed)."""
    gradio = types.ModuleType("gradio")

    class Interface:
        def __init__(self, **kwargs):
            record.update(kwargs)

        def launch(self):
            record["launched"] = True

    gradio.Interface = Interface
    gradio.inputs = types.SimpleNamespace(Dataframe=lambda **kwargs: kwargs)
    gradio.outputs = types.SimpleNamespace(Textbox=lambda **kwargs: kwargs)
    return gradio


@pytest.mark.parametrize("name", NAMES)
def test_app_runs_in_a_space_layout(name, tmp_path, monkeypatch):
    """The folder copied to a Space (cloned as ``app/``) starts the widget on its own module and card."""
    space = tmp_path / "app"
    shutil.copytree(METRICS / name, space, ignore=shutil.ignore_patterns("__pycache__"))
    record: dict = {}
    monkeypatch.setitem(sys.modules, "gradio", fake_gradio(record))
    monkeypatch.syspath_prepend(str(space))  # `python app.py` puts the script's folder first
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(space / "app.py"), run_name="__main__")
    assert record.get("launched")
    assert record["inputs"]["headers"] == ("predictions", "references")
    assert record["inputs"]["col_count"] == 2
    assert record["article"].lstrip().startswith(f"# Metric Card for {front_matter(name)['title']}")


# ---------------------------------------------------------------- README.md


@pytest.mark.parametrize("name", NAMES)
def test_front_matter_is_a_space_card(name):
    data = front_matter(name)
    missing = [key for key in FRONT_MATTER_KEYS if key not in data]
    assert not missing, f"{name}/README.md front matter lacks {missing}"
    assert data["sdk"] == "gradio"
    assert data["app_file"] == "app.py"
    assert str(data["sdk_version"]).startswith("3."), "launch_gradio_widget uses the gradio 3 API"
    assert data["pinned"] is False
    assert {"evaluate", "metric"} <= set(data["tags"]) and len(data["tags"]) > 2
    assert data["colorFrom"] in SPACE_COLORS and data["colorTo"] in SPACE_COLORS
    assert isinstance(data["description"], str) and data["description"].strip()
    assert "\n\n" not in data["description"].strip(), "description is one paragraph"
    assert isinstance(data["title"], str) and isinstance(data["emoji"], str) and data["emoji"].strip()


@pytest.mark.parametrize("name", NAMES)
def test_card_has_every_section_in_order(name):
    text = card(name)
    title = front_matter(name)["title"]
    assert f"\n# Metric Card for {title}\n" in text
    positions = []
    for heading in HEADINGS:
        assert f"\n{heading}\n" in text, f"{name}/README.md lacks the heading {heading!r}"
        positions.append(text.index(f"\n{heading}\n"))
    assert positions == sorted(positions), f"{name}/README.md: headings out of order"


@pytest.mark.parametrize("name", NAMES)
def test_card_cites_the_paper_in_bibtex(name):
    citation = section(card(name), "## Citation")
    entries = [m["fields"] for block in code_blocks(citation, "bibtex") for m in BIBTEX_ENTRY.finditer(block)]
    assert entries, f"{name}/README.md: no @article/@inproceedings/@misc entry in a ```bibtex block under Citation"
    for fields in entries:
        assert re.search(r"^\s*title\s*=\s*\{.+\}", fields, re.MULTILINE), fields
        assert re.search(r"^\s*author\s*=\s*\{.+\}", fields, re.MULTILINE), fields
        assert re.search(r"^\s*year\s*=\s*\{?\d{4}\}?", fields, re.MULTILINE), fields


@pytest.mark.parametrize("name", NAMES)
def test_the_module_cites_what_its_card_cites(name):
    citation = section(card(name), "## Citation")
    bibtex = "\n".join(block.strip() + "\n" for block in code_blocks(citation, "bibtex")).strip()
    assert module(name).info.citation.strip() == bibtex


@pytest.mark.parametrize("name", NAMES)
def test_inputs_document_every_compute_argument(name):
    inputs = section(card(name), "### Inputs")
    undocumented = [arg for arg in compute_signature(name) if f"**`{arg}`**" not in inputs]
    assert not undocumented, f"{name}/README.md ### Inputs does not document {undocumented}"


@pytest.mark.parametrize("name", NAMES)
def test_python_blocks_follow_the_convention(name):
    fences = python_fences(card(name))
    odd = [info for info in fences if info not in (RUNNABLE, NEEDS_MODEL)]
    assert not odd, f"{name}/README.md: python fences must be {RUNNABLE!r} or {NEEDS_MODEL!r}, got {odd}"
    for block in code_blocks(card(name), NEEDS_MODEL):
        compile(block, f"{name}/README.md (needs a model server)", "exec")


@pytest.mark.parametrize("name", NAMES)
def test_card_examples_run(name, tmp_path, monkeypatch):
    """Each runnable block runs offline in a fresh namespace and prints exactly its ``#>`` lines.

    Every key of every result the examples compute must be documented under ### Output Values.
    """
    blocks = code_blocks(card(name), RUNNABLE)
    assert blocks, f"{name}/README.md has no runnable ```python example"
    monkeypatch.chdir(tmp_path)
    results: list[dict] = []

    def recording(compute):
        def recording_compute(self, *args, **kwargs):
            """compute, keeping what it returns (evaluate appends the inputs description here)."""
            result = compute(self, *args, **kwargs)
            if isinstance(result, dict):
                results.append(result)
            return result

        return recording_compute

    for owner in (evaluate.EvaluationModule, metric_base.BatchMetric):
        monkeypatch.setattr(owner, "compute", recording(owner.compute))
    for number, block in enumerate(blocks, 1):
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            exec(compile(block, f"{name}/README.md example {number}", "exec"), {"__name__": "__card_example__"})
        printed = [line.rstrip() for line in stdout.getvalue().splitlines()]
        assert printed == [line.rstrip() for line in expected_output(block)], (
            f"{name}/README.md example {number}: printed output differs from its #> lines"
        )
    assert results, f"{name}/README.md examples never call compute"
    outputs = section(card(name), "### Output Values")
    undocumented = sorted({key for result in results for key in result if f"**`{key}`**" not in outputs})
    assert not undocumented, f"{name}/README.md ### Output Values does not document {undocumented}"
