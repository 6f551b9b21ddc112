"""Runs of ``causal-datasets eval`` as a results dataset on the Hub (``causal-datasets export-runs``).

:mod:`.rows` turns a run into rows (redacted, with its id), :mod:`.card` computes the card's leaderboard and
``model-index`` blocks, :mod:`.folder` writes and reads an export folder with the builders' writer, and
:mod:`.reading` gives the runs of an export (a folder, or a Hub id at a revision) back to ``report``.

An export has three configs (split ``train``): ``results`` (the default: a row per run and number of its
summary's intervals, the run's settings flat), ``details`` (a row per result line: the transcript or the last
model request and reply, the calls, the item's headline scores, the failure, cluster and groups, the generation
and scores as JSON) and ``runs`` (each summary as JSON, the version that added the run). The manifest's
``options`` mark it as an export (``kind: run-results``), so it is never taken for a build. ``report`` rebuilds
each exported run from its summary and ``details`` rows, so a report from an export equals the report from the
run folders but for run names and sources. This package sits on :mod:`causal_datasets.report.runs`; the report
never imports it.
"""

from causal_datasets.exports.folder import ExportOutcome, export_runs, read_export

__all__ = ["ExportOutcome", "export_runs", "read_export"]
