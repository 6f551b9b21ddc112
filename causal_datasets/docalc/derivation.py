"""Scoring a derivation a model writes (DoVerifier App. A): every step against the rule it names.

A derivation is a start expression and steps ``= <expression> by <rule>``. A step is *valid*
when the named rule, applied at one or more places (and up to notation: the normalizing rewrites
of :data:`~.search.NORMALIZING_RULES`, commutativity, renamed summation indices), turns the
previous expression into this one, its graph condition holding (:func:`~.rules.neighbours` is the
rule checker). Otherwise the step is ``condition_fails`` (the rule has the right shape but its
d-separation does not hold in the graph: App. A's rule sensitivity), ``wrong_rule`` (a true
equality the named rule does not give), ``not_equal`` (the value changes: a counterexample model
exists), ``unknown_rule`` (no rule named, or a name we do not know), ``unparsable`` or ``undecided``.

The score is the share of valid steps and the first invalid one: notation does not count
(syntactic and α-renaming invariance), a violated condition always costs (rule sensitivity), and
every chain of valid steps scores 1 whatever its order or route (step order invariance,
robustness to valid alternatives).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal

from causal_datasets.docalc.expr import Expr
from causal_datasets.docalc.graph import DoGraph, Nodes, RuleGraph
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.rules import RuleContext, neighbours
from causal_datasets.docalc.search import NormalizationBudget, normalize, vocabulary
from causal_datasets.docalc.verdict import canonical_indices, check_equivalence
from causal_datasets.llm.thinking import strip_thinking

Status = Literal["valid", "condition_fails", "wrong_rule", "not_equal", "unknown_rule", "unparsable", "undecided"]

#: steps read from one derivation; more are left out (and said so)
MAX_STEPS = 40
#: applications of the named rule one step may make (e.g. rule 2 on both terms of a difference)
MAX_APPLICATIONS = 4
#: expressions visited while checking one step
MAX_VISITED = 3000

_DO_CALCULUS = {
    "rule 1": {"rule 1: delete observation", "rule 1: insert observation"},
    "rule 2": {"rule 2: action to observation", "rule 2: observation to action"},
    "rule 3": {"rule 3: delete action", "rule 3: insert action"},
}
_PROBABILITY = {"law of total probability", "marginalization", "product rule", "definition of conditional probability"}
_ALGEBRA = {
    "distributivity",
    "factor into the sum",
    "factor out of the sum",
    "sum of a sum",
    "sum of a negation",
    "sum over all values",
}
_EXPECTATION = {
    "linearity of expectation",
    "expectation of a binary variable",
    "expectation of an indicator",
    "probability of a binary variable as expectation",
}
#: rule families by the words a model uses for them, first match wins
RULE_NAMES: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = tuple(
    (re.compile(pattern), frozenset(rules))
    for pattern, rules in (
        (r"\brule\s*(?:1|one|i)\b|deletion of observation|insertion of observation", _DO_CALCULUS["rule 1"]),
        (r"\brule\s*(?:2|two|ii)\b|action.{0,3}observation exchange|exchange", _DO_CALCULUS["rule 2"]),
        (r"\brule\s*(?:3|three|iii)\b|deletion of action|insertion of action", _DO_CALCULUS["rule 3"]),
        (
            r"back.?door|front.?door|adjust",
            set().union(*_DO_CALCULUS.values(), _PROBABILITY, _ALGEBRA, {"counterfactual back-door"}),
        ),
        (r"total probability|marginali|sum rule|summing out", {"law of total probability", "marginalization"}),
        (r"product rule|chain rule|factori[sz]", {"product rule"}),
        (r"bayes|conditional probability", {"definition of conditional probability"}),
        (r"consisten", {"consistency"}),
        (r"composition", {"composition"}),
        (
            r"counterfactual|definition of do|potential outcome",
            {"counterfactual with one common intervention is an interventional term", "counterfactual back-door"},
        ),
        (r"expectation|linearity|indicator", _EXPECTATION),
        (r"algebra|distribut|rearrang|simplif|factor|collect|sum of|sum over", _ALGEBRA),
    )
)
_GRAPH_RULES = frozenset().union(*_DO_CALCULUS.values(), {"counterfactual back-door"})

#: what the estimand prompt adds when a derivation is asked for (the format :func:`extract_derivation` reads)
DERIVATION_REQUEST = """Before the final line, write your derivation: a line `Derivation:`, then the causal quantity to
identify on its own line, then one line per step of the form `= <expression> by <rule>`, the last
step being your estimand. Rules: rule 1, rule 2 or rule 3 of do-calculus, law of total probability,
product rule, definition of conditional probability, consistency, expectation of a binary variable,
algebra. Leave a blank line after the derivation."""

_HEADER = re.compile(r"^[\s>*#_`]*derivation[*_`]*\s*:[*_`]*[ \t]*(?P<rest>.*)$", re.IGNORECASE | re.MULTILINE)
_NEXT_SECTION = re.compile(
    r"^[\s>*#_`]*(?:estimand|expression|final answer|graphical representation|graph|reasoning|"
    r"answer)[*_`]*\s*:",
    re.IGNORECASE,
)
_NUMBERING = re.compile(r"^\s*(?:step\s*\d+\s*[:.)]|\d+\s*[.)]|[-*•])\s*", re.IGNORECASE)
_RULE = re.compile(r"\s+(?:by|using|via)\s+(?P<rule>[^=]*?)[\s.]*$", re.IGNORECASE)


@dataclass(frozen=True)
class WrittenStep:
    """One line of a derivation as written: the expression and the rule named for reaching it."""

    expression: str
    rule: str | None


@dataclass(frozen=True)
class StepCheck:
    number: int  # step n turns expression n-1 into expression n (expression 0 is the start)
    expression: str
    rule: str | None
    status: Status
    detail: str | None = None  # the condition used or missing, the counterexample, the parse error


@dataclass(frozen=True)
class DerivationScore:
    """The checked steps of a derivation; ``error`` when there is none to check (``no_derivation``,
    ``unparsable_start``)."""

    start: str | None
    steps: tuple[StepCheck, ...] = ()
    error: str | None = None
    truncated: bool = False

    @property
    def valid_steps(self) -> int:
        return sum(step.status == "valid" for step in self.steps)

    @property
    def valid_share(self) -> float | None:
        """Share of valid steps (None without steps)."""
        return self.valid_steps / len(self.steps) if self.steps else None

    @property
    def first_invalid(self) -> int | None:
        return next((step.number for step in self.steps if step.status != "valid"), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "start": self.start,
            "error": self.error,
            "truncated": self.truncated,
            "steps": [asdict(step) for step in self.steps],
            "valid_steps": self.valid_steps,
            "valid_share": self.valid_share,
            "first_invalid": self.first_invalid,
        }


def extract_derivation(text: str) -> list[WrittenStep] | None:
    """The lines after the last ``Derivation:`` header up to a blank line or the next section
    (``Estimand:``, ``Expression:``, ``Final Answer:``, ...), outside any think block; None without a header.

    Each line is an expression, optionally numbered (``1.``, ``Step 2:``) and opened with ``=``,
    followed by ``by <rule>`` (also ``using``, ``via``); the first line is the start."""
    text = strip_thinking(text or "")
    headers = list(_HEADER.finditer(text))
    if not headers:
        return None
    header = headers[-1]
    lines = [header.group("rest")] + text[header.end() :].splitlines()[1:]
    steps: list[WrittenStep] = []
    for line in lines:
        if _NEXT_SECTION.match(line) or (not line.strip() and steps):
            break
        line = _NUMBERING.sub("", line.strip()).strip().lstrip("=").strip()
        if not line:
            continue
        match = _RULE.search(line)
        rule = match.group("rule").strip() if match else None
        expression = line[: match.start()].strip().rstrip(",;") if match else line
        steps.append(WrittenStep(expression, rule or None))
        if len(steps) > MAX_STEPS + 1:
            break
    return steps


def rule_family(name: str | None) -> frozenset[str] | None:
    """The rules a written rule name stands for (None: not a name we know)."""
    if not name:
        return None
    lowered = name.lower()
    return next((rules for pattern, rules in RULE_NAMES if pattern.search(lowered)), None)


def check_derivation(steps: Iterable[WrittenStep], graph: DoGraph, *, seed: int = 0) -> DerivationScore:
    """Check every step of a written derivation under ``graph`` (see the module)."""
    steps = list(steps)
    if not steps:
        return DerivationScore(None, error="no_derivation")
    truncated = len(steps) > MAX_STEPS + 1
    steps = steps[: MAX_STEPS + 1]
    start = steps[0].expression
    try:
        previous = _read(start, graph)
    except (ExprParseError, ValueError):
        return DerivationScore(start, error="unparsable_start", truncated=truncated)
    checks = []
    for number, step in enumerate(steps[1:], 1):
        check, current = _check_step(number, previous, step, graph, seed)
        checks.append(check)
        previous = current if current is not None else previous
    return DerivationScore(start, tuple(checks), truncated=truncated)


def score_derivation(text: str, graph: DoGraph, *, seed: int = 0) -> DerivationScore:
    """:func:`extract_derivation` then :func:`check_derivation`."""
    steps = extract_derivation(text)
    return check_derivation(steps or [], graph, seed=seed)


def same_expression(text: str, expression: Expr) -> bool:
    """Whether ``text`` is ``expression`` up to notation (order, spacing, summation index names)."""
    try:
        return canonical_indices(parse(text)) == canonical_indices(expression)
    except (ExprParseError, RecursionError):
        return False


def _read(text: str, graph: DoGraph) -> Expr:
    e = canonical_indices(parse(text))
    graph.check_variables(e)
    return e


def _check_step(
    number: int, previous: Expr, step: WrittenStep, graph: DoGraph, seed: int
) -> tuple[StepCheck, Expr | None]:
    def result(status: Status, detail: str | None = None) -> StepCheck:
        return StepCheck(number, step.expression, step.rule, status, detail)

    try:
        current = _read(step.expression, graph)
    except (ExprParseError, ValueError) as error:
        return result("unparsable", str(error).splitlines()[0]), None
    if current == previous:
        return result("valid", "no change beyond notation"), current
    family = rule_family(step.rule)
    if family is not None:
        try:
            found = _reachable(previous, current, graph, family)
            if found is not None:
                return result("valid", found or None), current
            shape = _reachable(previous, current, _Permissive(graph), family) if family & _GRAPH_RULES else None
            if shape is not None:
                return result("condition_fails", f"the rule applies only if {shape}; not so in this graph"), current
        except NormalizationBudget:
            return result("undecided", "the expressions are too long to check"), current
    verdict = check_equivalence(previous, current, graph, seed=seed, prove=False)
    cx = verdict.counterexample
    if verdict.equivalent is False and cx is not None:  # a difference always comes with its model
        return result(
            "not_equal", f"the value changes: {cx.value_a:.6g} before, {cx.value_b:.6g} after on a model of the graph"
        ), current
    if verdict.equivalent is None:
        return result("undecided", verdict.error), current
    if family is None:
        return result("unknown_rule", f"no rule named in {step.rule!r}" if step.rule else "no rule named"), current
    return result("wrong_rule", f"a true equality, but not an application of {step.rule!r}"), current


def _reachable(start: Expr, target: Expr, graph: RuleGraph, family: frozenset[str]) -> str | None:
    """The conditions used ("" when none) if ``target`` follows from ``start`` by at most
    :data:`MAX_APPLICATIONS` rewrites of ``family`` (either direction), up to normalization; else None."""
    ctx = RuleContext(graph, vocabulary(start, target))
    goal, _ = normalize(target, ctx)
    begin, _ = normalize(start, ctx)
    if begin == goal:
        return ""
    for side_start, side_goal in ((begin, goal), (goal, begin)):
        layer, seen = [(side_start, "")], {side_start.text: ""}
        for _ in range(MAX_APPLICATIONS):
            following = []
            for expression, conditions in layer:
                for new, rewrite, _ in neighbours(expression, ctx):
                    if rewrite.rule not in family:
                        continue
                    reached, _ = normalize(new, ctx)
                    if reached.text in seen:
                        continue
                    used = "; ".join(filter(None, (conditions, rewrite.condition)))
                    if reached == side_goal:
                        return used
                    seen[reached.text] = used
                    following.append((reached, used))
                    if len(seen) > MAX_VISITED:
                        return None
            layer = following
            if not layer:
                break
    return None


class _Permissive:
    """The graph with every d-separation granted and no descendants: a rule that applies here but not
    under the real graph has the right shape and a failing condition."""

    def __init__(self, graph: DoGraph) -> None:
        self.graph = graph
        self.nodes, self.latent = graph.nodes, graph.latent

    def d_separated(self, xs: Nodes, ys: Nodes, zs: Nodes = (), cut_in: Nodes = (), cut_out: Nodes = ()) -> bool:
        return True

    def ancestors(self, nodes: Nodes, cut_in: Nodes = ()) -> frozenset[str]:
        return frozenset()

    def descendants(self, nodes: Nodes) -> frozenset[str]:
        return frozenset()

    def domain(self, node: str) -> int:
        return self.graph.domain(node)
