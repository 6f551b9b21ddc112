"""Use an installed causal-datasets as a new user would, from a folder outside any checkout.

    <venv>/bin/python /path/to/scripts/smoke_installed.py      # run from an empty temporary folder

Called by ``scripts/check_wheel.sh`` with the Python of a fresh virtual environment into which only
the built wheel (with its ``inspect`` extra) was installed. Checks: the package is imported from that environment (not a
checkout); ``info`` lists every dataset; ``build --all`` builds every dataset that needs no source
and loads it back; the oracle agent scores 100% on ShapeWorld core; every metric module loads
through ``evaluate.load`` and computes (the judge-based ones against the package's own stub
endpoint); ``inspect eval causal_datasets/shapeworld_core`` runs the oracle; ``equiv`` decides a
pair both ways. Prints each step; exits non-zero at the first failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import evaluate

import causal_datasets
from causal_datasets import metric_path
from causal_datasets.hub.location import load_benchmark
from causal_datasets.llm.stub_server import StubReply, StubServer
from causal_datasets.paths import metric_names
from causal_datasets.recast.samples import make_sample

CLI = [sys.executable, "-m", "causal_datasets.cli"]
DATASETS = ("causalab", "cladder_pairs", "cobe", "recast", "shapeworld")
NO_SOURCE = ("causalab", "cladder_pairs", "shapeworld")
#: the lm-eval task configs of the checkout this script is in: the installed wheel must ship every one
LM_EVAL_TASKS_SOURCE = Path(__file__).resolve().parents[1] / "causal_datasets" / "integrations" / "lm_eval" / "tasks"


def cli(*args: str, expect: int = 0) -> str:
    print("$ causal-datasets", " ".join(args), flush=True)
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, check=False)
    if done.returncode != expect:
        sys.exit(f"exit code {done.returncode} (expected {expect})\n{done.stdout}\n{done.stderr}")
    return done.stdout


def check(condition: bool, message: str) -> None:
    if not condition:
        sys.exit(f"FAILED: {message}")
    print(f"ok: {message}", flush=True)


def main() -> None:
    package = Path(causal_datasets.__file__).resolve()
    check(
        "site-packages" in package.parts and not (Path.cwd() / "causal_datasets").exists(),
        f"causal_datasets {causal_datasets.__version__} is imported from {package.parent}",
    )

    listing = cli("info")
    check(all(f"| {name} |" in listing for name in DATASETS), "info lists all five datasets")

    built = cli("build", "--all", "--hub-dir", "hub")
    check(
        all((Path("hub") / name / "manifest.json").is_file() for name in NO_SOURCE),
        f"build --all built {', '.join(NO_SOURCE)} into ./hub",
    )
    check("skipped recast" in built and "skipped cobe" in built, "build --all says why recast and cobe were skipped")
    check(len(load_benchmark("shapeworld", "core")) == 84, "load_benchmark reads the 84 ShapeWorld core tasks back")

    cli("eval", "shapeworld", "--agent", "oracle", "--out", "runs/oracle")
    summary = json.loads(Path("runs/oracle/summary.json").read_text())
    check(
        summary["metrics"]["accuracy"] == 1.0 and summary["metrics"]["count"] == 84,
        "eval shapeworld --agent oracle: 84 episodes, accuracy 1.0",
    )

    check(
        metric_names()
        == sorted(
            [
                "causal_graph_metrics",
                "causalab_mechanism",
                "cobe_edit_criteria",
                "do_calculus_equivalence",
                "recast_judge",
                "shapeworld_accuracy",
            ]
        ),
        "the wheel ships six metric modules",
    )
    for name in metric_names():
        for part in (f"{name}.py", "app.py", "requirements.txt", "README.md"):
            check(Path(metric_path(name), part).is_file(), f"{name}/{part} is installed")
    compute_every_metric()
    inspect_eval_oracle()
    folder = subprocess.run(
        [sys.executable, "-m", "causal_datasets.integrations.lm_eval"], capture_output=True, text=True, check=True
    ).stdout.strip()
    shipped = sorted(path.name for path in Path(folder).glob("causal_*.yaml"))
    in_source = sorted(path.name for path in LM_EVAL_TASKS_SOURCE.glob("causal_*.yaml"))
    check(
        shipped == in_source and "causal_reasoning.yaml" in shipped and (Path(folder) / "utils.py").is_file(),
        f"the lm-eval task configs ship in {folder} (every one of the checkout's {len(in_source)})",
    )

    proof = cli("equiv", "P(Y | do(X))", r"\sum_{Z} P(Y | X, Z) * P(Z)", "--graph", "X->Y,Z->X,Z->Y")
    check(proof.startswith("equivalent"), "equiv proves the back-door adjustment")
    refuted = cli("equiv", "P(Y | do(X))", "P(Y | X)", "--graph", "X->Y,Z->X,Z->Y", expect=1)
    check(refuted.startswith("not equivalent") and "counterexample" in refuted, "equiv refutes P(Y|do(X)) = P(Y|X)")
    print("installed package: every check passed")


def inspect_eval_oracle() -> None:
    """``inspect eval causal_datasets/shapeworld_core`` (the ``inspect`` extra): the entry point
    registers the tasks and the oracle agent answers every episode right (no model call, so inspect
    needs no token-estimate download offline)."""
    from inspect_ai.log import read_eval_log

    command = [
        str(Path(sys.executable).parent / "inspect"),
        "eval",
        "causal_datasets/shapeworld_core",
        "--model",
        "mockllm/model",
        "-T",
        "agent=oracle",
        "--limit",
        "8",
        "--log-dir",
        "inspect-logs",
        "--display",
        "none",
    ]
    print("$ inspect", " ".join(command[1:]), flush=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"inspect eval failed ({done.returncode})\n{done.stdout}\n{done.stderr}")
    [log_file] = Path("inspect-logs").glob("*.eval")
    log = read_eval_log(str(log_file))
    [score] = log.results.scores
    check(
        log.status == "success"
        and log.eval.task == "causal_datasets/shapeworld_core"
        and score.metrics["mean"].value == 1.0
        and score.scored_samples == 8,
        "inspect eval causal_datasets/shapeworld_core -T agent=oracle: 8 samples, accuracy 1.0, log reads back",
    )


def compute_every_metric() -> None:
    graphs = evaluate.load(metric_path("causal_graph_metrics"))
    result = graphs.compute(predictions=[["A -> B", "C -> B"]], references=[["A -> B", "B -> C"]])
    check(result["shd"] == 1.0 and result["edge_f1"] == 0.5, "causal_graph_metrics computes SHD 1, edge F1 0.5")

    equivalence = evaluate.load(metric_path("do_calculus_equivalence"))
    result = equivalence.compute(
        predictions=[r"\sum_{Z} P(Y | X, Z) * P(Z)", "P(Y | X)"],
        references=["P(Y | do(X))", "P(Y | do(X))"],
        graphs=["X->Y,Z->X,Z->Y"] * 2,
    )
    check(result["verdicts"] == [True, False], "do_calculus_equivalence: adjustment equal, plain conditional not")

    episode = load_benchmark("causalab", "3nodes")[0]
    truth = {"edges": [{"from": e.source, "to": e.target} for e in episode.edges]}
    mechanism = evaluate.load(metric_path("causalab_mechanism"))
    result = mechanism.compute(predictions=[json.dumps(truth)], references=[episode.model_dump_json()])
    check(result["edge_f1"] == 1.0, "causalab_mechanism: the true edges score edge F1 1.0")

    accuracy = evaluate.load(metric_path("shapeworld_accuracy"))
    result = accuracy.compute(predictions=["yes", "no", ""], references=["yes", "yes", "no"])
    check(result["accuracy"] == 0.3333, "shapeworld_accuracy: one of three right (rates rounded to 4 places)")

    with StubServer(lambda request, index: StubReply(text="T")) as server:
        cobe = evaluate.load(metric_path("cobe_edit_criteria"))
        result = cobe.compute(
            predictions=["The streets stayed dry because it did not rain."],
            references=[
                {
                    "should_not_change": ["The city is large."],
                    "should_change": ["The streets are dry."],
                    "numerical_change": [],
                    "latent_factors": [],
                    "domain": "",
                    "graph_type": "",
                    "phrasing": "",
                }
            ],
            judge_model="stub",
            judge_base_url=server.base_url,
            judge_api_key_env="NO_KEY_NEEDED",
        )
        check(result["n"] == 1 and server.count >= 2, f"cobe_edit_criteria judged 1 rewrite with {server.count} calls")
    sample = make_sample(
        id=1,
        title="Rain and streets",
        source="MDPI",
        url="https://www.mdpi.com/2071-1050/1/1/1",
        publication_date=None,
        domains=["Economics & Public Policy"],
        nodes=[("Rain", "explicit"), ("Wet streets", "implicit")],
        edges=[("Rain", "Wet streets")],
        input_text="Rain makes the streets wet.",
        abstract="",
    )
    recast = evaluate.load(metric_path("recast_judge"))
    result = recast.compute(
        predictions=["Rain -> Wet streets"], references=[sample.model_dump_json()], mode="deterministic"
    )
    check(result["deterministic"]["exact"]["edge_f1"] == 1.0, "recast_judge: the true graph scores edge F1 1.0")


if __name__ == "__main__":
    main()
