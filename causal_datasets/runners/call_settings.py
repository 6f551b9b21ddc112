"""A run's call settings kept by reference: each distinct request setting once, in the run folder's ``settings.json``.

Every model call of a run records what was sent besides its messages (sampling, token limit, extra body,
prefill: :attr:`~causal_datasets.runners.records.ModelCall.settings`). Those are the same for most calls of a
run and may be large (a model config's ``extra_body``), so a result line keeps each call's
``settings_id`` — the first 16 hex digits of the sha256 of the settings as canonical JSON — and the run
folder keeps ``settings.json``, ``{settings_id: settings}``, written before the first line that refers to
an id. :func:`by_reference` makes a line so; :func:`inline` gives the settings back to the calls of a line
read (runs written before, with the settings in every call, are read as they are).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

SETTINGS_FILE = "settings.json"


def settings_id(settings: Mapping[str, Any]) -> str:
    """The id of ``settings``: 16 hex digits of the sha256 of their canonical JSON (sorted keys, no spaces)."""
    canonical = json.dumps(settings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "backslashreplace")).hexdigest()[:16]


def by_reference(line: dict[str, Any], table: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """``line`` with each call that has a ``settings_id`` stripped of its ``settings`` (added to ``table``), and
    whether ``table`` gained an id."""
    calls = line.get("calls")
    if not isinstance(calls, list) or not any(isinstance(call, dict) and call.get("settings_id") for call in calls):
        return line, False
    added = False
    kept = []
    for call in calls:
        if isinstance(call, dict) and call.get("settings_id"):
            if call["settings_id"] not in table:
                table[call["settings_id"]] = call.get("settings") or {}
                added = True
            call = {name: value for name, value in call.items() if name != "settings"}
        kept.append(call)
    return line | {"calls": kept}, added


def inline(line: dict[str, Any], table: Mapping[str, Any]) -> dict[str, Any]:
    """``line`` with the settings of each call that refers to ``table`` put back (an id the table lacks is
    left as it is: the line's reader names it)."""
    calls = line.get("calls")
    if not isinstance(calls, list):
        return line
    return line | {
        "calls": [
            call | {"settings": table[call["settings_id"]]}
            if isinstance(call, dict) and call.get("settings_id") in table and not call.get("settings")
            else call
            for call in calls
        ]
    }
