"""The `sim` model's B3 answers are all readable (issue 45): in every layout it writes, with any lens repeated
by anchoring, the careful reader (`read_perspectives`, the one B3 runs on, issue 41) splits the answer into its
three views without a flag, so no simulated B3 run counts as a treatment not delivered."""

from __future__ import annotations

import pytest

from workbench.protocols.hindsight.architectures.perspectives import read_perspectives
from workbench.protocols.hindsight.simulate import B3_ANSWER, B3_LAYOUTS, LENS_TITLES, LENSES, Run, b3_views
from workbench.simmodel.label import REPLY_BANNER
from workbench.simmodel.params import defaults

REPORT = "RECOMMENDATION: Go in stages.\nREASONING: Staging keeps options.\nRISKS:\n- A slip.\nCONFIDENCE: Low."
RISKS = ["Costs may run above plan if the schedule slips.",
         "Foreseen (outcome point 1): the risk that the regulator opens an inquiry."]
# one lens three times (anchored twice), anchored on the first or the second view, and three lenses apart
PATTERNS = [(a, a, a) for a in range(len(LENSES))] + [(a, a, (a + 1) % len(LENSES)) for a in range(len(LENSES))] \
    + [(a, (a + 3) % len(LENSES), a) for a in range(len(LENSES))] + [(0, 2, 4), (7, 5, 1)]


def answer(views: str) -> str:
    return f"{REPLY_BANNER}\n" + B3_ANSWER.format(views=views, report=REPORT)


@pytest.mark.parametrize("layout", B3_LAYOUTS)
def test_every_layout_is_split_into_its_three_views_unflagged_whatever_the_anchoring(layout):
    for lenses in PATTERNS:
        reading = read_perspectives(answer(b3_views(layout, list(lenses), RISKS)))
        assert (reading.reason, len(reading.split.sections)) == ("", 3), (layout, lenses)
        titles = [s.title for s in reading.split.sections]
        assert titles == [LENS_TITLES[lens][lenses[:i].count(lens)] for i, lens in enumerate(lenses)]
        for s, lens in zip(reading.split.sections, lenses):  # each view: its lens's words, none of the synthesis
            assert s.text.startswith(LENSES[lens]) and "Go in stages" not in s.text


def test_the_simulators_answers_vary_in_layout_and_each_reads_unflagged():
    params = {**defaults(), "seed": 11}
    layouts = set()
    for replicate in range(30):
        run = Run(params, None, "glenda-crock", "B3", replicate)
        reading = read_perspectives(f"{REPLY_BANNER}\n" + run.b3_answer())
        assert (reading.reason, len(reading.split.sections)) == ("", 3), replicate
        layouts.add(reading.split.layout)
    assert layouts >= {"labelled", "headings", "numbered", "bold"}
