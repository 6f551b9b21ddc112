"""No secret the process holds reaches a byte any command writes.

A canary secret is planted in each place a secret can enter — the API key in a variable with a plain name, an
``--extra-body`` value marked secret, a model config's ``extra_body`` (marked, and under a secret-named key), the
base URL's user info and query, the Hub token and ``HF_ENDPOINT`` user info of a push — in front of a server that
echoes everything it receives (body and headers), in its replies and in a 401 error. Every byte ``eval`` (every
benchmark), ``rescore``, ``report``, ``compare``, ``export-runs`` and a failed ``push`` write is searched: run
folders, the response cache, report and export folders (Parquet cells decoded), stdout and stderr.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import httpx2
import pyarrow.parquet as pq
import pytest
from huggingface_hub import constants, set_client_factory
from huggingface_hub.utils import _http

from causal_datasets.builder import BuildContext
from causal_datasets.cli import main, scrubbed_output
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.llm.stub_server import StubReply, StubServer, completion_body
from causal_datasets.runners.results import read_results, read_settings
from causal_datasets.secret_values import REDACTED, register, register_url, registered, scrub, scrub_value
from tests.support.benchmarks import NAMES, build_every_dataset, eval_argv
from tests.support.builds import built_once
from tests.support.tiny_dataset import tiny_builder

KEY = "canary-key-7f3a9c1e5b"  # in MYLLMVAR: a variable name that does not look secret
MARKED_FLAG = "canary-flag-2d8e4f6a"  # --extra-body '{"x_internal": {"$secret": ...}}'
MARKED_FILE = "canary-file-8c0a2e4b"  # the model config's extra_body, marked
SESSION = "canary-session-9b1c3e5d"  # the model config's extra_body under session_token
PASSWORD = "canary-pass-4e6a8c0b"  # the base URL's user info
QUERY = "canary-query-1a3c5e7f"  # the base URL's query
HUB_TOKEN = "hf_canaryhubtoken0123456789"
HUB_PASSWORD = "canary-hubpass-5d7f9b1c"


def basic(user: str, password: str) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode()


RUN_SECRETS = [KEY, MARKED_FILE, SESSION, PASSWORD, QUERY, basic("canaryuser", PASSWORD)]


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    return built_once(tmp_path_factory, "every-dataset", build_every_dataset)


def echoing(server_box: list[StubServer]):
    """A responder that sends back everything the request carried (body and headers): a 401 error for the first
    request, a reply (``T`` and the echo) for every other."""

    def respond(request, index):
        headers = server_box[0].request_headers[index]
        seen = json.dumps({"body": request, "headers": headers})
        if index == 0:  # what was sent first: the error detail is cut to its first 300 characters
            sent = f"{headers.get('authorization')} {request.get('x_internal')} {request.get('session_token')}"
            return StubReply(status=401, body={"error": {"message": f"invalid key {sent} in {seen}"}})
        return StubReply(body=completion_body(f"T\n{seen}", reasoning=seen))

    return respond


def echo_server() -> StubServer:
    box: list[StubServer] = []
    server = StubServer(echoing(box))
    box.append(server)
    return server


def leaks(root: Path, secrets: list[str], *texts: str) -> list[str]:
    """Each secret found in a file under ``root`` (a Parquet file's cells decoded too) or in ``texts``."""
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.suffix == ".parquet":
            data += json.dumps(pq.read_table(path).to_pylist(), ensure_ascii=False, default=str).encode()
        found += [f"{path.relative_to(root)}: {secret}" for secret in secrets if secret.encode() in data]
    found += [f"output: {secret}" for secret in secrets for text in texts if secret in text]
    return found


def with_credentials(base_url: str) -> str:
    """``base_url`` with the canary user info and query."""
    scheme, rest = base_url.split("://", 1)
    return f"{scheme}://canaryuser:{PASSWORD}@{rest}?sig={QUERY}"


@pytest.mark.parametrize("name", NAMES)
def test_no_planted_secret_reaches_any_byte_eval_rescore_report_compare_or_export_write(
    name, hub, tmp_path, capsys, monkeypatch
):
    monkeypatch.setenv("MYLLMVAR", KEY)
    inputs, work = tmp_path / "inputs", tmp_path / "work"
    inputs.mkdir()
    config = inputs / "model.yaml"
    config.write_text(
        f"model: stub\nextra_body:\n  session_token: {SESSION}\n  x_internal: {{$secret: {MARKED_FILE}}}\n"
    )
    run, rescored = work / "run", work / "rescored"
    with echo_server() as server:
        code = main(
            eval_argv(name, hub, run, with_credentials(server.base_url), "--api-key-env", "MYLLMVAR")
            + ["--model-config", str(config), "--cache-dir", str(work / "cache")]
        )
        sent = list(server.requests)
        headers = list(server.request_headers)
    assert code in (0, 3)  # the first request was refused: its item failed
    assert sent[0]["session_token"] == SESSION and sent[0]["x_internal"] == MARKED_FILE  # what is sent is real
    assert headers[0]["authorization"] == f"Bearer {KEY}"
    outputs = [capsys.readouterr()]
    lines = read_results(run)
    assert any(line["status"] == "failed" and REDACTED in line["failure"]["detail"] for line in lines)
    assert any(REDACTED in (call.get("reply") or "") for line in lines for call in line["calls"])
    (settings,) = read_settings(run).values()  # one setting for every call of the run
    assert settings["x_internal"] == settings["session_token"] == REDACTED

    assert main(["rescore", str(run), "--out", str(rescored)]) == 3  # the failed item stays failed
    outputs.append(capsys.readouterr())
    assert main(["report", str(run), str(rescored), "--out", str(work / "report")]) == 0
    outputs.append(capsys.readouterr())
    assert main(["compare", str(run), str(rescored)]) == 0
    outputs.append(capsys.readouterr())
    assert (
        main(["export-runs", str(run), str(rescored), "--name", "canary-runs", "--hub-dir", str(work / "export")]) == 0
    )
    outputs.append(capsys.readouterr())
    assert (work / "export" / "canary-runs" / "README.md").is_file() and (work / "report" / "report.md").is_file()
    texts = [text for output in outputs for text in (output.out, output.err)]
    assert leaks(work, RUN_SECRETS, *texts) == []


def test_an_extra_body_value_marked_secret_is_sent_and_never_written(hub, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MYLLMVAR", KEY)
    extra = json.dumps({"x_internal": {"$secret": MARKED_FLAG}, "mode": "plain"})
    model = ["--api-key-env", "MYLLMVAR", "--model", "stub", "--extra-body", extra]
    with echo_server() as server:
        code = main(eval_argv("shapeworld", hub, tmp_path / "run", server.base_url, *model))
        sent = list(server.requests)
    assert code == 3 and sent[1]["x_internal"] == MARKED_FLAG and sent[1]["mode"] == "plain"
    with StubServer() as server:  # the same settings continue the run: compared as recorded, secret redacted
        assert main(eval_argv("shapeworld", hub, tmp_path / "run", server.base_url, *model, "--resume")) == 0
        assert server.requests[0]["x_internal"] == MARKED_FLAG
    printed = capsys.readouterr()
    assert main(["export-runs", str(tmp_path / "run"), "--name", "runs", "--hub-dir", str(tmp_path / "export")]) == 0
    exported = capsys.readouterr()
    assert leaks(tmp_path, [MARKED_FLAG, KEY], printed.out, printed.err, exported.out, exported.err) == []
    (settings,) = read_settings(tmp_path / "run").values()
    assert settings["x_internal"] == REDACTED and settings["mode"] == "plain"  # only the secret is taken out


def test_a_push_to_a_hub_that_echoes_its_credentials_prints_none_of_them(tmp_path, capsys, monkeypatch):
    build_to_folder(tiny_builder(tmp_path), tmp_path / "hub", BuildContext(seed=7))

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen = json.dumps({"url": str(request.url), "headers": dict(request.headers)})
        return httpx2.Response(401, json={"error": f"Invalid credentials: {seen}"})

    monkeypatch.setattr(constants, "ENDPOINT", f"https://canaryhub:{HUB_PASSWORD}@hub.example.org")
    monkeypatch.setenv("HF_TOKEN", HUB_TOKEN)
    set_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(answer)))
    try:
        code = main(["push", "tiny", "--dataset", "org/tiny", "--hub-dir", str(tmp_path / "hub")])
    finally:
        set_client_factory(_http.default_client_factory)
    printed = capsys.readouterr()
    assert code == 2 and "401" in printed.err and REDACTED in printed.err  # the echo arrived, scrubbed
    secrets = [HUB_TOKEN, HUB_PASSWORD, basic("canaryhub", HUB_PASSWORD)]
    assert leaks(tmp_path, secrets, printed.out, printed.err) == []


