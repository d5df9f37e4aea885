"""One outcome sentence per calibration study (issue 24 item 2): the report, `metrics` and the TUI's results
panel state the outcome `decide` reached and nothing else. Arm C's decision line used to call α ≥ 0.7 "the
strong result" while the Outcome section said p is poorly calibrated; now it names the reached outcome."""

from __future__ import annotations

import re

import pytest
from textual.widgets import Static

from screens.calibration.results_screen import CalibrationResultsScreen
from tests.protocols.calibration.calkit import scored_study
from tests.protocols.calibration.test_calibration_screens import Host, settle
from workbench.protocols.calibration import PROTOCOL
from workbench.protocols.calibration.outcomes import NAMES, Inputs, alpha_rule, decide, outcome_lines, outcome_name
from workbench.protocols.calibration.results import study_results


def inputs(ece, alpha, rho, void=None) -> Inputs:
    return Inputs(ece=ece, alpha=alpha, rho=rho, ece_threshold=0.05, alpha_threshold=0.5, strong_alpha=0.7,
                  rho_threshold=0.3, alpha_void=void)


@pytest.mark.parametrize("ece, alpha, rho, void", [
    (0.02, 0.8, 0.6, None), (0.20, 0.8, 0.6, None), (0.02, 0.3, 0.6, None), (0.02, 0.8, 0.1, None),
    (0.02, 0.6, 0.6, None), (None, 0.8, 0.6, None),
    (0.02, 0.9, 0.6, "α undefined as a test of disagreement: judge j1 is constant"),   # a degenerate judge
])
def test_every_statement_names_the_outcome_decide_reached(ece, alpha, rho, void):
    x = inputs(ece, alpha, rho, void)
    o = decide(x)
    rule = alpha_rule(x, o)
    lines = outcome_lines(o)
    assert rule.endswith(f"the study's outcome: {outcome_name(o)}")
    holding = [line for line in lines if " — HOLDS." in line]
    assert len(holding) == (1 if o["holds"] else 0)
    if o["holds"]:
        assert holding[0].split(". ", 1)[1].startswith(f"**{NAMES[o['holds']]} (")
        assert o["summary"].startswith(f"Outcome: {NAMES[o['holds']]} (")
    # "the strong result" is said of the study only when it holds; otherwise only in its marked list line
    for text in (rule, o["summary"]):
        assert ("the strong result" in text) == (o["holds"] == "strong")
    strong_line = next(line for line in lines if "the strong result" in line)
    assert strong_line.startswith("1. ") and strong_line.count("the strong result") == 1
    if void:
        assert o["holds"] is None and void in rule and o["summary"].startswith("No pre-registered outcome")
        assert "HOLDS" not in " ".join(lines)


async def test_report_metrics_and_tui_state_one_outcome(tmp_path):
    """The shipped fixture panel: α ≥ 0.7 but p poorly calibrated, the case that read two ways."""
    db, sid = scored_study(tmp_path)
    doc = study_results(db, sid)
    o = doc["outcome"]
    assert o["holds"] == "poorly_calibrated" and doc["arm_c"]["alpha"]["value"] >= 0.7
    report = "\n\n".join(f"## {s.title}\n\n{s.body}" for s in PROTOCOL.report_sections(db, sid))
    metrics = PROTOCOL.metrics(db, sid).text
    app = Host(lambda: CalibrationResultsScreen(db, sid))
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        top = app.screen.query_one("#cal-outcome", Static).render().plain
        listed = app.screen.query_one("#cal-outcomes", Static).render().plain
    assert re.sub(r"\s+", " ", top).strip() == o["summary"]
    for text in (report, metrics):
        assert o["summary"] in text
        assert f"decision rule: {doc['arm_c']['decision']}" in text
        assert doc["arm_c"]["decision"].endswith("the study's outcome: p poorly calibrated, judges agree")
        # the only mention of the strong result is its own list line, marked as not holding
        assert text.count("the strong result") == 1
        strong = next(line for line in text.splitlines() if "the strong result" in line)
        assert strong.startswith("1. **the strong result (") and "** — does not hold." in strong
        for line in outcome_lines(o):
            assert line in text
    for line in outcome_lines(o, bold=lambda t: t):
        assert line in listed
    assert listed.count("HOLDS") == 1 and "2. p poorly calibrated, judges agree" in listed
