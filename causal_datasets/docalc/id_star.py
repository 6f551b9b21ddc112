"""ID* and IDC* on the counterfactual graph (:mod:`.counterfactual_graph`): the lines of Shpitser and Pearl's
algorithms (JMLR 2008, figures 7 and 8), each producing the next whole expression of the derivation (a
:data:`Stage`), the value of the query in ``P_*`` at the end, or a :class:`Conflict` (line 8).

See :mod:`.counterfactual_identification` for the public entry point and what each answer means.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from causal_datasets.docalc.admg import ADMG
from causal_datasets.docalc.atoms import Atom
from causal_datasets.docalc.counterfactual_graph import (
    CounterfactualGraph,
    Fixed,
    Inconsistent,
    Node,
    Value,
    make_counterfactual_graph,
)
from causal_datasets.docalc.expr import Expr, Num, Prob, Sum, div, mul

ZERO, ONE = Num(Fraction(0)), Num(Fraction(1))


@dataclass(frozen=True)
class Conflict:
    """ID*'s line 8 witness: in the district ``district`` of the counterfactual graph of ``event``, the
    variable ``variable`` is set to one value (a subscript) and attains another (``values``)."""

    event: str
    district: tuple[str, ...]
    variable: str
    values: tuple[str, str]

    def text(self) -> str:
        return (
            f"district {{{', '.join(self.district)}}} of the counterfactual graph of {self.event} sets or sees "
            f"{self.variable} at both {self.values[0]} and {self.values[1]} (ID* line 8)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "district": list(self.district),
            "variable": self.variable,
            "values": list(self.values),
        }


Stage = tuple[Expr, str, str, str]  # the whole expression, line, rule, reason


class Fail(Exception):
    """ID*'s line 8: the query is not identifiable; ``conflict`` is the witness."""

    def __init__(self, conflict: Conflict) -> None:
        super().__init__(conflict.text())
        self.conflict = conflict


class Undefined(Exception):
    """The conditions have probability zero."""


