"""``python -m causal_datasets.recast.raw PAPERS.yaml --out new/test.parquet --model M --base-url URL``

Runs the raw pipeline on the papers of a manifest (see :class:`RawPaper`) and writes the samples
that passed every step as a release-layout Parquet, plus ``<out>.report.json`` with every paper's
steps, models and errors. Build the dataset from it with ``causal-datasets build recast --source OUT``.
``--cleanup-model``, ``--merge-model``, ``--normalize-model`` and ``--label-model`` (each with its
own ``--<step>-base-url`` ...) give a step its own model, as the paper did; ``--model`` serves the rest.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from pathlib import Path

from causal_datasets.errors import LLMConfigError
from causal_datasets.llm.options import add_model_arguments, client_from_args
from causal_datasets.recast.raw.pipeline import STEPS, StepModels, load_papers, process_papers, write_report
from causal_datasets.recast.release import write_release

#: what each step's own model does (the paper's choice in brackets)
STEP_PURPOSES = {
    "cleanup": "PDF text → clean Markdown (the paper: Mistral Small)",
    "merge": "the variable-name merge (the paper: o3-mini)",
    "normalize": "the normalization loop (the paper: o3-mini)",
    "label": "domain and node-explicitness labels (the paper: R1)",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m causal_datasets.recast.raw", description=__doc__.split("\n\n")[1])
    parser.add_argument(
        "manifest", type=Path, help="JSON/YAML list of papers (id, title, source, url, abstract, pdf, annotation, ...)"
    )
    parser.add_argument("--out", type=Path, required=True, help="Parquet file to write (release layout)")
    parser.add_argument("--no-cleanup", action="store_true", help="skip the LLM Markdown clean-up")
    parser.add_argument(
        "--extractor",
        choices=("markdown", "text"),
        default="markdown",
        help="pymupdf4llm Markdown (default) or PyMuPDF plain text",
    )
    parser.add_argument("--max-rounds", type=int, default=8, help="normalization rounds at most (default 8)")
    parser.add_argument(
        "--max-attempts", type=int, default=3, help="asks per LLM step until a valid answer (default 3)"
    )
    parser.add_argument("--concurrency", type=int, default=2, help="papers processed at once (default 2)")
    add_model_arguments(parser, purpose="the model of every step without a model of its own")
    for step, purpose in STEP_PURPOSES.items():
        add_model_arguments(parser, prefix=f"{step}-", purpose=purpose, omitted="--model serves this step")
    args = parser.parse_args(argv)
    needed = [step for step in STEPS if step != "cleanup" or not args.no_cleanup]
    with ExitStack() as stack:
        clients = {}
        for prefix in ("", *(f"{step}-" for step in STEPS)):
            try:
                client = client_from_args(args, prefix=prefix)
            except LLMConfigError as error:
                parser.error(str(error))
            if client is not None:
                clients[prefix] = stack.enter_context(client)
        chosen = {step: client for step in STEPS if (client := clients.get(f"{step}-") or clients.get("")) is not None}
        if any(step not in chosen for step in needed):
            parser.error("the pipeline needs --model (and --base-url), or a model for every step")
        models = StepModels(chosen.get("cleanup"), chosen["merge"], chosen["normalize"], chosen["label"])
        outcomes = process_papers(
            models,
            load_papers(args.manifest),
            concurrency=args.concurrency,
            cleanup=not args.no_cleanup,
            extractor=args.extractor,
            max_rounds=args.max_rounds,
            max_attempts=args.max_attempts,
        )
    samples = [o.sample for o in outcomes if o.sample is not None]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = write_report(outcomes, args.out.with_suffix(".report.json"))
    if samples:
        write_release(samples, args.out)
    for outcome in outcomes:
        print(f"paper {outcome.paper_id}: {outcome.error or 'ok'}" + (f" ({outcome.detail})" if outcome.detail else ""))
    print(
        f"{len(samples)} of {len(outcomes)} papers written to {args.out if samples else '(nothing)'}; report {report}"
    )
    return 0 if samples else 1


if __name__ == "__main__":
    sys.exit(main())
