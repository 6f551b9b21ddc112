"""Runs of ``causal-datasets eval`` as a results dataset on the Hub (``causal-datasets export-runs``).

:mod:`.rows` turns a run into rows (redacted, with its id), :mod:`.card` computes the card's leaderboard and
``model-index`` blocks, :mod:`.folder` writes and reads an export folder with the builders' writer, and
:mod:`.reading` gives the runs of an export (a folder, or a Hub id at a revision) back to ``report``.
"""

from causal_datasets.exports.folder import ExportOutcome, export_runs, read_export

__all__ = ["ExportOutcome", "export_runs", "read_export"]
