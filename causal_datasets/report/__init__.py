"""Run reports: Markdown tables per benchmark and slice, PNG plots, several runs side by side.

``report.render.write_report`` writes one; ``report.runs`` reads runs (importing it does not load matplotlib).
"""
