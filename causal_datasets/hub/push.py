"""Publish to the Hugging Face Hub: a built dataset folder as a tagged dataset version, a metric module as a Space."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, Unpack

import httpx2
from huggingface_hub import HfApi, get_token
from huggingface_hub.errors import HfHubHTTPError, LocalTokenNotFoundError

from causal_datasets.errors import PushError
from causal_datasets.hub.folder import read_manifest
from causal_datasets.paths import metric_path
from causal_datasets.redaction import redact_url
from causal_datasets.secret_values import register, register_url

#: files of a metric folder that are never uploaded
METRIC_IGNORE = ["__pycache__", "__pycache__/*", "*.pyc"]


class PushOptions(TypedDict, total=False):
    """How a push goes: ``tag`` (default: ``v`` and the version of what is pushed), ``token`` (default: the
    logged-in one), ``private`` (of a repository the push creates; default False), ``api`` (default: a new client)."""

    tag: str | None
    token: str | None
    private: bool
    api: HfApi | None


@dataclass(frozen=True)
class PushResult:
    repo_id: str
    commit_url: str
    tag: str | None


def push_folder(folder: Path, repo_id: str, **options: Unpack[PushOptions]) -> PushResult:
    """Create the dataset repo if missing, upload ``folder`` and tag the commit (``v<version>`` by default)."""
    manifest = read_manifest(folder)
    tag = options.get("tag") or f"v{manifest['version']}"
    return _upload(
        repo_id, "dataset", str(folder), tag, options, message=f"{manifest['name']} {tag} (seed {manifest['seed']})"
    )


def push_metric(name: str, repo_id: str, **options: Unpack[PushOptions]) -> PushResult:
    """Create a Gradio Space if missing and upload the metric module ``name`` (module, ``app.py``, card,
    ``requirements.txt``), tagged ``v<package version>`` by default, as evaluate's own metrics are published."""
    from causal_datasets import __version__

    tag = options.get("tag") or f"v{__version__}"
    return _upload(
        repo_id,
        "space",
        metric_path(name),
        tag,
        options,
        message=f"{name} metric {tag} (causal-datasets {__version__})",
        space_sdk="gradio",
        ignore_patterns=METRIC_IGNORE,
    )


def _upload(
    repo_id: str,
    repo_type: str,
    folder: str,
    tag: str,
    options: PushOptions,
    *,
    message: str,
    space_sdk: str | None = None,
    ignore_patterns: list[str] | None = None,
) -> PushResult:
    api = options.get("api") or HfApi(token=options.get("token"))
    private = options.get("private", False)
    register_url(api.endpoint)  # a server may echo what it was sent: the token, the endpoint's user info
    register(api.token or get_token())
    with _hub_errors(repo_id):
        api.create_repo(repo_id, repo_type=repo_type, private=private, exist_ok=True, space_sdk=space_sdk)
        commit = api.upload_folder(
            repo_id=repo_id,
            repo_type=repo_type,
            folder_path=folder,
            commit_message=message,
            ignore_patterns=ignore_patterns,
        )
        api.create_tag(repo_id, repo_type=repo_type, tag=tag, revision=commit.oid, exist_ok=False)
    return PushResult(repo_id=repo_id, commit_url=redact_url(str(commit.commit_url)), tag=tag)  # printed


@contextmanager
def _hub_errors(repo_id: str) -> Iterator[None]:
    """Turn the ways a push fails (no token, refused, unreachable, an answer that is not the Hub's) into
    :class:`PushError`."""
    try:
        yield
    except LocalTokenNotFoundError as error:
        raise PushError(
            f"not logged in to the Hugging Face Hub: set HF_TOKEN or run `hf auth login` ({error})"
        ) from error
    except HfHubHTTPError as error:
        status = error.response.status_code if error.response is not None else "?"
        hint = " (check HF_TOKEN and its write permission)" if status in (401, 403) else ""
        raise PushError(f"the hub refused the push to {repo_id} with HTTP {status}{hint}: {error}") from error
    except (OSError, httpx2.TransportError) as error:
        raise PushError(f"could not reach the Hugging Face Hub to push {repo_id}: {error}") from error
    except (KeyError, TypeError, ValueError, AttributeError) as error:  # a 200 whose body is not the Hub's answer
        got = (
            f"an answer without the field {error}"
            if isinstance(error, KeyError)
            else f"{type(error).__name__}: {error}"
        )
        raise PushError(
            f"the Hub answered the push to {repo_id} in a form it never sends ({got}): is HF_ENDPOINT a Hugging "
            "Face Hub? What was uploaded is unknown; check the repository before pushing again"
        ) from error
