"""The contract suite's studies: one small study of every registered protocol, built in stages.

Each protocol's study is an example study of `studies/` made smaller (fewer conditions, items or
samples) on the offline `sim` model, so that its runs, judges and raters produce values for the
metrics and the report to work on; the toy protocol brings its own study text. Building happens once
per test module, in stages a command can start from:

    created  the study file is in the store (`study create`)
    ran      its runs are done (`run`, which freezes it first)
    judged   its LLM judges have scored its blind items, its simulated raters their assignments, and its
             metrics were computed once (embeddings are cached in the store, so later commands are quick)

A test copies a stage's folder (store and call logs) so that no command it runs touches another test's.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from tests.support.toy_protocol import NAME as TOY, STUDY as TOY_STUDY

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class ContractStudy:
    protocol: str
    source: str | None                          # the example study in studies/, or None: `text` is the study
    edits: tuple[tuple[str, str], ...] = ()     # (old, new) replacements that make it small
    text: str = ""
    judges: bool = False                        # names [[judges]] that score blind items: `judge` applies
    #                                             (calibration's [[judges]] are its runs: `judge` refuses it)
    raters: bool = False                        # names raters: `packet export` and `simulate raters` apply
    before_freeze: tuple[str, ...] = ()         # its own command for the model calls its freeze pins
    tag: str = ""

    @property
    def name(self) -> str:
        """Its own name, which does not contain the protocol's (the output must name both)."""
        return f"contract-{self.tag}"

    def study_text(self) -> str:
        if self.source is None:
            text = self.text
        else:
            text = (ROOT / "studies" / self.source).read_text(encoding="utf-8")
        for old, new in self.edits:
            assert old in text, f"{self.source}: {old!r} is not in the example study any more"
            text = text.replace(old, new)
        # its own name; item files relative to studies/ stay found from a temporary folder
        text = text.replace("../cases/", f"{ROOT}/cases/")
        lines = text.splitlines()
        first = next(i for i, line in enumerate(lines) if line.startswith("name = "))  # the study's, not a model's
        lines[first] = f'name = "{self.name}"'
        return "\n".join(lines) + "\n"


STUDIES = [
    ContractStudy("hindsight", "glenda-crock-sim.toml", tag="seed000", judges=True, raters=True, edits=(
        ('cases = ["glenda-crock", "blast-radius"]', 'cases = ["glenda-crock"]'),
    )),
    ContractStudy("faultline", "faultline-sim.toml", tag="seed002", before_freeze=("faultline", "graphs"), edits=(
        ('topics = ["nuclear-power", "sugar-tax"]', 'topics = ["nuclear-power"]'),
    )),
    ContractStudy("m11", "m11-sim.toml", tag="seed003", raters=True, edits=(
        ("runs = 3 ", "runs = 1 "), ("limit = 0", "limit = 4"),
    )),
    ContractStudy("calibration", "calibration-sim.toml", tag="seed004"),
    ContractStudy(TOY, None, tag="toy", text=TOY_STUDY),
]
BY_PROTOCOL = {s.protocol: s for s in STUDIES}


def copy_stage(stage: Path, into: Path) -> Path:
    """A private copy of a built stage's folder; the path of its store."""
    shutil.copytree(stage, into)
    return into / "store.db"
