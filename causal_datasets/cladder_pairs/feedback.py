"""The verifier's diagnosis of an answer expression, as feedback a model can act on (DoVerifier §4.3, App. H).

:func:`diagnose` looks at the answer and the causal graph only — never at the reference estimand
(App. H: "no access to the ground truth") — and names what the graph says about it: a ``do()`` that
could be a conditioning (rule 2) or dropped (rule 3), a back-door path the answer leaves open
(through an observed common cause it does not adjust for, or through an unobserved one no
adjustment can block), an unobserved variable it uses, or why the answer could not be read; and
App. H's checks of a term's conditioning set, split into intervened and observed variables: a
mediator (on a directed path from another conditioned or intervened variable to the outcome), a
common cause of an intervened treatment and the outcome, an effect of the treatment that is not a
cause of the outcome. App. H's third check ("d-separation violation") is stated as ``X ⊥̸ Y | W``
with ``X`` a member of ``W``, which tests nothing as printed; it is not implemented. Each
:class:`Finding` states facts about the graph (a path, a d-separation), so the feedback cannot give
the answer away, and a right answer may receive some too (App. H also turns right interventional
answers towards observational ones); :func:`feedback_message` turns the findings into the next
user turn. The checks look at each probability term whose event holds the outcome, with the
treatment set to a value (a treatment that is summed over, as in the front-door formula, is not a
treatment setting).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from itertools import pairwise
from typing import Any, Literal

import networkx as nx

from causal_datasets.docalc.expr import Expect, Expr, Prob, Sum, children, contains_counterfactual, variables
from causal_datasets.docalc.graph import DoGraph
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.docalc.verdict import canonical_indices
from causal_datasets.graph import GraphError

Kind = Literal[
    "no_expression",
    "unparsable",
    "unknown_variable",
    "unobserved_variable",
    "do_should_be_conditioning",
    "do_without_effect",
    "unblocked_backdoor",
    "missing_confounder",
    "latent_confounding",
    "counterfactual_left",
    "mediator_conditioned",
    "confounder_conditioned",
    "collider_conditioned",
    "intervention_in_association",
    "not_accepted",
]
#: query types whose quantity is an association (rung 1): no do() or counterfactual belongs in it
ASSOCIATION = frozenset({"correlation", "marginal", "exp_away"})
#: query types whose formula conditions on the mediator on purpose
MEDIATION = frozenset({"nde", "nie"})
#: back-door paths listed per term, at most
MAX_PATHS = 3
MAX_PATH_LENGTH = 8


@dataclass(frozen=True)
class Finding:
    """One problem: its kind, a sentence for the model, the variables it is about."""

    kind: Kind
    message: str
    variables: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def diagnose(
    expression: str | None,
    graph: DoGraph,
    *,
    query_type: str,
    treatment: str = "X",
    outcome: str = "Y",
) -> list[Finding]:
    """What is wrong with ``expression`` as the ``query_type`` quantity of ``treatment`` on ``outcome``
    under ``graph``. Empty when nothing structural is found (the caller then says only that the
    verifier did not accept it)."""
    if expression is None:
        return [
            Finding("no_expression", "Your reply has no final line with the expression, so there was nothing to check.")
        ]
    try:
        e = canonical_indices(parse(expression))
        graph.check_variables(e)
    except ExprParseError as error:
        return [Finding("unparsable", f"The expression cannot be read: {error.reason} at character {error.position}.")]
    except GraphError:
        unknown = sorted(variables(parse(expression)) - set(graph.nodes))
        which = f"{unknown[0]} is not a variable" if len(unknown) == 1 else f"{_names(unknown)} are not variables"
        return [
            Finding(
                "unknown_variable", f"{which} of the graph; its variables are {_names(graph.nodes)}.", tuple(unknown)
            )
        ]
    hidden = sorted(variables(e) & graph.latent)
    if hidden:
        return [
            Finding(
                "unobserved_variable",
                f"{_names(hidden)} {'is' if len(hidden) == 1 else 'are'} unobserved: "
                "an estimand can only use observed variables.",
                tuple(hidden),
            )
        ]
    findings: list[Finding] = []
    association = query_type in ASSOCIATION
    if association and (contains_counterfactual(e) or _has_do(e)):
        findings.append(
            Finding(
                "intervention_in_association",
                "The question asks about an association among "
                "observed variables: write it with conditioning on observed values, without do() "
                "or counterfactual subscripts.",
            )
        )
    for term, bound in _terms(e):
        if not association:
            findings += _do_findings(term, graph, outcome)
        if not association and isinstance(term, Prob) and term.is_interventional and not term.do:
            findings += _conditioning_findings(term, bound, graph, treatment, outcome, query_type)
    return list(dict.fromkeys(findings))


def feedback_message(findings: list[Finding], answer_format: str, *, graph_only: bool = False) -> str:
    """The user turn that sends the diagnosis back: the findings, then how to answer again.

    ``graph_only`` (App. H): the findings come from the graph and the expression alone, and the message
    says nothing else — in particular nothing about whether the answer is right, which only a reference
    could tell. Otherwise (the oracle loop, which runs only after the reference rejected the answer) it
    opens by saying the verifier did not accept the expression."""
    if graph_only:
        lines = ["The verifier checked your expression against the causal graph and found:"]
        lines += [f"{number}. {finding.message}" for number, finding in enumerate(findings, 1)]
        lines.append(f"Revise your answer if these findings apply. {answer_format}")
        return "\n".join(lines)
    lines = ["The verifier did not accept your expression."]
    if findings:
        lines.append("What it found, from the causal graph and your expression:")
        lines += [f"{number}. {finding.message}" for number, finding in enumerate(findings, 1)]
    else:
        lines.append(
            "It found no single faulty term: derive the expression again, step by step, from the causal "
            "quantity asked for and the graph."
        )
    lines.append(f"Revise your answer. {answer_format}")
    return "\n".join(lines)


# ---- terms --------------------------------------------------------------------------------------


def _terms(e: Expr, bound: frozenset[str] = frozenset()) -> Iterator[tuple[Prob | Expect, frozenset[str]]]:
    """Every probability or expectation term with the summation indices bound around it."""
    if isinstance(e, (Prob, Expect)):
        yield e, bound
        return
    inner = bound | {e.index} if isinstance(e, Sum) else bound
    for child in children(e):
        yield from _terms(child, inner)


def _has_do(e: Expr) -> bool:
    return any(term.do for term, _ in _terms(e))


def _outcomes(term: Prob | Expect) -> set[str]:
    atoms = term.event if isinstance(term, Prob) else tuple(atom for _, atom in term.body)
    return {atom.var for atom in atoms}


def _do_findings(term: Prob | Expect, graph: DoGraph, outcome: str) -> list[Finding]:
    """An estimand has no do() and no counterfactual: say how each one could go, or why it cannot."""
    findings = []
    if any(atom.cf for atom in (term.event + term.given if isinstance(term, Prob) else ())) or (
        isinstance(term, Expect) and any(atom.cf for _, atom in term.body)
    ):
        findings.append(
            Finding(
                "counterfactual_left",
                "A term keeps a counterfactual subscript; an estimand is "
                "written with observed probabilities only (consistency, back-door adjustment).",
            )
        )
    ys = _outcomes(term)
    if outcome not in ys or not term.do:
        return findings
    actions = {var for var, _ in term.do}
    given = {atom.var for atom in term.given}
    findings += _conditioned_in_do_term(actions, given, graph, outcome)
    for var in sorted(actions):
        others = actions - {var}
        if graph.d_separated({var}, ys, others | given, cut_in=others, cut_out={var}):
            findings.append(
                Finding(
                    "do_should_be_conditioning",
                    f"do({var}) can be replaced by conditioning on {var}: "
                    f"{outcome} and {var} are d-separated given {_set(others | given)} once the edges "
                    f"out of {var} are removed (rule 2).",
                    (var,),
                )
            )
        elif graph.d_separated({var}, ys, others | given, cut_in=others | {var}):
            findings.append(
                Finding(
                    "do_without_effect",
                    f"do({var}) has no effect on {outcome} given "
                    f"{_set(others | given)} in this graph: it can be dropped (rule 3).",
                    (var,),
                )
            )
        else:
            findings += _backdoor_findings(var, outcome, given, graph, f"do({var}) cannot become conditioning on {var}")
    return findings


def _conditioned_in_do_term(actions: set[str], given: set[str], graph: DoGraph, outcome: str) -> list[Finding]:
    """App. H's checks of the conditioning set of ``P(outcome | do(actions), given)``: a conditioned
    variable on a directed path from another one (or from an action) to the outcome is a mediator; one
    that causes an action and the outcome directly is a confounder of that action."""
    findings = []
    edges = set(graph.edges)
    ancestors_of_outcome = graph.ancestors({outcome})
    for var in sorted(given - actions):
        starts = sorted(a for a in (given | actions) - {var} if var in graph.descendants({a}))
        if var in ancestors_of_outcome and starts and var != outcome:
            findings.append(
                Finding(
                    "mediator_conditioned",
                    f"{var} lies on a directed path from {starts[0]} to "
                    f"{outcome} ({_directed_path(graph, starts[0], var, outcome)}): conditioning on it "
                    f"removes the part of the effect that goes through it.",
                    (var,),
                )
            )
        for action in sorted(actions):
            if (var, action) in edges and (var, outcome) in edges:
                findings.append(
                    Finding(
                        "confounder_conditioned",
                        f"{var} is a common cause of {action} and {outcome} "
                        f"({var} -> {action}, {var} -> {outcome}): conditioning on it gives the effect "
                        f"within each value of {var}, not over everyone; average over {var} or "
                        f"intervene on it (do({var})).",
                        (var,),
                    )
                )
    return findings


def _conditioning_findings(
    term: Prob, bound: frozenset[str], graph: DoGraph, treatment: str, outcome: str, query_type: str
) -> list[Finding]:
    """A term P(outcome | treatment = a value, Z) read as the treatment's effect: what in Z or outside it
    spoils that."""
    setting = next((atom for atom in term.given if atom.var == treatment), None)
    if outcome not in _outcomes(term) or setting is None or setting.value in bound:
        return []
    conditioned = {atom.var for atom in term.given} - {treatment}
    effects = graph.descendants({treatment}) - {treatment}
    causes_of_outcome = graph.ancestors({outcome})
    findings = []
    if query_type not in MEDIATION:
        for var in sorted(conditioned & effects & causes_of_outcome):
            findings.append(
                Finding(
                    "mediator_conditioned",
                    f"{var} lies on a directed path from {treatment} to "
                    f"{outcome} ({_directed_path(graph, treatment, var, outcome)}): conditioning on it "
                    f"removes the part of {treatment}'s effect that goes through it.",
                    (var,),
                )
            )
    for var in sorted((conditioned & effects) - causes_of_outcome):
        findings.append(
            Finding(
                "collider_conditioned",
                f"{var} is an effect of {treatment} but not a cause of "
                f"{outcome}: conditioning on it can open a non-causal path between them.",
                (var,),
            )
        )
    adjustment = conditioned - effects
    if not graph.d_separated({treatment}, {outcome}, adjustment, cut_out={treatment}):
        findings += _backdoor_findings(
            treatment, outcome, adjustment, graph, f"P({outcome} | {treatment}, ...) is not the effect of {treatment}"
        )
    return findings


def _backdoor_findings(treatment: str, outcome: str, given: set[str], graph: DoGraph, lead: str) -> list[Finding]:
    """The open back-door paths from ``treatment`` to ``outcome`` given ``given``: through observed
    non-colliders (adjust for them) or only through unobserved ones (no adjustment blocks them)."""
    findings = []
    for path in _open_backdoor_paths(graph, treatment, outcome, given):
        shown = _path_text(graph, path)
        blockers = [n for n in path[1:-1] if n not in graph.latent and not _collider(graph, path, n)]
        if blockers:
            findings.append(
                Finding(
                    "missing_confounder",
                    f"{lead}: the back-door path {shown} is open given "
                    f"{_set(given)}; it passes through the observed {_names(blockers)}, which the "
                    "expression does not adjust for.",
                    tuple(blockers),
                )
            )
        else:
            hidden = [n for n in path[1:-1] if n in graph.latent]
            findings.append(
                Finding(
                    "latent_confounding",
                    f"{lead}: the back-door path {shown} runs through the "
                    f"unobserved {_names(hidden)}, so no adjustment for observed variables blocks it; "
                    f"look for variables {treatment} acts through (front door) or that act on "
                    f"{outcome} only through {treatment} (instrument).",
                    tuple(hidden),
                )
            )
    if not findings:
        findings.append(
            Finding(
                "unblocked_backdoor",
                f"{lead}: {treatment} and {outcome} are not d-separated "
                f"given {_set(given)} once the edges out of {treatment} are removed.",
                (treatment,),
            )
        )
    return findings


# ---- paths --------------------------------------------------------------------------------------


def _open_backdoor_paths(graph: DoGraph, start: str, end: str, given: set[str]) -> list[list[str]]:
    skeleton = nx.Graph(list(graph.edges))
    skeleton.add_nodes_from(graph.nodes)
    paths = []
    for path in nx.all_simple_paths(skeleton, start, end, cutoff=MAX_PATH_LENGTH):
        if (path[1], path[0]) in set(graph.edges) and _open(graph, path, given):
            paths.append(path)
            if len(paths) == MAX_PATHS:
                break
    return paths


def _collider(graph: DoGraph, path: list[str], node: str) -> bool:
    i = path.index(node)
    edges = set(graph.edges)
    return (path[i - 1], node) in edges and (path[i + 1], node) in edges


def _open(graph: DoGraph, path: list[str], given: set[str]) -> bool:
    for node in path[1:-1]:
        if _collider(graph, path, node):
            if not graph.descendants({node}) & given:
                return False
        elif node in given:
            return False
    return True


def _path_text(graph: DoGraph, path: list[str]) -> str:
    edges = set(graph.edges)
    parts = [path[0]]
    for a, b in pairwise(path):
        parts.append(("-> " if (a, b) in edges else "<- ") + b)
    return " ".join(parts)


def _directed_path(graph: DoGraph, start: str, via: str, end: str) -> str:
    digraph = nx.DiGraph(list(graph.edges))
    first = nx.shortest_path(digraph, start, via)
    second = nx.shortest_path(digraph, via, end)
    return " -> ".join(first + second[1:])


def _names(names) -> str:
    names = list(names)
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else (names[0] if names else "")


def _set(names) -> str:
    return "{" + ", ".join(sorted(names)) + "}" if names else "nothing"
