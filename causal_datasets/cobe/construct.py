"""CoBe's construction (paper §3.1): a core set of scenarios expanded by a generator model's variations, verified.

:func:`construct` plans every request before any call — each core scenario × each kind of variation
(sentence structure, clause order, domain) × ``per_kind`` — asks the generator for each
(:mod:`causal_datasets.cobe.variation_prompts`, the reply read as JSON with one re-ask), checks what
comes back (:mod:`causal_datasets.cobe.verify`) and appends one line per request to the construction
folder's ``results.jsonl`` the moment it ends (:class:`causal_datasets.runners.results.ResultsLog`: a kill
loses at most the requests in flight). Every request ends in a line: ``accepted`` with its scenario,
``rejected`` with a :data:`~causal_datasets.cobe.records.VariationCategory`, or ``failed`` (a model call
failed); each keeps its model calls (:mod:`causal_datasets.runners.calls`). Running it again on the same
folder resumes: requests with a line are kept, ``failed`` ones are asked again, and the response cache
answers every call already made. The folder also holds a copy of the core file and ``construction.json``
(what was asked, written atomically), so ``build cobe --source FOLDER`` builds the set from it alone
(:mod:`causal_datasets.cobe.constructed`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from causal_datasets.cobe.formats import CoBeFormatError, read_source
from causal_datasets.cobe.records import (
    DOMAINS,
    VARIATION_KINDS,
    CoBeScenario,
    CoBeVariation,
    Domain,
    VariationKind,
)
from causal_datasets.cobe.variation_prompts import (
    REPLY_CATEGORIES,
    VariationReply,
    prompt_sha256,
    variation_messages,
)
from causal_datasets.cobe.verify import verify
from causal_datasets.errors import RunConfigurationError, SourceUnavailable
from causal_datasets.files import read_json_object
from causal_datasets.llm.chat import ChatClient
from causal_datasets.llm.structured import ask_structured
from causal_datasets.runners.calls import CallLog, RecordingClient
from causal_datasets.runners.results import ResultsLog, write_json_atomic, write_text_atomic

MANIFEST = "construction.json"
CORE_FILE = "core.json"
#: generator calls per request: the first answer and one re-ask when it cannot be read
REPLY_ATTEMPTS = 2
FORMAT = 1


class ConstructionSettings(BaseModel):
    """What a construction folder was asked for; a folder is resumed only with the same settings."""

    model_config = ConfigDict(extra="forbid")

    format: int = FORMAT
    core_file: str
    core_sha256: str
    kinds: list[VariationKind]
    per_kind: int
    generator: dict[str, Any]
    judge: dict[str, Any]


class VariationLine(CoBeVariation):
    """One line of ``results.jsonl``: the variation, its scenario when it has one, and its model calls."""

    scenario: VariationReply | None = None
    calls: list[dict[str, Any]] = []


@dataclass(frozen=True)
class Request:
    """One variation to ask for, fixed before any call."""

    core: CoBeScenario
    kind: VariationKind
    index: int

    @property
    def id(self) -> str:
        return f"{self.core.id}/{self.kind}/{self.index}"

    @property
    def domain(self) -> Domain | None:
        """The domain asked for: the core's, or for a domain variation the next other domain in Table 3's order."""
        if self.kind != "domain":
            return self.core.domain
        others = [domain for domain in DOMAINS if domain != self.core.domain]
        return others[(self.index - 1) % len(others)]


def plan(cores: list[CoBeScenario], kinds: list[VariationKind], per_kind: int) -> list[Request]:
    """Every request, in order: core scenario, kind (in the order given), then n."""
    return [Request(core, kind, n) for core in cores for kind in kinds for n in range(1, per_kind + 1)]


def read_core(path: Path) -> list[CoBeScenario]:
    """The core scenarios of a CoBe file (paper or website format); :class:`SourceUnavailable` otherwise."""
    try:
        return read_source(path).scenarios
    except CoBeFormatError as error:
        raise SourceUnavailable(f"--construct {path} is not a usable CoBe core set: {error}") from None


def construct(
    core_path: Path,
    out: Path,
    generator: ChatClient,
    judge: ChatClient,
    *,
    kinds: list[VariationKind] | None = None,
    per_kind: int = 3,
    concurrency: int = 4,
    progress: bool | None = None,
) -> dict[str, int]:
    """Ask for, check and record every variation of the core set not yet in ``out``; the count of each status."""
    cores = read_core(core_path)
    core_bytes = Path(core_path).read_bytes()
    settings = ConstructionSettings(
        core_file=Path(core_path).name,
        core_sha256=hashlib.sha256(core_bytes).hexdigest(),
        kinds=list(kinds or VARIATION_KINDS),
        per_kind=per_kind,
        generator=_reply_settings(generator),
        judge=_reply_settings(judge),
    )
    _start(out, settings, core_bytes)
    log = ResultsLog(out, resume=True, model=VariationLine)
    todo = [request for request in plan(cores, settings.kinds, per_kind) if log.needs_run(request.id)]
    log.record_all(
        todo, lambda request: variation_line(request, generator, judge), concurrency=concurrency,
        desc="cobe variations", progress=progress,
    )  # fmt: skip
    log.compact()
    counts = {"accepted": 0, "rejected": 0, "failed": 0}
    for line in log.items.values():
        counts[line["status"]] += 1
    return counts


def read_settings(out: Path) -> ConstructionSettings:
    """The settings of a construction folder (:class:`RunConfigurationError` when it has none or they are not valid)."""
    data = read_json_object(
        Path(out) / MANIFEST, RunConfigurationError, f"{out} has no {MANIFEST}: not a CoBe construction", "settings"
    )
    try:
        return ConstructionSettings.model_validate(data)
    except ValueError as error:
        raise RunConfigurationError(f"{Path(out) / MANIFEST} is not a CoBe construction's settings: {error}") from None


def _start(out: Path, settings: ConstructionSettings, core_bytes: bytes) -> None:
    """Start a construction in ``out`` (the core copy, then the settings), or check that ``out`` was started with
    these settings; a folder holding only a core copy (a start a kill cut short) is started again."""
    out, manifest = Path(out), Path(out) / MANIFEST
    if manifest.exists():
        earlier = read_settings(out)
        changed = [
            name for name in ConstructionSettings.model_fields if getattr(earlier, name) != getattr(settings, name)
        ]
        if changed:
            raise RunConfigurationError(
                f"{out} holds a CoBe construction with other settings ({', '.join(changed)}); "
                "run it with its own settings to resume it, or choose another --construct-out"
            )
    elif out.exists() and (
        not out.is_dir() or any(p.name != CORE_FILE and not p.name.startswith(".") for p in out.iterdir())
    ):
        raise RunConfigurationError(
            f"{out} is not an empty folder and holds no {MANIFEST}; choose another --construct-out"
        )
    if not manifest.exists():  # the core first: a folder with settings always has its core
        write_text_atomic(out / CORE_FILE, core_bytes.decode("utf-8"))
        write_json_atomic(manifest, settings.model_dump(mode="json"))


def _reply_settings(client: ChatClient) -> dict[str, Any]:
    """What decides a client's replies (an ``LLMClient``'s config), else its model name."""
    config = client.config
    describe = getattr(config, "reply_settings", None)
    return describe() if callable(describe) else {"model": config.model}


def variation_line(request: Request, generator: ChatClient, judge: ChatClient) -> dict[str, Any]:
    """Ask for one variation, check it and return its line (never raises for a model's trouble)."""
    calls = CallLog()
    messages = variation_messages(request.core, request.kind, request.index, request.domain)
    base: dict[str, Any] = {
        "id": request.id,
        "core_id": request.core.id,
        "core_set_id": request.core.core_set_id,
        "kind": request.kind,
        "index": request.index,
        "target_domain": request.domain,
        "scenario_id": None,
        "model": generator.config.model,
        "judge_model": judge.config.model,
        "prompt_sha256": prompt_sha256(messages),
        "verdicts": [],
        "quality_issues": [],
    }
    answer = ask_structured(
        RecordingClient("generator", generator, calls), messages, schema=VariationReply, repair="reask",
        max_attempts=REPLY_ATTEMPTS,
    )  # fmt: skip
    outcome: dict[str, Any]
    if answer.ok:
        checked = verify(answer.value, request.core, request.domain, RecordingClient("judge", judge, calls))
        status = "failed" if checked.category == "call_failed" else "rejected" if checked.category else "accepted"
        outcome = {
            "status": status,
            "category": checked.category,
            "detail": checked.detail,
            "scenario": answer.value.model_dump(),
            "verdicts": [v.model_dump() for v in checked.verdicts],
            "quality_issues": [i.model_dump() for i in checked.quality_issues],
        }
    elif answer.error_kind in REPLY_CATEGORIES:
        outcome = {"status": "rejected", "category": REPLY_CATEGORIES[answer.error_kind], "detail": answer.error}
    else:
        outcome = {"status": "failed", "category": "call_failed", "detail": f"{answer.error_kind}: {answer.error}"}
    reply = answer.raw[-1] if answer.raw else None
    recorded = [call.model_dump(mode="json") for call in calls.calls()]
    return base | {"reply": reply, "calls": recorded, "scenario": None} | outcome
