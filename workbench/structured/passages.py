"""The passages of a text that a structured reply may quote: its sentences and lines, each long enough to say
something. A schema lists them as the choices of a quote field (a judge's quote of the response, the report
extraction's copied sentences), so a server that decodes by schema can only copy, never write its own.

A passage never holds a double quote, a backslash or a control character: it is cut there, and each piece long
enough is a passage of its own (still a copy of the text). Servers turn an enum into a grammar, and llama-cpp-python
0.3.36's converter writes a JSON-escaped `\\"` into the grammar as `\\\\"`, which ends the literal: "failed to parse
grammar", and the server drops the connection unanswered. Its backslash and control characters come out as text
that is not JSON. (Read in its `llama_grammar.py`, `_format_literal`; held by tests/structured/test_passages.py.)
"""

from __future__ import annotations

import re

MIN_QUOTE = 4              # characters, after normalising: a quote (and a passage) must say something
MAX_PASSAGES = 60          # a long text keeps its first passages: the schema stays small (project's choice)
MAX_PASSAGE = 400          # characters of one passage

# what a schema-to-grammar converter may mishandle inside an enum value (above): a passage is cut at it
UNSAFE_IN_GRAMMAR = re.compile(r'["\\\x00-\x1f\x7f]')


def passages(text: str) -> list[str]:
    """The text's sentences and lines, each long enough to be a quote, in order, without repeats."""
    out: list[str] = []
    for line in text.splitlines():
        for sentence in re.split(r"(?<=[.!?])\s+", line.strip()):
            for piece in UNSAFE_IN_GRAMMAR.split(sentence):
                piece = piece.strip().strip("-*# ").strip()[:MAX_PASSAGE]
                if len(piece) >= MIN_QUOTE and piece not in out:
                    out.append(piece)
    return out[:MAX_PASSAGES]
