"""Hypothesis strategies for random causal expressions: the terms y0's DSL can write (its sums, products and
quotients of them) and anything the package writes."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from causal_datasets.docalc.atoms import Atom
from causal_datasets.docalc.expr import Expect, Expr, Num, Prob, Sum, add, div, mul, negate

NAMES = ("X", "Y", "Z", "W", "V1", "V2")  # all in y0's parse_y0 vocabulary


@st.composite
def y0_terms(draw) -> Prob:
    """A probability term y0's DSL writes: symbolic values (a variable's own or the primed other one), an
    interventional term, or counterfactual variables beside a factual one (y0 reads a term whose every
    variable has the same subscript as an interventional term)."""
    names = draw(st.permutations(NAMES))
    sizes = draw(st.tuples(st.integers(1, 2), st.integers(0, 2), st.integers(0, 2)))
    event, given, rest = names[: sizes[0]], names[sizes[0] : sum(sizes[:2])], names[sum(sizes[:2]) :]
    value = st.sampled_from(["", "'"])
    do = tuple((v, v + draw(value)) for v in rest[: sizes[2]])
    counterfactual = not do and given and draw(st.booleans())

    def atom(var: str, factual: bool) -> Atom:
        cf = (
            ()
            if factual
            else tuple(
                (v, v + draw(value)) for v in draw(st.lists(st.sampled_from(rest), min_size=1, max_size=2, unique=True))
            )
        )
        return Atom(var, var + draw(value), cf)

    return Prob(tuple(atom(v, not counterfactual) for v in event), do, tuple(atom(v, True) for v in given))


def sum_over(var: str, body: Expr) -> Expr:
    return Sum(var, var, body)


y0_expressions = st.recursive(
    y0_terms() | st.sampled_from([Num(Fraction(1)), Num(Fraction(0))]),
    lambda inner: st.one_of(
        st.builds(mul, inner, inner), st.builds(div, inner, inner), st.builds(sum_over, st.sampled_from(NAMES), inner)
    ),
    max_leaves=6,
)

expressions = st.recursive(  # anything the package writes: sums of terms, expectations, constants too
    y0_terms()
    | st.builds(lambda v, x: Prob((Atom(v, x),), (("X", 1),)), st.sampled_from(NAMES[1:]), st.integers(0, 3))
    | st.builds(lambda v, c: Expect(((c, Atom(v, None)),)), st.sampled_from(NAMES), st.integers(-3, 3).filter(bool))
    | st.builds(lambda n: Num(Fraction(n, 4)), st.integers(0, 40)),
    lambda inner: st.one_of(
        st.builds(mul, inner, inner),
        st.builds(div, inner, inner),
        st.builds(add, inner, inner),
        st.builds(negate, inner),
        st.builds(sum_over, st.sampled_from(NAMES), inner),
    ),
    max_leaves=8,
)
