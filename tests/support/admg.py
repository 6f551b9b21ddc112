"""Random ADMGs, identification formulas and their mutations, labelled by an independent evaluator.

Nothing here uses the verifier's code (``causal_datasets.docalc``): the graphs, the ID algorithm
(Shpitser & Pearl 2006), the formulas (their own small tree, printed as the verifier's text) and
the evaluator are written from the definitions. The evaluator draws explicit latent-variable
models — one latent variable per ``A<->B`` edge with 2 to 6 values, observed variables with 2 or
3 — and computes every probability from the tables with ``numpy.einsum`` (the latent variables
summed out, the intervened variables' tables left out).

Used by ``tests/docalc/test_docalc_latent.py`` and ``scripts/bench_docalc_latent.py``.
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field

import numpy as np

# ---- graphs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ADMG:
    """Observed nodes in a causal order, directed edges (forward in that order), bidirected pairs."""

    nodes: tuple[str, ...]
    directed: frozenset[tuple[str, str]]
    bidirected: frozenset[frozenset[str]]

    def text(self) -> str:
        edges = [f"{a}->{b}" for a, b in sorted(self.directed)]
        edges += [f"{a}<->{b}" for a, b in sorted(tuple(sorted(p)) for p in self.bidirected)]
        lone = [n for n in self.nodes if not any(n in e for e in (*self.directed, *self.bidirected))]
        return ",".join(edges + lone)

    def parents(self, node: str, within: frozenset[str]) -> list[str]:
        return [a for a, b in self.directed if b == node and a in within]

    def ancestors(self, targets, within: frozenset[str], cut: frozenset[str] = frozenset()) -> frozenset[str]:
        """``targets`` and their ancestors in the subgraph on ``within``, edges into ``cut`` removed."""
        found, stack = set(targets), list(targets)
        while stack:
            node = stack.pop()
            if node in cut:
                continue
            for parent in self.parents(node, within):
                if parent not in found:
                    found.add(parent)
                    stack.append(parent)
        return frozenset(found)

    def districts(self, within: frozenset[str]) -> list[frozenset[str]]:
        """The bidirected-connected components of the subgraph on ``within``."""
        left, parts = set(within), []
        while left:
            start = min(left, key=self.nodes.index)
            part, stack = {start}, [start]
            while stack:
                node = stack.pop()
                for pair in self.bidirected:
                    if node in pair:
                        (other,) = pair - {node}
                        if other in within and other not in part:
                            part.add(other)
                            stack.append(other)
            parts.append(frozenset(part))
            left -= part
        return parts

    def order(self, within) -> list[str]:
        return [n for n in self.nodes if n in within]


def random_admg(rng: random.Random, n: int, edge_probability: float, latent_edges: int) -> ADMG:
    """``n`` nodes V1..Vn in a random causal order, each forward edge with the given probability,
    and ``latent_edges`` distinct bidirected pairs (fewer if the graph has fewer pairs)."""
    names = [f"V{i}" for i in range(1, n + 1)]
    rng.shuffle(names)
    directed = frozenset(
        (names[i], names[j]) for i, j in itertools.combinations(range(n), 2) if rng.random() < edge_probability
    )
    pairs = [frozenset(p) for p in itertools.combinations(names, 2)]
    bidirected = frozenset(rng.sample(pairs, min(latent_edges, len(pairs))))
    return ADMG(tuple(names), directed, bidirected)


# ---- formulas ---------------------------------------------------------------------------------

Value = int | str  # a constant or an index name


@dataclass(frozen=True)
class Term:
    """``P(event | do(actions), given)``: each part maps a variable to a constant or an index."""

    event: tuple[tuple[str, Value], ...]
    given: tuple[tuple[str, Value], ...] = ()
    actions: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True)
class Op:
    """``kind`` in product, ratio, plus, minus, sum (``sum``: ``args = (variable, index, body)``), number."""

    kind: str
    args: tuple


Formula = Term | Op


def _atom(var: str, value: Value) -> str:
    return var if value == var else f"{var}={value}"


def text(f: Formula) -> str:
    """The formula in the verifier's notation."""
    if isinstance(f, Term):
        parts = [", ".join(_atom(v, x) for v, x in f.event)]
        conditions = []
        if f.actions:
            conditions.append("do(" + ", ".join(_atom(v, x) for v, x in f.actions) + ")")
        conditions += [_atom(v, x) for v, x in f.given]
        return f"P({parts[0]}{' | ' + ', '.join(conditions) if conditions else ''})"
    if f.kind == "number":
        return str(f.args[0])
    if f.kind == "sum":
        var, index, body = f.args
        return f"\\sum_{{{_atom(var, index)}}} ({text(body)})"
    symbol = {"product": " * ", "ratio": " / ", "plus": " + ", "minus": " - "}[f.kind]
    return symbol.join(f"({text(a)})" for a in f.args)


