"""evaluate modules, one folder per metric (``<name>/<name>.py``, ``app.py``, README card), shipped as package data."""
