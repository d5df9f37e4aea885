"""The corpus of realistic replies an instrument is measured on: tests/corpus/NAME/*.toml.

Each file holds `[[entry]]` tables:

    [[entry]]
    id = "bold-bullet-leadins"         # unique within the instrument
    source = "hand"                    # "hand", or the model it was captured from ("smollm2-135m", ...)
    layout = "bullets with bold lead-ins"   # the kind of text, for counting layouts
    note = "what a careful human reads in it, in words"
    text = '''...the reply, verbatim...'''
    [entry.truth]                      # the reading a careful human makes, in the instrument's own keys
    perspectives = 3

A file that breaks these rules is refused with its path and the entry's id or index.

A file named `heldout-*.toml` is HELD OUT: written apart from the rest and never used to tune the instrument, so
its accuracy says how the instrument reads text it was not fitted to. `load(..., part=TUNING | HELD_OUT)` reads
one part; the benchmark and the floors print and hold both.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REQUIRED = ("id", "source", "layout", "text", "truth")
TUNING, HELD_OUT = "tuning", "held-out"
HELD_OUT_PREFIX = "heldout-"


@dataclass(frozen=True)
class Entry:
    instrument: str
    id: str
    source: str
    layout: str
    text: str
    truth: dict
    note: str = ""
    file: str = ""
    options: dict = field(default_factory=dict)   # `read` options this entry is read with, e.g. {"rubric": …}


class CorpusError(ValueError):
    pass


def part_of(path: Path | str) -> str:
    """TUNING or HELD_OUT: which part of the corpus a file belongs to, by its name."""
    return HELD_OUT if Path(path).name.startswith(HELD_OUT_PREFIX) else TUNING


def load(root: Path, instrument: str, part: str | None = None) -> list[Entry]:
    """Every entry of one instrument's corpus (or of one `part`: TUNING or HELD_OUT), in file then entry order."""
    folder = Path(root) / instrument
    if not folder.is_dir():
        return []
    entries: list[Entry] = []
    seen: set[str] = set()
    for path in sorted(folder.glob("*.toml")):
        if part is not None and part_of(path) != part:
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as e:
            raise CorpusError(f"{path}: {e}") from None
        for i, raw in enumerate(data.get("entry", []), start=1):
            where = f"{path}: entry {raw.get('id', i)!r}"
            missing = [k for k in REQUIRED if k not in raw]
            if missing:
                raise CorpusError(f"{where}: missing {', '.join(missing)}")
            if not isinstance(raw["truth"], dict):
                raise CorpusError(f"{where}: 'truth' must be a table")
            if raw["id"] in seen:
                raise CorpusError(f"{where}: id given twice in corpus '{instrument}'")
            seen.add(raw["id"])
            entries.append(Entry(instrument=instrument, id=raw["id"], source=raw["source"], layout=raw["layout"],
                                 text=raw["text"], truth=raw["truth"], note=raw.get("note", ""), file=str(path),
                                 options=dict(raw.get("options", {}))))
    return entries
