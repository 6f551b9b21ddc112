"""CoBe analyses: the published verdicts summarised offline, and a failure-mode judge against the hand labels.

    .venv/bin/python scripts/bench_cobe_failure_modes.py [--local | --model M --base-url URL]

First ``eval cobe --config responses`` without a model (all 1143 published responses): its time and
the per-model table it gives. Then, with ``--local`` (the bundled SmolLM2-135M) or any model, the
failure-mode judge on the twenty hand-labelled wrong rewrites of ``tests/data/cobe/failure_modes.json``:
accuracy, Cohen's κ and the seconds per classification. Answers are cached in
``.cache/bench_cobe_failure_modes.sqlite``, so a rerun is instant.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from causal_datasets.cli import build_parser
from causal_datasets.cobe.failure_modes import FailureCase, classify_failure, label_agreement
from causal_datasets.cobe.formats import read_source
from causal_datasets.cobe.prompts import CriteriaSet
from causal_datasets.commands.eval import settings_from_args
from causal_datasets.llm import LLMClient, LLMConfig
from causal_datasets.markdown import markdown_table
from causal_datasets.runners import tasks
from causal_datasets.runners.engine import run_task
from checkout import SHARED_DATA_DIR

SOURCE = SHARED_DATA_DIR / "cobe" / "category-examples.json"
LABELS = Path(__file__).resolve().parents[1] / "tests" / "data" / "cobe" / "failure_modes.json"
CACHE = Path(".cache") / "bench_cobe_failure_modes.sqlite"


def bench_published() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        args = build_parser().parse_args(["eval", "cobe", "--config", "responses", "--source", str(SOURCE),
                                          "--hub-dir", f"{tmp}/hub", "--out", f"{tmp}/run"])
        task = tasks()["cobe"]
        start = time.perf_counter()
        summary = run_task(task, settings_from_args(task, args))
        seconds = time.perf_counter() - start
    print(f"## published verdicts, offline: {summary.metrics.count} responses in {seconds:.2f} s (build included)\n")
    rows = [[model, e["n"], round(e["accuracy"], 4), round(e["accuracy_decided"], 4),
             f"{100 * e['accuracy_phrasing_mean']:.2f} ± {100 * e['accuracy_phrasing_sd']:.2f}"]
            for model, e in summary.slices["by_model"].items()]
    print(markdown_table(["model", "responses", "accuracy", "correct / decided", "accuracy % over phrasings (mean ± SD)"], rows))


def bench_judge(config: LLMConfig) -> None:
    parsed = read_source(SOURCE)
    scenarios = {s.id: s for s in parsed.scenarios}
    responses = {r.id: r for r in parsed.responses}
    labels = json.loads(LABELS.read_text(encoding="utf-8"))["labels"]
    cases = []
    for label in labels:
        response = responses[label["response_id"]]
        scenario = scenarios[response.scenario_id]
        cases.append(FailureCase(scenario.text, scenario.queries[0].text, CriteriaSet.of(scenario), response.response))
    CACHE.parent.mkdir(exist_ok=True)
    with LLMClient(config, cache_path=CACHE) as client:
        start = time.perf_counter()
        verdicts = [classify_failure(client, case, max_attempts=2) for case in cases]
        seconds = time.perf_counter() - start
        calls = client.usage_summary()["calls"]
    result = label_agreement([v.mode for v in verdicts], [label["mode"] for label in labels])
    print(f"\n## failure-mode judge {config.model} on the {len(labels)} hand labels\n")
    print(markdown_table(["answered", "accuracy", "Cohen's κ", "calls", "seconds", "s/call"], [[
        f"{result['answered']} of {result['n']}", result["accuracy"], result["cohen_kappa"], calls, round(seconds, 1),
        round(seconds / max(calls, 1), 2)]]))
    print(f"\nconfusions (label→judge): {result['confusions']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--local", action="store_true", help="judge with the bundled SmolLM2-135M")
    parser.add_argument("--model", help="judge model name")
    parser.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    args = parser.parse_args()
    bench_published()
    if args.local:
        from causal_datasets.llm.local import LocalServer

        with LocalServer(n_threads=2) as server:
            bench_judge(LLMConfig(model=server.model, base_url=server.base_url, max_tokens=8, timeout=300))
    elif args.model:
        bench_judge(LLMConfig(model=args.model, base_url=args.base_url, max_tokens=8))


if __name__ == "__main__":
    main()
