"""The verifier's public face: the package's names, the old import paths, and the notations of expressions and
proofs — the canonical text (round trip) and LaTeX (checked by matplotlib's independent mathtext parser)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from matplotlib.mathtext import MathTextParser
from packaging.version import Version

import causal_datasets
import causal_datasets.docalc as docalc
from causal_datasets import _moved
from causal_datasets.docalc.parser import parse
from tests.support.expressions import expressions

PROPERTY = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


# ---- the public API ------------------------------------------------------------------------------


def test_the_issue_import_line_works_and_every_public_name_resolves():
    from causal_datasets.docalc import check_equivalence, identify, parse  # noqa: F401 - the line itself

    assert callable(identify) and identify.__module__ == "causal_datasets.docalc.identification"
    for name in docalc.__all__:
        assert getattr(docalc, name) is not None, name
    assert set(docalc.__all__) <= set(dir(docalc))
    with pytest.raises(AttributeError):
        docalc.no_such_name  # noqa: B018


def test_parse_alone_does_not_load_the_numeric_evaluator():
    code = (
        "import sys; from causal_datasets.docalc import parse; parse('P(Y | do(X))'); "
        "print(sorted(m for m in sys.modules if m.startswith('causal_datasets.docalc.')))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "causal_datasets.docalc.parser" in loaded and "causal_datasets.docalc.semantics" not in loaded


@pytest.mark.parametrize("old", sorted(_moved.MOVED))
def test_an_old_import_path_warns_and_gives_the_module_at_its_new_path(old, monkeypatch):
    monkeypatch.delitem(sys.modules, old, raising=False)
    with pytest.warns(DeprecationWarning, match=f"{_moved.MOVED[old]}.*stops working in 0.4.0") as caught:
        module = importlib.import_module(old)
    assert module is importlib.import_module(_moved.MOVED[old])
    assert caught[0].filename.endswith("importlib/__init__.py")  # the line that imported: import_module's


def test_the_warning_points_at_the_importing_line():
    code = (
        "import warnings; warnings.simplefilter('always')\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    from causal_datasets.docalc.rows import synthetic_rows\n"
        "print(caught[0].filename, caught[0].lineno, synthetic_rows.__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["<string>", "3", "causal_datasets.cladder_pairs.rows"]


def test_the_old_paths_are_gone_by_the_version_that_removes_them():
    """A reminder that fails when the package reaches 0.4.0: delete causal_datasets/_moved.py then."""
    assert Version(causal_datasets.__version__) < Version(_moved.REMOVED_IN)


def test_new_paths_import_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.import_module("causal_datasets.cladder_pairs.estimand_task")
        importlib.import_module("causal_datasets.docalc.expr")


# ---- text and LaTeX ------------------------------------------------------------------------------

MATHTEXT = MathTextParser("path")


def renders(latex: str) -> bool:
    """Whether matplotlib's mathtext (its own TeX parser, no code shared with the printer) reads the math."""
    MATHTEXT.parse(f"${latex}$", dpi=72)
    return True


@PROPERTY
@given(expressions)
def test_any_expression_reads_back_from_its_text_and_renders_as_latex(e):
    assert parse(e.text) == e
    assert renders(e.to_latex()) and e._repr_latex_() == f"${e.to_latex()}$"


@pytest.mark.parametrize(
    "text, latex",
    [
        ("P(Y=1 | do(X=0))", r"P(Y = 1 \mid \mathrm{do}(X = 0))"),
        ("\\sum_{V2} P(V2) * P(Y | V2, X)", r"\sum_{V_{2}} P(V_{2}) P(Y \mid V_{2}, X)"),
        ("(P(Y | X) - P(Y)) / P(X)", r"\frac{P(Y \mid X) - P(Y)}{P(X)}"),
        ("E[Y_{X=1, M_{X=0}} - Y_{X=0}]", r"\mathbb{E}[Y_{M_{X = 0}, X = 1} - Y_{X = 0}]"),
        ("P(Y) * (P(X) + P(Z))", r"\left(P(X) + P(Z)\right) P(Y)"),
        ("0.5 * 2 * P(Smoking)", r"0.5 \cdot 2 P(\mathit{Smoking})"),
        ("P(V12_{X=1}=0)", r"P({V_{12}}_{X = 1} = 0)"),
    ],
)
def test_latex_of_parsed_expressions(text, latex):
    assert parse(text).to_latex() == latex
    assert renders(latex)


def test_a_proof_and_a_derivation_render_in_a_notebook():
    verdict = docalc.check_equivalence("P(Y | do(X))", "\\sum_{Z} P(Y | X, Z) * P(Z)", "Z->X,Z->Y,X->Y")
    proof = verdict.proof._repr_latex_()
    assert verdict._repr_latex_() == proof
    assert docalc.check_equivalence("P(Y | do(X))", "P(Y | X)", "Z->X,Z->Y,X->Y")._repr_latex_() is None  # no proof
    assert proof.startswith("$$\\begin{aligned}") and proof.endswith("\\end{aligned}$$")
    lines = proof.split(" \\\\\n")
    assert len(lines) == len(verdict.proof) + 1
    assert lines[-1].startswith(f"&= {parse(verdict.proof.end).to_latex()} && \\text{{{verdict.proof.steps[-1].name}")
    identified = docalc.identify("P(Y=1 | do(X=0))", "X->M,M->Y,X<->Y")
    latex = identified._repr_latex_()
    assert latex.count("&=") == len(identified.derivation) + 1  # and the line that puts in the query's values
    assert f"&= {identified.estimand.to_latex()} && \\text{{at Y=1, X=0}}" in latex
    hedge = docalc.identify("P(Y | do(X))", "X->Y,X<->Y")._repr_latex_()
    assert hedge == r"$$P(Y \mid \mathrm{do}(X)) \quad \text{not identifiable, the hedge } F = \{X, Y\}, F' = \{Y\}$$"
    assert renders(hedge.strip("$"))
    for line in lines[1:]:  # each line's expression is valid math on its own
        assert renders(line.split("&=")[1].split("&&")[0])
