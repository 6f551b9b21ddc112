"""Read the two published CoBe formats into typed records.

* Paper JSON (App. A.2): a list (or JSON Lines) of entries with ``Core Set ID``, ``Variation ID``,
  ``Domain``, ``Variation text``, ``Query`` (three phrasings A, B, C in order), ``Representative
  answer``, ``Evaluation criteria`` and optionally ``Graph type`` (the paper's sample has none)
  ([should-not-change, should-change, labelled extras such as ``Numerical change expected: …``]).
* Website JSON (``eval-results/category-examples.json``): ``by_domain`` and ``by_graph`` groups of
  entries with ``example_id``, ``coreset_id``, ``variation_id``, ``query_idx``, ``original``,
  ``query``, ``gold_answer``, ``should_not_change``, ``should_change`` and per-model
  ``model_outputs`` (``response``, ``verdict``). A scenario listed in both sections is merged into
  one record (its domain from one, its graph type from the other) and reported as a duplicate.
  A flat ``{"examples": [...]}`` excerpt with ``by_domain_group`` per entry is read the same way.

Anything that does not follow the format raises :class:`CoBeFormatError` naming the entry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from causal_datasets.builder import load_source_json, reading_source
from causal_datasets.cobe.labels import WEBSITE_QUERY_INDEX, normalize_domain, normalize_graph_type
from causal_datasets.cobe.quality import check_scenario
from causal_datasets.cobe.records import PHRASINGS, VERDICTS, CoBeResponse, CoBeScenario, Query
from causal_datasets.errors import SourceFormatError

SCENARIO_ID = re.compile(r"^(\d+)v(\d+)$")

#: labels an ``Evaluation criteria`` string may open with, and the list each one fills
CRITERION_LABELS: dict[str, str] = {
    "should not change": "should_not_change",
    "should change": "should_change",
    "numerical change expected": "numerical_change",
    "numerical change": "numerical_change",
    "latent factors": "latent_factors",
    "latent factor": "latent_factors",
}
_LABEL = re.compile(r"^\s*(" + "|".join(sorted(CRITERION_LABELS, key=len, reverse=True)) + r")\s*:\s*", re.I)
_UNLABELLED_ORDER = ("should_not_change", "should_change")
_PAPER_FIELDS = (
    "Core Set ID",
    "Variation ID",
    "Variation text",
    "Query",
    "Representative answer",
    "Evaluation criteria",
)
_WEBSITE_FIELDS = (
    "coreset_id",
    "variation_id",
    "query_idx",
    "original",
    "query",
    "gold_answer",
    "should_not_change",
    "should_change",
)


class CoBeFormatError(SourceFormatError):
    """A source entry does not follow its published format."""


@dataclass(frozen=True)
class ParsedSource:
    """Scenarios (sorted by core-set id, variation id) and any published model responses."""

    source_format: str
    scenarios: list[CoBeScenario]
    responses: list[CoBeResponse]
    models: list[str]
    duplicates: list[str]  # scenario ids listed more than once (identical copies, merged)


def read_source(path: Path) -> ParsedSource:
    """Parse a paper-format or website-format file, telling them apart by their keys."""
    with reading_source(path):
        return _read_source(Path(path))


def _read_source(path: Path) -> ParsedSource:
    text = path.read_text(encoding="utf-8")
    try:
        document = load_source_json(text)
    except json.JSONDecodeError:
        try:
            document = [load_source_json(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as error:
            raise CoBeFormatError(f"{path}: neither JSON nor JSON Lines ({error})") from None
    if isinstance(document, Mapping) and ({"by_domain", "by_graph", "examples"} & set(document)):
        parsed = parse_website(document)
    elif isinstance(document, list) and all(isinstance(e, Mapping) and "Core Set ID" in e for e in document):
        parsed = parse_paper(document)
    else:
        raise CoBeFormatError(
            f"{path}: not a CoBe file (expected a list of paper entries with 'Core Set ID', "
            "or the website file with 'by_domain'/'by_graph')"
        )
    if not parsed.scenarios:
        raise CoBeFormatError(f"{path}: no scenarios")
    return parsed


def parse_paper(entries: Sequence[Mapping[str, Any]]) -> ParsedSource:
    """Records from paper-format entries (App. A.2)."""
    scenarios = []
    for index, entry in enumerate(entries):
        where = f"paper entry #{index}"
        _require(entry, _PAPER_FIELDS, where)
        core, variation = int(entry["Core Set ID"]), int(entry["Variation ID"])
        where = f"paper entry {core}v{variation}"
        queries = entry["Query"]
        if not isinstance(queries, list) or not 1 <= len(queries) <= len(PHRASINGS):
            raise CoBeFormatError(f"{where}: 'Query' must be a list of 1-3 phrasings (A, B, C)")
        criteria = split_criteria(entry["Evaluation criteria"], where)
        scenarios.append(
            _scenario(
                core_set_id=core,
                variation_id=variation,
                domain_raw=entry.get("Domain"),
                graph_type_raw=entry.get("Graph type"),
                text=entry["Variation text"],
                queries=[Query(phrasing=p, text=q) for p, q in zip(PHRASINGS, queries, strict=False)],
                representative_answer=entry["Representative answer"],
                source_format="paper_json",
                source_groups=["paper"],
                **criteria,
            )
        )
    merged, duplicates = _merge_duplicates((s.id, s, {}) for s in scenarios)
    return ParsedSource("paper_json", merged, [], [], duplicates)


def split_criteria(criteria: Any, where: str) -> dict[str, list[str]]:
    """``Evaluation criteria`` → the four criterion lists.

    Unlabelled strings are, in order, should-not-change and should-change (as in App. A.2); further
    strings must carry a label such as ``Numerical change expected:``.
    """
    if not isinstance(criteria, list) or not all(isinstance(c, str) for c in criteria):
        raise CoBeFormatError(f"{where}: 'Evaluation criteria' must be a list of strings")
    lists: dict[str, list[str]] = {
        "should_not_change": [],
        "should_change": [],
        "numerical_change": [],
        "latent_factors": [],
    }
    for position, criterion in enumerate(criteria):
        match = _LABEL.match(criterion)
        if match:
            target, body = CRITERION_LABELS[match.group(1).lower()], criterion[match.end() :]
        elif position < len(_UNLABELLED_ORDER):
            target, body = _UNLABELLED_ORDER[position], criterion
        else:
            raise CoBeFormatError(
                f"{where}: criterion #{position} {criterion!r} has no label "
                f"(expected one of {sorted(set(CRITERION_LABELS))} followed by ':')"
            )
        if body.strip():
            lists[target].append(body.strip())
    return lists


def parse_website(document: Mapping[str, Any]) -> ParsedSource:
    """Records and model responses from the website file (or a flat excerpt of it)."""
    tagged: list[tuple[dict[str, Any], str | None, str | None, str]] = []
    for group, entries in _groups(document, "by_domain"):
        tagged += [(e, group, None, f"by_domain/{group}") for e in entries]
    for group, entries in _groups(document, "by_graph"):
        tagged += [(e, None, group, f"by_graph/{group}") for e in entries]
    for entry in document.get("examples", []):
        tagged.append((entry, entry.get("by_domain_group"), entry.get("by_graph_group"), "examples"))

    parsed = []
    for entry, domain_group, graph_group, source_group in tagged:
        scenario_id = str(entry.get("example_id", "?"))
        where = f"website entry {scenario_id}"
        _require(entry, _WEBSITE_FIELDS, where)
        match = SCENARIO_ID.match(scenario_id)
        if not match or (int(match.group(1)), int(match.group(2))) != (entry["coreset_id"], entry["variation_id"]):
            raise CoBeFormatError(f"{where}: example_id does not read '<coreset_id>v<variation_id>'")
        phrasing = WEBSITE_QUERY_INDEX.get(entry["query_idx"])
        if phrasing is None:
            raise CoBeFormatError(
                f"{where}: unknown query_idx {entry['query_idx']!r} (known: {sorted(WEBSITE_QUERY_INDEX)})"
            )
        scenario = _scenario(
            core_set_id=entry["coreset_id"],
            variation_id=entry["variation_id"],
            domain_raw=domain_group,
            graph_type_raw=graph_group,
            text=entry["original"],
            queries=[Query(phrasing=phrasing, text=entry["query"], source_index=entry["query_idx"])],
            representative_answer=entry["gold_answer"],
            should_not_change=_strings(entry["should_not_change"], where),
            should_change=_strings(entry["should_change"], where),
            numerical_change=_strings(entry.get("numerical_change", []), where),
            latent_factors=_strings(entry.get("latent_factors", []), where),
            source_format="website",
            source_groups=[source_group],
        )
        parsed.append((scenario_id, scenario, entry.get("model_outputs") or {}))

    models = list(document.get("models") or dict.fromkeys(m for _, _, outputs in parsed for m in outputs))
    scenarios, duplicates = _merge_duplicates(parsed)
    outputs_by_id = {sid: outputs for sid, _, outputs in parsed}
    responses = [
        response for scenario in scenarios for response in _responses(scenario, outputs_by_id[scenario.id], models)
    ]
    return ParsedSource("website", scenarios, responses, models, duplicates)


def _scenario(
    *, core_set_id: int, variation_id: int, domain_raw: str | None, graph_type_raw: str | None, **fields: Any
) -> CoBeScenario:
    fields |= {
        "id": f"{core_set_id}v{variation_id}",
        "core_set_id": core_set_id,
        "variation_id": variation_id,
        "domain_raw": domain_raw,
        "domain": normalize_domain(domain_raw),
        "graph_type_raw": graph_type_raw,
        "graph_type": normalize_graph_type(graph_type_raw),
    }
    return CoBeScenario(**fields, quality_issues=check_scenario(fields))


def _merge_duplicates(items: Iterable[tuple[str, CoBeScenario, Any]]) -> tuple[list[CoBeScenario], list[str]]:
    """One record per id: copies must agree on every benchmark field; labels are combined."""
    merged: dict[str, CoBeScenario] = {}
    duplicates: list[str] = []
    label_fields = {"domain", "domain_raw", "graph_type", "graph_type_raw", "source_groups", "quality_issues"}
    for scenario_id, scenario, _ in items:
        first = merged.get(scenario_id)
        if first is None:
            merged[scenario_id] = scenario
            continue
        if first.model_dump(exclude=label_fields) != scenario.model_dump(exclude=label_fields):
            raise CoBeFormatError(f"scenario {scenario_id} is listed twice with different contents")
        if scenario_id not in duplicates:
            duplicates.append(scenario_id)
        combined = {key: getattr(first, key) for key in CoBeScenario.model_fields if key != "quality_issues"}
        for key in ("domain", "domain_raw", "graph_type", "graph_type_raw"):
            combined[key] = combined[key] or getattr(scenario, key)
        combined["source_groups"] = first.source_groups + scenario.source_groups
        merged[scenario_id] = CoBeScenario(**combined, quality_issues=check_scenario(combined))
    ordered = sorted(merged.values(), key=lambda s: (s.core_set_id, s.variation_id))
    return ordered, sorted(duplicates, key=lambda i: tuple(int(p) for p in i.split("v")))


def _responses(scenario: CoBeScenario, outputs: Mapping[str, Any], models: Sequence[str]) -> list[CoBeResponse]:
    query_id = f"{scenario.id}-{scenario.queries[0].phrasing}"
    unknown = set(outputs) - set(models)
    if unknown:
        raise CoBeFormatError(f"website entry {scenario.id}: outputs of models not in 'models': {sorted(unknown)}")
    rows = []
    for model in models:
        if model not in outputs:
            continue
        output = outputs[model]
        if not isinstance(output, Mapping) or output.get("verdict") not in VERDICTS:
            raise CoBeFormatError(f"website entry {scenario.id}: output of {model!r} has no verdict in {VERDICTS}")
        rows.append(
            CoBeResponse(
                id=f"{query_id}-{model}",
                query_id=query_id,
                scenario_id=scenario.id,
                model=model,
                response=output.get("response") or "",
                verdict=output["verdict"],
            )
        )
    return rows


def _groups(document: Mapping[str, Any], key: str) -> list[tuple[str, list[dict[str, Any]]]]:
    groups = document.get(key) or {}
    if not isinstance(groups, Mapping):
        raise CoBeFormatError(f"website file: {key!r} must map group names to lists of entries")
    return list(groups.items())


def _require(entry: Mapping[str, Any], fields: Sequence[str], where: str) -> None:
    missing = [f for f in fields if f not in entry]
    if missing:
        raise CoBeFormatError(f"{where}: missing field(s) {missing}")


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CoBeFormatError(f"{where}: criteria must be lists of strings, got {value!r}")
    return [v.strip() for v in value if v.strip()]
