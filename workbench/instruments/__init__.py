"""Instruments: the code that turns a model's text into a measurement (issue 41).

A split of B3's reply into perspectives, a second or a vote, a crux's equivalence, a cue in a prompt: each is
an `Instrument`. It reads a researcher's file (`workbench --batch read NAME FILE`), says what it read as one
JSON document, and says when it is not sure (`flagged`, with a `reason`). Every instrument has a corpus of
realistic replies with their true readings (tests/corpus/NAME/*.toml, `corpus.py`); `accuracy.py` counts,
per instrument, what it read correctly, what it flagged and what it misread without a flag, for
benchmarks/instruments.py and the tests that hold the floors.

Shared instruments are listed in `registry.SHARED`; a protocol names its own in `StudyProtocol.instruments`
(module paths whose `INSTRUMENTS` list them), so this package never imports a protocol.
"""

from workbench.instruments.base import Instrument, Option

__all__ = ["Instrument", "Option"]
