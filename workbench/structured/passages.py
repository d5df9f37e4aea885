"""The passages of a text that a structured reply may quote: its sentences and lines, each long enough to say
something. A schema lists them as the choices of a quote field (a judge's quote of the response, the report
extraction's copied sentences), so a server that decodes by schema can only copy, never write its own."""

from __future__ import annotations

import re

MIN_QUOTE = 4              # characters, after normalising: a quote (and a passage) must say something
MAX_PASSAGES = 60          # a long text keeps its first passages: the schema stays small (project's choice)
MAX_PASSAGE = 400          # characters of one passage


def passages(text: str) -> list[str]:
    """The text's sentences and lines, each long enough to be a quote, in order, without repeats."""
    out: list[str] = []
    for line in text.splitlines():
        for piece in re.split(r"(?<=[.!?])\s+", line.strip()):
            piece = piece.strip().strip("-*# ").strip()[:MAX_PASSAGE]
            if len(piece) >= MIN_QUOTE and piece not in out:
                out.append(piece)
    return out[:MAX_PASSAGES]
