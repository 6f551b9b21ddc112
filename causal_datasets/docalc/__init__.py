"""The do-calculus verifier: causal expressions, their equality under a causal graph, and identification.

>>> from causal_datasets.docalc import check_equivalence, identify, parse
>>> verdict = check_equivalence("P(Y | do(X))", "\\sum_{Z} P(Y | X, Z) * P(Z)", "Z->X,Z->Y,X->Y")
>>> verdict.equivalent, verdict.method
(True, 'proof')
>>> identify("P(Y | do(X))", "X->M,M->Y,X<->Y").estimand.text
'\\\\sum_{M} P(M | X) * (\\\\sum_{X} P(X) * P(Y | M, X))'
>>> parse("P(Y=1 | do(X=0))").to_latex()
'P(Y = 1 \\\\mid \\\\mathrm{do}(X = 0))'

The names below are the public API, loaded on first use (``parse`` does not load the numeric
evaluator). Expressions: :mod:`.atoms` (variables, values, subscripts), :mod:`.expr` (nodes, canonical
text, LaTeX), :mod:`.parser`, :mod:`.y0_dsl` (y0's DSL text and objects); graphs: :mod:`.graph`,
:mod:`.admg`; equality: :mod:`.verdict` over :mod:`.domains`, :mod:`.decide` (random models:
:mod:`.semantics`, :mod:`.bounded`, :mod:`.vectorized`, :mod:`.elimination`, :mod:`.latent`, :mod:`.exact`,
:mod:`.integer_einsum`; :mod:`.districts` the district model, for graphs whose own models are too large),
:mod:`.search` and :mod:`.rules` (proofs), :mod:`.independence` (independence statements instead of a
graph), :mod:`.budget` (a time limit per call); identification: :mod:`.identification` (with
:mod:`.id_distribution`, :mod:`.identified` for its answer, :mod:`.factorization`, Tian's, and
:mod:`.subproblem`, the formula of a call's distribution, as checked rules); scoring answers:
:mod:`.scoring_rules`, :mod:`.scoring`, :mod:`.baselines`, :mod:`.derivation`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from causal_datasets.docalc.atoms import Atom, Potential
    from causal_datasets.docalc.decide import Counterexample
    from causal_datasets.docalc.expr import Expect, Expr, Num, Prob, Sum, to_latex, to_text
    from causal_datasets.docalc.graph import DoGraph
    from causal_datasets.docalc.identification import QueryError, UnsoundIdentification, identify
    from causal_datasets.docalc.identified import DerivationStep, Hedge, Identification
    from causal_datasets.docalc.parser import ExprParseError, parse
    from causal_datasets.docalc.scoring_rules import SCORING_RULES, ScoringRule, identification_error
    from causal_datasets.docalc.search import Proof, ProofStep, SearchLimits
    from causal_datasets.docalc.verdict import UnsoundProof, Verdict, check_equivalence, check_proof
    from causal_datasets.docalc.y0_dsl import Y0ConversionError, from_y0, from_y0_text, to_y0, to_y0_text

#: every public name and the module that defines it
_SOURCES = {
    "expr": ("Expr", "Prob", "Expect", "Sum", "Num", "to_text", "to_latex"),
    "atoms": ("Atom", "Potential"),
    "parser": ("parse", "ExprParseError"),
    "y0_dsl": ("to_y0_text", "from_y0_text", "to_y0", "from_y0", "Y0ConversionError"),
    "graph": ("DoGraph",),
    "verdict": ("check_equivalence", "check_proof", "Verdict", "UnsoundProof"),
    "search": ("Proof", "ProofStep", "SearchLimits"),
    "decide": ("Counterexample",),
    "identification": ("identify", "QueryError", "UnsoundIdentification"),
    "identified": ("Identification", "DerivationStep", "Hedge"),
    "scoring_rules": ("SCORING_RULES", "ScoringRule", "identification_error"),
}
_MODULE_OF = {name: module for module, names in _SOURCES.items() for name in names}
#: the public API, written out so that a type checker sees what is exported (each name is in _SOURCES)
__all__ = [
    "Expr",
    "Prob",
    "Expect",
    "Sum",
    "Num",
    "Atom",
    "Potential",
    "to_text",
    "to_latex",
    "parse",
    "ExprParseError",
    "to_y0_text",
    "from_y0_text",
    "to_y0",
    "from_y0",
    "Y0ConversionError",
    "DoGraph",
    "check_equivalence",
    "check_proof",
    "Verdict",
    "UnsoundProof",
    "Proof",
    "ProofStep",
    "SearchLimits",
    "Counterexample",
    "identify",
    "Identification",
    "DerivationStep",
    "Hedge",
    "QueryError",
    "UnsoundIdentification",
    "SCORING_RULES",
    "ScoringRule",
    "identification_error",
]


def __getattr__(name: str) -> object:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
