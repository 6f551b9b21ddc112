"""Closed vocabularies of CoBe and how source spellings map onto them.

The paper (Table 3) and the website file name the seven domains differently; the website also
spells the hybrid graph family ``Hydrid``. Every mapping here is explicit: a spelling that is not
listed maps to ``None`` and the record reports it, rather than being guessed.
"""

from __future__ import annotations

import re

from causal_datasets.cobe.records import DOMAINS, GRAPH_TYPES

#: source spelling (case-folded) → canonical domain
DOMAIN_ALIASES: dict[str, str] = {
    **{name.casefold(): name for name in DOMAINS},
    "history, geography and agriculture": "History and Geography",
    "arts, music and entertainment": "Arts and Entertainment",
    "music": "Arts and Entertainment",  # the paper's sample JSON (App. A.2) tags 307v8 "Music"
}

#: source spelling (case-folded, "-like" dropped) → canonical graph type
GRAPH_TYPE_ALIASES: dict[str, str] = {
    **{name: name for name in GRAPH_TYPES},
    "hydrid": "hybrid",  # sic in the website file
}

#: the template that opens each phrasing (paper §3.1)
PHRASING_OPENINGS: dict[str, str] = {
    "A": "Rewrite the original text, based on what would have happened instead had",
    "B": "Based on the preceding text, rewrite the scenario to reflect what happens if",
    "C": "Rewrite the above passage to illustrate what would have occurred had",
}

#: the website's ``query_idx`` of each phrasing: every query there that follows a template
#: carries exactly this index (A 44×, B 41×, C 41× in category-examples.json)
WEBSITE_QUERY_INDEX: dict[int, str] = {2: "A", 5: "B", 7: "C"}


def normalize_domain(raw: str | None) -> str | None:
    """The canonical domain of a source spelling, or None when it is not a known spelling."""
    if raw is None:
        return None
    return DOMAIN_ALIASES.get(" ".join(raw.split()).casefold())


def normalize_graph_type(raw: str | None) -> str | None:
    """The canonical graph type of a source spelling (``Chain-like`` → ``chain``), or None."""
    if raw is None:
        return None
    key = re.sub(r"[-\s]*like$", "", raw.strip().casefold())
    return GRAPH_TYPE_ALIASES.get(key)


def follows_template(query: str, phrasing: str) -> bool:
    """Whether ``query`` opens with the template wording of ``phrasing``."""
    return " ".join(query.split()).startswith(PHRASING_OPENINGS[phrasing])
