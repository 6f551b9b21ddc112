"""``causal-datasets equiv A B --graph EDGES [--latent U]``: are two causal expressions equal under a DAG?

``--independences "X ⊥ Y | Z; ..."`` (with ``--complete`` when they are all of them) stands in for
an unknown DAG: only what the statements imply is decided.

Prints the verdict with its proof or counterexample. Exit codes: 0 equivalent, 1 not equivalent
(with a counterexample), 2 bad input (a parse error, an unknown variable, a malformed or cyclic
graph, a bad option), 3 undecided (e.g. a value undefined on every model, or a graph too large for
exact models where no proof was found).
"""

from __future__ import annotations

import argparse
import json

from causal_datasets.commands._types import at_least, positive_seconds
from causal_datasets.cli import CommandError, describe
from causal_datasets.docalc.independence import Independences, IndependenceError
from causal_datasets.docalc.search import SearchLimits
from causal_datasets.docalc.verdict import Verdict, check_equivalence

EQUIVALENT, NOT_EQUIVALENT, BAD_INPUT, UNDECIDED = 0, 1, 2, 3


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "equiv",
        help="decide whether two causal expressions are equal under a DAG (exit 0 yes, 1 no, 2 bad input, 3 undecided)",
        description=describe(__doc__),
    )
    parser.add_argument("a", help='first expression, e.g. "P(Y | do(X))"')
    parser.add_argument("b", help='second expression, e.g. "\\sum_{Z} P(Y | X, Z) * P(Z)"')
    knowledge = parser.add_mutually_exclusive_group(required=True)
    knowledge.add_argument("--graph",
                           help='edges "A->B", "A<-B" or "A<->B" (a latent common cause), comma-separated, e.g. "X->Y,Z->X,Z->Y"')
    knowledge.add_argument("--independences", metavar="STATEMENTS",
                           help='instead of a graph: independences of the unknown DAG, e.g. "X ⊥ Y | Z; W ⊥ Y" '
                                "(decides only what they imply; undecided otherwise)")
    parser.add_argument("--complete", action="store_true",
                        help="with --independences: they are every independence of the DAG (faithfulness)")
    parser.add_argument("--latent", action="append", default=[], help="an unobserved node (repeat or comma-separate)")
    parser.add_argument("--seed", type=at_least(0), default=0, help="seed of the random models (default 0)")
    parser.add_argument("--models", type=at_least(1), default=3, help="random models to compare on, at least 1 (default 3)")
    parser.add_argument("--time-limit", type=positive_seconds, default=2.0, help="seconds for the proof search (default 2)")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    latent = [name.strip() for part in args.latent for name in part.split(",") if name.strip()]
    if args.complete and args.independences is None:
        raise CommandError("--complete goes with --independences")
    knowledge = args.graph
    if args.independences is not None:
        try:
            knowledge = Independences.parse(args.independences, complete=args.complete, latent=latent)
        except IndependenceError as error:
            raise CommandError(f"--independences: {error}") from None
    verdict = check_equivalence(
        args.a,
        args.b,
        knowledge,
        latent,
        seed=args.seed,
        models=args.models,
        limits=SearchLimits(time_limit=args.time_limit),
    )
    if args.json:
        print(json.dumps(verdict_json(verdict), indent=2))
    else:
        print("\n".join(verdict_lines(verdict)))
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
        "proof": [vars(step) for step in verdict.proof.steps] if verdict.proof else None,
        "counterexample": vars(verdict.counterexample) if verdict.counterexample else None,
    }


def verdict_lines(verdict) -> list[str]:
    if verdict.equivalent is None:
        return [f"{'bad input' if verdict.invalid else 'undecided'}: {verdict.error}"]
    if verdict.equivalent is False:
        cx = verdict.counterexample
        where = ", ".join(f"{k}={v}" for k, v in cx.assignment.items()) or "no free indices"
        return [
            "not equivalent",
            f"  a = {verdict.a}",
            f"  b = {verdict.b}",
            f"counterexample ({cx.model['kind']} model, {where}): a = {cx.value_a!r}, b = {cx.value_b!r}",
            json.dumps(cx.model),
        ]
    lines = [f"equivalent ({verdict.method})", f"  a = {verdict.a}", f"  b = {verdict.b}"]
    if verdict.proof is not None:
        lines += ["proof:"] + verdict.proof.lines()
    elif verdict.method == "semantic":
        lines.append("equal on every sampled model of the graph (no proof found within the search limits)")
    if verdict.note:
        lines.append(verdict.note)
    return lines

