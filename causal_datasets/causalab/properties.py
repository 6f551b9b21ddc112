"""Crystal property names: the target, the controllable pool, display names, name normalization."""

from __future__ import annotations

import re

TARGET = "resonanceFreq"

#: the eight crystal properties an SCM draws its controllable nodes from (release order)
PROPERTY_POOL = ("quantumSize", "density", "moisture", "ph", "temperatureC", "radiation", "conductivity", "pressure")

DISPLAY_NAMES = {
    TARGET: "Resonance Frequency (Hz)",
    "quantumSize": "Quantum Size",
    "density": "Density",
    "moisture": "Moisture",
    "ph": "pH",
    "temperatureC": "Temperature (°C)",
    "radiation": "Radiation",
    "conductivity": "Conductivity",
    "pressure": "Pressure",
}

#: short names the upstream parameter keys use (``coeff_<parent>_<child>``)
PARAM_NAMES = {TARGET: "freq", "temperatureC": "temp"}

_ALIASES = {
    "freq": TARGET,
    "frequency": TARGET,
    "resonancefrequency": TARGET,
    "resonancefreq": TARGET,
    "resonancefrequencyhz": TARGET,
    "temp": "temperatureC",
    "temperature": "temperatureC",
    "temperaturec": "temperatureC",
}
_CANONICAL = {re.sub(r"[^a-z0-9]", "", name.lower()): name for name in DISPLAY_NAMES}
_CANONICAL.update({re.sub(r"[^a-z0-9]", "", d.lower()): n for n, d in DISPLAY_NAMES.items()})


def normalize_name(name: str) -> str:
    """Canonical property name (``freq``/``frequency``/``resonance frequency`` → ``resonanceFreq``).

    Unknown names come back stripped but otherwise unchanged, so a metric can count them as wrong.
    """
    key = re.sub(r"[^a-z0-9]", "", str(name).lower())
    return _ALIASES.get(key) or _CANONICAL.get(key) or str(name).strip()


def param_name(node: str) -> str:
    """The name a node has inside upstream parameter keys."""
    return PARAM_NAMES.get(node, node)
