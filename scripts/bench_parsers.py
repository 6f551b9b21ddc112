"""Time against input size (1k to 1M characters) for every parser of untrusted text.

Each parser gets inputs built to hurt it — long runs of whitespace (inside a line, between
tokens, before a token), runs of brackets or delimiters, and long valid inputs — at each size,
best of ``--repeats`` runs. A linear parser takes about 10× longer for 10× the text; a quadratic
one 100×. A size that would take more than ``--budget`` seconds even if the case grew linearly from
the last size measured is not run, nor any larger one (shown as ``>budget``). Parsers with a length bound
(the expression parser: 100,000 characters, structured replies: 1,000,000) refuse longer text at once;
those rows show the time of refusing.

``--baseline DIR`` runs the same cases on another checkout of the package (e.g. an export of the
main branch) in a child process and prints its table first, so old and new code are timed in one run:

    git archive main | tar -x -C /tmp/base
    .venv/bin/python scripts/bench_parsers.py [--baseline /tmp/base] [--sizes 1000 20000 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from timing import best_of

SIZES = (1_000, 20_000, 100_000, 1_000_000)


def pad(head: str, filler: str, tail: str, size: int) -> str:
    """``head`` + ``filler`` repeated + ``tail``, ``size`` characters in all (about, for long fillers)."""
    count = max(0, size - len(head) - len(tail)) // len(filler)
    return head + filler * count + tail


def repeat(unit: str, size: int, separator: str = "") -> str:
    """``unit`` repeated with ``separator`` up to about ``size`` characters."""
    return separator.join([unit] * max(1, size // (len(unit) + len(separator))))


def cases() -> list[tuple[str, str, Callable[[str], object], Callable[[int], str]]]:
    """(parser, input, function, size → text) for every case; imports the package under test."""
    from causal_datasets.causalab.dsl import parse_step
    from causal_datasets.cladder_pairs.estimand_task import extract_estimand
    from causal_datasets.docalc import parser as expressions
    from causal_datasets.graph import CausalGraph
    from causal_datasets.llm.structured import extract_json_block, extract_yaml_block
    from causal_datasets.recast.parsing import read_prediction
    from causal_datasets.shapeworld.parsing import parse_answer

    def expression(text: str) -> object:
        expressions._parse_text.cache_clear()  # memoized by text: time the parse, not the cache
        return expressions.parse(text)

    relationship = '{"source": "interest rate", "sink": "inflation"}'
    return [
        ("expression parser", "P(Y) + spaces", expression, lambda n: pad("P(Y)", " ", "", n)),
        ("expression parser", "spaces + 1", expression, lambda n: pad("", " ", "1", n)),
        ("expression parser", "P(Y | do(X)) + ... (valid)", expression, lambda n: repeat("P(Y | do(X))", n, " + ")),
        ("CausalGraph.parse", "a + spaces + b", CausalGraph.parse, lambda n: pad("a", " ", "b", n)),
        ("CausalGraph.parse", "A1 -> B1, ... (valid)", CausalGraph.parse, lambda n: repeat("A1 -> B1", n, ", ")),
        ("read_prediction", "a + spaces + b", read_prediction, lambda n: pad("a", " ", "b", n)),
        ("read_prediction", "cause -> effect lines", read_prediction, lambda n: repeat("cause -> effect", n, "\n")),
        (
            "read_prediction",
            "relationships JSON",
            read_prediction,
            lambda n: '{"relationships": [' + repeat(relationship, n - 22, ", ") + "]}",
        ),
        ("ShapeWorld parse_answer", "spaces + answer", parse_answer, lambda n: pad("", " ", '{"answer": "yes"}', n)),
        ("ShapeWorld parse_answer", "unclosed {", parse_answer, lambda n: "{" * n),
        ("ShapeWorld parse_answer", "many answers", parse_answer, lambda n: repeat('{"answer": "no"}', n, " ")),
        ("CausaLab parse_step", "spaces + step", parse_step, lambda n: pad("", " ", '{"action": "submit"}', n)),
        ("CausaLab parse_step", "unclosed [", parse_step, lambda n: "[" * n),
        (
            "extract_json_block",
            "prose + spaces + object",
            extract_json_block,
            lambda n: pad("Answer:", " ", '{"a": 1}', n),
        ),
        (
            "extract_json_block",
            "fenced block of spaces",
            extract_json_block,
            lambda n: pad("```json\n[", " ", "1]\n```", n),
        ),
        ("extract_yaml_block", "key: value lines", extract_yaml_block, lambda n: repeat("key: value", n, "\n")),
        ("extract_yaml_block", "spaces in a value", extract_yaml_block, lambda n: pad("a: b", " ", "c", n)),
        ("extract_estimand", "label + backticks + x", extract_estimand, lambda n: pad("Estimand: x", "`", "y", n)),
        ("extract_estimand", "newlines + label", extract_estimand, lambda n: pad("", "\n", "Estimand: P(Y)", n)),
        ("extract_estimand", "label + spaces", extract_estimand, lambda n: pad("Estimand:", " ", "P(Y)", n)),
    ]


def measure(sizes: list[int], repeats: int, budget: float) -> list[dict]:
    rows = []
    for parser, label, function, make in cases():
        times: list[float | None] = []
        for position, size in enumerate(sizes):
            if times and (times[-1] is None or times[-1] * size / sizes[position - 1] > budget):
                times.append(None)
                continue
            text = make(size)
            seconds, _ = best_of(lambda function=function, text=text: _quietly(function, text), repeats)
            times.append(seconds)
        rows.append({"parser": parser, "input": label, "seconds": times})
    return rows


def _quietly(function: Callable[[str], object], text: str) -> object:
    try:
        return function(text)
    except ValueError as error:  # a refusal (too long, malformed) is an outcome; its time counts
        return error


def table(rows: list[dict], sizes: list[int], title: str) -> str:
    from causal_datasets.markdown import markdown_table

    header = ["parser", "input", *(f"{size:,} chars (ms)" for size in sizes), "last / first ÷ size ratio"]
    body = []
    for row in rows:
        shown = [f"{s * 1000:.2f}" if s is not None else ">budget" for s in row["seconds"]]
        measured = [(size, s) for size, s in zip(sizes, row["seconds"], strict=True) if s is not None]
        growth = ""
        if len(measured) > 1 and measured[0][1] > 0:
            (first_size, first), (last_size, last) = measured[0], measured[-1]
            growth = f"{(last / first) / (last_size / first_size):.2f}"
        body.append([row["parser"], row["input"], *shown, growth])
    return f"{title}\n\n{markdown_table(header, body)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=10.0, help="seconds; larger sizes of a slower case are skipped")
    parser.add_argument("--baseline", type=Path, help="another checkout of the package, timed first in a child process")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # the child's output format
    args = parser.parse_args()
    if args.baseline is not None:
        child = [
            sys.executable,
            __file__,
            "--json",
            "--repeats",
            str(args.repeats),
            "--budget",
            str(args.budget),
            "--sizes",
            *map(str, args.sizes),
        ]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(args.baseline), str(Path(__file__).parent)])}
        baseline = json.loads(subprocess.run(child, env=env, check=True, capture_output=True, text=True).stdout)
        print(table(baseline["rows"], args.sizes, f"baseline ({baseline['package']})") + "\n")
    rows = measure(args.sizes, args.repeats, args.budget)
    import causal_datasets

    if args.json:
        print(json.dumps({"package": str(Path(causal_datasets.__file__).parent.parent), "rows": rows}))
        return
    print(table(rows, args.sizes, f"this checkout ({Path(causal_datasets.__file__).parent.parent})"))


if __name__ == "__main__":
    main()
