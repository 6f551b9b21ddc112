"""Push a built folder to the hub, with every HTTP request answered by a mock transport (no network)."""

import json

import httpx2
import pytest
from huggingface_hub import HfApi, set_client_factory
from huggingface_hub.utils import _http

from causal_datasets.builder import BuildContext
from causal_datasets.errors import DatasetFolderError, PushError
from causal_datasets.hub.folder import build_to_folder
from causal_datasets.hub.push import push_folder
from causal_datasets.redaction import redact_urls
from tests.support.tiny_dataset import tiny_builder

ENDPOINT = "https://huggingface.co"  # answered by the mock transport, never the network
COMMIT = "a" * 40


class FakeHub:
    """Answers the hub API calls a push makes and records them."""

    def __init__(self, refuse_with: int | None = None):
        self.requests: list[tuple[str, str, bytes]] = []
        self.refuse_with = refuse_with

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = request.read()
        path = request.url.path
        self.requests.append((request.method, path, body))
        if self.refuse_with:
            return httpx2.Response(self.refuse_with, json={"error": "Invalid credentials in Authorization header"})
        if path == "/api/repos/create":
            return httpx2.Response(200, json={"url": f"{ENDPOINT}/datasets/org/tiny", "name": "org/tiny"})
        if path == "/api/validate-yaml":
            return httpx2.Response(200, json={"errors": [], "warnings": []})
        if path.endswith("/preupload/main"):
            files = json.loads(body)["files"]
            return httpx2.Response(
                200,
                json={"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]},
            )
        if "/commit/main" in path:
            return httpx2.Response(
                200, json={"commitUrl": f"{ENDPOINT}/datasets/org/tiny/commit/{COMMIT}", "commitOid": COMMIT}
            )
        if "/tag/" in path:
            return httpx2.Response(200, json={})
        if "/revision/" in path or path.startswith("/api/datasets/org/tiny"):
            return httpx2.Response(200, json={"id": "org/tiny", "sha": COMMIT, "siblings": []})
        return httpx2.Response(404, json={"error": f"unexpected {request.method} {path}"})


@pytest.fixture
def built(tmp_path):
    return build_to_folder(tiny_builder(tmp_path), tmp_path / "hub", BuildContext(seed=7)).folder


@pytest.fixture
def fake_hub():
    def install(hub: FakeHub) -> HfApi:
        set_client_factory(
            lambda: httpx2.Client(
                transport=httpx2.MockTransport(hub), event_hooks={"request": [_http.hf_request_event_hook]}
            )
        )
        return HfApi(endpoint=ENDPOINT, token="hf_test_token")

    yield install
    set_client_factory(_http.default_client_factory)


def test_push_creates_repo_uploads_every_file_and_tags(built, fake_hub):
    hub = FakeHub()
    result = push_folder(built, "org/tiny", api=fake_hub(hub))
    assert result.tag == "v1.2.3" and result.repo_id == "org/tiny"
    assert result.commit_url.endswith(COMMIT)
    calls = [(method, path) for method, path, _ in hub.requests]
    assert ("POST", "/api/repos/create") in calls
    create_body = json.loads(next(b for m, p, b in hub.requests if p == "/api/repos/create"))
    assert create_body["type"] == "dataset" and create_body["name"] == "tiny"
    commit_body = next(b for m, p, b in hub.requests if "/commit/main" in p).decode()
    committed = {json.loads(line)["value"]["path"] for line in commit_body.splitlines() if '"file"' in line}
    assert committed == {
        "README.md",
        "manifest.json",
        "data/default/train-00000-of-00001.parquet",
        "data/default/test-00000-of-00001.parquet",
    }
    tag_call = next((p, b) for m, p, b in hub.requests if "/tag/" in p)
    assert tag_call[0] == f"/api/datasets/org/tiny/tag/{COMMIT}"
    assert json.loads(tag_call[1])["tag"] == "v1.2.3"
    validated = json.loads(next(b for m, p, b in hub.requests if p == "/api/validate-yaml"))
    assert "dataset_info" in validated["content"] and validated["repoType"] == "dataset"


def test_explicit_tag_is_used(built, fake_hub):
    hub = FakeHub()
    assert push_folder(built, "org/tiny", tag="v9.9.9", api=fake_hub(hub)).tag == "v9.9.9"
    assert json.loads(next(b for m, p, b in hub.requests if "/tag/" in p))["tag"] == "v9.9.9"


def test_unauthenticated_push_is_a_clear_error(built, fake_hub):
    with pytest.raises(PushError, match=r"HTTP 401 \(check HF_TOKEN"):
        push_folder(built, "org/tiny", api=fake_hub(FakeHub(refuse_with=401)))


def test_offline_push_is_a_clear_error(built, fake_hub):
    def refuse(request):
        raise httpx2.ConnectError("network unreachable", request=request)

    set_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(refuse)))
    with pytest.raises(PushError, match="could not reach the Hugging Face Hub"):
        push_folder(built, "org/tiny", api=HfApi(endpoint=ENDPOINT, token="hf_test_token"))


