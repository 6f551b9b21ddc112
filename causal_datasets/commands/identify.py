"""``causal-datasets identify QUERY --graph EDGES [--latent U] [--proof] [--json]``: the estimand of an
interventional query in observed probabilities (Shpitser & Pearl's ID, or IDC for ``P(Y | do(X), Z)``), or
of a counterfactual query (ID* for ``P(Y_{X=1}=1, X=0)``, IDC* for ``P(Y_{X=1}=1 | X=0)``).

Prints the estimand (``--proof``: the derivation, each step with the line it applies, its rule and how
it was checked) or, when no formula exists, the hedge (ID) or the conflict (ID*). A summation index that is
also used outside its sum is printed primed (the front-door formula sums ``X=X'``); ``--json`` keeps the
canonical text. Exit codes: 0 identified (a counterfactual query may be identified as 0: an inconsistent
event), 1 not identifiable (with the witness) or undefined (inconsistent conditions), 2 bad input (a parse
error, an unknown or unobserved variable, a malformed or cyclic graph, a query that is not one probability
term, a nested counterfactual, or a query with neither ``do(...)`` nor a counterfactual: an observational
probability is its own estimand, there is nothing to identify). ``--time-limit`` (default 1 s) bounds the
checks of an interventional query's steps: a step not checked in time is printed as undecided.
"""

from __future__ import annotations

import argparse
import json

from causal_datasets.commands._errors import CommandError
from causal_datasets.commands._help import command_parser
from causal_datasets.commands._types import at_least, positive_seconds
from causal_datasets.docalc.budget import DEFAULT_TIME_LIMIT
from causal_datasets.docalc.counterfactual_identification import (
    CounterfactualIdentification,
    identify_counterfactual,
    is_counterfactual_query,
)
from causal_datasets.docalc.expr import Prob, bound_apart
from causal_datasets.docalc.identification import QueryError, identify, step_counts
from causal_datasets.docalc.identified import Identification
from causal_datasets.docalc.parser import ExprParseError, parse
from causal_datasets.graph import GraphError

IDENTIFIED, NOT_IDENTIFIABLE = 0, 1

#: how each check is named in the printed derivation
CHECKED_BY = {
    "rule": "checked by the rule checker",
    "equivalence": "checked by check_equivalence",
    "undecided": "undecided (too large a model, or out of --time-limit)",
    "unchecked": "not checked (--no-check)",
}


