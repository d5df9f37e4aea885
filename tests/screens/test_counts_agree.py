"""Issue 33, item 4: one count of runs that end with errors. On a calibration study whose judges err (its three
`mock` judges never give a parseable score), the Studies list, the Runs bar and its tokens, `study show`,
`run` and the protocol's own metrics say the same numbers (workbench.studies.counts is the definition)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from study_screen_helpers import STUDIES_SIZE, batch, open_studies, wait_until
from textual.widgets import ProgressBar, Static

from screens.launch import make_app

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def erring(tmp_path, capsys, monkeypatch):
    """calibration-small, run: its store and what `run` printed (the batch `run` runs its own event loop)."""
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(ROOT / "cases"))
    store = tmp_path / "store.db"
    batch(capsys, store, "study", "create", str(ROOT / "studies" / "calibration-small.toml"))
    return store, batch(capsys, store, "run", "calibration-small")


async def test_runs_done_with_judge_errors_count_alike_everywhere(erring, capsys):
    store, ran = erring
    sid = "calibration-small"
    show = json.loads(batch(capsys, store, "--json", "study", "show", sid))
    counts = show["counts"]
    runs = counts["runs"]
    total = sum(runs.values())
    assert runs["done_with_errors"] == total > 0 and runs["done"] == 0  # every judge run ended in a judge_error
    metrics = json.loads(batch(capsys, store, "--json", "metrics", sid))
    per_judge = {name: j["judge_errors"] for name, j in metrics["arm_b"]["per_judge"].items()}
    # the protocol's metrics and the counts: the same judge errors, per judge and in all
    assert counts["counted_errors"] == {"judge_error": per_judge}
    assert counts["judge_errors"] == sum(per_judge.values()) == total
    text = batch(capsys, store, "study", "show", sid)
    assert f"{total} judge errors in judge runs" in text and not re.search(r"(?<!\d)0 judge errors", text)
    assert "counted errors: judge_error " + str(total) in text
    assert f"{total} judge errors in judge runs" in ran  # `run`'s closing counts say the same
    tokens = counts["input_tokens"] + counts["output_tokens"]  # calls made only: replayed calls add none
    assert counts["calls_replayed"] == 0  # three judges on one model are three draws (issue 34), none replayed

    app = make_app(store)
    async with app.run_test(size=STUDIES_SIZE) as pilot:
        await open_studies(pilot)
        table = app.screen.query_one("#study-table")
        cell = str(table.get_row(sid)[2])
        assert cell == f"{total}/{total} done\n({total} with errors)", cell  # finished, with errors said
        await pilot.press("r")  # this study in Runs
        await wait_until(pilot, lambda: type(app.screen).__name__ == "RunsScreen", what="Runs")
        await wait_until(pilot, lambda: app.screen.study_id == sid, what="the study in Runs")
        await pilot.pause(0.2)
        bar = app.screen.query_one("#study-progress", ProgressBar)
        assert bar.percentage == 1.0
        line = str(app.screen.query_one("#progress-text", Static).render())
        assert f"{total} done with errors" in line, line
        from workbench.runs.view import tokens_text

        assert f"· {tokens_text(tokens)} ·" in line, (line, tokens)  # the calls made, the replays not added
