"""Structured answers: extraction from messy replies (real gpt-5-mini outputs too), validation, repair turns."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter

from causal_datasets.llm import LLMClient, LLMConfig, structured
from causal_datasets.llm.structured import (
    StructuredError,
    ask_structured,
    bare_json_values,
    extract_json_block,
    extract_yaml_block,
    loads_lenient_json,
    strip_thinking,
    validate,
)
from causal_datasets.llm.stub_server import StubReply, StubServer
from tests.support.data import SHARED_DATA_DIR

RAW_IO = SHARED_DATA_DIR / "causalab" / "sample_run_4nodes_0_gpt-5-mini" / "raw_io.jsonl"


def real_outputs() -> list[str]:
    """The ``raw_output`` texts of the released CausaLab gpt-5-mini episode (a stream of JSON objects)."""
    text, decoder, index, outputs = RAW_IO.read_text(encoding="utf-8"), json.JSONDecoder(), 0, []
    while index < len(text):
        if text[index].isspace():
            index += 1
            continue
        record, index = decoder.raw_decode(text, index)
        outputs.append(record["raw_output"])
    return outputs


class Edge(BaseModel):
    source: str
    sink: str


class Graph(BaseModel):
    relationships: list[Edge]


def test_real_model_outputs_survive_every_wrapping():
    outputs = real_outputs()
    assert len(outputs) == 14
    for raw in outputs:
        expected = json.loads(raw)  # the reference parse of the untouched output
        assert extract_json_block(raw) == expected
        assert extract_json_block(f"Here is my next step.\n```json\n{raw}\n```\nHope this helps!") == expected
        decoy = '<think>maybe {"action": "wrong"} first?</think>\n'
        assert extract_json_block(decoy + raw) == expected
        with_trailing_comma = raw.rstrip()[:-1].rstrip() + ",\n}"
        assert extract_json_block(f"Answer: {with_trailing_comma} -- done") == expected


def test_last_json_block_wins_over_earlier_and_other_languages():
    reply = (
        'Example format:\n```json\n{"relationships": []}\n```\n'
        'My answer:\n```JSON\n{"relationships": [{"source": "rates", "sink": "inflation"},]}\n```\n'
        "```python\nprint({'not': 'this'})\n```"
    )
    assert extract_json_block(reply) == {"relationships": [{"source": "rates", "sink": "inflation"}]}


def test_unlabeled_fence_and_unclosed_final_fence():
    assert extract_json_block("```\n[1, 2, 3]\n```") == [1, 2, 3]
    assert extract_json_block('Sure!\n```json\n{"a": [1, 2]}\n') == {"a": [1, 2]}  # reply cut before the closing fence
    with pytest.raises(StructuredError) as caught:
        extract_json_block('```json\n{"a": [1, 2\n')  # cut inside the JSON
    assert caught.value.kind == "parse"


def test_bare_json_in_prose_respects_strings_and_escapes():
    prose = 'Consider {"note": "a } brace and a \\" quote, ]", "n": 1,} and then [see 1] then {"final": true}.'
    assert bare_json_values(prose) == [{"note": 'a } brace and a " quote, ]', "n": 1}, {"final": True}]
    assert extract_json_block(prose) == {"final": True}
    assert extract_json_block('text "with, quotes" [1, 2,] end') == [1, 2]


@settings(max_examples=2000, derandomize=True)
@given(st.text(alphabet='{}[]"\\a,\n', max_size=40))
@example('{"a": "\\"}", "b\\')  # an escaped quote, then a backslash ending an unclosed literal
def test_bracket_finder_agrees_with_the_character_scan(text):
    """The regular expression that finds the brackets outside string literals (what the JSON search
    pairs) sees exactly the brackets the character-by-character scan sees."""
    scanned = [(index, char) for index, char in structured._scan(text, 0) if char in "{}[]"]
    assert list(structured._brackets(text)) == scanned


def test_thinking_sections_are_removed():
    assert strip_thinking('<think>a {"x": 1}</think> done') == "done"
    assert strip_thinking("reasoning without an opening tag</think>answer") == "answer"
    assert strip_thinking('answer <THINK>cut off mid-thought {"x": 1}') == "answer"
    with pytest.raises(StructuredError) as caught:
        extract_json_block('<think>I will answer {"edges": []} but then I ran out of tokens')
    assert caught.value.kind == "no_block"


def test_yaml_blocks_and_safe_loading_only():
    judge = (
        "Assessment below.\n```yaml\npresence: strong match\nsemantic_similarity: moderate\nabstraction: aligned\n```"
    )
    assert extract_yaml_block(judge) == {
        "presence": "strong match",
        "semantic_similarity": "moderate",
        "abstraction": "aligned",
    }
    assert extract_yaml_block("<think>hmm</think>\nscore: 2\nreasons:\n  - a\n  - b\n") == {
        "score": 2,
        "reasons": ["a", "b"],
    }
    with pytest.raises(StructuredError) as caught:
        extract_yaml_block("```yaml\nx: !!python/object/apply:os.system ['echo pwned']\n```")
    assert caught.value.kind == "parse"
    with pytest.raises(StructuredError) as caught:
        extract_yaml_block("I cannot answer that.")
    assert caught.value.kind == "no_block"


def test_validate_with_model_adapter_and_callable():
    graph = validate({"relationships": [{"source": "a", "sink": "b"}]}, Graph)
    assert graph.relationships[0].sink == "b"
    assert validate(["1", 2], TypeAdapter(list[int])) == [1, 2]

    def positive(value):
        if not isinstance(value, int) or value <= 0:
            raise ValueError("expected a positive integer")
        return value

    assert validate(3, positive) == 3
    for value, schema in (
        ({"relationships": [{"source": "a"}]}, Graph),
        (-1, positive),
        (["x"], TypeAdapter(list[int])),
    ):
        with pytest.raises(StructuredError) as caught:
            validate(value, schema)
        assert caught.value.kind == "validation"
    with pytest.raises(StructuredError, match="relationships.0.sink"):
        validate({"relationships": [{"source": "a"}]}, Graph)


GOOD = '```json\n{"relationships": [{"source": "tax", "sink": "demand"}]}\n```'


def scripted(*texts: str):
    def respond(request, index):
        return StubReply(text=texts[min(index, len(texts) - 1)])

    return respond


def client_for(server: StubServer) -> LLMClient:
    return LLMClient(LLMConfig(model="m", base_url=server.base_url, backoff_base=0.01))


QUESTION = [{"role": "user", "content": "Give the causal graph as JSON."}]


def test_format_fix_repairs_in_a_separate_short_call():
    bad = "The graph: tax causes demand, i.e. {relationships: [{source: tax, sink: demand}]}"
    with StubServer(scripted(bad, GOOD)) as server, client_for(server) as client:
        answer = ask_structured(client, QUESTION, schema=Graph, repair="format_fix")
    assert answer.ok and answer.attempts == 2 and answer.raw == [bad, GOOD]
    assert answer.value == Graph(relationships=[Edge(source="tax", sink="demand")])
    fix_request = server.requests[1]["messages"]
    assert [m["role"] for m in fix_request] == ["system", "user"]
    assert "do not add, remove or improve" in fix_request[0]["content"]
    assert bad in fix_request[1]["content"] and '"relationships"' in fix_request[1]["content"]  # the JSON Schema
    assert QUESTION[0]["content"] not in json.dumps(fix_request)  # the long original prompt is not re-sent


def test_format_fix_can_use_another_model():
    with StubServer(scripted("no json here")) as main, StubServer(scripted(GOOD)) as fixer:
        with client_for(main) as client, client_for(fixer) as repairer:
            answer = ask_structured(client, QUESTION, schema=Graph, repair_client=repairer)
    assert answer.ok and answer.attempts == 2
    assert (main.count, fixer.count) == (1, 1)


def test_reask_continues_the_conversation_with_the_problem():
    invalid = '```json\n{"relationships": [{"source": "tax"}]}\n```'
    with StubServer(scripted(invalid, GOOD)) as server, client_for(server) as client:
        answer = ask_structured(client, QUESTION, schema=Graph, repair="reask")
    assert answer.ok and answer.attempts == 2
    second = server.requests[1]["messages"]
    assert second[0] == QUESTION[0]
    assert second[1] == {"role": "assistant", "content": invalid}
    assert "sink" in second[2]["content"] and "```json" in second[2]["content"]


def test_bounded_attempts_then_a_classified_failure():
    with StubServer(scripted("still prose")) as server, client_for(server) as client:
        answer = ask_structured(client, QUESTION, schema=Graph, max_attempts=3)
    assert not answer.ok and answer.value is None
    assert answer.attempts == 3 and len(answer.raw) == 3 and server.count == 3
    assert answer.error_kind == "no_block"


def test_yaml_answers_with_a_format_hint():
    with StubServer(scripted("score = 3", "```yaml\nscore: 3\n```")) as server, client_for(server) as client:
        answer = ask_structured(
            client,
            QUESTION,
            schema=lambda v: int(v["score"]),
            fmt="yaml",
            format_hint="a YAML mapping with one key, score (integer 0-4)",
        )
    assert answer.ok and answer.value == 3 and answer.attempts == 2
    assert "score (integer 0-4)" in server.requests[1]["messages"][1]["content"]


def test_model_failure_is_returned_not_raised():
    with StubServer(lambda request, index: StubReply(status=401, text="bad key")) as server:
        with client_for(server) as client:
            answer = ask_structured(client, QUESTION, schema=Graph)
    assert not answer.ok and answer.error_kind == "request_rejected" and "HTTP 401" in answer.error
    assert answer.attempts == 1 and answer.raw == []


PATHOLOGICAL = {
    "30,000 nested brackets (crashed libyaml's composer)": "[" * 30000 + "]" * 30000,
    "a block sequence 30,000 deep on one line": "- " * 30000 + "x",
    "10,000 open braces (16 s before)": "{" * 10000,
    "8,000 think tags (3 s before)": "<think>" * 8000,
    "30,000 fences (12 s before)": "```" * 30000,
    "5,000 nested JSON arrays (RecursionError before)": "```json\n" + "[" * 5000 + "]" * 5000 + "\n```",
    "two million characters": "x" * 2_000_000,
}


@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
@pytest.mark.parametrize("extract", [extract_json_block, extract_yaml_block], ids=["json", "yaml"])
def test_pathological_replies_are_typed_errors(extract, text):
    with pytest.raises(StructuredError) as error:
        extract(text)
    assert error.value.kind in ("parse", "no_block") and len(str(error.value)) < 300


def test_yaml_aliases_are_refused():
    laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
    )
    with pytest.raises(StructuredError, match="aliases"):
        extract_yaml_block(laughs)


def test_a_value_inside_a_too_deep_structure_is_not_taken_for_the_answer():
    assert bare_json_values("[" * 100 + "[1]" + "]" * 100 + ' then {"a": 1}') == [{"a": 1}]
    assert bare_json_values('noise {x ] {"c": 3} and [1, {"d": [2]}]') == [{"c": 3}, [1, {"d": [2]}]]


def test_trailing_commas_are_dropped_but_never_a_comma_between_strings():
    assert loads_lenient_json('{"e": [["ph", "freq"],], "c": {"b": "2,]",},}') == {
        "e": [["ph", "freq"]],
        "c": {"b": "2,]"},
    }
