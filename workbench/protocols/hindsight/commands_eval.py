"""`workbench --batch hindsight adjudicate|pilot …` (registered by commands.py)."""

from __future__ import annotations

import argparse


def register(hs: argparse._SubParsersAction) -> None:
    """Filled in as adjudication and the human pilot land."""
