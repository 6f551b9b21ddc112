"""The two rules an answer expression is scored by, against a reference under a causal graph.

* ``equivalence`` — DoVerifier's rule (§4.2, Table 1): the answer is right when it equals the
  reference in every causal model of the graph (derivable from it by do-calculus and probability
  rules). ``do()`` terms, counterfactual subscripts and the graph's unobserved variables may appear:
  ``E[Y | do(X = 1)] - E[Y | do(X = 0)]`` is right wherever it equals CLadder's observational estimand.
* ``identification`` — the package's stricter task: additionally the answer must *identify* the
  quantity, i.e. be a formula in probabilities of observed variables only (no ``do()``, no
  counterfactual subscript, no unobserved variable). An answer that copies the asked quantity back
  is wrong under it, however equal it is. This is the rule for training rewards: otherwise a policy
  learns to echo the question.

Both verdicts are computed for every answer; a run, a metric call or a reward picks one as its headline.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, get_args

from causal_datasets.docalc.expr import Expr, is_observational, variables
from causal_datasets.docalc.graph import DoGraph

ScoringRule = Literal["equivalence", "identification"]
SCORING_RULES: tuple[str, ...] = get_args(ScoringRule)

#: why an answer does not identify the quantity (the ``identification_error`` of a scored answer)
NOT_IDENTIFIED = "not_identified"
UNOBSERVED_VARIABLE = "unobserved_variable"


def identification_error(answer: Expr, unobserved: Iterable[str]) -> str | None:
    """Why ``answer`` is no identified estimand: ``not_identified`` (a ``do()`` or counterfactual term
    left), ``unobserved_variable`` (it uses a variable the graph marks unobserved), or None."""
    if not is_observational(answer):
        return NOT_IDENTIFIED
    if variables(answer) & set(unobserved):
        return UNOBSERVED_VARIABLE
    return None


def identified(equivalent: bool | None, error: str | None) -> bool | None:
    """The identification verdict from the equivalence verdict and the answer's shape: False for a
    shape that identifies nothing (whatever the verifier said), else the equivalence verdict."""
    return False if error is not None else equivalent


def credited(verdicts: dict[str, bool | None], rule: str) -> bool:
    """Whether an answer with ``verdicts`` (``{"equivalence": ..., "identification": ...}``) counts as right
    under ``rule``."""
    if rule not in SCORING_RULES:
        raise ValueError(f"unknown scoring rule {rule!r}: choose {' or '.join(SCORING_RULES)}")
    return verdicts[rule] is True


def all_observed(graph: DoGraph) -> DoGraph:
    """``graph`` with no node latent: how an expression that uses unobserved variables is verified under
    ``equivalence`` (they are variables of the model like any other). Kept on the graph, so verdicts and
    models under it are cached once, like the family graphs'."""
    if graph.latent and "all_observed" not in graph._cache:
        graph._cache["all_observed"] = DoGraph(graph.nodes, graph.edges, frozenset(), dict(graph.domains))
    found: DoGraph = graph._cache.get("all_observed", graph)
    return found
