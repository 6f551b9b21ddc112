"""Incomplete knowledge: independence statements ``X ⊥ Y | Z`` in place of a DAG (DoVerifier App. B).

A statement says that X and Y are d-separated given Z in the unknown causal DAG (so independent
in every model of it). :class:`Independences` holds a list of them and answers which other
statements they imply: each statement is split into elementary ones (``a ⊥ b | D``, single
variables) and the set is closed under the rules every d-separation relation obeys — the
semi-graphoid rule, intersection and composition, each in its elementary form. What the closure
does not contain is not implied, as far as these rules can tell (they are sound, not complete).

Two readings, chosen by ``complete``:

* ``complete=False`` (the statements are some independences that hold): the unknown DAG is any
  DAG in which they hold. :class:`StatementGraph` answers the proof search's graph questions from
  the statements alone, conservatively (a d-separation in the DAG implies it in every mutilated
  graph; every variable may be an ancestor or descendant of every other).
* ``complete=True`` (the statements are every independence the DAG has, i.e. a faithful
  distribution): the unknown DAG is one of a Markov equivalence class, which
  :meth:`Independences.equivalence_class` lists (adjacencies, v-structures, Meek's rules, every
  consistent orientation), after checking that some DAG has exactly these independences.

The verdict built on both is :func:`causal_datasets.docalc.verdict.check_equivalence`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from causal_datasets.docalc.graph import DoGraph, Nodes

#: statements text longer than this is refused before parsing
MAX_TEXT = 100_000
#: independence reasoning over more variables is refused (the closure grows as n² 2^n)
MAX_VARIABLES = 10
#: a Markov equivalence class with more members than this is not enumerated
MAX_CLASS_SIZE = 720

_SYMBOL = re.compile(r"⊥⊥|⫫|⊥|_\|\|_|_\|_|\bindep\b")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9']*$")
_SEPARATORS = re.compile(r"[;\n]")


class IndependenceError(ValueError):
    """Statements that cannot be read (no ``⊥``, an empty side, a bad name, a variable on both sides),
    or, for a complete list, that no DAG has exactly."""


class TooManyGraphs(IndependenceError):
    """More variables, or more DAGs with exactly these independences, than the reasoning takes."""


Triple = tuple[frozenset[str], frozenset[str]]  # ({a, b}, D): a ⊥ b | D


@dataclass(frozen=True)
class Statement:
    """``left ⊥ right | given`` with disjoint, non-empty ``left`` and ``right``."""

    left: frozenset[str]
    right: frozenset[str]
    given: frozenset[str] = frozenset()

    @property
    def text(self) -> str:
        condition = f" | {', '.join(sorted(self.given))}" if self.given else ""
        return f"{', '.join(sorted(self.left))} ⊥ {', '.join(sorted(self.right))}{condition}"

    @property
    def variables(self) -> frozenset[str]:
        return self.left | self.right | self.given

    def elementary(self) -> Iterator[Triple]:
        """The elementary statements equivalent to this one: ``a ⊥ b | D`` for a in left, b in right
        and every D between ``given`` and ``given`` plus the rest of both sides."""
        for a in sorted(self.left):
            for b in sorted(self.right):
                rest = sorted(self.variables - self.given - {a, b})
                for size in range(len(rest) + 1):
                    for extra in itertools.combinations(rest, size):
                        yield frozenset((a, b)), self.given | frozenset(extra)


def parse_statement(text: str) -> Statement:
    """``"X, W ⊥ Y | Z"`` (also ``⊥⊥``, ``⫫``, ``_||_``, ``_|_``, ``indep``) as a :class:`Statement`."""
    parts = _SYMBOL.split(text)
    if len(parts) != 2:
        found = "no" if len(parts) == 1 else "more than one"
        raise IndependenceError(f"{text.strip()[:80]!r}: {found} independence symbol ⊥ (write 'X ⊥ Y | Z')")
    left_text, rest = parts
    right_text, _, given_text = rest.partition("|")
    left, right, given = (_names(side, text) for side in (left_text, right_text, given_text))
    if not left or not right:
        raise IndependenceError(f"{text.strip()[:80]!r}: both sides of ⊥ need a variable")
    if left & right:
        raise IndependenceError(f"{text.strip()[:80]!r}: {sorted(left & right)} on both sides of ⊥")
    return Statement(left - given, right - given, given)


def _names(side: str, text: str) -> frozenset[str]:
    names = [name.strip() for name in side.split(",") if name.strip()]
    bad = [name for name in names if not _NAME.match(name)]
    if bad:
        raise IndependenceError(f"{text.strip()[:80]!r}: {bad[0][:40]!r} is not a variable name")
    return frozenset(names)


@dataclass
class _Memo:
    """What :class:`Independences` computed once: the closure, implied statements, equivalence classes."""

    closure: frozenset[Triple] | None = None
    implied: dict[tuple[frozenset[str], frozenset[str], frozenset[str]], bool] = field(default_factory=dict)
    classes: dict[tuple[str, ...], list[DoGraph]] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class Independences:
    """What is known of the causal DAG: independence statements, and whether they are all of them.

    ``latent`` names unobserved variables (an estimand may not use them); ``_cache`` keeps the
    closure and the equivalence class once computed."""

    statements: tuple[Statement, ...]
    complete: bool = False
    latent: frozenset[str] = frozenset()
    _cache: _Memo = field(default_factory=_Memo, repr=False)

    @classmethod
    def parse(
        cls, statements: str | Iterable[str | Statement], *, complete: bool = False, latent: Iterable[str] = ()
    ) -> Independences:
        """From text (statements separated by ``;`` or new lines) or a list of texts or statements."""
        if isinstance(statements, str):
            if len(statements) > MAX_TEXT:
                raise IndependenceError(f"statements of {len(statements):,} characters (at most {MAX_TEXT:,})")
            statements = [part for part in _SEPARATORS.split(statements) if part.strip()]
        parsed = tuple(s if isinstance(s, Statement) else parse_statement(str(s)) for s in statements)
        names = frozenset().union(*(s.variables for s in parsed), latent)
        if len(names) > MAX_VARIABLES:
            raise TooManyGraphs(
                f"{len(names)} variables in the statements (independence reasoning takes at most {MAX_VARIABLES})"
            )
        return cls(parsed, complete, frozenset(latent))

    @property
    def variables(self) -> frozenset[str]:
        return frozenset().union(*(s.variables for s in self.statements), self.latent)

    @property
    def text(self) -> str:
        return "; ".join(s.text for s in self.statements) or "(no independence)"

    def closure(self) -> frozenset[Triple]:
        """Every elementary statement the statements imply under the d-separation rules."""
        if self._cache.closure is None:
            self._cache.closure = _close((t for s in self.statements for t in s.elementary()), self.variables)
        return self._cache.closure

    def implies(self, xs: Iterable[str], ys: Iterable[str], zs: Iterable[str] = ()) -> bool:
        """Do the statements imply ``xs ⊥ ys | zs``? (An empty side is trivially independent;
        a variable on both sides never is.)"""
        zs = frozenset(zs)
        xs, ys = frozenset(xs) - zs, frozenset(ys) - zs
        if not xs or not ys:
            return True
        if xs & ys:
            return False
        key = (xs, ys, zs)
        if key not in self._cache.implied:
            closure = self.closure()
            self._cache.implied[key] = all(t in closure for t in Statement(xs, ys, zs).elementary())
        return self._cache.implied[key]

    def equivalence_class(self, nodes: Iterable[str]) -> list[DoGraph]:
        """With ``complete=True``: every DAG over ``nodes`` (the statements' variables and any
        others) whose d-separations are exactly the implied statements. Raises
        :class:`IndependenceError` when no DAG has exactly them, or the class has more than
        :data:`MAX_CLASS_SIZE` members."""
        key = tuple(sorted(set(nodes) | self.variables))
        if key not in self._cache.classes:
            if len(key) > MAX_VARIABLES:
                raise TooManyGraphs(f"{len(key)} variables (independence reasoning takes at most {MAX_VARIABLES})")
            self._cache.classes[key] = _markov_class(self.closure(), key, self.latent)
        return self._cache.classes[key]


def graph_independences(graph: DoGraph) -> list[Statement]:
    """Every elementary d-separation ``a ⊥ b | D`` of ``graph``: complete knowledge of its independences."""
    found = []
    for a, b in itertools.combinations(graph.nodes, 2):
        rest = [n for n in graph.nodes if n not in (a, b)]
        for size in range(len(rest) + 1):
            for given in itertools.combinations(rest, size):
                if graph.d_separated({a}, {b}, given):
                    found.append(Statement(frozenset({a}), frozenset({b}), frozenset(given)))
    return found


# ---- closure ---------------------------------------------------------------------------------


def _close(triples: Iterable[Triple], names: frozenset[str]) -> frozenset[Triple]:
    """Close elementary statements under, for variables a, b, c and a set D without them, with
    S1 = a⊥b|D, S2 = a⊥c|bD, S3 = a⊥c|D, S4 = a⊥b|cD:
    S1∧S2 ⇔ S3∧S4 (semi-graphoid), S2∧S4 ⇒ S1∧S3 (intersection), S1∧S3 ⇒ S2∧S4 (composition)."""
    known: set[Triple] = set()
    work = list(triples)

    def has(a: str, b: str, d: frozenset[str]) -> bool:
        return (frozenset((a, b)), d) in known

    def add(a: str, b: str, d: frozenset[str]) -> None:
        triple = (frozenset((a, b)), d)
        if triple not in known:
            known.add(triple)
            work.append(triple)

    def quadruple(a: str, b: str, c: str, d: frozenset[str]) -> None:
        s1, s2, s3, s4 = has(a, b, d), has(a, c, d | {b}), has(a, c, d), has(a, b, d | {c})
        if (s1 and s2) or (s3 and s4) or (s2 and s4) or (s1 and s3):
            for x, y, given in ((a, b, d), (a, c, d | {b}), (a, c, d), (a, b, d | {c})):
                add(x, y, given)

    for triple in list(work):
        known.add(triple)
    while work:
        pair, given = work.pop()
        for a in sorted(pair):
            (other,) = pair - {a}
            for c in sorted(names - given - pair):  # the new statement as S1 (or, b and c swapped, S3)
                quadruple(a, other, c, given)
            for b in sorted(given):  # as S2 (or S4)
                quadruple(a, b, other, given - {b})
    return frozenset(known)


# ---- the proof search's graph, from statements ----------------------------------------------------


@dataclass(frozen=True, eq=False)
class StatementGraph:
    """The graph questions of the rewrite rules answered soundly from statements alone.

    A d-separation in the DAG holds in every graph made from it by cutting edges, so a rule's
    condition in a mutilated graph is granted when the statements imply it in the DAG itself;
    every variable counts as an ancestor and a descendant of every other (which only ever makes a
    rule's condition stricter)."""

    independences: Independences
    nodes: tuple[str, ...]
    latent: frozenset[str] = frozenset()
    domains: dict[str, int] = field(default_factory=dict)

    def d_separated(self, xs: Nodes, ys: Nodes, zs: Nodes = (), cut_in: Nodes = (), cut_out: Nodes = ()) -> bool:
        return self.independences.implies(xs, ys, zs)

    def ancestors(self, nodes: Nodes, cut_in: Nodes = ()) -> frozenset[str]:
        return frozenset(self.nodes)

    def descendants(self, nodes: Nodes) -> frozenset[str]:
        return frozenset(self.nodes)

    def domain(self, node: str) -> int:
        return self.domains.get(node, 2)


# ---- the Markov equivalence class of a complete list ------------------------------------------------


def _markov_class(closure: frozenset[Triple], nodes: tuple[str, ...], latent: frozenset[str]) -> list[DoGraph]:
    separators: dict[frozenset[str], frozenset[str]] = {}
    for pair, given in sorted(closure, key=lambda t: (sorted(t[0]), len(t[1]), sorted(t[1]))):
        separators.setdefault(pair, given)
    adjacent = {frozenset(p) for p in itertools.combinations(nodes, 2) if frozenset(p) not in separators}
    directed: set[tuple[str, str]] = set()
    for pair, given in separators.items():
        a, b = sorted(pair)
        for c in nodes:
            if c not in given and frozenset((a, c)) in adjacent and frozenset((b, c)) in adjacent:
                directed |= {(a, c), (b, c)}
    if any((t, s) in directed for s, t in directed):
        raise IndependenceError("no DAG has exactly these independences (two v-structures orient one edge both ways)")
    colliders = _v_structures(directed, adjacent)
    members: list[DoGraph] = []
    _extend(directed, adjacent, colliders, nodes, latent, members)
    if not members:
        raise IndependenceError("no DAG has exactly these independences")
    first = members[0]
    for a, b in itertools.combinations(nodes, 2):
        rest = [n for n in nodes if n not in (a, b)]
        for size in range(len(rest) + 1):
            for others in itertools.combinations(rest, size):
                if first.d_separated({a}, {b}, others) != ((frozenset((a, b)), frozenset(others)) in closure):
                    raise IndependenceError(
                        "no DAG has exactly these independences: its closest graph "
                        f"({first.edge_text() or 'no edges'}) differs on {a} ⊥ {b} | {', '.join(others) or '∅'}"
                    )
    return members


def _v_structures(directed: set[tuple[str, str]], adjacent: set[frozenset[str]]) -> frozenset[tuple[str, str, str]]:
    """Unshielded colliders a → c ← b (a < b) of the oriented edges."""
    into: dict[str, list[str]] = {}
    for s, t in directed:
        into.setdefault(t, []).append(s)
    return frozenset(
        (a, c, b)
        for c, parents in into.items()
        for a, b in itertools.combinations(sorted(parents), 2)
        if frozenset((a, b)) not in adjacent
    )


def _meek(directed: set[tuple[str, str]], adjacent: set[frozenset[str]]) -> set[tuple[str, str]]:
    """Meek's rules 1–3 applied until nothing changes (the orientations every member shares)."""
    directed = set(directed)
    changed = True
    while changed:
        changed = False
        undirected = [tuple(sorted(p)) for p in adjacent if not any(e in directed for e in itertools.permutations(p))]
        for u, v in undirected:
            for s, t in ((u, v), (v, u)):
                if _forced(s, t, directed, adjacent):
                    directed.add((s, t))
                    changed = True
                    break
    return directed


def _forced(s: str, t: str, directed: set[tuple[str, str]], adjacent: set[frozenset[str]]) -> bool:
    parents_s = {a for a, b in directed if b == s}
    if any(frozenset((a, t)) not in adjacent for a in parents_s):  # rule 1: a → s — t, a and t not adjacent
        return True
    if any((s, m) in directed and (m, t) in directed for m in {b for a, b in directed if a == s}):  # rule 2
        return True
    parents_t = [
        a
        for a, b in directed
        if b == t and frozenset((a, s)) in adjacent and not any(e in directed for e in ((a, s), (s, a)))
    ]
    return any(frozenset((c, d)) not in adjacent for c, d in itertools.combinations(parents_t, 2))  # rule 3


def _extend(
    directed: set[tuple[str, str]],
    adjacent: set[frozenset[str]],
    colliders: frozenset[tuple[str, str, str]],
    nodes: tuple[str, ...],
    latent: frozenset[str],
    members: list[DoGraph],
) -> None:
    directed = _meek(directed, adjacent)
    if any((t, s) in directed for s, t in directed):
        return
    open_edges = sorted(tuple(sorted(p)) for p in adjacent if not any(e in directed for e in itertools.permutations(p)))
    if not open_edges:
        if _v_structures(directed, adjacent) != colliders:
            return
        try:
            graph = DoGraph.from_edges(sorted(directed), nodes=nodes, latent=latent)
        except ValueError:  # a cycle
            return
        members.append(graph)
        if len(members) > MAX_CLASS_SIZE:
            raise TooManyGraphs(f"more than {MAX_CLASS_SIZE} DAGs have exactly these independences")
        return
    u, v = open_edges[0]
    for edge in ((u, v), (v, u)):
        _extend(directed | {edge}, adjacent, colliders, nodes, latent, members)