def test_call_settings_are_kept_once_per_run_and_runs_with_settings_in_every_call_still_read(hub, tmp_path, capsys):
    config = tmp_path / "model.yaml"
    config.write_text(f"model: stub\nextra_body:\n  blob: {'x' * 300_000}\n")
    run, old, rescored = tmp_path / "run", tmp_path / "old", tmp_path / "rescored"
    with StubServer() as server:
        argv = eval_argv("shapeworld", hub, run, server.base_url, "--model-config", str(config), "--no-cache")
        assert main(argv) == 0
    lines = read_results(run)
    calls = [call for line in lines for call in line["calls"]]
    (settings_id, settings), *_ = read_settings(run).items()
    assert len(calls) > 2 and all(call["settings_id"] == settings_id and "settings" not in call for call in calls)
    assert len(settings["blob"]) == 300_000 and (run / "results.jsonl").stat().st_size < 300_000  # once per run
    old.mkdir()  # the layout before settings were kept by reference: the settings in every call, no settings.json
    (old / "summary.json").write_bytes((run / "summary.json").read_bytes())
    inline = [
        line
        | {
            "calls": [
                {k: v for k, v in call.items() if k != "settings_id"} | {"settings": settings} for call in line["calls"]
            ]
        }
        for line in lines
    ]
    (old / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in inline))
    assert main(["rescore", str(old), "--out", str(rescored)]) == 0
    assert main(["report", str(old), str(rescored), "--out", str(tmp_path / "report")]) == 0
    assert main(["compare", str(old), str(rescored)]) == 0
    capsys.readouterr()
    assert read_settings(rescored) == {}  # the calls it copied keep their settings as they were written
    copied = [call for line in read_results(rescored) for call in line["calls"]]
    assert len(copied) == len(calls) and all(
        call["settings"] == settings and not call["settings_id"] for call in copied
    )


