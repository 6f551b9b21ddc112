"""The subcommands' own error: a command-line misuse a command finds itself (the CLI prints it as
``error: <message>`` and exits with code 2, as it does for the library's typed errors)."""


class CommandError(RuntimeError):
    """A command-line misuse found by a command itself: printed as ``error: <message>``, exit code 2."""
