"""Building CoBe's configs from a construction folder (:mod:`causal_datasets.cobe.construct`).

The set is the core scenarios as the core file gives them, then each accepted variation as a scenario
``XXXvYY``: ``XXX`` its core's core-set id, ``YY`` numbered on from the highest variation id the core
file has for ``XXX``, in the order the requests were planned (so the ids are a function of the folder
alone). ``variations`` holds every request that has a line, accepted or not, with its provenance;
requests the folder has no line for yet (a construction stopped before its end) are counted in a note.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from causal_datasets.builder import BuildOutcome, Finding
from causal_datasets.cobe.construct import CORE_FILE, MANIFEST, VariationLine, plan, read_core, read_settings
from causal_datasets.cobe.dataset import query_records
from causal_datasets.cobe.quality import findings
from causal_datasets.cobe.records import (
    VARIATION_CATEGORIES,
    VARIATION_KINDS,
    CoBeScenario,
    CoBeVariation,
)
from causal_datasets.cobe.verify import scenario_fields
from causal_datasets.errors import SourceUnavailable
from causal_datasets.markdown import markdown_table
from causal_datasets.records.base import Record
from causal_datasets.runners.results import RESULTS_FILE, check_result_lines


def is_construction(source: Path) -> bool:
    """Whether ``source`` is a construction folder."""
    return Path(source).is_dir() and (Path(source) / MANIFEST).is_file()


def build_constructed(folder: Path) -> BuildOutcome:
    """The configs of a construction folder (``scenarios``, ``queries``, ``variations``; the caller adds
    ``prompts``), its notes and findings."""
    settings = read_settings(folder)
    cores = read_core(Path(folder) / CORE_FILE)
    lines = _lines(Path(folder))
    planned = plan(cores, settings.kinds, settings.per_kind)
    next_id = Counter[int]()
    for core in cores:
        next_id[core.core_set_id] = max(next_id[core.core_set_id], core.variation_id)
    scenarios, variations = list(cores), []
    for request in planned:
        line = lines.get(request.id)
        if line is None:
            continue
        scenario_id = None
        if line.status == "accepted" and line.scenario is not None:
            next_id[request.core.core_set_id] += 1
            scenario = _scenario(line, request.core, next_id[request.core.core_set_id])
            scenarios.append(scenario)
            scenario_id = scenario.id
        kept = line.model_dump(exclude={"scenario", "calls", "scenario_id"})
        variations.append(CoBeVariation(**kept, scenario_id=scenario_id))
    scenarios.sort(key=lambda s: (s.core_set_id, s.variation_id))
    missing = len(planned) - len(variations)
    counts = Counter(v.status for v in variations)
    notes = [
        f"{len(cores)} core scenarios from {settings.core_file}; {len(planned)} variations asked for: "
        f"{counts['accepted']} accepted, {counts['rejected']} rejected, {counts['failed']} failed"
    ]
    if missing:
        notes.append(f"{missing} variations not asked yet: run the construction again to resume it")
    not_kept = Finding(
        "variations", "variations not kept (a malformed reply, a failed check or a failed call)",
        "kept in `variations` with their category; not in `scenarios`",
        ids=tuple(v.id for v in variations if v.status != "accepted"), unit="variations",
    )  # fmt: skip
    queries = query_records(scenarios)
    records: dict[str, dict[str, Sequence[Record]]] = {
        "scenarios": {"test": scenarios},
        "queries": {"test": queries},
        "variations": {"test": variations},
    }
    return BuildOutcome(
        records=records,
        notes=notes,
        findings=[*findings(scenarios, []), not_kept],
        source_description=f"a CoBe construction: core set {settings.core_file} and its generated variations",
    )


def _lines(folder: Path) -> dict[str, VariationLine]:
    """Every line of the folder's ``results.jsonl`` (each must be readable), by request id."""
    path = folder / RESULTS_FILE
    if not path.exists():
        return {}
    lines = {}
    for raw in check_result_lines(path):
        try:
            line = VariationLine.model_validate(raw)
        except ValidationError as error:
            raise SourceUnavailable(f"{path}: line {raw.get('id')!r} is not a CoBe variation: {error}") from None
        lines[line.id] = line
    return lines


def _scenario(line: VariationLine, core: CoBeScenario, variation_id: int) -> CoBeScenario:
    """The scenario of an accepted variation."""
    assert line.scenario is not None
    fields = scenario_fields(line.scenario, core, line.target_domain)
    return CoBeScenario(
        **fields,
        id=f"{core.core_set_id}v{variation_id}",
        core_set_id=core.core_set_id,
        variation_id=variation_id,
        source_format="constructed",
        source_groups=[f"variation/{line.kind}/{line.core_id}"],
        quality_issues=[],
    )


def construction_table(variations: Sequence[CoBeVariation]) -> str:
    """Variations per kind: asked, accepted, then each category that turned some away."""
    categories = [c for c in VARIATION_CATEGORIES if any(v.category == c for v in variations)]
    rows = []
    for kind in (*VARIATION_KINDS, None):
        chosen = [v for v in variations if kind is None or v.kind == kind]
        counts = Counter(v.category for v in chosen)
        accepted = sum(v.status == "accepted" for v in chosen)
        rows.append([kind or "all", len(chosen), accepted, *(counts[c] for c in categories)])
    return markdown_table(["kind", "asked", "accepted", *categories], rows)
