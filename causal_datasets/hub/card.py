"""Dataset cards: ``cards/<name>.md`` (YAML front matter + Jinja2 body) → the folder's README.md.

The template supplies the human parts: the metadata a person chooses and the prose (summary, tasks,
configs, upstream fixes, limitations, licensing). Our five templates extend ``cards/_layout.md``,
which fixes the sections every card has and where the computed parts go. Everything else comes from
the build: the front matter's computed keys (:mod:`.front_matter`), the field tables from the record
models' field descriptions, statistics from the rows, the builder's data-quality findings, the
version history, the BibTeX from the metric cards (:mod:`.citations`).

Template variables: ``name``, ``pretty_name``, ``version``, ``seed``, ``source``, ``license``,
``configs`` (names), ``configs_table``, ``statistics`` (Markdown per config), ``field_tables``,
``findings``, ``history``, ``papers``, ``citation``, ``metrics``, ``load_example``, plus whatever
the builder's ``card_context`` returns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import datasets
import jinja2
from huggingface_hub import DatasetCard

from causal_datasets.builder import BuildOutcome, DatasetBuilder
from causal_datasets.errors import BuilderRegistrationError
from causal_datasets.hub import card_sections
from causal_datasets.hub.citations import bibtex, paper
from causal_datasets.hub.front_matter import SplitFiles, card_data
from causal_datasets.paths import cards_dir, metric_path


def render_card(
    builder: DatasetBuilder,
    outcome: BuildOutcome,
    features: Mapping[str, datasets.Features],
    splits: Mapping[str, Mapping[str, SplitFiles]],
    source: str,
    seed: int,
) -> str:
    """The README.md of one build: checked front matter and the rendered template."""
    template_path = builder.card_path
    if not template_path.exists():
        raise BuilderRegistrationError(f"no card template {template_path} for dataset {builder.name!r}")
    template = DatasetCard(template_path.read_text(encoding="utf-8"))
    declared = {**template.data.to_dict(), **(builder.card_metadata(outcome.records) if builder.card_metadata else {})}
    data = card_data(declared, builder.pretty_name, features, splits, builder.name)
    _check_documented(builder, list(splits))
    entries = bibtex(builder.citations)
    row_counts = {
        config: {split: files.rows for split, files in config_splits.items()}
        for config, config_splits in splits.items()
    }
    context = {
        "name": builder.name,
        "pretty_name": builder.pretty_name,
        "version": builder.version,
        "seed": seed,
        "source": source,
        "license": declared.get("license", ""),
        "configs": list(splits),
        "configs_table": card_sections.configs_table(row_counts),
        "statistics": "\n\n".join(
            f"#### `{config}`\n\n{card_sections.column_statistics(outcome.records[config], features[config])}"
            for config in splits
        ),
        "field_tables": card_sections.field_tables({config: builder.configs[config] for config in splits}),
        "findings": card_sections.findings_section(outcome.findings),
        "history": card_sections.history_table(builder.history),
        "papers": [paper(entry).markdown() for entry in entries],
        "citation": "```bibtex\n" + "\n\n".join(entries) + "\n```" if entries else "",
        "metrics": _known_metrics(builder.metrics),
        "load_example": load_example(builder.name, next(iter(splits)), builder.version),
        **(dict(builder.card_context(outcome.records)) if builder.card_context else {}),
    }
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader([template_path.parent, cards_dir()]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
    )
    body = environment.from_string(template.text).render(**context)
    return f"---\n{data.to_yaml()}\n---\n{body}"


def _check_documented(builder: DatasetBuilder, configs: Sequence[str]) -> None:
    """Every field of the built configs has a description (:class:`BuilderRegistrationError` lists those without)."""
    missing = [f"{c}.{doc.path}" for c in configs for doc in builder.configs[c].field_docs() if not doc.description]
    if missing:
        raise BuilderRegistrationError(f"dataset {builder.name!r}: fields without a description: {', '.join(missing)}")


def _known_metrics(names: Sequence[str]) -> list[str]:
    for name in names:
        metric_path(name)  # raises UnknownMetric for a module the package does not ship
    return list(names)


def load_example(name: str, config: str, version: str) -> str:
    return (
        "```python\nfrom datasets import load_dataset\n\n"
        f'ds = load_dataset("hub/{name}", "{config}")  # a local build\n'
        f'# once pushed: load_dataset("<org>/{name}", "{config}", revision="v{version}")\n```'
    )
