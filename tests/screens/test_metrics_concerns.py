"""Issue 33, item 5: DQ-3 from the TUI. The Metrics section's `a` assesses every run's concern coverage as
`metrics STUDY --assess-concerns` does (same model, same summary, same scores), and its DQ tables then
show DQ-3; `k` records a rater's concern file as `--record-concerns` does."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.screens.study_screen_helpers import answer, wait_until
from tests.simulation.test_sim_decision_quality import study
from workbench.cli.main import main


@pytest.fixture
def two_copies(tmp_path, capsys):
    """A small unblinded hindsight study on `sim` (its concern judge answers), twice: one for the TUI, one
    assessed by the batch command (here: it runs its own event loop); that copy and what the command said."""
    (tmp_path / "a").mkdir()
    db = study(tmp_path / "a", "sim")
    other = tmp_path / "b" / db.name
    other.parent.mkdir()
    shutil.copy(db, other)
    capsys.readouterr()
    assert main(["--batch", "--db", str(other), "metrics", "dq-small", "--assess-concerns"]) == 0
    return db, other, capsys.readouterr().err


def dq(capsys, db) -> dict:
    capsys.readouterr()
    assert main(["--batch", "--db", str(db), "--json", "metrics", "dq-small"]) == 0
    return {r["run_id"]: r["dq3"]["value"] for r in json.loads(capsys.readouterr().out)["decision_quality"]["runs"]}


async def test_assessing_concerns_from_the_metrics_section_matches_the_batch_command(two_copies, capsys):
    from screens.launch import make_app

    tui, batch, batch_said = two_copies
    assert all(v is None for v in dq(capsys, tui).values())  # nothing assessed yet
    app = make_app(tui)
    notes = []
    async with app.run_test(size=(140, 40)) as pilot:
        app.notify = lambda message, **kw: notes.append(message)
        await pilot.press("5")
        await wait_until(pilot, lambda: getattr(app.screen, "shown", None) == "dq-small", timeout=300,
                         what="the metrics")
        assert not app.screen.check_action("assess_concerns", ())  # a is the decision-quality tab's key
        app.screen.query_one("#metrics-tabs").active = "tab-dq"
        await pilot.pause()
        await pilot.press("a")
        await wait_until(pilot, lambda: any(n.startswith("concerns:") for n in notes), timeout=300,
                         what="the assessment")
        await wait_until(pilot, lambda: app.screen.shown == "dq-small" and not app.screen.concerns_busy,
                         timeout=300, what="the recomputed tables")
        said = next(n for n in notes if n.startswith("concerns:"))
        assert said.startswith("concerns: 8/8 runs assessed: 8 repaired")
        dq_cells = [p.table.id for p in app.screen.query("MetricPanel")]
        assert "dq" in dq_cells
    assert said in batch_said  # the same counts as the batch command
    shown, expected = dq(capsys, tui), dq(capsys, batch)
    assert shown == expected and all(v is not None for v in shown.values())
