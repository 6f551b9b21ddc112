"""``causal-datasets equiv A B --graph EDGES [--latent U] [--values Z=3]``: are two causal expressions equal?

Every observed variable has two values (0, 1) unless ``--values`` says otherwise or an expression
mentions a larger value; latent causes (``A<->B``, ``--latent``) are unrestricted. The verdict
states the values it assumed and the arithmetic that decided it: "equivalent" only when the
difference is exactly zero on every random model (rational arithmetic, no tolerance); "not
equivalent" from a float difference beyond its rigorous rounding-error bound, or an exact one.
``--independences "X ⊥ Y | Z; ..."`` (with ``--complete`` when they are all of them) stands in for
an unknown DAG: only what the statements imply is decided.

Prints the verdict, then its proof (searched after the verdict; none with ``--no-proof``) or
counterexample; ``--time-limit`` (default 1 s) bounds the two together: past it the verdict is undecided
(exit 3) with the reason. Exit codes: 0 equivalent, 1 not equivalent (with a
counterexample), 2 bad input (a parse error, an unknown variable, a malformed or cyclic graph,
values that do not fit, a bad option), 3 undecided (e.g. a value undefined on every model, an exact
evaluation too large where no proof was found, or out of time).
"""

from __future__ import annotations

import argparse
import json

from causal_datasets.commands._errors import CommandError
from causal_datasets.commands._help import command_parser
from causal_datasets.commands._types import at_least, between, positive_seconds
from causal_datasets.docalc.budget import DEFAULT_TIME_LIMIT, within
from causal_datasets.docalc.decide import MAX_MODELS
from causal_datasets.docalc.domains import DomainError, parse_values
from causal_datasets.docalc.independence import IndependenceError, Independences
from causal_datasets.docalc.search import SearchLimits
from causal_datasets.docalc.verdict import Verdict, as_graph, check_equivalence
from causal_datasets.graph import GraphError

EQUIVALENT, NOT_EQUIVALENT, BAD_INPUT, UNDECIDED = 0, 1, 2, 3


#: the command's line in ``causal-datasets --help``
HELP = "decide whether two causal expressions are equal under a DAG (exit 0 yes, 1 no, 2 bad input, 3 undecided)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = command_parser(subparsers, "equiv", HELP, __doc__)
    parser.add_argument("a", help='first expression, e.g. "P(Y | do(X))"')
    parser.add_argument("b", help='second expression, e.g. "\\sum_{Z} P(Y | X, Z) * P(Z)"')
    knowledge = parser.add_mutually_exclusive_group(required=True)
    knowledge.add_argument(
        "--graph",
        help='edges "A->B", "A<-B" or "A<->B" (a latent common cause with any number of values), '
        'comma-separated, e.g. "X->Y,Z->X,Z->Y"',
    )
    knowledge.add_argument(
        "--independences",
        metavar="STATEMENTS",
        help='instead of a graph: independences of the unknown DAG, e.g. "X ⊥ Y | Z; W ⊥ Y" '
        "(decides only what they imply; undecided otherwise)",
    )
    parser.add_argument(
        "--complete",
        action="store_true",
        help="with --independences: they are every independence of the DAG (faithfulness)",
    )
    parser.add_argument("--latent", action="append", default=[], help="an unobserved node (repeat or comma-separate)")
    parser.add_argument(
        "--values",
        action="append",
        default=[],
        metavar="NAME=N",
        help="number of values of an observed variable, e.g. Z=3,W=4 (repeat or comma-separate; "
        "default 2, or enough for the values the expressions mention)",
    )
    parser.add_argument("--seed", type=at_least(0), default=0, help="seed of the random models (default 0)")
    parser.add_argument(
        "--models",
        type=between(1, MAX_MODELS),
        default=3,
        help=f"random models to compare on, 1 to {MAX_MODELS} (default 3)",
    )
    parser.add_argument(
        "--time-limit",
        type=positive_seconds,
        default=DEFAULT_TIME_LIMIT,
        help="seconds for the verdict and its proof search together; past it the verdict is undecided "
        f"(default {DEFAULT_TIME_LIMIT:g})",
    )
    parser.add_argument("--no-proof", action="store_true", help="the verdict only, without searching for a proof")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    latent = [name.strip() for part in args.latent for name in part.split(",") if name.strip()]
    if args.complete and args.independences is None:
        raise CommandError("--complete goes with --independences")
    try:
        values = parse_values(",".join(args.values))
    except DomainError as error:
        raise CommandError(f"--values: {error}") from None
    knowledge = args.graph
    if args.independences is not None:
        try:
            knowledge = Independences.parse(args.independences, complete=args.complete, latent=latent)
        except IndependenceError as error:
            raise CommandError(f"--independences: {error}") from None
    else:
        try:  # built once: the verdict and the proof search afterwards share its random models
            knowledge = as_graph(knowledge, latent)
        except GraphError:
            pass  # check_equivalence reports it as bad input
    options = {
        "seed": args.seed,
        "models": args.models,
        "values": values,
        "limits": SearchLimits(time_limit=args.time_limit),
    }
    with within(args.time_limit):  # one budget for the verdict and the proof search after it
        verdict = check_equivalence(args.a, args.b, knowledge, latent, prove=False, **options)
        if not args.json:
            print("\n".join(verdict_lines(verdict)), flush=True)  # the verdict before any proof search
        if not args.no_proof and verdict.equivalent and verdict.method == "semantic":
            proved = check_equivalence(args.a, args.b, knowledge, latent, prove=True, **options)
            if proved.proof is not None:
                verdict = proved
                if not args.json:
                    print("\n".join(["proof:", *proved.proof.lines()]))
    if args.json:
        print(json.dumps(verdict_json(verdict), indent=2))
    return exit_code(verdict)


