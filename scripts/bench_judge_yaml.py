"""The ReCAST judge loop with libyaml's C loader beside the pure-Python loader, in one run.

Every judge answer is YAML; ``causal_datasets.llm.structured`` reads it with ``CSafeLoader`` when
PyYAML has libyaml (the pure-Python ``SafeLoader`` only as a fallback), after bounding its size,
nesting and aliases. This script runs the same judge loop (40 samples × 4 evaluations against the
package's stub endpoint, which answers at once with a valid all-strong-match YAML answer) with each
loader, and parses the largest answer (edge recall of the largest graph) with each.

    .venv/bin/python scripts/bench_judge_yaml.py [--samples 40] [--repeats 3]
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from functools import partial

import yaml
from bench_recast import RELEASE, perfect_answer
from timing import best_of

from causal_datasets.llm import LLMClient, LLMConfig, structured
from causal_datasets.llm.stub_server import StubServer
from causal_datasets.markdown import markdown_table
from causal_datasets.recast.metric import score_predictions
from causal_datasets.recast.release import read_release

LOADERS = {"pure Python (SafeLoader)": yaml.SafeLoader, "libyaml (CSafeLoader)": yaml.CSafeLoader}


def instant(request: dict, index: int):
    return replace(perfect_answer(request, index), delay=0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    samples = read_release(RELEASE).samples
    chosen = samples[: args.samples]
    largest = max(samples, key=lambda s: len(s.graph().edges))
    rows = []
    with StubServer(instant) as server:
        judge = LLMClient(LLMConfig(model="stub", base_url=server.base_url))
        answer = None
        for name, loader in LOADERS.items():
            structured.SAFE_YAML_LOADER = loader
            seconds, _ = best_of(
                lambda: score_predictions([s.graph() for s in chosen], chosen, judge=judge, concurrency=1), args.repeats
            )
            server.requests.clear()
            score_predictions([largest.graph()], [largest], judge=judge, concurrency=1)
            answer = next(
                r
                for r in server.requests
                if "edge_recall" in r["messages"][1]["content"].rsplit("Answer with the ", 1)[1]
            )
            text = perfect_answer(answer, 0).text
            parse, _ = best_of(partial(structured.extract_yaml_block, text), args.repeats)
            rows.append([name, f"{seconds:.2f}", f"{args.samples * 4 / seconds:.0f}", f"{parse * 1000:.1f}"])
    structured.SAFE_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    print(
        markdown_table(
            [
                "YAML loader",
                f"judge loop, {args.samples} samples (s)",
                "evaluations/s",
                f"largest answer ({len(largest.graph().edges)} edges) parse (ms)",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    main()
