"""The report's "Planted vs recovered" section (issue 24): shared, asked of the protocol through the
interface, shown only for a study on `sim`."""

from __future__ import annotations

from workbench.protocol.base import PlantedValue, StudyProtocol
from workbench.reports.planted import planted_section

SIM = {"name": "s", "protocol": "toy", "model": {"name": "sim"}}
REAL = {"name": "r", "protocol": "toy", "model": {"name": "openai/gpt-4o-mini"}}


class Toy(StudyProtocol):
    name = "toy"

    def __init__(self, rows):
        self.rows, self.asked = rows, 0

    def planted_vs_recovered(self, db, study_id, definition):
        self.asked += 1
        return self.rows


def test_a_sim_study_lists_each_planted_value_beside_its_recovered_estimate():
    rows = [PlantedValue("effects.C2", 1.0, "d against B1", recovered=0.8123, ci_low=0.1, ci_high=1.52),
            PlantedValue("accuracy.plain", 0.6, "mean ACC", expected=0.36, note="no run yet")]
    text = planted_section(None, "s", Toy(rows), SIM)
    assert text.startswith("## Planted vs recovered\n")
    assert "| effects.C2 | 1 | d against B1 | — | 0.812 | [0.100, 1.520] |  |" in text
    assert "| accuracy.plain | 0.6 | mean ACC | 0.360 | — | — | no run yet |" in text


def test_no_section_off_sim_or_without_planted_values_and_a_note_while_blinded():
    toy = Toy([PlantedValue("effects.C2", 1.0, "d")])
    assert planted_section(None, "r", toy, REAL) == "" and toy.asked == 0   # a real study is never asked
    assert planted_section(None, "s", Toy(None), SIM) == ""
    blinded = planted_section(None, "s", Toy([]), SIM)
    assert "blinded" in blinded and "|" not in blinded
    assert StudyProtocol().planted_vs_recovered(None, "s", SIM) is None     # the neutral default
    assert StudyProtocol().power_document(SIM, {}, 100, ()) is None
