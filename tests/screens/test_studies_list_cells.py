"""Issue 43 item 5: at 140 columns the Studies list shows a study's whole runs cell, "(3000 with errors)" too.
(At 80 columns the list shows the ids and the detail pane beside it the study's counts.)"""

from __future__ import annotations

from scoring_seed import rendered
from study_screen_helpers import STUDIES_SIZE, open_studies, study_toml

from screens.launch import make_app
from store import open_store
from workbench.studies import create_study
from workbench.studies.counts import runs_cell

MANY = {"done_with_errors": 3000}  # a calibration study whose every judge run ended in a judge error


async def test_the_runs_cell_is_whole_at_140_columns(library, monkeypatch):
    from workbench.cases.library import bootstrap

    db = open_store(library.db)
    bootstrap(db)
    create_study(db, text=study_toml("calibration-of-three-judges"))
    db.close()
    monkeypatch.setattr("workbench.studies.lookup.run_status_counts", lambda db, sid: dict(MANY))
    app = make_app(library.db)
    async with app.run_test(size=STUDIES_SIZE) as pilot:
        await open_studies(pilot)
        text = rendered(app)
    cell = runs_cell(MANY)
    assert cell == "3000/3000 done (3000 with errors)"
    assert "3000/3000 done" in text and "(3000 with errors)" in text, text
