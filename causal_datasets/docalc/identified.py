"""What :func:`.identification.identify` returns: the identification, its derivation steps and the hedge.

A derivation step keeps the expressions it rewrote and prints their texts only when asked; an
:class:`Identification` converts to a :class:`~.search.Proof` (for :func:`.verdict.check_proof`), to a
dictionary (JSON) and to LaTeX (a notebook shows it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from causal_datasets.docalc.admg import CForest
from causal_datasets.docalc.atoms import latex_name
from causal_datasets.docalc.chains import ShownInLatex, bracketed, latex_chain
from causal_datasets.docalc.expr import Expr, Prob, to_latex
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.search import Proof, ProofStep

#: how a derivation step was checked (:func:`.identification.identify`'s ``check``)
Check = Literal["rule", "equivalence", "undecided", "unchecked"]


@dataclass(frozen=True)
class DerivationStep:
    """One step: the term ``term`` of the previous expression (every occurrence) became ``result`` by
    ``applications``, the rule applied once or several times in a row (each a term and what it became);
    ``whole`` is the whole expression after the step. Their texts (``before``, ``after``,
    ``expression``) are printed when asked: a long derivation of a large graph costs its texts only
    when it is read."""

    line: str  # "ID line 4", "IDC line 1", ...
    rule: str
    condition: str
    term: Prob
    result: Expr
    whole: Expr
    applications: tuple[tuple[Prob, Expr], ...]
    check: Check = "unchecked"

    @property
    def before(self) -> str:
        return self.term.text

    @property
    def after(self) -> str:
        return self.result.text

    @property
    def expression(self) -> str:
        return self.whole.text

    def describe(self) -> str:
        times = f" ×{len(self.applications)}" if len(self.applications) > 1 else ""
        return f"{self.line}, {self.rule}{times}{bracketed(self.condition)}: {self.before}  =>  {self.after}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "rule": self.rule,
            "applications": len(self.applications),
            "condition": self.condition,
            "before": self.before,
            "after": self.after,
            "expression": self.expression,
            "check": self.check,
        }


@dataclass(frozen=True)
class Hedge:
    """The witness of non-identifiability: the C-forests ``forest`` (F) and ``sub_forest`` (F') that ID's
    line 5 fails on, for the query of the failing call (which sets aside the treatments of earlier lines)."""

    query: str
    forest: CForest
    sub_forest: CForest

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "F": self.forest.to_dict(), "F_prime": self.sub_forest.to_dict()}


@dataclass(frozen=True)
class Identification(ShownInLatex):
    """The answer of :func:`identify`. ``estimand`` is None when the query is not identifiable (then
    ``hedge`` says why). ``derivation`` leads from ``symbolic_query`` to the symbolic estimand;
    ``values`` are the query's constants, put into ``estimand``."""

    query: str
    algorithm: Literal["ID", "IDC"]
    estimand: Expr | None
    symbolic_query: str
    derivation: tuple[DerivationStep, ...] = ()
    hedge: Hedge | None = None
    values: tuple[tuple[str, int], ...] = ()
    arbitrary: tuple[str, ...] = ()

    @property
    def identifiable(self) -> bool:
        return self.estimand is not None

    def proof(self) -> Proof:
        """The derivation as a :class:`~.search.Proof` (for :func:`.verdict.check_proof`)."""
        return Proof(
            self.symbolic_query,
            tuple(
                ProofStep(f"{step.line}: {step.rule}", step.condition, step.before, step.after, step.expression)
                for step in self.derivation
            ),
        )

    def to_latex(self) -> str:
        """LaTeX for a notebook: the derivation as an ``aligned`` block from the query to the estimand, each
        line naming its ID/IDC line and rule (the query's constants put in on a last line), or the query
        with "not identifiable" and the nodes of the hedge's two C-forests."""
        if self.hedge is not None:
            forests = ", ".join(
                rf"{name} = \{{{', '.join(map(latex_name, forest.nodes))}\}}"
                for name, forest in (("F", self.hedge.forest), ("F'", self.hedge.sub_forest))
            )
            return rf"{to_latex(parse(self.query))} \quad \text{{not identifiable, the hedge }} {forests}"
        steps = [(step.whole, f"{step.line}, {step.rule}") for step in self.derivation]
        if self.values and self.estimand is not None:
            steps.append((self.estimand, "at " + ", ".join(f"{var}={value}" for var, value in self.values)))
        return latex_chain(parse(self.symbolic_query), steps)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "identifiable": self.identifiable,
            "algorithm": self.algorithm,
            "estimand": self.estimand.text if self.estimand is not None else None,
            "arbitrary": list(self.arbitrary),
            "values": dict(self.values),
            "symbolic_query": self.symbolic_query,
            "derivation": [step.to_dict() for step in self.derivation],
            "hedge": self.hedge.to_dict() if self.hedge else None,
        }
