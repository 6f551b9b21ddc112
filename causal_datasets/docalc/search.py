"""Proof search: normalize both sides, prove matching terms separately, else bidirectional BFS.

A proof is a list of :class:`ProofStep` leading from the first expression to the second; steps
found from the second expression's side are replayed backwards (``backward=True``: the rule read
right to left, which is equally valid because every rule is an equality). The search is bounded
by depth, node and time limits; shortest proofs come first within one breadth-first search.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

from causal_datasets.docalc.atoms import Value
from causal_datasets.docalc.budget import remaining
from causal_datasets.docalc.chains import ShownInLatex, bracketed, latex_chain
from causal_datasets.docalc.expr import Add, Expr, Neg, add, leaf_values, negate
from causal_datasets.docalc.graph import RuleGraph
from causal_datasets.docalc.parser import parse
from causal_datasets.docalc.rules import RuleContext, neighbours

#: rules applied greedily before searching: they only expand linear structure
NORMALIZING_RULES = frozenset(
    {
        "linearity of expectation",
        "expectation of a binary variable",
        "expectation of an indicator",
        "counterfactual with one common intervention is an interventional term",
        "composition",
        "distributivity",
        "sum of a sum",
        "sum of a negation",
        "sum over all values",
    }
)

MAX_NORMALIZING_STEPS = 500
#: do-calculus rules read right to left are their own inverse rule
INVERSE_RULES = {
    "rule 1: delete observation": "rule 1: insert observation",
    "rule 1: insert observation": "rule 1: delete observation",
    "rule 2: action to observation": "rule 2: observation to action",
    "rule 2: observation to action": "rule 2: action to observation",
    "rule 3: delete action": "rule 3: insert action",
    "rule 3: insert action": "rule 3: delete action",
}


@dataclass(frozen=True)
class ProofStep:
    rule: str
    condition: str
    before: str  # the subterm rewritten
    after: str  # what it became
    expression: str  # the whole expression after this step
    backward: bool = False  # found from the target side and replayed backwards

    @property
    def name(self) -> str:
        """The rule as applied: a backward step names the inverse rule."""
        if self.backward:
            return INVERSE_RULES.get(self.rule, f"{self.rule} (right to left)")
        return self.rule

    def describe(self) -> str:
        return f"{self.name}{bracketed(self.condition)}: {self.before}  =>  {self.after}"


@dataclass(frozen=True)
class Proof(ShownInLatex):
    start: str
    steps: tuple[ProofStep, ...]

    @property
    def end(self) -> str:
        return self.steps[-1].expression if self.steps else self.start

    def __len__(self) -> int:
        return len(self.steps)

    def lines(self) -> list[str]:
        return [f"    {self.start}"] + [
            f"{i + 1:>3} {s.describe()}\n    = {s.expression}" for i, s in enumerate(self.steps)
        ]

    def to_latex(self) -> str:
        """The proof as a LaTeX ``aligned`` block: one line per step with the rule's name (``lines()`` has
        the conditions and subterms)."""
        return latex_chain(parse(self.start), ((parse(step.expression), step.name) for step in self.steps))


@dataclass(frozen=True)
class SearchLimits:
    max_depth: int = 4  # per side of the bidirectional search
    max_nodes: int = 3000  # expressions visited per bidirectional search
    time_limit: float = 1.0  # seconds for the whole search


@dataclass
class SearchOutcome:
    proof: Proof | None
    nodes: int = 0
    timed_out: bool = False
    notes: list[str] = field(default_factory=list)


# ---- paths --------------------------------------------------------------------------------------

_Link = tuple[Expr, Expr, str, str, str, str]  # (expr, parent, rule, condition, before, after)
_Step = tuple[Expr, str, str, str, str, bool]  # (expr, rule, condition, before, after, backward)


def _steps_forward(path: list[_Link]) -> list[_Step]:
    return [(e, rule, cond, before, after, False) for e, _, rule, cond, before, after in path]


def _steps_backward(path: list[_Link]) -> list[_Step]:
    """A path t -> ... -> m replayed as m -> ... -> t."""
    return [(parent, rule, cond, after, before, True) for _, parent, rule, cond, before, after in reversed(path)]


class NormalizationBudget(RuntimeError):
    """Normalizing an expression needs more rewrite steps than the search allows (a very long expression)."""


def vocabulary(*exprs: Expr) -> tuple[tuple[str, Value], ...]:
    pairs = {(v, x) for e in exprs for v, x in leaf_values(e) if x is not None}
    return tuple(sorted(pairs, key=lambda p: (p[0], isinstance(p[1], str), str(p[1]))))


def normalize(e: Expr, ctx: RuleContext) -> tuple[Expr, list[_Link]]:
    """Apply the normalizing rules (first match, outermost-first) until none applies."""
    path: list[_Link] = []
    while len(path) < MAX_NORMALIZING_STEPS:
        for new, rewrite, sub in neighbours(e, ctx):
            if rewrite.rule in NORMALIZING_RULES:
                path.append((new, e, rewrite.rule, rewrite.condition, sub.text, rewrite.result.text))
                e = new
                break
        else:
            return e, path
    raise NormalizationBudget(f"normalization took more than {MAX_NORMALIZING_STEPS} steps")


class _Budget:
    def __init__(self, limits: SearchLimits) -> None:
        self.limits = limits
        left = remaining()  # the enclosing call's time budget, if any, bounds the search too
        self.deadline = time.perf_counter() + (limits.time_limit if left is None else min(limits.time_limit, left))
        self.nodes = 0
        self.timed_out = False

    def spend(self) -> bool:
        self.nodes += 1
        if self.nodes % 64 == 0 and time.perf_counter() > self.deadline:
            self.timed_out = True
        return not self.timed_out


def bidirectional(s: Expr, t: Expr, ctx: RuleContext, budget: _Budget) -> list[_Step] | None:
    """Shortest rewrite path s -> t within the limits, as step tuples, or None."""
    if s == t:
        return []
    seen: list[dict[str, _Link | None]] = [
        {s.text: None},
        {t.text: None},
    ]  # text -> link (expr, parent, rule, cond, before, after)
    frontier = [[s], [t]]
    depth = [0, 0]
    local_nodes = 0
    while True:
        open_sides = [i for i in (0, 1) if frontier[i] and depth[i] < budget.limits.max_depth]
        if not open_sides:
            return None
        side = min(open_sides, key=lambda i: (len(frontier[i]), i))
        depth[side] += 1
        layer, frontier[side] = frontier[side], []
        for node in layer:
            for new, rewrite, sub in neighbours(node, ctx):
                key = new.text
                if key in seen[side]:
                    continue
                local_nodes += 1
                if not budget.spend() or local_nodes > budget.limits.max_nodes:
                    return None
                seen[side][key] = (new, node, rewrite.rule, rewrite.condition, sub.text, rewrite.result.text)
                if key in seen[1 - side]:
                    return _join(seen, key, side)
                frontier[side].append(new)


def _trace(seen: dict[str, _Link | None], key: str) -> list[_Link]:
    path = []
    link = seen[key]
    while link is not None:
        path.append(link)
        link = seen[link[1].text]
    return list(reversed(path))


def _join(seen: list[dict[str, _Link | None]], key: str, side: int) -> list[_Step]:
    from_s = _trace(seen[0], key)
    from_t = _trace(seen[1], key)
    return _steps_forward(from_s) + _steps_backward(from_t)


# ---- whole search -------------------------------------------------------------------------------


def find_proof(a: Expr, b: Expr, graph: RuleGraph, limits: SearchLimits = SearchLimits()) -> SearchOutcome:
    """Search a proof of ``a = b`` under ``graph``: normalization, term-wise matching, then BFS."""
    ctx = RuleContext(graph, vocabulary(a, b))
    budget = _Budget(limits)
    a_norm, a_path = normalize(a, ctx)
    b_norm, b_path = normalize(b, ctx)
    head = _steps_forward(a_path)
    tail = _steps_backward(b_path)
    middle = _termwise(a_norm, b_norm, ctx, budget)
    if middle is None and not budget.timed_out:
        middle = bidirectional(a_norm, b_norm, ctx, budget)
    outcome = SearchOutcome(None, budget.nodes, budget.timed_out)
    if middle is not None:
        outcome.proof = _assemble(a, head + middle + tail)
    return outcome


def _signed_terms(e: Expr) -> list[tuple[int, Expr]]:
    terms = e.terms if isinstance(e, Add) else (e,)
    return [(-1, t.arg) if isinstance(t, Neg) else (1, t) for t in terms]


def _termwise(a: Expr, b: Expr, ctx: RuleContext, budget: _Budget) -> list[_Step] | None:
    """Prove a sum of terms equal term by term (each a-term against a b-term of the same sign)."""
    left, right = _signed_terms(a), _signed_terms(b)
    if len(left) != len(right) or len(left) < 2 or len(left) > 6:
        return None
    cache: dict[tuple[int, int], list[_Step] | None] = {}

    def pair(i: int, j: int) -> list[_Step] | None:
        if (i, j) not in cache:
            cache[(i, j)] = bidirectional(left[i][1], right[j][1], ctx, budget) if left[i][0] == right[j][0] else None
        return cache[(i, j)]

    for order in itertools.permutations(range(len(right))):
        paths = []
        for i, j in enumerate(order):
            path = pair(i, j)
            if path is None:
                break
            paths.append(path)
        else:
            return _lift(left, paths)
        if budget.timed_out:
            return None
    return None


def _lift(left: list[tuple[int, Expr]], paths: list[list[_Step]]) -> list[_Step]:
    """Term-level steps as whole-expression steps (the other terms kept as they are)."""
    current = [(sign, term) for sign, term in left]
    steps: list[_Step] = []
    for i, path in enumerate(paths):
        for expr, rule, cond, before, after, backward in path:
            current[i] = (current[i][0], expr)
            whole = add(*(t if sign > 0 else negate(t) for sign, t in current))
            steps.append((whole, rule, cond, before, after, backward))
    return steps


def _assemble(start: Expr, steps: list[_Step]) -> Proof:
    return Proof(
        start.text,
        tuple(
            ProofStep(rule, cond, before, after, e.text, backward) for e, rule, cond, before, after, backward in steps
        ),
    )
