"""Counts are one truth: `run`, `study show`, the Studies screen and the report give a study's runs,
calls, tokens and judge errors from one definition (workbench.studies.counts), so they agree, and the
numbers are what the store holds (checked here by counting the rows directly)."""

from __future__ import annotations

import asyncio
import json
import sqlite3

from tests.hardening.conftest import STUDY, batch
from workbench.studies.counts import StudyCounts


def _json(capsys, db, *argv) -> tuple[int, dict]:
    code, out, err = batch(capsys, db, "--json", *argv)
    return code, json.loads(out)


def _by_hand(db) -> dict:
    """The same numbers straight from the tables, independently of the core."""
    conn = sqlite3.connect(str(db))
    try:
        made = conn.execute("SELECT count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0) "
                            "FROM calls WHERE study_id = ? AND status != 'replayed'", [STUDY]).fetchone()
        replayed = conn.execute("SELECT count(*) FROM calls WHERE study_id = ? AND status = 'replayed'",
                                [STUDY]).fetchone()[0]
        pairs = conn.execute("SELECT count(DISTINCT judge || '|' || item_id || '|' || rubric_hash) FROM verdicts "
                             "WHERE study_id = ?", [STUDY]).fetchone()[0]
        rows = conn.execute("SELECT count(*) FROM verdicts WHERE study_id = ? AND status = 'judge_error'",
                            [STUDY]).fetchone()[0]
    finally:
        conn.close()
    return {"calls_made": made[0], "input_tokens": made[1], "output_tokens": made[2], "calls_replayed": replayed,
            "pairs": pairs, "error_rows": rows}


def test_run_study_show_the_studies_screen_and_the_report_agree(created, capsys, tmp_path):
    code, ran = _json(capsys, created, "run", STUDY)
    assert code == 0, ran
    code, judged = _json(capsys, created, "judge", STUDY)
    code, judged_again = _json(capsys, created, "judge", STUDY, "--retry-errors")  # the mock never validates

    code, again = _json(capsys, created, "run", STUDY, "--resume")  # nothing to do: the counts as they stand
    assert code == 0, again
    code, shown = _json(capsys, created, "study", "show", STUDY)
    assert code == 0, shown
    assert again["counts"] == shown["counts"]
    counts = StudyCounts.from_dict(shown["counts"])

    hand = _by_hand(created)
    assert (counts.calls_made, counts.input_tokens, counts.output_tokens, counts.calls_replayed) == (
        hand["calls_made"], hand["input_tokens"], hand["output_tokens"], hand["calls_replayed"])
    assert counts.runs["done"] == 3 and sum(counts.runs.values()) == 3
    # judge errors count (judge, item, rubric) pairs: a retried error that fails again is still one
    first_errors = sum(j["judge_errors"] for j in judged["judges"])
    assert counts.judged == hand["pairs"] == first_errors == counts.judge_errors > 0
    assert hand["error_rows"] > counts.judge_errors  # the rows written, retries and criteria included
    assert sum(j["judge_errors"] for j in judged_again["judges"]) == first_errors

    # the report, and the run's text, print the same two lines
    out = tmp_path / "report.md"
    code, _, err = batch(capsys, created, "report", STUDY, "--out", str(out))
    assert code == 0, err
    report = out.read_text()
    for line in counts.text().splitlines():
        assert f"- {line}" in report
    headings = [line for line in report.splitlines() if line.startswith("## ")]
    assert len(headings) == len(set(headings)), headings  # one section per heading
    code, text, _ = batch(capsys, created, "run", STUDY, "--resume")
    assert counts.calls_text() in text and counts.runs_text() in text

    # the Studies screen shows the study's summary with the same counts
    shown_text = asyncio.run(_studies_screen_summary(created))
    assert " ".join(counts.calls_text().split()) in shown_text


async def _studies_screen_summary(db) -> str:
    from textual.widgets import Static

    from screens.launch import make_app

    app = make_app(db)
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        for _ in range(40):
            await pilot.pause(0.05)
            if type(app.screen).__name__ == "StudiesScreen" and STUDY in str(
                    app.screen.query_one("#study-summary", Static).render()):
                break
        return " ".join(str(app.screen.query_one("#study-summary", Static).render()).split())