@pytest.mark.parametrize(
    ("answer", "got"),
    [
        (httpx2.Response(200, json={"name": "org/tiny"}), "an answer without the field 'url'"),
        (httpx2.Response(200, text="<html>welcome</html>"), "JSONDecodeError"),
    ],
    ids=["no-url", "not-json"],
)
def test_a_hub_answering_200_with_an_unexpected_body_is_a_clear_error(built, fake_hub, answer, got):
    class OddHub(FakeHub):
        def __call__(self, request: httpx2.Request) -> httpx2.Response:
            return answer if request.url.path == "/api/repos/create" else super().__call__(request)

    with pytest.raises(PushError, match=r"the Hub answered the push to org/tiny in a form it never sends \(") as caught:
        push_folder(built, "org/tiny", api=fake_hub(OddHub()))
    assert got in str(caught.value) and "\n" not in str(caught.value)


def test_push_of_an_unbuilt_folder_fails_before_any_request(tmp_path, fake_hub):
    hub = FakeHub()
    with pytest.raises(DatasetFolderError):
        push_folder(tmp_path / "nothing", "org/tiny", api=fake_hub(hub))
    assert hub.requests == []


def test_hub_offline_mode_is_a_clear_error(built, fake_hub, monkeypatch):
    from huggingface_hub import constants

    hub = FakeHub()
    api = fake_hub(hub)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(PushError, match="offline mode is enabled"):
        push_folder(built, "org/tiny", api=api)
    assert hub.requests == []


SECRET_ENDPOINT = "https://alice:s3cret@hub.example.org/mirror?sig=abc123"  # HF_ENDPOINT with credentials


@pytest.mark.parametrize("failure", ["refused", "unreachable"])
def test_a_failed_push_never_shows_the_credentials_of_its_endpoint(built, failure):
    def answer(request):
        if failure == "unreachable":
            raise httpx2.ConnectError(f"cannot connect to {request.url}", request=request)
        return httpx2.Response(403, json={"error": f"forbidden at {request.url}"})

    set_client_factory(lambda: httpx2.Client(transport=httpx2.MockTransport(answer)))
    try:
        with pytest.raises(PushError) as caught:
            push_folder(built, "org/tiny", api=HfApi(endpoint=SECRET_ENDPOINT, token="hf_test_token"))
    finally:
        set_client_factory(_http.default_client_factory)
    message = str(caught.value)
    assert "hub.example.org" in message and "s3cret" not in message and "alice" not in message and "sig=" not in message


def test_urls_in_any_text_are_redacted():
    text = "failed: 'http://u:p@127.0.0.1:8080/v1/chat?key=k' then https://[::1]:8443/v1#frag and ftp://h:99999/x?y"
    assert redact_urls(text) == "failed: 'http://127.0.0.1:8080/v1/chat' then https://[::1]:8443/v1 and ftp://h:99999/x"
    assert redact_urls("no url here, just a://") == "no url here, just a://"
    assert redact_urls("a" * 100_000) == "a" * 100_000  # one scan of a long run of letters
