"""Model flags on the command line: ``add_model_arguments`` / ``client_from_args``, plain and prefixed."""

from __future__ import annotations

import argparse
import re

import pytest
from pydantic_core import PydanticUndefined

from causal_datasets.cli import main
from causal_datasets.llm import LLMConfig, LLMConfigError
from causal_datasets.llm.options import NOT_FLAGS, add_model_arguments, client_from_args, config_from_args
from causal_datasets.llm.stub_server import StubServer


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    p.add_argument("--concurrency", type=int, default=4)
    add_model_arguments(p)
    add_model_arguments(p, prefix="judge-")
    return p


def test_no_model_means_no_client():
    args = parser().parse_args([])
    assert client_from_args(args) is None and client_from_args(args, prefix="judge-") is None


def test_model_and_judge_flags_build_separate_configs(tmp_path):
    args = parser().parse_args(
        [
            "--model",
            "qwen",
            "--base-url",
            "http://127.0.0.1:8080/v1/",
            "--temperature",
            "0.3",
            "--max-tokens",
            "64",
            "--seed",
            "7",
            "--concurrency",
            "9",
            "--cache-dir",
            str(tmp_path),
            "--judge-model",
            "judge",
            "--judge-base-url",
            "http://localhost:9000/v1",
            "--judge-no-cache",
            "--judge-token-limit-param",
            "max_completion_tokens",
        ]
    )
    main, judge = config_from_args(args), config_from_args(args, prefix="judge-")
    assert (main.model, main.base_url, main.temperature, main.max_tokens, main.seed, main.concurrency) == (
        "qwen",
        "http://127.0.0.1:8080/v1",
        0.3,
        64,
        7,
        9,
    )
    assert (judge.model, judge.base_url, judge.temperature, judge.seed) == ("judge", "http://localhost:9000/v1", 0.0, 0)
    assert judge.request_body([])["max_completion_tokens"] == 512 and "max_tokens" not in judge.request_body([])
    assert main.request_body([])["max_tokens"] == 64
    with client_from_args(args) as client, client_from_args(args, prefix="judge-") as judge_client:
        assert client.cache.path == tmp_path / "llm.sqlite" and client.cache.enabled
        assert judge_client.cache is None


def test_price_table_file_feeds_the_usage_cost(tmp_path):
    table = tmp_path / "prices.yaml"
    table.write_text("qwen:\n  prompt: 0.5\n  completion: 1.5\n")
    args = parser().parse_args(
        ["--model", "qwen", "--base-url", "http://127.0.0.1:1/v1", "--prices", str(table), "--no-cache"]
    )
    with client_from_args(args) as client:
        assert client.usage.prices["qwen"].cost(1_000_000, 2_000_000) == pytest.approx(3.5)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('["not", "a", "mapping"]', "a price table maps model names"),
        ('{"m": {"prompt": 1}}', "price of 'm' completion: Field required"),
        ('{"m": {"prompt": 1, "completion": 2, "cache_read": -1}}', "price of 'm' cache_read: Input should be greater"),
        ('{"m": ', "not a readable price table"),
        ("[" * 20000, "not a readable price table"),
    ],
)
def test_bad_price_tables_name_the_flag_file_and_entry(tmp_path, text, problem):
    table = tmp_path / "prices.json"
    table.write_text(text)
    args = parser().parse_args(["--judge-model", "m", "--judge-prices", str(table), "--judge-no-cache"])
    with pytest.raises(LLMConfigError, match=f"--judge-prices: {re.escape(str(table))}: {re.escape(problem)}"):
        client_from_args(args, prefix="judge-")
    missing = parser().parse_args(["--model", "m", "--prices", str(tmp_path / "none.yaml")])
    with pytest.raises(LLMConfigError, match="--prices: .*none.yaml"):
        client_from_args(missing)


