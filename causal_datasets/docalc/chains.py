"""Chains of equal expressions: a proof's or a derivation's steps, as one LaTeX ``aligned`` block.

:func:`bracketed` shows a step's condition in its one-line description; :class:`ShownInLatex` is what
:class:`~.search.Proof`, :class:`~.identified.Identification` and
:class:`~.counterfactual_identification.CounterfactualIdentification` share: a notebook shows their
``to_latex()`` as display math.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable

from causal_datasets.docalc.expr import Expr, to_latex


def bracketed(condition: str) -> str:
    """A step's condition as its description shows it: `` [condition]``, or nothing."""
    return f" [{condition}]" if condition else ""


class ShownInLatex(ABC):
    """A result a notebook shows as display math: its :meth:`to_latex`."""

    @abstractmethod
    def to_latex(self) -> str: ...

    def _repr_latex_(self) -> str:
        return f"$${self.to_latex()}$$"


_TEXT_SPECIALS = re.compile(r"[\\{}$&#%^_~]")


def latex_chain(start: Expr, steps: Iterable[tuple[Expr, str]]) -> str:
    r"""A chain of equal expressions (a proof, a derivation) as one LaTeX ``aligned`` block: ``start``, then
    one ``= expression`` per step with its reason as text (characters that text mode reads as commands
    left out)."""
    lines = [f"& {to_latex(start)}"]
    lines += [rf"&= {to_latex(e)} && \text{{{_TEXT_SPECIALS.sub(' ', reason)}}}" for e, reason in steps]
    return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"
