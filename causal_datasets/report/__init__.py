"""Run reports: Markdown tables per benchmark and slice, PNG plots, several runs side by side.

``report.views`` (what a benchmark's section shows) is imported by the tasks that declare one, so this
package does not import the plotting code until :func:`write_report` is asked for.
"""

from __future__ import annotations

from typing import Any

__all__ = ["write_report"]


def __getattr__(name: str) -> Any:
    if name == "write_report":
        from causal_datasets.report.render import write_report

        return write_report
    raise AttributeError(name)