def product(factors: list[Formula]) -> Formula:
    factors = [f for f in factors if not (isinstance(f, Op) and f.kind == "number" and f.args[0] == 1)]
    if not factors:
        return Op("number", (1,))
    return factors[0] if len(factors) == 1 else Op("product", tuple(factors))


class _Fresh:
    """Fresh index names for summation variables (``V3s1``, ``V3s2``, ...)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, var: str) -> str:
        self.count += 1
        return f"{var}s{self.count}"


def summed(variables, names: dict[str, Value], fresh: _Fresh, build) -> Formula:
    """``sum over variables of build(names)``, each summed variable bound to a fresh index."""
    inner = dict(names)
    bound = []
    for var in variables:
        inner[var] = fresh(var)
        bound.append((var, inner[var]))
    body = build(inner)
    for var, index in reversed(bound):
        body = Op("sum", (var, index, body))
    return body


# ---- distributions in the ID algorithm --------------------------------------------------------


class Observed:
    """The observational distribution P(V)."""

    def marginal(self, variables, names, fresh) -> Formula:
        if not variables:
            return Op("number", (1,))
        return Term(tuple((v, names[v]) for v in variables))

    def conditional(self, var, given, names, fresh) -> Formula:
        return Term(((var, names[var]),), tuple((v, names[v]) for v in given))


@dataclass
class Factored:
    """prod_i base(v_i | given_i) over ``variables``; the givens outside ``variables`` are held at ``outer``."""

    base: object
    factors: list[tuple[str, tuple[str, ...]]]
    variables: frozenset[str]
    outer: dict[str, Value] = field(default_factory=dict)

    def marginal(self, variables, names, fresh) -> Formula:
        rest = [v for v, _ in self.factors if v not in variables]

        def build(inner):
            full = {**self.outer, **inner}
            return product([self.base.conditional(v, given, full, fresh) for v, given in self.factors])

        return summed(rest, names, fresh, build)

    def conditional(self, var, given, names, fresh) -> Formula:
        numerator = self.marginal(set(given) | {var}, names, fresh)
        if not given:
            return numerator
        return Op("ratio", (numerator, self.marginal(set(given), names, fresh)))


class NotIdentifiable(Exception):
    """The ID algorithm met a hedge."""


def identify(g: ADMG, y: frozenset[str], x: frozenset[str]) -> Formula:
    """A formula for P(y | do(x)) in observational probabilities (free indices: y's and x's names)."""
    names = {v: v for v in g.nodes}
    return _id(g, y, x, Observed(), frozenset(g.nodes), names, _Fresh())


def _id(g: ADMG, y, x, p, v, names, fresh) -> Formula:
    if not x:  # line 1
        return p.marginal([n for n in g.order(y)], names, fresh)
    ancestors = g.ancestors(y, v)
    if ancestors != v:  # line 2
        return _id(g, y, x & ancestors, p, ancestors, names, fresh)
    w = (v - x) - g.ancestors(y, v, cut=x)
    if w:  # line 3: the result does not depend on w's values; they are fixed at 0
        return _id(g, y, x | w, p, v, {**names, **dict.fromkeys(w, 0)}, fresh)
    parts = g.districts(v - x)
    if len(parts) > 1:  # line 4
        rest = g.order(v - y - x)
        return summed(rest, names, fresh, lambda inner: product([_id(g, s, v - s, p, v, inner, fresh) for s in parts]))
    (s,) = parts
    whole = g.districts(v)
    if whole == [v]:  # line 5
        raise NotIdentifiable(f"hedge for {sorted(y)} given do({sorted(x)})")
    order = g.order(v)
    if s in whole:  # line 6
        return summed(
            g.order(s - y),
            names,
            fresh,
            lambda inner: product([p.conditional(n, order[: order.index(n)], inner, fresh) for n in g.order(s)]),
        )
    (bigger,) = [d for d in whole if s < d]  # line 7
    factors = [(n, tuple(order[: order.index(n)])) for n in g.order(bigger)]
    outer = {n: names[n] for n in v - bigger}
    return _id(g, y, x & bigger, Factored(p, factors, bigger, outer), bigger, names, fresh)


# ---- mutations and plausible wrong answers ---------------------------------------------------------


def terms_of(f: Formula) -> list[Term]:
    if isinstance(f, Term):
        return [f]
    if f.kind == "number":
        return []
    args = f.args[2:] if f.kind == "sum" else f.args
    return [t for a in args for t in terms_of(a)]


def replace_term(f: Formula, old: Term, new: Formula) -> Formula:
    """``f`` with the first occurrence of ``old`` replaced (identity on the tree)."""
    done = [False]

    def walk(node):
        if done[0]:
            return node
        if node is old:
            done[0] = True
            return new
        if isinstance(node, Term) or node.kind == "number":
            return node
        if node.kind == "sum":
            var, index, body = node.args
            return Op("sum", (var, index, walk(body)))
        return Op(node.kind, tuple(walk(a) for a in node.args))

    return walk(f)


def mutations(rng: random.Random, f: Formula, g: ADMG, count: int) -> list[tuple[str, Formula]]:
    """Up to ``count`` single mistakes in ``f``: a condition dropped or added, a term replaced by its
    marginal, a factor left out, a sign flipped."""
    found = []
    terms = terms_of(f)
    for _ in range(4 * count):
        if len(found) >= count or not terms:
            break
        term = rng.choice(terms)
        kind = rng.choice(["drop condition", "add condition", "marginal", "drop factor", "change value"])
        used = {v for v, _ in (*term.event, *term.given, *term.actions)}
        if kind == "drop condition" and term.given:
            given = list(term.given)
            given.pop(rng.randrange(len(given)))
            found.append((kind, replace_term(f, term, Term(term.event, tuple(given), term.actions))))
        elif kind == "add condition" and len(used) < len(g.nodes):
            extra = rng.choice([n for n in g.nodes if n not in used])
            found.append((kind, replace_term(f, term, Term(term.event, (*term.given, (extra, 0)), term.actions))))
        elif kind == "marginal" and (term.given or term.actions):
            found.append((kind, replace_term(f, term, Term(term.event))))
        elif kind == "drop factor" and len(terms) > 1:
            found.append((kind, replace_term(f, term, Op("number", (1,)))))
        elif kind == "change value":
            (var, value), *rest = term.event
            if isinstance(value, int):
                changed = Term(((var, 1 - min(value, 1)), *rest), term.given, term.actions)
                found.append((kind, replace_term(f, term, changed)))
    return found


def plausible_answers(g: ADMG, y: frozenset[str], x: frozenset[str]) -> list[tuple[str, Formula]]:
    """Answers a student might give for P(y | do(x)): the conditional, and back-door adjustments for
    the parents of x and for every observed non-descendant of x."""
    event = tuple((v, v) for v in g.order(y))
    action = tuple((v, v) for v in g.order(x))
    answers = [("conditional", Term(event, action))]
    descendants = {n for n in g.nodes if x & g.ancestors({n}, frozenset(g.nodes))}
    for label, adjust in (
        ("parents", {p for n in x for p in g.parents(n, frozenset(g.nodes))}),
        ("non-descendants", set(g.nodes) - descendants),
    ):
        adjust = g.order(adjust - y - x)
        if adjust:
            body = product([Term(event, action + tuple((z, z) for z in adjust)), Term(tuple((z, z) for z in adjust))])
            for z in reversed(adjust):
                body = Op("sum", (z, z, body))
            answers.append((f"adjust for {label}", body))
    return answers


# ---- the independent evaluator ---------------------------------------------------------------------


class ExplicitModel:
    """A random discrete model with one explicit latent variable per bidirected edge."""

    def __init__(
        self, g: ADMG, domains: dict[str, int], rng: np.random.Generator, latent_values=(2, 3, 4, 5, 6)
    ) -> None:
        self.g, self.domains = g, domains
        self.latents = {pair: int(rng.choice(latent_values)) for pair in g.bidirected}
        self.prior = {pair: rng.dirichlet(np.ones(k)) for pair, k in self.latents.items()}
        everything = frozenset(g.nodes)
        self.tables = {}
        for node in g.nodes:
            parents = g.parents(node, everything)
            hidden = [pair for pair in g.bidirected if node in pair]
            shape = [domains[p] for p in parents] + [self.latents[h] for h in hidden]
            table = rng.dirichlet(np.ones(domains[node]), size=tuple(shape))
            self.tables[node] = (parents, hidden, table)
        self._marginals: dict[tuple, np.ndarray] = {}

    def marginal(self, variables: tuple[str, ...], actions: frozenset[str]) -> np.ndarray:
        """P(variables | do(actions)), one axis per variable in the given order (an intervened
        variable's axis holds its action values): every table but the intervened ones, the latent
        variables and the other observed ones summed out in one ``numpy.einsum``."""
        key = (variables, actions)
        found = self._marginals.get(key)
        if found is None:
            label = {n: i for i, n in enumerate(self.g.nodes)}
            label |= {pair: len(label) + i for i, pair in enumerate(sorted(self.latents, key=sorted))}
            operands, mentioned = [], set()
            for pair in self.latents:
                operands += [self.prior[pair], [label[pair]]]
            for node, (parents, hidden, table) in self.tables.items():
                if node not in actions:
                    axes = [*parents, *hidden, node]
                    operands += [table, [label[a] for a in axes]]
                    mentioned.update(axes)
            output = [n for n in variables if n in mentioned]
            found = _bucket_elimination(operands, [label[n] for n in output])
            for axis, node in enumerate(variables):  # an action no table depends on: any value, the same numbers
                if node not in mentioned:
                    found = np.repeat(np.expand_dims(found, axis), self.domains[node], axis=axis)
            self._marginals[key] = found
        return found


def _bucket_elimination(operands: list, output: list[int]) -> np.ndarray:
    """The einsum of ``operands`` (array, labels, array, labels, ...) onto ``output``, summing one
    label at a time — the one whose bucket (the tables that hold it) is smallest — with an einsum
    over that bucket only."""
    tables = [(operands[i], list(operands[i + 1])) for i in range(0, len(operands), 2)]
    size = {label: array.shape[k] for array, labels in tables for k, label in enumerate(labels)}
    pending = {label for _, labels in tables for label in labels} - set(output)
    while pending:
        label = min(pending, key=lambda m: (_bucket_size(tables, size, m), m))
        bucket = [t for t in tables if label in t[1]]
        tables = [t for t in tables if label not in t[1]]
        kept = sorted({m for _, labels in bucket for m in labels} - {label})
        arguments = [x for array, labels in bucket for x in (array, labels)]
        tables.append((np.einsum(*arguments, kept), kept))
        pending.remove(label)
    arguments = [x for array, labels in tables for x in (array, labels)]
    return np.einsum(*arguments, output)


def _bucket_size(tables: list, size: dict, label: int) -> int:
    return math.prod(size[m] for m in {m for _, labels in tables if label in labels for m in labels})


@dataclass(frozen=True)
class Labelled:
    """Values over index names (one axis per name, sorted)."""

    names: tuple[str, ...]
    array: np.ndarray

    def spread(self, names) -> np.ndarray:
        shape = [self.array.shape[self.names.index(n)] if n in self.names else 1 for n in names]
        order = sorted(range(len(self.names)), key=lambda i: names.index(self.names[i]))
        return np.transpose(self.array, order).reshape(shape)


def evaluate(f: Formula, model: ExplicitModel) -> Labelled:
    """``f`` on ``model`` for every value of its free indices."""
    if isinstance(f, Term):
        return _term(f, model)
    if f.kind == "number":
        return Labelled((), np.asarray(float(f.args[0])))
    if f.kind == "sum":
        var, index, body = f.args
        inner = evaluate(body, model)
        if index in inner.names:
            axis = inner.names.index(index)
            return Labelled(inner.names[:axis] + inner.names[axis + 1 :], inner.array.sum(axis=axis))
        return Labelled(inner.names, inner.array * model.domains[var])
    parts = [evaluate(a, model) for a in f.args]
    names = tuple(sorted(set().union(*(p.names for p in parts))))
    result = parts[0].spread(names)
    operation = {"product": np.multiply, "ratio": np.divide, "plus": np.add, "minus": np.subtract}[f.kind]
    for other in parts[1:]:
        result = operation(result, other.spread(names))
    return Labelled(names, result)


def _term(t: Term, model: ExplicitModel) -> Labelled:
    """P(event | do(actions), given) from the marginal of its variables under the actions."""
    value = dict((*t.event, *t.given, *t.actions))
    mentioned = [n for n in model.g.nodes if n in value]
    marginal = model.marginal(tuple(mentioned), frozenset(v for v, _ in t.actions))
    numerator = _read(marginal, mentioned, value)
    if not t.given:
        return numerator
    event = {v for v, _ in t.event}
    conditions = [n for n in mentioned if n not in event]
    denominator = _read(marginal.sum(axis=tuple(i for i, n in enumerate(mentioned) if n in event)), conditions, value)
    names = tuple(sorted(set(numerator.names) | set(denominator.names)))
    return Labelled(names, numerator.spread(names) / denominator.spread(names))


def _read(table: np.ndarray, axes: list[str], value: dict[str, Value]) -> Labelled:
    """``table`` (one axis per variable of ``axes``) read at the constants, one axis per index name."""
    index = tuple(value[n] if isinstance(value[n], int) else slice(None) for n in axes)
    names = [value[n] for n in axes if not isinstance(value[n], int)]
    order = sorted(range(len(names)), key=names.__getitem__)
    return Labelled(tuple(names[i] for i in order), np.transpose(table[index], order))


def differ(
    a: Formula,
    b: Formula,
    g: ADMG,
    domains: dict[str, int],
    seed: int,
    models: int = 4,
    tolerance: float = 1e-9,
    latent_values=(2, 3, 4, 5, 6),
) -> bool:
    """Do ``a`` and ``b`` differ (beyond ``tolerance``) on one of ``models`` explicit random models?"""
    rng = np.random.default_rng(seed)
    for _ in range(models):
        model = ExplicitModel(g, domains, rng, latent_values)
        with np.errstate(divide="ignore", invalid="ignore"):
            left, right = evaluate(a, model), evaluate(b, model)
            names = tuple(sorted(set(left.names) | set(right.names)))
            gap = np.abs(left.spread(names) - right.spread(names))
        if np.nanmax(gap, initial=0.0) > tolerance:
            return True
    return False


# ---- the corpus ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    graph: ADMG
    domains: dict
    a: str
    b: str
    kind: str
    equivalent: bool  # the evaluator's label


def corpus(
    seed: int,
    count: int,
    nodes=(4, 6),
    latent_edges=(0, 5),
    edge_probability: float = 0.4,
    label_models: int = 4,
    latent_values=(2, 3, 4, 5, 6),
) -> list[Pair]:
    """``count`` labelled pairs on random ADMGs: for random queries P(y | do(x)), the ID formula
    against the query (equivalent), its mutations and plausible wrong answers against the query,
    each labelled by the explicit-model evaluator (``label_models`` models, latent variables with
    ``latent_values`` values)."""
    rng = random.Random(seed)
    pairs: list[Pair] = []
    while len(pairs) < count:
        g = random_admg(rng, rng.randint(*nodes), edge_probability, rng.randint(*latent_edges))
        domains = {n: rng.choice((2, 2, 3)) for n in g.nodes}
        y = frozenset([g.nodes[-1]] if rng.random() < 0.7 else rng.sample(g.nodes[1:], 1))
        candidates = [n for n in g.nodes if n not in y]
        x = frozenset(rng.sample(candidates, rng.randint(1, min(2, len(candidates)))))
        query = Term(tuple((v, v) for v in g.order(y)), (), tuple((v, v) for v in g.order(x)))
        answers: list[tuple[str, Formula]] = []
        try:
            formula = identify(g, y, x)
            answers.append(("identification formula", formula))
            answers += mutations(rng, formula, g, 2)
        except NotIdentifiable:
            pass
        answers += plausible_answers(g, y, x)
        for kind, answer in answers:
            seed = rng.randrange(1 << 30)
            label = not differ(query, answer, g, domains, seed, label_models, latent_values=latent_values)
            pairs.append(Pair(g, domains, text(query), text(answer), kind, label))
    return pairs[:count]
