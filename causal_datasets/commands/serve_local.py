"""``causal-datasets serve-local``: run the bundled SmolLM2-135M-Instruct on 127.0.0.1 until Ctrl-C.

The server answers one request at a time on the CPU, the same request always with the same reply; it
prints the flags that suit it (``eval`` also finds them by itself, from the server's ``/props``)."""

from __future__ import annotations

import argparse
import signal
import time

from causal_datasets.commands._errors import CommandError
from causal_datasets.llm.local import RECOMMENDED_FLAGS, LocalServer


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve-local", help="serve the bundled SmolLM2-135M-Instruct (transformers, CPU) on 127.0.0.1"
    )
    parser.add_argument("--port", type=int, help="port (default: a free one)")
    parser.add_argument("--n-ctx", type=int, default=4096, help="context window in tokens (default 4096)")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads for the prompt and the reply (default 1)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # a process started in the background by a shell without job control inherits SIGINT ignored;
    # this command's contract is "until Ctrl-C", so take the signal back
    signal.signal(signal.SIGINT, signal.default_int_handler)
    server = LocalServer(port=args.port, n_ctx=args.n_ctx, n_threads=args.threads)
    server.start()
    try:  # from the first line on, Ctrl-C stops the server cleanly
        print(f"serving {server.model} at {server.base_url}", flush=True)
        print(f"use: --model {server.model} --base-url {server.base_url} {RECOMMENDED_FLAGS}", flush=True)
        print(
            "(one request at a time on the CPU, so eval finds these two settings by itself; Ctrl-C stops)", flush=True
        )
        while server.running():
            time.sleep(0.5)
        raise CommandError(f"the local model server stopped by itself:\n{server.log_tail()}")
    except KeyboardInterrupt:
        print("stopping", flush=True)
    finally:
        server.stop()
    return 0
