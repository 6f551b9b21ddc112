"""DSL: every step of the real gpt-5-mini episode parses; tolerant reading of model replies."""

from __future__ import annotations

import pytest

from causal_datasets.causalab.dsl import parse_step, read_json_stream
from causal_datasets.causalab.formula import FormulaError, coefficient_terms, evaluate_equation
from causal_datasets.causalab.properties import normalize_name
from causal_datasets.causalab.upstream_run import TRACKING_FILE, read_upstream_run
from tests.causalab.data import SAMPLE


def test_the_tracking_file_is_a_stream_of_pretty_printed_objects():
    text = (SAMPLE / TRACKING_FILE).read_text(encoding="utf-8")
    assert text.lstrip().startswith("{\n")  # not JSONL
    assert len(read_json_stream(text)) == 14


def test_every_step_of_the_real_episode_parses():
    run = read_upstream_run(SAMPLE)
    actions = [item["action"] for item in run.tracking if item["action"] is not None]
    assert len(actions) == 13 and len(run.replies) == 14
    for source in [*actions, *run.replies]:
        parsed = parse_step(source)
        assert parsed.error is None and parsed.warnings == []
        assert parsed.step.memory and parsed.step.thought
    final = parse_step(run.replies[-1]).step
    assert [(e.source, e.target) for e in final.hypothesis.edges] == [
        ("moisture", "resonanceFreq"),
        ("quantumSize", "resonanceFreq"),
        ("density", "quantumSize"),
    ]
    assert final.hypothesis.coefficients == {
        "base": -56.70212765957447,
        "c_moisture": 1.2340425531914894,
        "c_quantumSize": 1.0,
    }
    assert final.action == "submit" and final.prediction == 99.25531914893617
    assert len(final.past_data) == 5 and final.past_data[2].props == {
        "density": 39.0,
        "moisture": 50.0,
        "quantumSize": 109.0,
    }
    intervention = parse_step(actions[3]).step  # the step that set moisture to 50
    assert intervention.action == "intervene"
    assert (intervention.experiment.target_prop, intervention.experiment.target_value) == ("moisture", 50.0)


def test_tolerant_reading_of_model_replies():
    reply = """Sure! Here is my step:
```json
{"thought": "x", "hypothesis": {"edges": [["ph", "freq"], "density -> Resonance Frequency",
  {"source": "temp", "target": "ph"}, {"from": "ph"}],
  "freq_equation": "freq = base + c_ph*ph", "coefficients": {"base": "20", "c_ph": "2.5", "c_bad": "many"},},
 "experiment": {"target_prop": "Temperature", "target_value": "30"}, "action": "intervene",}
```"""
    parsed = parse_step(reply)
    assert parsed.error is None
    step = parsed.step
    assert [(e.source, e.target) for e in step.hypothesis.edges] == [
        ("ph", "resonanceFreq"),
        ("density", "resonanceFreq"),
        ("temperatureC", "ph"),
    ]
    assert step.hypothesis.coefficients == {"base": 20.0, "c_ph": 2.5}
    assert len(parsed.warnings) == 2  # the one-ended edge and the non-numeric coefficient
    assert (step.action, step.experiment.target_prop, step.experiment.target_value) == (
        "intervene",
        "temperatureC",
        30.0,
    )


@pytest.mark.parametrize(
    ("reply", "action", "prediction"),
    [
        ('{"action": "submit", "prediction": 123.5}', "submit", 123.5),
        (
            '{"action": "SUBMIT", "experiment": {"target_prop": "set_reactor_frequency", "target_value": 7}}',
            "submit",
            7.0,
        ),
        ('{"action": "submit", "value": 0, "answer": 5}', "submit", 0.0),
        ('{"action": "submit", "answer": "42 Hz"}', "submit", 42.0),
        ('{"action": "stop"}', "stop", None),
        ('{"experiment": {}}', "", None),
    ],
)
def test_actions(reply, action, prediction):
    step = parse_step(reply).step
    assert (step.action, step.prediction) == (action, prediction)


@pytest.mark.parametrize("reply", ["", "I think the answer is 42.", "[1, 2, 3]", "{not json at all"])
def test_unreadable_replies_are_reported(reply):
    parsed = parse_step(reply)
    assert parsed.step is None and parsed.error


def test_quadratic_coefficient_naming_follows_the_authors_prompts():
    # step prompt: "resonanceFreq = base + c_PropA_1*PropA^2 + c_PropA_2*PropA"; task text: "c2_A * A^2 + c1_A * A"
    terms = coefficient_terms({"base": 90, "c_density_1": 0.016, "c_density_2": -1.7, "c_moisture": 2, "c_ph_2": 0})
    assert terms == {("density", "quadratic"): 0.016, ("density", "linear"): -1.7, ("moisture", "linear"): 2}
    assert coefficient_terms({"c2_density": 0.016, "c1_density": -1.7}) == {
        ("density", "quadratic"): 0.016,
        ("density", "linear"): -1.7,
    }


def test_name_normalization():
    for alias in ("freq", "frequency", "Resonance Frequency", "resonance_frequency", "Resonance Frequency (Hz)"):
        assert normalize_name(alias) == "resonanceFreq"
    assert normalize_name("temperature") == "temperatureC" and normalize_name("pH") == "ph"
    assert normalize_name("flux capacitor") == "flux capacitor"


def test_equation_evaluator_is_safe_and_exact():
    coefficients = {"base": 10.0, "c_density_1": 0.5, "c_density_2": -1.0}
    assert (
        evaluate_equation("freq = base + c_density_1*density^2 + c_density_2*Density", coefficients, {"density": 4})
        == 14.0
    )
    for bad in ("__import__('os')", "base.real", "base + unknown", "base +", "1/0"):
        with pytest.raises(FormulaError):
            evaluate_equation(bad, coefficients, {"density": 4})
