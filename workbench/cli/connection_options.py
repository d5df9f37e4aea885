"""`--max-connections N` and `--stream`, shared by every command that calls models."""

from __future__ import annotations

import argparse


def positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_connection_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--max-connections", type=positive, metavar="N",
                   help="calls in flight per model endpoint for this command, in place of the global concurrency "
                        "default (a model's own lower max_connections wins, and the command says so)")
    p.add_argument("--stream", action="store_true",
                   help="stream every call's tokens (default: whole replies, which cost a fraction of the CPU)")