def test_every_config_field_is_a_flag_of_every_role_and_defaults_live_in_the_config():
    """The flags are generated from LLMConfig: one per field (but the command's --concurrency), for each role,
    with the field's description as help and its default stated once, in LLMConfig."""
    p = parser()
    flags = {action.option_strings[0]: action for action in p._actions if action.option_strings}
    fields = [name for name in LLMConfig.model_fields if name not in NOT_FLAGS]
    assert NOT_FLAGS == ("concurrency",) and "reasoning_effort" in fields and "extra_body" in fields
    for prefix in ("", "judge-"):
        mine = {option for option in flags if option.startswith(f"--{prefix}")}
        if not prefix:
            mine = {option for option in mine if not option.startswith("--judge-")} - {"--concurrency"}
        expected = {f"--{prefix}{name.replace('_', '-')}" for name in fields}
        assert mine == expected | {
            f"--{prefix}model-config",
            f"--{prefix}prices",
            f"--{prefix}cache-dir",
            f"--{prefix}no-cache",
        }
        for name in fields:
            action, field = flags[f"--{prefix}{name.replace('_', '-')}"], LLMConfig.model_fields[name]
            assert action.default is argparse.SUPPRESS  # a flag not given leaves the field's own default
            if name != "model":
                assert action.help.startswith(field.description)
            if field.default not in (None, PydanticUndefined):
                assert action.help.endswith(f"(default {field.default})")
    assert flags["--judge-reasoning-effort"].choices == ("minimal", "low", "medium", "high")
    assert config_from_args(p.parse_args(["--model", "m"])) == LLMConfig(model="m")


def test_reasoning_flags_build_the_request(tmp_path):
    args = parser().parse_args(
        [
            "--judge-model",
            "j",
            "--judge-base-url",
            "http://127.0.0.1:1/v1",
            "--judge-reasoning-effort",
            "high",
            "--judge-max-completion-tokens",
            "8192",
            "--judge-extra-body",
            '{"chat_template_kwargs": {"enable_thinking": true}}',
            "--judge-seed",
            "3",
            "--judge-backoff-max",
            "2.5",
        ]
    )
    config = config_from_args(args, prefix="judge-")
    body = config.request_body([{"role": "user", "content": "hi"}])
    assert body["reasoning_effort"] == "high" and body["chat_template_kwargs"] == {"enable_thinking": True}
    assert body["max_completion_tokens"] == 8192 and "max_tokens" not in body and body["seed"] == 3
    assert config.backoff_max == 2.5 and config_from_args(args) is None


@pytest.mark.parametrize("value", ["{bad", "[1, 2]", "[" * 5000 + "]" * 5000])
def test_extra_body_that_is_not_a_json_object_is_exit_2_naming_the_flag(value, capsys):
    with pytest.raises(SystemExit) as exited:
        parser().parse_args(["--model", "m", "--judge-extra-body", value])
    assert exited.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert ": error: argument --judge-extra-body: " in error and len(error) < 300


def test_a_model_config_file_is_a_roles_whole_setting_and_flags_given_win(tmp_path):
    path = tmp_path / "judge.yaml"
    path.write_text(
        "model: big-judge\nbase_url: http://127.0.0.1:9/v1\nreasoning_effort: medium\n"
        "extra_body:\n  chat_template_kwargs: {enable_thinking: true}\ntemperature: 0.6\n"
    )
    args = parser().parse_args(["--judge-model-config", str(path), "--judge-temperature", "0.2", "--concurrency", "7"])
    config = config_from_args(args, prefix="judge-")
    assert (config.model, config.base_url, config.reasoning_effort, config.temperature, config.concurrency) == (
        "big-judge",
        "http://127.0.0.1:9/v1",
        "medium",
        0.2,
        7,
    )
    assert config.extra_body == {"chat_template_kwargs": {"enable_thinking": True}}
    renamed = parser().parse_args(["--judge-model-config", str(path), "--judge-model", "other"])
    assert config_from_args(renamed, prefix="judge-").model == "other"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "cannot be read"),
        ("model: [unclosed", "not valid YAML"),
        ("extra_body: " + "[" * 20000, "not valid YAML"),
        ("- a list\n", "expected a mapping of LLMConfig fields"),
        ("model: m\nreasoning_efort: high\n", "reasoning_efort: Extra inputs are not permitted"),
        ("model: m\ntemperature: -1\n", "temperature: Input should be greater than or equal to 0"),
        ("temperature: 0.5\n", "no model (give model: in the file or --judge-model)"),
    ],
)
def test_bad_model_config_files_name_the_flag_and_the_file(tmp_path, text, problem):
    path = tmp_path / "judge.yaml"
    if text is not None:
        path.write_text(text)
    args = parser().parse_args(["--judge-model-config", str(path)])
    with pytest.raises(LLMConfigError, match=f"--judge-model-config {re.escape(str(path))}: {re.escape(problem)}"):
        config_from_args(args, prefix="judge-")


def test_a_bad_flag_beside_a_model_config_file_names_the_flag(tmp_path):
    path = tmp_path / "model.yaml"
    path.write_text("model: m\n")
    args = parser().parse_args(["--model-config", str(path), "--max-tokens", "0", "--context-window", "x"])
    with pytest.raises(LLMConfigError) as caught:
        config_from_args(args)
    assert "--max-tokens: Input should be greater than or equal to 1" in str(caught.value)
    assert "--context-window: Input should be a valid integer" in str(caught.value)