#: the command's line in ``causal-datasets --help``
HELP = (
    "the estimand of P(Y | do(X)) or P(Y | do(X), Z) under a graph (exit 0 identified, 1 not identifiable, 2 bad input)"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = command_parser(subparsers, "identify", HELP, __doc__)
    parser.add_argument(
        "query", help='e.g. "P(Y | do(X))", "P(Y=1 | do(X=0))", "P(Y | do(X), Z)" or "P(Y_{X=1}=1 | X=0)"'
    )
    parser.add_argument(
        "--graph",
        required=True,
        help='edges "A->B", "A<-B" or "A<->B" (a latent common cause), comma-separated, e.g. "X->M,M->Y,X<->Y"',
    )
    parser.add_argument("--latent", action="append", default=[], help="an unobserved node (repeat or comma-separate)")
    parser.add_argument("--proof", action="store_true", help="print the derivation step by step")
    parser.add_argument(
        "--no-check", action="store_true", help="leave the derivation's steps unchecked (no rule or equivalence check)"
    )
    parser.add_argument(
        "--seed", type=at_least(0), default=0, help="seed of the models the steps are checked on (default 0)"
    )
    parser.add_argument(
        "--time-limit",
        type=positive_seconds,
        default=DEFAULT_TIME_LIMIT,
        help=f"seconds for checking the steps; steps left unchecked are undecided (default {DEFAULT_TIME_LIMIT:g})",
    )
    parser.add_argument("--json", action="store_true", help="print the identification as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    latent = [name.strip() for part in args.latent for name in part.split(",") if name.strip()]
    result: Identification | CounterfactualIdentification
    try:
        if is_counterfactual_query(args.query):
            result = identify_counterfactual(args.query, args.graph, latent, check=not args.no_check, seed=args.seed)
        else:
            query = parse(args.query)
            if isinstance(query, Prob) and not query.do:
                raise CommandError(
                    f"{query.text} has no intervention: an observational probability is its own estimand; "
                    "identify takes P(Y | do(X)), P(Y | do(X), Z) or a counterfactual such as P(Y_{X=1}=1 | X=0)"
                )
            result = identify(
                query, args.graph, latent, check=not args.no_check, seed=args.seed, time_limit=args.time_limit
            )
    except ExprParseError as error:
        raise CommandError(f"parse error: {error.reason} at position {error.position}") from None
    except (GraphError, QueryError) as error:
        raise CommandError(str(error)) from None
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    elif isinstance(result, CounterfactualIdentification):
        print("\n".join(counterfactual_lines(result, proof=args.proof)))
    else:
        print("\n".join(identification_lines(result, proof=args.proof)))
    return IDENTIFIED if result.identifiable else NOT_IDENTIFIABLE


def identification_lines(result: Identification, proof: bool = False) -> list[str]:
    if not result.identifiable:
        hedge = result.hedge
        assert hedge is not None  # ID's answer when it is not identifiable
        return [
            f"not identifiable: {result.query}",
            f"hedge for {hedge.query} (ID line 5):",
            f"  F  = {hedge.forest.text()}",
            f"  F' = {hedge.sub_forest.text()}",
        ]
    assert result.estimand is not None  # identifiable: ID's estimand
    lines = [f"{result.query} = {bound_apart(result.estimand).text}"]
    if result.arbitrary:
        lines.append(f"(the same for every value of {', '.join(result.arbitrary)})")
    if proof:
        counts = step_counts(result)
        tally = ", ".join(f"{n} {CHECKED_BY[check]}" for check, n in sorted(counts.items()))
        lines.append(
            f"derivation ({result.algorithm}, Shpitser & Pearl 2006), {len(result.derivation)} step(s)"
            + (f": {tally}" if tally else "")
        )
        if result.values:
            lines.append(
                f"  (derived for {result.symbolic_query}; the estimand puts in "
                f"{', '.join(f'{v}={x}' for v, x in result.values)})"
            )
        lines.append(f"    {result.symbolic_query}")
        for number, step in enumerate(result.derivation, 1):
            lines += [
                f"{number:>3} {step.describe()}  ({CHECKED_BY[step.check]})",
                f"    = {bound_apart(step.whole).text}",
            ]
    return lines


def counterfactual_lines(result: CounterfactualIdentification, proof: bool = False) -> list[str]:
    if result.status == "undefined":
        return [f"undefined: {result.query}", f"  {result.note}"]
    if result.witness is not None:
        return [f"not identifiable: {result.query}", f"  {result.witness.text()}"]
    assert result.estimand is not None
    lines = [f"{result.query} = {result.estimand.text}"]
    if result.status == "inconsistent":
        lines[0] += "  (an inconsistent event)"
    if result.observational is not None and result.observational != result.estimand:
        lines.append(f"  = {result.observational.text}  (each interventional term by ID)")
    if result.note:
        lines.append(f"  ({result.note})")
    if result.distinct:
        shown = "; ".join(" != ".join(symbols) for _, symbols in result.distinct)
        lines.append(f"(where {shown}: distinct symbols of one variable are distinct values)")
    if proof:
        counts: dict[str, int] = {}
        for step in result.derivation:
            counts[step.check] = counts.get(step.check, 0) + 1
        tally = ", ".join(f"{n} {CHECKED_BY[check]}" for check, n in sorted(counts.items()))
        lines.append(
            f"derivation ({result.algorithm}, Shpitser & Pearl 2008), {len(result.derivation)} step(s)"
            + (f": {tally}" if tally else "")
        )
        lines.append(f"    {result.query}")
        for number, step in enumerate(result.derivation, 1):
            lines += [f"{number:>3} {step.describe()}  ({CHECKED_BY[step.check]})", f"    = {step.expression}"]
    return lines
