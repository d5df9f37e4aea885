"""Issue 42 item 2 for hindsight: the fidelity (pre-registration) section counts the cases that were scored,
not the cases the study planned; below seed 000 §IV's 6 it warns, at none it says undefined."""

from __future__ import annotations

from store import open_store
from tests.metrics_integration.conftest import B, standard_spec
from tests.metrics_integration.seeding import seed_study
from workbench.protocols.hindsight.fidelity import scored_cases, scored_line
from workbench.protocols.hindsight.metrics.study_data import load_study_data


def test_the_cases_scored_are_counted_not_the_cases_planned(tmp_path):
    db = open_store(tmp_path / "store.db")
    spec = standard_spec()
    spec.human = {k: v for k, v in spec.human.items() if k[1] != B}     # nobody scored blast-radius
    spec.history = {k: v for k, v in spec.history.items() if k[1] != B}
    seed_study(db, spec)
    assert scored_cases(load_study_data(db, spec.study_id)) == 2


def test_the_report_line_warns_below_six_and_says_undefined_at_none():
    assert "Cases scored: none** of the 6 planned" in scored_line(6, 0) and "undefined" in scored_line(6, 0)
    assert "2 of the 6 planned. **Below seed 000 §IV's minimum of 6**" in scored_line(6, 2)
    assert "Below" not in scored_line(8, 6)
