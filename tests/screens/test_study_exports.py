"""Issue 24, item 4: every export from the Studies screen, through the catalog the batch commands share:
the metrics (text, the `metrics --json` document, the `metrics --csv` rows) and each protocol's own
exports (here M11's results, as `m11 export` writes them)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from study_screen_helpers import answer, batch, seeded_studies, wait_until

from screens.confirm import ChoiceDialog
from store import open_store
from workbench.exports.catalog import EXPORTS, export_by_id, exports_for
from workbench.studies import create_study

ROOT = Path(__file__).resolve().parents[2]


async def test_the_metrics_export_writes_what_metrics_prints(tmp_path, capsys):
    store, out = tmp_path / "store.db", tmp_path / "metrics"
    async with seeded_studies(tmp_path) as (app, pilot, sid):
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog), what="the export list")
        await pilot.press(str(next(k for k, e in enumerate(EXPORTS, start=1) if e.id == "metrics")))
        await answer(pilot, str(out))
        await wait_until(pilot, lambda: (out / "metrics.csv").exists(), timeout=120, what="the export")
        await app.workers.wait_for_complete()
    # blind: condition-free, and the same document and rows as the batch command
    assert json.loads((out / "metrics.json").read_text()) == json.loads(
        batch(capsys, store, "--json", "metrics", sid))
    rows = list(csv.DictReader((out / "metrics.csv").open()))
    assert rows == list(csv.DictReader(batch(capsys, store, "metrics", sid, "--csv").splitlines()))
    assert (out / "metrics.txt").read_text().strip() in batch(capsys, store, "metrics", sid)


def test_a_protocols_own_exports_follow_the_shared_ones_and_write_what_its_command_writes(tmp_path, capsys):
    store = tmp_path / "store.db"
    db = open_store(store)
    try:
        sid = create_study(db, ROOT / "studies" / "m11-sample-mock.toml")["study_id"]
        entries = exports_for(db, sid)
        assert [e.id for e in entries][:len(EXPORTS)] == [e.id for e in EXPORTS]
        assert "m11-results" in [e.id for e in entries]
        done = export_by_id("m11-results", db, sid).write(db, sid, tmp_path / "tui")
    finally:
        db.close()
    batch(capsys, store, "m11", "export", sid, "--out", str(tmp_path / "batch.json"))
    assert json.loads(done.paths[0].read_text()) == json.loads((tmp_path / "batch.json").read_text())