def test_a_urls_secrets_are_registered_in_every_form_a_server_or_a_writer_shows_them():
    register_url("http://al%40ice:pa%2Fss-word-long@h.example:99999/v1?sig=abcdefgh12&page=2")  # a bad port too
    held = registered()
    assert {"pa/ss-word-long", "al@ice:pa/ss-word-long", basic("al@ice", "pa/ss-word-long"), "abcdefgh12"} <= held
    text = 'sent pa%2Fss-word-long, {"k": "pa\\/ss"} and "pa/ss-word-long" with sig=abcdefgh12 on page 2'
    assert scrub(text) == f'sent {REDACTED}, {{"k": "pa\\/ss"}} and "{REDACTED}" with sig={REDACTED} on page 2'
    assert scrub_value({"page": "2", "n": 2}) == {"page": REDACTED, "n": 2}  # a short secret: a whole value only
    register_url("https://only-a-token-value@h.example/v1")
    assert "only-a-token-value" in registered()


def test_the_command_lines_output_is_scrubbed_while_a_command_runs(capsys):
    register("a-secret-printed")
    with scrubbed_output():
        print("the key a-secret-printed", flush=True)
        sys.stderr.write("and again: a-secret-printed\n")
    print("a-secret-printed")  # outside a command: the stream is the test's own again
    printed = capsys.readouterr()
    assert printed.out == f"the key {REDACTED}\na-secret-printed\n" and printed.err == f"and again: {REDACTED}\n"
