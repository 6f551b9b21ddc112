"""The command-line flags that point a model role of ``causal-datasets eval`` (or ``rescore``) at a local stub
server (:class:`causal_datasets.llm.stub_server.StubServer`)."""

from __future__ import annotations


def stub_flags(base_url: str, *, role: str = "model", model: str = "stub", cache: bool = False) -> list[str]:
    """``--model stub --base-url URL --no-cache`` for ``role`` (``judge``: ``--judge-model stub
    --judge-base-url URL --judge-no-cache``); ``cache``: leave the response cache on (no ``--no-cache``)."""
    prefix = "" if role == "model" else f"{role}-"
    flags = [f"--{prefix}model", model, f"--{prefix}base-url", base_url]
    return flags if cache else [*flags, f"--{prefix}no-cache"]