def test_invalid_flag_values_name_the_flag():
    args = parser().parse_args(["--judge-model", "j", "--judge-temperature", "-1", "--judge-base-url", "ftp://x"])
    with pytest.raises(LLMConfigError) as caught:
        config_from_args(args, prefix="judge-")
    assert "--judge-temperature" in str(caught.value) and "--judge-base-url" in str(caught.value)


def test_the_base_url_default_is_openai_base_url_when_set_as_the_sdk_reads_it(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1/")
    assert config_from_args(parser().parse_args(["--model", "m"])).base_url == "http://127.0.0.1:8000/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "")
    assert LLMConfig(model="m").base_url == "https://api.openai.com/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", "not a url")
    with pytest.raises(LLMConfigError, match="--base-url: .*base_url must be an http"):
        config_from_args(parser().parse_args(["--model", "m"]))


# --- hostile options: each is exit 2 with one line, before any request -----------------------------------

ALIAS_BOMB = "".join(
    f"l{level}: &l{level} [{', '.join([f'*l{level - 1}' if level else '[x]'] * 9)}]\n" for level in range(9)
)


def _eval_argv(tmp_path, server, *options: str) -> list[str]:
    return ["eval", "shapeworld", "--base-url", server.base_url, "--hub-dir", str(tmp_path / "hub"),
            "--out", str(tmp_path / "run"), "--no-cache", *options]  # fmt: skip


def _model_config(tmp_path, content: str | bytes) -> str:
    path = tmp_path / "model.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return str(path)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (f"model: m\n{ALIAS_BOMB}", "aliases (*name) are not accepted"),
        ("model: m\nextra_body:\n  blob: " + "x" * 1_000_001 + "\n", "larger than 1,000,000 bytes"),
        ("model: m\nextra_body: " + "[" * 70 + "]" * 70 + "\n", "nested deeper than 64"),
        ("model: m\nextra_body: {limit: .inf}\n", "inf is not a finite number"),
        ("model: m\ntemperature: .nan\n", "nan is not a finite number"),
        (b"model: m\xff\n", "not UTF-8 text"),
        ('model: m\nextra_body: {text: "\\ud800"}\n', "invalid Unicode character escape"),
        ("model: m\nextra_body: {key: {$secret: 5}}\n", 'extra_body: Value error, {"$secret": ...} marks one text'),
    ],
    ids=["alias-bomb", "too-large", "too-deep", "infinity", "nan", "not-utf8", "lone-surrogate", "bad-mark"],
)
def test_a_hostile_model_config_is_one_error_line_before_any_request(tmp_path, capsys, content, problem):
    with StubServer() as server:
        assert main(_eval_argv(tmp_path, server, "--model-config", _model_config(tmp_path, content))) == 2
        assert server.count == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: config: ") and "--model-config " in err and problem in err, (
        err
    )
    assert "model ''" not in err and "no HTTP status" not in err  # a configuration error names no request
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ('{"a": "\\ud800"}', "a lone surrogate"),
        ('{"a": "\udcff"}', "a lone surrogate"),  # a byte that is not UTF-8 on the command line
        ('{"a": NaN}', "NaN is not a finite number"),
        ('{"a": -Infinity}', "-Infinity is not a finite number"),
        ('{"a": ' * 70 + "1" + "}" * 70, "nested deeper than 64"),
        ('{"a": "' + "x" * 1_000_001 + '"}', "more than the 1,000,000 read"),
    ],
    ids=["escaped-surrogate", "raw-surrogate", "nan", "infinity", "too-deep", "too-large"],
)
def test_a_hostile_extra_body_is_one_error_line_before_any_request(tmp_path, capsys, value, problem):
    with StubServer() as server:
        with pytest.raises(SystemExit) as exited:
            main(_eval_argv(tmp_path, server, "--model", "m", "--extra-body", value))
        assert server.count == 0
    assert exited.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "error: argument --extra-body: " in error and problem in error and len(error) < 400, error
    assert not (tmp_path / "run").exists()


def test_a_marked_extra_body_value_is_sent_as_its_text_and_shown_redacted():
    args = parser().parse_args(["--model", "m", "--extra-body", '{"x_internal": {"$secret": "short"}, "n": 1}'])
    config = config_from_args(args)
    assert config.request_body([{"role": "user", "content": "hi"}])["x_internal"] == "short"
    assert config.reply_settings()["extra_body"] == {"x_internal": "<redacted>", "n": 1}