def exit_code(verdict: Verdict) -> int:
    if verdict.equivalent is None:
        return BAD_INPUT if verdict.invalid else UNDECIDED
    return EQUIVALENT if verdict.equivalent else NOT_EQUIVALENT


def verdict_json(verdict) -> dict:
    return {
        "equivalent": verdict.equivalent,
        "method": verdict.method,
        "invalid_input": verdict.invalid,
        "a": verdict.a,
        "b": verdict.b,
        "error": verdict.error,
        "note": verdict.note,
        "domains": verdict.domains,
        "latent_values": verdict.latent_values,
        "arithmetic": verdict.arithmetic,
        "proof": [vars(step) for step in verdict.proof.steps] if verdict.proof else None,
        "counterexample": vars(verdict.counterexample) if verdict.counterexample else None,
    }


def verdict_lines(verdict) -> list[str]:
    """The verdict in words, what it assumed, and its counterexample; a proof is printed apart."""
    if verdict.equivalent is None:
        return [f"{'bad input' if verdict.invalid else 'undecided'}: {verdict.error}", *_assumptions(verdict)]
    if verdict.equivalent is False:
        cx = verdict.counterexample
        where = ", ".join(f"{k}={v}" for k, v in cx.assignment.items()) or "no free indices"
        return [
            "not equivalent",
            f"  a = {verdict.a}",
            f"  b = {verdict.b}",
            *_assumptions(verdict),
            f"counterexample ({cx.model['kind']} model, {where}): a = {cx.value_a!r}, b = {cx.value_b!r}",
            json.dumps(cx.model),
        ]
    lines = [f"equivalent ({verdict.method})", f"  a = {verdict.a}", f"  b = {verdict.b}", *_assumptions(verdict)]
    if verdict.method == "semantic":
        lines.append("equal on every sampled model of the graph")
    if verdict.note:
        lines.append(verdict.note)
    return lines


def _assumptions(verdict) -> list[str]:
    """What the verdict took for granted (numbers of values, latent causes) and the arithmetic that decided it."""
    if verdict.domains is None:
        return []
    lines = [
        "values: "
        + (", ".join(f"{n}={d}" for n, d in verdict.domains.items()) or "none")
        + "; latent causes: any number of values"
        + (
            " (models with " + ", ".join(f"{s}={k}" for s, k in verdict.latent_values.items()) + ")"
            if verdict.latent_values
            else ""
        )
    ]
    if verdict.arithmetic is not None:
        lines.append(f"arithmetic: {ARITHMETIC[verdict.arithmetic]}")
    return lines


#: how each arithmetic decides, in words
ARITHMETIC = {
    "rational": "exact rationals: a - b computed without rounding (equal only when it is exactly zero)",
    "float": "floating point: |a - b| exceeds its rigorous rounding-error bound",
}