class IdStar:
    """ID* and IDC* on one graph; ``taken`` are the query's symbols, which summation indices avoid."""

    def __init__(self, admg: ADMG, taken: set[str]) -> None:
        self.admg = admg
        self.taken = set(taken)

    def id_star(self, gamma: tuple[Atom, ...]) -> tuple[Expr, list[Stage]]:
        """ID*: the probability of the conjunction ``gamma`` and the stages from ``P(gamma)`` to it."""
        stages: list[Stage] = []
        contradiction = next((a for a in gamma if a.var in dict(a.cf) and dict(a.cf)[a.var] != a.value), None)
        if contradiction is not None:  # line 2
            stages.append((ZERO, "ID* line 2", "effectiveness", f"{_atom_text(contradiction)} is never true"))
            return ZERO, stages
        kept = tuple(a for a in gamma if a.var not in dict(a.cf))
        if len(kept) < len(gamma):  # line 3
            stages.append((Prob(kept) if kept else ONE, "ID* line 3", "effectiveness", "a variable set to its value"))
        if not kept:  # line 1
            return ONE, stages
        try:  # line 4
            cg = make_counterfactual_graph(self.admg, kept)
        except Inconsistent as inconsistent:  # line 5
            stages.append((ZERO, "ID* line 5", "make-cg (Lemmas 24, 25)", f"inconsistent: {inconsistent}"))
            return ZERO, stages
        event = Prob(tuple(Atom(n.var, v, n.world) for n, v in cg.event.items()))
        if event != Prob(kept):
            merged = "; ".join(f"{a.text} is {b.text}" for a, b in cg.merged)
            stages.append((event, "ID* line 4", "make-cg (Lemmas 24, 25)", merged))
        names = self._indices(cg)
        districts = cg.districts()
        factors = [self._district_event(cg, d, names) for d in districts]
        stages.append(
            (
                _summed(mul(*factors), cg, names),
                "ID* line 6",
                "c-component factorization of the counterfactual graph",
                "districts " + " | ".join("{" + ", ".join(n.text for n in d) + "}" for d in districts),
            )
        )
        terms = [self._line9(cg, d, names, event.text) for d in districts]
        result = _summed(mul(*terms), cg, names)
        stages.append((result, "ID* line 9", "P(var(S) | do(sub(S))) for each district", "no conflict"))
        return result, stages

    def idc_star(self, gamma: tuple[Atom, ...], delta: tuple[Atom, ...]) -> tuple[Expr, list[Stage]]:
        """IDC*: ``P(gamma | delta)`` and the stages from that term to it."""
        try:
            condition, _ = self.id_star(delta)
        except Fail:
            condition = None
        if condition == ZERO:  # line 1
            raise Undefined(f"the conditions {Prob(delta).text} are inconsistent (IDC* line 1)")
        contradiction = next((a for a in gamma if dict(a.cf).get(a.var, a.value) != a.value), None)
        if contradiction is not None:
            return ZERO, [(ZERO, "IDC* line 3", "effectiveness", f"{_atom_text(contradiction)} is never true")]
        gamma = tuple(a for a in gamma if a.var not in dict(a.cf))
        delta = tuple(a for a in delta if a.var not in dict(a.cf))
        stages: list[Stage] = []
        if not gamma or not delta:
            shown = Prob(gamma, (), delta) if gamma else ONE
            stages.append((shown, "ID* line 3", "effectiveness", "a variable set to its value"))
            if not gamma:
                return ONE, stages
            result, inner = self.id_star(gamma)
            return result, stages + inner
        try:  # line 2
            cg = make_counterfactual_graph(self.admg, gamma + delta, evidence=delta)
        except Inconsistent as inconsistent:  # line 3
            return ZERO, [(ZERO, "IDC* line 3", "make-cg (Lemmas 24, 25)", f"inconsistent: {inconsistent}")]
        conditions = list(dict.fromkeys(cg.node_of(a) for a in delta))
        outcomes = [n for n in dict.fromkeys(cg.node_of(a) for a in gamma) if n not in conditions]
        if not outcomes:
            return ONE, [(ONE, "IDC* line 2", "make-cg (Lemmas 24, 25)", "every outcome is a condition")]
        before = Prob(_atoms(cg, outcomes), (), _atoms(cg, conditions))
        stages.append((before, "IDC* line 2", "make-cg (Lemmas 24, 25)", "the event in the counterfactual graph"))
        for node in conditions:  # line 4
            alone = sum(n.var == node.var for n in cg.nodes) == 1
            if alone and cg.separated(node, set(outcomes), set(conditions) - {node}):
                value = cg.event[node]
                moved_gamma = tuple(_set(a, node.var, value) for a in _atoms(cg, outcomes))
                moved_delta = tuple(_set(a, node.var, value) for a in _atoms(cg, [n for n in conditions if n != node]))
                stages.append(
                    (
                        Prob(moved_gamma, (), moved_delta),
                        "IDC* line 4",
                        "rule 2 in the counterfactual graph",
                        f"{node.text} is d-separated from the outcomes given the other conditions, "
                        "its edges out cut, and is the only copy of its variable",
                    )
                )
                if not moved_delta:
                    result, inner = self.id_star(moved_gamma)
                else:
                    result, inner = self.idc_star(moved_gamma, moved_delta)
                return result, stages + inner
        gamma, delta = _atoms(cg, outcomes), _atoms(cg, conditions)
        numerator, num_stages = self.id_star(gamma + delta)  # line 5
        denominator, den_stages = self.id_star(delta)
        stages.append(
            (div(Prob(gamma + delta), Prob(delta)), "IDC* line 5", "definition of conditional probability", "")
        )
        current: Expr = Prob(gamma + delta)
        for expr, line, rule, reason in num_stages:
            current = expr
            stages.append((div(expr, Prob(delta)), line, rule, reason))
        for expr, line, rule, reason in den_stages:
            stages.append((div(current, expr), line, rule, reason))
        return div(numerator, denominator), stages

    # -- ID*'s pieces --
    def _indices(self, cg: CounterfactualGraph) -> dict[Node, str]:
        """A fresh symbol for each node the event does not fix (summed over on line 6): the variable's
        name, primed when the query or another node already uses it."""
        names: dict[Node, str] = {}
        for node in cg.nodes:
            if node not in cg.event:
                name = node.var
                while name in self.taken or name in names.values() or (name in self.admg.position and name != node.var):
                    name += "'"
                names[node] = name
        return names

    def _district_event(self, cg: CounterfactualGraph, district: tuple[Node, ...], names: dict[Node, str]) -> Expr:
        """The district's factor: each variable with all its parents set to their values."""
        atoms = []
        for node in district:
            world = tuple((p, _value(cg, parent, names)) for p, parent in cg.parents[node].items())
            atoms.append(Atom(node.var, _value(cg, node, names), world))
        return Prob(tuple(atoms))

    def _line9(self, cg: CounterfactualGraph, district: tuple[Node, ...], names: dict[Node, str], event: str) -> Prob:
        """``P(var(S) | do(sub(S)))``, or :class:`_Fail` (line 8) when a variable takes two values in S."""
        values: dict[str, set[Value]] = {}
        sub: dict[str, Value] = {}
        for node in district:
            values.setdefault(node.var, set()).add(_value(cg, node, names))
            for p, parent in cg.parents[node].items():
                if parent not in district:
                    values.setdefault(p, set()).add(_value(cg, parent, names))
                    sub[p] = _value(cg, parent, names)
        own = {n.var for n in district}
        conflicts = [v for v, seen in values.items() if len(seen) > 1 or (v in own and v in sub)]
        if conflicts:  # a subscript's variable first: the paper's x in sub(S), x' in ev(S)
            var = min(conflicts, key=lambda v: v not in sub)
            shown = sorted(map(str, values[var])) * 2
            raise Fail(Conflict(event, tuple(n.text for n in district), var, (shown[0], shown[-1])))
        event_atoms = tuple(Atom(n.var, _value(cg, n, names)) for n in district)
        return Prob(event_atoms, tuple(sub.items()))


def _value(cg: CounterfactualGraph, node: Node | Fixed, names: dict[Node, str]) -> Value:
    if isinstance(node, Fixed):
        return node.value
    return cg.event[node] if node in cg.event else names[node]


def _summed(body: Expr, cg: CounterfactualGraph, names: dict[Node, str]) -> Expr:
    for node in reversed(cg.nodes):
        if node in names:
            body = Sum(node.var, names[node], body)
    return body


def _atoms(cg: CounterfactualGraph, nodes: list[Node]) -> tuple[Atom, ...]:
    return tuple(Atom(n.var, cg.event[n], n.world) for n in nodes)


def _set(atom: Atom, var: str, value: Value) -> Atom:
    """The atom with ``var`` added to its subscript (unless the subscript already sets it)."""
    return atom if var in dict(atom.cf) else Atom(atom.var, atom.value, atom.cf + ((var, value),))


def _atom_text(atom: Atom) -> str:
    return Prob((atom,)).text[2:-1]
