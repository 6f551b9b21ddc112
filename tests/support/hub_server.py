"""A Hugging Face Hub-compatible HTTP server on 127.0.0.1, for pushing and loading repositories in tests.

``LocalHub`` answers the routes ``huggingface_hub`` 2.4 and ``datasets`` 5.2 call to create a repo,
commit files, tag a commit, read repo info, list the tree and download (or range-read) files, so
``HfApi.upload_folder`` and ``datasets.load_dataset("org/name", revision="v1.0.0")`` run for real
without the network. Each repo (model, dataset or space) has a linear history on branch ``main``
plus tags; object ids are git-style SHA-1s of the content. Files always travel inline (preupload
answers ``regular``), so there is no LFS or Xet storage, and downloads are served directly (no
redirect). Errors carry the ``X-Error-Code`` header the client turns into ``RepositoryNotFoundError``,
``RevisionNotFoundError`` or ``EntryNotFoundError``; unknown routes answer 404 and are logged.

``local_hub`` is the pytest fixture: a fresh server with both libraries pointed at it, online, with an
isolated cache and a dummy token (see ``connect``).

From a checkout, ``python -m tests.support.hub_server [--port N]`` serves one until Ctrl-C (repositories
live in memory) and prints the two variables that point ``push``, ``eval --dataset`` and
``report hf://`` at it (``docs/data-and-hub.md``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

import pytest

from causal_datasets.loopback import LoopbackServer

logger = logging.getLogger(__name__)

TOKEN = "hf_local_hub_test_token"
URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}
API_ROUTE = re.compile(
    r"^/api/(?P<type>model|dataset|space)s/(?P<repo>[^/]+/[^/]+)"
    r"(?:/(?P<action>revision|tree|paths-info|preupload|commit|tag)/(?P<rev>[^/]+)(?P<rest>/.*)?)?$"
)
RESOLVE_ROUTE = re.compile(
    r"^/(?:(?P<type>dataset|space)s/)?(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)$"
)
RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


def git_blob_oid(data: bytes) -> str:
    """The id ``git hash-object`` gives ``data`` (what the client compares regular files with)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _sha1(*parts: str) -> str:
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()


@dataclass(frozen=True)
class Commit:
    oid: str
    title: str
    date: str  # the Hub's format, 2024-01-31T12:00:00.000Z
    files: dict[str, bytes]


@dataclass
class Repo:
    repo_type: str
    repo_id: str
    private: bool
    sdk: str | None
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)

    def resolve(self, revision: str) -> Commit | None:
        """The commit a branch, a tag or a full commit id names (None if unknown)."""
        return self.commits.get(self.branches.get(revision) or self.tags.get(revision) or revision)


