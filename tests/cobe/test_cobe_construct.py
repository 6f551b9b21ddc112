"""``build cobe --construct``: the core set expanded by a stub generator's variations, checked, recorded, resumed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from causal_datasets.cli import main
from causal_datasets.cobe.construct import VariationLine, construct, plan, read_core, variation_line
from causal_datasets.cobe.labels import PHRASING_OPENINGS
from causal_datasets.cobe.records import VARIATION_CATEGORIES, CoBeScenario, CoBeVariation
from causal_datasets.cobe.variation_prompts import SYSTEM, prompt_sha256
from causal_datasets.errors import RunConfigurationError
from causal_datasets.hub.folder import load_records
from causal_datasets.llm import LLMClient, LLMConfig
from causal_datasets.llm.chat import ChatResult
from causal_datasets.llm.stub_server import StubReply, StubServer
from causal_datasets.runners.results import RESULTS_FILE
from tests.support.data import SHARED_DATA_DIR
from tests.support.stub_flags import stub_flags

#: five released scenarios (website format): 403v28's should-not-change contradicts its text
CORE = SHARED_DATA_DIR / "cobe" / "category-examples.excerpt.json"
NO_JSON = "143v10"  # the stub generator answers this core's requests in prose
REFUSED = "102v17"  # the stub judge fails this core's variations on E2


def core_of(request: dict) -> dict:
    """The core scenario shown in a generation request."""
    shown = re.search(r"```json\n(.*?)\n```", request["messages"][1]["content"], re.S)
    assert shown is not None
    return json.loads(shown.group(1))


def generator_reply(request: dict) -> str:
    """A variation of the core the request shows: its text with an opening, its own criteria, template queries."""
    core = core_of(request)
    if core["text"].startswith("Hoping to feel better"):  # 143v10
        return "Here is a variation: Robert went to the clinic on a Tuesday instead."
    number = re.search(r"variation number (\d+)", request["messages"][1]["content"]).group(1)
    variation = {
        "text": f"On day {number}, {core['text'][0].lower()}{core['text'][1:]}",
        "queries": [f"{opening} the intervention held." for opening in PHRASING_OPENINGS.values()],
        "representative_answer": f"A rewrite where the intervention held ({number}).",
        "should_not_change": core["should_not_change"],
        "should_change": core["should_change"],
    }
    return f"Sure.\n```json\n{json.dumps(variation)}\n```"


def stub(request: dict, index: int) -> StubReply:
    """The generator (system message) or the judge (one user message ending in the rewrite)."""
    if request["messages"][0]["content"] == SYSTEM:
        return StubReply(text=generator_reply(request))
    prompt = request["messages"][0]["content"]
    refused = "defibrillator" in prompt and "should be CHANGED" in prompt
    return StubReply(text="F" if refused else "T")


def build(core: Path, out: Path, hub: Path, server: StubServer, *extra: str) -> int:
    return main(
        ["build", "cobe", "--construct", str(core), "--construct-out", str(out), "--hub-dir", str(hub),
         "--variations-per-kind", "1", *extra, *stub_flags(server.base_url)]
    )  # fmt: skip


def test_construct_builds_core_and_verified_variations_with_provenance(tmp_path):
    out, hub = tmp_path / "construction", tmp_path / "hub"
    with StubServer(stub) as server:
        assert build(CORE, out, hub, server) == 0
        requests = list(server.requests)
    variations = load_records(hub / "cobe", "variations", "test", CoBeVariation)
    scenarios = load_records(hub / "cobe", "scenarios", "test", CoBeScenario)
    assert len(variations) == 5 * 3  # five cores × three kinds × one
    by_core = {core: [v for v in variations if v.core_id == core] for core in {v.core_id for v in variations}}
    assert {v.category for v in by_core[NO_JSON]} == {"reply_no_json"}
    assert {v.category for v in by_core[REFUSED]} == {"answer_fails_criteria"}
    assert all(v.verdicts and any(c.code == "E2" and c.passed is False for c in v.verdicts) for v in by_core[REFUSED])
    assert {v.category for v in by_core["403v28"]} == {"criterion_not_in_text"}  # the core's own flaw, carried over
    accepted = [v for v in variations if v.status == "accepted"]
    assert {v.core_id for v in accepted} == {"119v6", "406v29"} and len(accepted) == 6
    assert all(v.category is None and v.scenario_id for v in accepted)
    assert all(v.status == "rejected" and v.category in VARIATION_CATEGORIES for v in variations if v not in accepted)
    # ids number on from the core file's own variation id; the core scenarios are kept as they are
    assert sorted(v.scenario_id for v in accepted if v.core_id == "119v6") == ["119v7", "119v8", "119v9"]
    assert {s.id for s in scenarios} == {"102v17", "119v6", "143v10", "403v28", "406v29"} | {
        v.scenario_id for v in accepted
    }
    constructed = {s.id: s for s in scenarios if s.source_format == "constructed"}
    domain_variation = next(v for v in accepted if v.kind == "domain" and v.core_id == "119v6")
    assert constructed[domain_variation.scenario_id].domain == domain_variation.target_domain != "Health and Medicine"
    assert all(len(s.queries) == 3 for s in constructed.values())
    # provenance: the request hash is the hash of what the server was sent first for that variation
    sent = {prompt_sha256(r["messages"]) for r in requests if r["messages"][0]["content"] == SYSTEM}
    assert {v.prompt_sha256 for v in variations} <= sent and all(v.model == "stub" for v in variations)
    manifest = json.loads((hub / "cobe" / "manifest.json").read_text())
    card = (hub / "cobe" / "README.md").read_text()
    assert manifest["version"] == "1.2.0" and "### Construction (paper §3.1)" in card
    assert "| `prompt_sha256` |" in card and "| `verdicts.code` |" in card
    assert "| all | 15 | 6 |" in card  # the construction table: asked, accepted
    # the prose reply was asked again once (the re-ask), then given up: two generator calls per request
    line = next(json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines() if NO_JSON in x)
    assert [c["role"] for c in line["calls"]] == ["generator", "generator"]


def test_an_interrupted_construction_resumes_and_failed_calls_are_asked_again(tmp_path):
    cores = read_core(CORE)
    planned = [r.id for r in plan(cores, ["sentence_structure", "clause_order", "domain"], 1)]

    failing = {"on": True}

    def failing_first(request: dict, index: int) -> StubReply:
        generation = request["messages"][0]["content"] == SYSTEM
        if failing["on"] and generation and "walk-in clinic" in request["messages"][1]["content"]:
            return StubReply(status=400, text="bad request")  # not retried: the variation fails
        return stub(request, index)

    def run(out: Path, server: StubServer, cache: Path | None = None) -> dict[str, int]:
        config = LLMConfig(model="stub", base_url=server.base_url, max_retries=0)
        with LLMClient(config, cache_path=cache) as client:
            return construct(CORE, out, client, client, per_kind=1, concurrency=2, progress=False)

    whole, out = tmp_path / "whole", tmp_path / "interrupted"
    with StubServer(stub) as server:
        assert run(whole, server) == {"accepted": 6, "rejected": 9, "failed": 0}
    with StubServer(failing_first) as server:  # one server: the cache keys name the endpoint
        first = run(out, server, tmp_path / "cache.sqlite")
        assert first == {"accepted": 6, "rejected": 6, "failed": 3}
        failed = [json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines()]
        assert {x["category"] for x in failed if x["status"] == "failed"} == {"call_failed"}
        # a kill mid-write: three lines lost, the next one torn in half
        lines = (out / RESULTS_FILE).read_text().splitlines(keepends=True)
        kept = lines[:8]
        (out / RESULTS_FILE).write_text("".join(kept) + lines[8][: len(lines[8]) // 2])
        survivors = {json.loads(x)["id"] for x in kept if json.loads(x)["status"] != "failed"}
        failing["on"], before = False, server.count
        second = run(out, server, tmp_path / "cache.sqlite")
        later = server.requests[before:]
        asked = {prompt_sha256(r["messages"]) for r in later if r["messages"][0]["content"] == SYSTEM}
    assert second == {"accepted": 6, "rejected": 9, "failed": 0}
    resumed = {json.loads(x)["id"]: json.loads(x) for x in (out / RESULTS_FILE).read_text().splitlines()}
    reference = {json.loads(x)["id"]: json.loads(x) for x in (whole / RESULTS_FILE).read_text().splitlines()}
    assert sorted(resumed) == sorted(planned)
    # the lines kept were not asked again; the failed ones were (the cache had no reply for them)
    retried = {line["prompt_sha256"] for id_, line in resumed.items() if id_ not in survivors and "143v10" in id_}
    assert retried and retried <= asked
    assert not any(resumed[i]["prompt_sha256"] in asked for i in survivors)
    lost = [line for id_, line in resumed.items() if id_ not in survivors and "143v10" not in id_]
    assert lost and not any(line["prompt_sha256"] in asked for line in lost)  # the response cache answered them
    strip = ("calls",)
    assert {i: {k: v for k, v in x.items() if k not in strip} for i, x in resumed.items()} == {
        i: {k: v for k, v in x.items() if k not in strip} for i, x in reference.items()
    }


def test_a_folder_of_other_settings_is_refused(tmp_path):
    with StubServer(stub) as server:
        config = LLMConfig(model="stub", base_url=server.base_url)
        with LLMClient(config) as client:
            construct(CORE, tmp_path / "c", client, client, kinds=["domain"], per_kind=1, progress=False)
            with pytest.raises(RunConfigurationError, match="per_kind"):
                construct(CORE, tmp_path / "c", client, client, kinds=["domain"], per_kind=2, progress=False)
            (tmp_path / "busy").mkdir()
            (tmp_path / "busy" / "notes.txt").write_text("mine")
            with pytest.raises(RunConfigurationError, match="not an empty folder"):
                construct(CORE, tmp_path / "busy", client, client, kinds=["domain"], per_kind=1, progress=False)
            (tmp_path / "cut").mkdir()  # a start a kill cut short: the core copy, no settings
            (tmp_path / "cut" / "core.json").write_text("[]")
            counts = construct(CORE, tmp_path / "cut", client, client, kinds=["domain"], per_kind=1, progress=False)
    assert sum(counts.values()) == 5 and (tmp_path / "cut" / "core.json").read_bytes() == CORE.read_bytes()
    assert (tmp_path / "busy" / "notes.txt").read_text() == "mine" and len(list((tmp_path / "busy").iterdir())) == 1


def test_construct_flags_are_checked(tmp_path, capsys):
    core = str(CORE)
    assert main(["build", "cobe", "--construct", core, "--construct-out", str(tmp_path / "c")]) == 2
    assert "needs a generator: --model" in capsys.readouterr().err
    assert main(["build", "recast", "--construct", core, "--model", "m"]) == 2
    assert "builds cobe alone" in capsys.readouterr().err
    assert main(["build", "cobe", "--construct", str(tmp_path / "missing.json"), "--model", "m"]) == 2
    assert "is not a file" in capsys.readouterr().err
    assert main(["build", "cobe", "--source", core, "--judge-model", "j", "--hub-dir", str(tmp_path / "h")]) == 2
    assert "--judge-model is for `build cobe --construct CORE` alone" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text('{"examples": [{"example_id": "1v1"}]}')
    with StubServer(stub) as server:
        code = main(["build", "cobe", "--construct", str(broken), *stub_flags(server.base_url)])
        assert code == 2 and server.count == 0
    assert "not a usable CoBe core set" in capsys.readouterr().err


class ScriptedClient:
    """A generator that always says ``text`` and a judge that always says T (no server)."""

    def __init__(self, text: str):
        self.text = text
        self.config = LLMConfig(model="scripted", base_url="http://127.0.0.1:9/v1")

    def chat(self, messages, **overrides) -> ChatResult:
        text = "T" if messages[0]["content"] != SYSTEM else self.text
        return ChatResult(text=text, prompt_tokens=0, completion_tokens=0, cached=False, attempts=1, model="scripted")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=25), inner, max_size=8),
    max_leaves=20,
)
field_names = st.sampled_from(
    ["text", "queries", "representative_answer", "should_not_change", "should_change", "latent_factors"]
)
replies = st.one_of(
    st.text(max_size=300),
    st.dictionaries(field_names, json_values, max_size=6).map(lambda d: f"```json\n{json.dumps(d)}\n```"),
    st.text(alphabet='{}[]",:`json \n', max_size=120),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reply=replies)
@example(reply='```json\n{"text": "x", "queries": ["a", "b"]}\n```')
@example(reply="```json\n{" * 50)
def test_any_generator_reply_ends_in_a_typed_line(reply):
    core = read_core(CORE)[1]
    request = plan([core], ["clause_order"], 1)[0]
    client = ScriptedClient(reply)
    line = VariationLine.model_validate(variation_line(request, client, client))
    assert line.status in ("accepted", "rejected")
    assert (line.category is None) == (line.status == "accepted") and line.reply == reply
    assert line.category is None or line.category in VARIATION_CATEGORIES
