"""Dataset card templates (``<name>.md``), shipped as package data."""