class HubError(Exception):
    """An error answer: HTTP status, ``X-Error-Code`` ("" for none), message, extra headers and JSON fields."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: dict[str, str] | None = None,
        fields: dict[str, Any] | None = None,
    ):
        super().__init__(message)
        self.status, self.code, self.headers, self.fields = status, code, headers or {}, fields or {}


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, json.dumps(body).encode(), {"Content-Type": "application/json", **(headers or {})})


class LocalHub(LoopbackServer):
    """``with LocalHub() as hub: HfApi(endpoint=hub.endpoint, token="hf_x")...; hub.files("org/name")``.

    Writes need an ``Authorization: Bearer`` header (any token); ``refuse_writes`` answers them all with
    401 instead. ``page_size`` is the tree API's page length (the Hub's is 1000). ``requests`` logs
    ``(method, path)`` of every request, the path as sent (still URL-encoded, query included).
    """

    def __init__(self, *, refuse_writes: bool = False, page_size: int = 1000, port: int = 0):
        self.refuse_writes = refuse_writes
        self.page_size = page_size
        self.requests: list[tuple[str, str]] = []
        self._repos: dict[tuple[str, str], Repo] = {}
        self._lock = threading.Lock()
        super().__init__(_handler_for(self), port=port, name="local-hub")

    @property
    def endpoint(self) -> str:
        return self.origin

    def files(self, repo_id: str, repo_type: str = "dataset", revision: str = "main") -> dict[str, bytes]:
        """Path -> content of every file of the repo at ``revision`` (KeyError if either is unknown)."""
        with self._lock:
            commit = self._repos[(repo_type, repo_id)].resolve(revision)
        if commit is None:
            raise KeyError(f"{repo_type} {repo_id} has no revision {revision!r}")
        return dict(commit.files)

    def tags(self, repo_id: str, repo_type: str = "dataset") -> dict[str, str]:
        """Tag name -> commit id."""
        with self._lock:
            return dict(self._repos[(repo_type, repo_id)].tags)

    def repo(self, repo_id: str, repo_type: str = "dataset") -> Repo:
        """The stored repo (history, branches, tags, sdk), for assertions."""
        with self._lock:
            return self._repos[(repo_type, repo_id)]

    def handle(self, method: str, raw_path: str, headers: dict[str, str], body: bytes) -> Reply:
        """Answer one request (``headers`` with lower-cased names)."""
        url = urlsplit(raw_path)
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        with self._lock:
            self.requests.append((method, raw_path))
            try:
                return self._route(method, url.path, query, headers, body)
            except HubError as error:
                code = {"X-Error-Code": error.code} if error.code else {}
                error_headers = {"X-Error-Message": str(error), **code, **error.headers}
                return _json({"error": str(error), **error.fields}, error.status, error_headers)
            except Exception as error:  # a malformed request: answer 400 (a 500 would make the client retry)
                logger.exception("LocalHub: cannot handle %s %s", method, raw_path)
                return _json({"error": f"LocalHub: {type(error).__name__}: {error}"}, 400)

    def _route(self, method: str, path: str, query: dict[str, str], headers: dict[str, str], body: bytes) -> Reply:
        if method == "POST" and path == "/api/repos/create":
            self._check_write(headers)
            return self._create_repo(json.loads(body))
        if method == "POST" and path == "/api/validate-yaml":
            return _json({"errors": [], "warnings": []})
        if method == "GET" and path == "/api/agent-harnesses":  # read once per process for the user agent
            return _json({"standardEnvVars": [], "harnesses": {}})
        if match := API_ROUTE.match(path):
            repo = self._repo(match["type"], match["repo"])
            action, revision = match["action"], unquote(match["rev"] or "main")
            if method == "GET" and action in (None, "revision"):
                return self._info(repo, self._revision(repo, revision))
            if method == "GET" and action == "tree":
                sub_path = unquote(match["rest"] or "").strip("/")
                return self._tree(self._revision(repo, revision), sub_path, query, path)
            if method == "POST" and action == "paths-info":
                paths = parse_qs(body.decode()).get("paths", [])
                entries = (_entry(self._revision(repo, revision), p.strip("/")) for p in paths)
                return _json([entry for entry in entries if entry is not None])
            writes: dict[str, Callable[[Repo, str, bytes], Reply]] = {
                "preupload": self._preupload,
                "commit": self._commit,
                "tag": self._tag,
            }
            if method == "POST" and action in writes:
                self._check_write(headers)
                return writes[action](repo, revision, body)
        if method in ("GET", "HEAD") and (match := RESOLVE_ROUTE.match(path)):
            repo = self._repo(match["type"] or "model", match["repo"])
            return _download(self._revision(repo, unquote(match["rev"])), unquote(match["path"]), headers)
        logger.warning("LocalHub: no route for %s %s", method, path)
        raise HubError(404, "", f"LocalHub has no route for {method} {path}")

    def _repo(self, repo_type: str, repo_id: str) -> Repo:
        repo = self._repos.get((repo_type, repo_id))
        if repo is None:
            raise HubError(404, "RepoNotFound", f"Repository not found: {repo_type} {repo_id}")
        return repo

    def _revision(self, repo: Repo, revision: str) -> Commit:
        commit = repo.resolve(revision)
        if commit is None:
            raise HubError(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        return commit

    def _check_write(self, headers: dict[str, str]) -> None:
        if self.refuse_writes or not headers.get("authorization", "").startswith("Bearer "):
            raise HubError(401, "", "Invalid credentials in Authorization header")

    def _url(self, repo: Repo) -> str:
        return f"{self.endpoint}/{URL_PREFIX[repo.repo_type]}{repo.repo_id}"

    # --- read side --------------------------------------------------------------------------------

    def _info(self, repo: Repo, commit: Commit) -> Reply:
        info = {
            "id": repo.repo_id,
            "author": repo.repo_id.split("/")[0],
            "sha": commit.oid,
            "lastModified": commit.date,
            "private": repo.private,
            "gated": False,
            "disabled": False,
            "downloads": 0,
            "likes": 0,
            "tags": [],
            "siblings": [
                {"rfilename": path, "size": len(data), "blobId": git_blob_oid(data)}
                for path, data in sorted(commit.files.items())
            ],
        }
        return _json({**info, "sdk": repo.sdk} if repo.sdk else info)

    def _tree(self, commit: Commit, path: str, query: dict[str, str], raw_path: str) -> Reply:
        if path and (_entry(commit, path) or {}).get("type") != "directory":
            raise HubError(404, "EntryNotFound", f"{path} is not a folder at {commit.oid}")
        prefix = path + "/" if path else ""
        recursive = query.get("recursive", "false").lower() == "true"
        names = set()
        for file in commit.files:
            if file.startswith(prefix):
                parts = file[len(prefix) :].split("/")
                depth = len(parts) if recursive else 1
                names.update(prefix + "/".join(parts[:level]) for level in range(1, depth + 1))
        entries = [_entry(commit, name) for name in sorted(names)]
        start = int(query.get("cursor", 0))
        end = start + self.page_size
        headers = {}
        if end < len(entries):  # the Hub paginates with a GitHub-style Link header
            headers["Link"] = f'<{self.endpoint}{raw_path}?{urlencode({**query, "cursor": end})}>; rel="next"'
        return _json(entries[start:end], headers=headers)

    # --- write side -------------------------------------------------------------------------------

    def _create_repo(self, payload: dict[str, Any]) -> Reply:
        repo_type = payload.get("type") or "model"
        if repo_type not in URL_PREFIX or (repo_type == "space") != ("sdk" in payload):
            raise HubError(400, "", f"bad repo type {repo_type!r} or space sdk {payload.get('sdk')!r}")
        repo_id = "/".join(filter(None, (payload.get("organization"), payload["name"])))
        if (repo_type, repo_id) in self._repos:  # create_repo(exist_ok=True) reads the url from this answer
            existing = self._repos[(repo_type, repo_id)]
            raise HubError(409, "", f"You already created this {repo_type} repo", fields={"url": self._url(existing)})
        private = payload.get("visibility", "public") != "public"
        repo = Repo(repo_type, repo_id, private=private, sdk=payload.get("sdk"))
        self._add_commit(repo, "main", "initial commit", {})
        self._repos[(repo_type, repo_id)] = repo
        return _json({"url": self._url(repo), "name": repo_id, "id": repo_id})

    def _add_commit(self, repo: Repo, branch: str, title: str, files: dict[str, bytes]) -> Commit:
        listing = (f"{path} {git_blob_oid(data)}" for path, data in sorted(files.items()))
        oid = _sha1(repo.repo_type, repo.repo_id, repo.branches.get(branch, ""), title, *listing)
        date = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        repo.commits[oid] = Commit(oid, title, date, files)
        repo.branches[branch] = oid
        return repo.commits[oid]

    def _branch_head(self, repo: Repo, branch: str) -> Commit:
        if branch not in repo.branches:
            raise HubError(404, "RevisionNotFound", f"Invalid rev id: {branch} (commits go to a branch)")
        return repo.commits[repo.branches[branch]]

    def _preupload(self, repo: Repo, branch: str, body: bytes) -> Reply:
        head = self._branch_head(repo, branch)
        files = [
            {
                "path": f["path"],
                "uploadMode": "regular",
                "shouldIgnore": False,
                "oid": git_blob_oid(head.files[f["path"]]) if f["path"] in head.files else None,
            }
            for f in json.loads(body)["files"]
        ]
        return _json({"files": files, "commitOid": head.oid})

    def _commit(self, repo: Repo, branch: str, body: bytes) -> Reply:
        """Apply an NDJSON commit (a ``header``, then ``file`` / ``deletedFile`` / ``deletedFolder`` lines)."""
        head = self._branch_head(repo, branch)
        files, title = dict(head.files), ""
        for line in filter(None, body.splitlines()):
            item = json.loads(line)
            key, value = item["key"], item["value"]
            if key == "header":
                title = value["summary"]
                if not head.oid.startswith(value.get("parentCommit") or ""):
                    raise HubError(412, "", f"parent commit {value['parentCommit']} is not the head of {branch}")
            elif key == "file":
                files[value["path"]] = base64.b64decode(value["content"])
            elif key == "deletedFile":
                if files.pop(value["path"], None) is None:
                    raise HubError(404, "EntryNotFound", f"A file with this name doesn't exist: {value['path']}")
            elif key == "deletedFolder":
                folder = value["path"].rstrip("/") + "/"
                files = {path: data for path, data in files.items() if not path.startswith(folder)}
            else:
                raise HubError(400, "", f"LocalHub cannot apply a {key!r} operation (it has no LFS storage)")
        commit = self._add_commit(repo, branch, title, files)
        return _json(
            {
                "success": True,
                "commitOid": commit.oid,
                "commitUrl": f"{self._url(repo)}/commit/{commit.oid}",
                "hookOutput": "",
            }
        )

    def _tag(self, repo: Repo, revision: str, body: bytes) -> Reply:
        commit = self._revision(repo, revision)
        tag = json.loads(body)["tag"]
        if tag in repo.tags or tag in repo.branches:
            raise HubError(409, "", f"Reference refs/tags/{tag} already exists")
        repo.tags[tag] = commit.oid
        return _json({})


def _entry(commit: Commit, path: str) -> dict[str, Any] | None:
    """The tree API's entry for a file or folder of ``commit`` (None if absent)."""
    if path in commit.files:
        data = commit.files[path]
        return {"type": "file", "oid": git_blob_oid(data), "size": len(data), "path": path}
    inside = [f"{p} {git_blob_oid(data)}" for p, data in sorted(commit.files.items()) if p.startswith(path + "/")]
    return {"type": "directory", "oid": _sha1(*inside), "size": 0, "path": path} if inside else None


