"""ReCAST path 2 end to end: PDFs made here with PyMuPDF, annotation files, recorded LLM answers."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest

from causal_datasets.builder import BuildContext
from causal_datasets.hub.folder import build_to_folder, load_records, verify_folder
from causal_datasets.recast.raw import prompts
from causal_datasets.recast.raw.annotation import parse_annotation
from causal_datasets.recast.raw.merge import slip_only
from causal_datasets.recast.raw.normalize import Edit, apply, locate
from causal_datasets.recast.raw.pipeline import load_papers, process_papers, write_report
from causal_datasets.recast.records import RecastSample
from causal_datasets.recast.release import read_release, write_release
from causal_datasets.registry import get_builder
from tests.data.recast.helpers import ScriptedClient
from tests.support.stub_flags import stub_flags

ANSWERS = json.loads((Path(__file__).parents[1] / "data" / "recast" / "raw_pipeline_answers.json").read_text())
BODY = """Water Pricing and Groundwater Use

Abstract. We study how prices shape water use in a growing region.

1. Introduction
Rising population increases water demand. Higher water demand reduces the groundwater volume. \
Higher water prices lower water demand.

Figure 1. The causal loop diagram of the study.

References
[1] A. Author. A paper. Journal 2020."""
ANNOTATION = """# hand annotation of Figure 1
Population -> water demand
Water demand --> Groundwater volume
Water price -> Water demand
GDP -> Population
GNP -> Population
"""


def make_pdf(path: Path, text: str) -> Path:
    document = pymupdf.open()
    document.new_page().insert_textbox(pymupdf.Rect(72, 72, 540, 770), text, fontsize=11)
    document.save(path)
    return path


def recorded(messages: list[dict[str, str]]) -> str:
    """The recorded answer for a request: the step from the system prompt, the attempt from the turns."""
    system, request = messages[0]["content"], messages[1]["content"]
    retry = len(messages) > 2
    if system == prompts.CLEANUP:
        kept = request.split("# References")[0].rstrip()
        return kept if retry else kept[:20]  # the first reply drops most of the paper
    if system == prompts.MERGE:
        return ANSWERS["merge"][retry]
    if system == prompts.NORMALIZE:
        step = "normalize_round_1" if "Figure 1." in request else "normalize_round_2"
        return ANSWERS[step][min(retry, len(ANSWERS[step]) - 1)]
    if system == prompts.DOMAINS_PROMPT:
        return ANSWERS["domains"][retry]
    if system == prompts.EXPLICITNESS:
        return ANSWERS["explicitness"][retry]
    raise AssertionError(f"unexpected request: {system[:60]}")


@pytest.fixture
def papers(tmp_path):
    make_pdf(tmp_path / "water.pdf", BODY)
    make_pdf(tmp_path / "clinic.pdf", BODY.replace("Water Pricing", "Clinic Queues"))
    (tmp_path / "broken.pdf").write_text("this is not a PDF")
    for name in ("water", "clinic", "broken"):
        (tmp_path / f"{name}.txt").write_text(ANNOTATION)
    common = {"source": "MDPI", "abstract": "We study how prices shape water use.", "publication_date": "2024-05-01"}
    manifest = [
        {
            "id": 1001,
            "title": "Water Pricing and Groundwater Use",
            "url": "https://www.mdpi.com/2073-4441/1/1/1",
            "pdf": "water.pdf",
            "annotation": "water.txt",
            **common,
        },
        {
            "id": 1002,
            "title": "Clinic Queues",
            "url": "https://www.mdpi.com/2227-9032/1/1/1",
            "pdf": "clinic.pdf",
            "annotation": "clinic.txt",
            "domains": ["Medicine"],
            **common,
        },
        {
            "id": 1003,
            "title": "Broken",
            "url": "https://www.mdpi.com/2071-1050/1/1/1",
            "pdf": "broken.pdf",
            "annotation": "broken.txt",
            **common,
        },
    ]
    (tmp_path / "papers.yaml").write_text(json.dumps(manifest))
    return load_papers(tmp_path / "papers.yaml")


def test_raw_pipeline_end_to_end(papers, tmp_path):
    client = ScriptedClient(recorded)
    outcomes = process_papers(client, papers, concurrency=1)
    assert [o.error for o in outcomes] == [None, "not_economics", "pdf_error"]
    water = outcomes[0]
    sample = water.sample
    steps = water.steps
    # clean-up: the truncated first reply was sent back, the full one kept (references dropped)
    assert steps["cleanup"]["attempts"] == 2
    assert "References" not in sample.input_text and "Higher water demand reduces" in sample.input_text
    # annotation checks and the validated merge: GDP/GNP refused, the case slip merged
    assert steps["annotation"]["corrections"] == [
        "line 3: 'Water demand --> Groundwater volume' read as 'Water demand -> Groundwater volume'"
    ]
    assert steps["annotation"]["near_duplicates"] == [["water demand", "Water demand"]]
    assert steps["merge"]["renamed"] == {"water demand": "Water demand"} and len(steps["merge"]["rejected"]) == 1
    assert sample.node_names() == ["Population", "Water demand", "Groundwater volume", "Water price", "GDP", "GNP"]
    assert [(e.source, e.target) for e in sample.edges][:2] == [
        ("Population", "Water demand"),
        ("Water demand", "Groundwater volume"),
    ]
    # normalization: the invalid edit rejected, two edits applied in one round, then no edits
    norm = steps["normalization"]
    assert norm["converged"] and norm["rounds"] == 2 and len(norm["applied"]) == 2 and len(norm["rejected"]) == 1
    assert "Figure 1." not in sample.input_text and "Population growth raises water demand." in sample.input_text
    assert "Rising population" not in sample.input_text
    # labels: domain 9 refused, then 2 and 5; explicitness re-asked until every node had a score
    assert sample.domains == ["Economics & Public Policy", "Environmental & Earth Sciences"]
    assert [n.explicitness for n in sample.nodes] == [
        "explicit",
        "explicit",
        "implicit",
        "explicit",
        "absent",
        "absent",
    ]
    assert sample.confounding_strict == pytest.approx(2 / 6) and sample.journal == "Water"
    # the failed papers say why; the run report keeps every step
    assert "Medicine" in outcomes[1].detail and "not a readable PDF" in outcomes[2].detail
    report = json.loads(write_report(outcomes, tmp_path / "report.json").read_text())
    assert report[1]["error"] == "not_economics" and report[0]["sample_id"] == 1001

    # the new samples go through the release layout into the recast builder
    parquet = write_release([sample], tmp_path / "new" / "test.parquet")
    assert read_release(parquet).samples == [sample]
    folder = build_to_folder(get_builder("recast"), tmp_path / "hub", BuildContext(seed=0, source=parquet)).folder
    assert verify_folder(folder) == {"default": {"test": 1}, "prompts": {"test": 2}}  # two prompt variants
    assert load_records(folder, "default", "test", RecastSample) == [sample]


def test_normalize_edits_are_checked_before_anything_is_applied():
    text = "Alpha beta gamma. Delta epsilon."
    spans = locate(
        [Edit(start="Delta", end="epsilon.", replacement="D."), Edit(start="Alpha", end="beta", replacement="A")], text
    )
    assert apply(spans, text) == "A gamma. D."
    with pytest.raises(ValueError, match="does not occur in the text"):
        locate([Edit(start="Zeta", end="x", replacement="")], text)
    with pytest.raises(ValueError, match="overlap"):
        locate(
            [Edit(start="Alpha", end="gamma.", replacement=""), Edit(start="beta", end="Delta", replacement="")], text
        )
    with pytest.raises(ValueError, match="after its start"):
        locate([Edit(start="Delta", end="Alpha", replacement="")], text)


def test_annotation_problems_are_reported_not_fatal():
    annotation = parse_annotation("A -> B -> C\njust a name\n -> D\nA -> B\nE -> E\n")
    assert annotation.edges == [("A", "B"), ("B", "C"), ("A", "B"), ("E", "E")]
    assert annotation.problems == ["line 2: no arrow in 'just a name'", "line 3: an empty end in '-> D'"]
    assert annotation.repeated_edges() == [("A", "B")] and annotation.self_loops() == ["E"]


@pytest.mark.parametrize(
    "a, b, same",
    [
        ("GDP", "GNP", False),
        ("Number of dog", "Number of dogs", True),
        ("carbondioxide", "carbon dioxide", True),
        ("Number of dogs", "Number of hounds", False),
        ("Interest rate", "interest-rate", True),
    ],
)
def test_merge_rule_never_joins_distinct_concepts(a, b, same):
    assert slip_only(a, b) is same


def test_command_line_entry_point_over_a_local_endpoint(papers, tmp_path, capsys):
    from causal_datasets.llm.stub_server import StubReply, StubServer
    from causal_datasets.recast.raw.__main__ import main

    manifest = tmp_path / "papers.yaml"
    out = tmp_path / "new" / "test.parquet"
    with StubServer(lambda request, index: StubReply(text=recorded(request["messages"]))) as server:
        code = main(
            [
                str(manifest),
                "--out",
                str(out),
                *stub_flags(server.base_url),
                "--concurrency",
                "1",
            ]
        )
    printed = capsys.readouterr().out
    assert code == 0 and "paper 1002: not_economics" in printed and "paper 1003: pdf_error" in printed
    assert [s.id for s in read_release(out).samples] == [1001]
    report = json.loads(out.with_suffix(".report.json").read_text())
    assert [r["error"] for r in report] == [None, "not_economics", "pdf_error"]


def test_each_step_can_have_its_own_model(papers):
    from causal_datasets.recast.raw.pipeline import StepModels

    steps = {name: ScriptedClient(recorded) for name in ("cleanup", "merge", "normalize", "label")}
    outcome = process_papers(StepModels(**steps), papers[:1], concurrency=1)[0]
    assert outcome.error is None and outcome.steps["models"] == dict.fromkeys(steps, "?")  # scripted: no config
    systems = {name: {call[0]["content"] for call in client.calls} for name, client in steps.items()}
    assert systems == {
        "cleanup": {prompts.CLEANUP},
        "merge": {prompts.MERGE},
        "normalize": {prompts.NORMALIZE},
        "label": {prompts.DOMAINS_PROMPT, prompts.EXPLICITNESS},
    }


def test_the_command_line_takes_a_model_per_step(papers, tmp_path, capsys):
    from causal_datasets.llm.stub_server import StubReply, StubServer
    from causal_datasets.recast.raw.__main__ import main

    out = tmp_path / "new" / "test.parquet"
    with StubServer(lambda request, index: StubReply(text=recorded(request["messages"]))) as server:
        code = main(
            [
                str(tmp_path / "papers.yaml"),
                "--out",
                str(out),
                "--model",
                "general",
                "--base-url",
                server.base_url,
                "--label-model",
                "labeller",
                "--label-base-url",
                server.base_url,
                "--no-cache",
                "--label-no-cache",
                "--concurrency",
                "1",
            ]
        )
        models = {(request["model"], request["messages"][0]["content"]) for request in server.requests}
    assert code == 0
    assert {system for model, system in models if model == "labeller"} == {prompts.DOMAINS_PROMPT, prompts.EXPLICITNESS}
    assert {model for model, system in models if system in (prompts.CLEANUP, prompts.MERGE, prompts.NORMALIZE)} == {
        "general"
    }
    report = json.loads(out.with_suffix(".report.json").read_text())
    assert report[0]["steps"]["models"] == {
        "cleanup": "general",
        "merge": "general",
        "normalize": "general",
        "label": "labeller",
    }
    with pytest.raises(SystemExit):
        main([str(tmp_path / "papers.yaml"), "--out", str(out), "--label-model", "x"])  # the other steps have no model
