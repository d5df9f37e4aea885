"""How well an instrument reads its corpus: each entry read correctly, flagged, or misread without a flag."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from workbench.instruments.base import Instrument
from workbench.instruments.corpus import Entry

CORRECT, FLAGGED, SILENT = "correct", "flagged", "silent misreading"


@dataclass
class Outcome:
    entry: Entry
    document: dict
    verdict: str                   # CORRECT | FLAGGED | SILENT


@dataclass
class Accuracy:
    instrument: str
    outcomes: list[Outcome] = field(default_factory=list)

    def count(self, verdict: str) -> int:
        return sum(1 for o in self.outcomes if o.verdict == verdict)

    @property
    def n(self) -> int:
        return len(self.outcomes)

    @property
    def layouts(self) -> int:
        return len({o.entry.layout for o in self.outcomes})

    def share(self, verdict: str) -> float | None:
        return self.count(verdict) / self.n if self.n else None

    def by_source(self) -> Counter:
        return Counter(o.entry.source for o in self.outcomes)

    def silent(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.verdict == SILENT]

    def row(self) -> dict:
        return {"instrument": self.instrument, "entries": self.n, "layouts": self.layouts,
                "correct": self.count(CORRECT), "flagged": self.count(FLAGGED), "silent": self.count(SILENT),
                "correct_share": self.share(CORRECT)}


def judge(instrument: Instrument, entry: Entry) -> Outcome:
    options = {o.dest: o.default for o in instrument.options} | entry.options
    document = instrument.read(entry.text, options)
    if document.get("flagged"):
        verdict = CORRECT if instrument.flag_can_agree and instrument.agrees(document, entry.truth) else FLAGGED
    else:
        verdict = CORRECT if instrument.agrees(document, entry.truth) else SILENT
    return Outcome(entry, document, verdict)


def measure(instrument: Instrument, entries: list[Entry]) -> Accuracy:
    return Accuracy(instrument.name, [judge(instrument, e) for e in entries])