def _download(commit: Commit, path: str, headers: dict[str, str]) -> Reply:
    """A file's content (or the byte range asked for, 206) with the headers ``hf_hub_download`` checks."""
    data = commit.files.get(path)
    if data is None:  # X-Repo-Commit lets the client cache the file's absence
        raise HubError(404, "EntryNotFound", f"{path} does not exist at {commit.oid}", {"X-Repo-Commit": commit.oid})
    base = {
        "ETag": f'"{git_blob_oid(data)}"',
        "X-Repo-Commit": commit.oid,
        "Accept-Ranges": "bytes",
        "Content-Type": "application/octet-stream",
    }
    match = RANGE.match(headers.get("range", ""))
    if match is None:
        return Reply(200, data, base)
    start, end = match.groups()
    size = len(data)
    first = int(start) if start else max(size - int(end or 0), 0)
    last = min(int(end), size - 1) if start and end else size - 1
    if first > last:
        raise HubError(416, "", "Range Not Satisfiable", {"Content-Range": f"bytes */{size}"})
    return Reply(206, data[first : last + 1], {**base, "Content-Range": f"bytes {first}-{last}/{size}"})


def _handler_for(hub: LocalHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def _serve(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            reply = hub.handle(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(reply.body)

        do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = _serve  # noqa: N815 - http.server naming

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - requests are in hub.requests
            return

    return Handler


# --- pointing huggingface_hub and datasets at a LocalHub ---------------------------------------------


def connect(hub: LocalHub, monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """Point ``huggingface_hub`` and ``datasets`` at ``hub``, online, caching under ``home``, token ``TOKEN``.

    Both libraries read ``HF_ENDPOINT``, ``HF_HOME``, the offline flags and the cache paths into
    module constants at import, so the constants are patched (the environment too, for anything
    started later). ``datasets``' download counter (a HEAD to s3.amazonaws.com) and its
    dataset-viewer lookup (``datasets-server.<endpoint host>``, tried for ``revision="main"``) are
    switched off: neither could reach anything here.
    """
    import datasets.config
    from huggingface_hub import constants
    from huggingface_hub.utils import _http

    hub_home = Path(home)
    endpoint = hub.endpoint
    for name, value in {
        "HF_ENDPOINT": endpoint,
        "HF_HOME": str(hub_home),
        "HF_HUB_CACHE": str(hub_home / "hub"),
        "HF_DATASETS_CACHE": str(hub_home / "datasets"),
        "HF_TOKEN": TOKEN,
        "HF_HUB_OFFLINE": "0",
        "HF_DATASETS_OFFLINE": "0",
    }.items():
        monkeypatch.setenv(name, value)
    for name, value in {
        "ENDPOINT": endpoint,
        "HUGGINGFACE_CO_URL_TEMPLATE": endpoint + "/{repo_id}/resolve/{revision}/{filename}",
        "HF_URL_HOSTS": constants.HF_URL_HOSTS | {"127.0.0.1"},
        "HF_HOME": str(hub_home),
        "HF_HUB_CACHE": str(hub_home / "hub"),
        "HUGGINGFACE_HUB_CACHE": str(hub_home / "hub"),
        "HF_ASSETS_CACHE": str(hub_home / "assets"),
        "HF_XET_CACHE": str(hub_home / "xet"),
        "HF_TOKEN_PATH": str(hub_home / "token"),
        "HF_STORED_TOKENS_PATH": str(hub_home / "stored_tokens"),
        "AGENT_HARNESSES_PATH": str(hub_home / ".agent_harnesses.json"),
    }.items():
        monkeypatch.setattr(constants, name, value)
    monkeypatch.setattr(_http, "_HUB_ORIGINS", _http._HUB_ORIGINS | {_http._url_origin(endpoint)})
    for name, value in {
        "HF_ENDPOINT": endpoint,
        "HUB_DATASETS_URL": endpoint + "/datasets/{repo_id}/resolve/{revision}/{path}",
        "HF_CACHE_HOME": str(hub_home),
        "HF_DATASETS_CACHE": hub_home / "datasets",
        "HF_MODULES_CACHE": hub_home / "modules",
        "DOWNLOADED_DATASETS_PATH": hub_home / "datasets" / "downloads",
        "EXTRACTED_DATASETS_PATH": hub_home / "datasets" / "downloads" / "extracted",
        "HF_UPDATE_DOWNLOAD_COUNTS": False,
        "USE_PARQUET_EXPORT": False,
    }.items():
        monkeypatch.setattr(datasets.config, name, value)
    set_offline(monkeypatch, False)


def set_offline(monkeypatch: pytest.MonkeyPatch, offline: bool) -> None:
    """Switch both libraries' offline mode (each keeps its own flag, read from the environment at import)."""
    import datasets.config
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", offline)
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", offline)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", offline)


@pytest.fixture
def local_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A started ``LocalHub`` that both libraries use (see ``connect``), caching under ``tmp_path/hf_home``."""
    from huggingface_hub import HfFileSystem
    from huggingface_hub.utils import close_session

    with LocalHub() as hub:
        connect(hub, monkeypatch, tmp_path / "hf_home")
        yield hub
        close_session()  # drop pooled keep-alive connections to this server
        HfFileSystem.clear_instance_cache()


def main(argv: list[str] | None = None) -> None:
    """Serve a ``LocalHub`` on 127.0.0.1 until interrupted; first print how to point the package at it."""
    import argparse
    import time

    parser = argparse.ArgumentParser(description="a Hugging Face Hub stand-in on 127.0.0.1 (in memory)")
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    args = parser.parse_args(argv)
    with LocalHub(port=args.port) as hub:
        print(f"export HF_ENDPOINT={hub.endpoint} HF_TOKEN={TOKEN}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
