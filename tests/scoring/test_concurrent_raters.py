"""Two raters scoring at the same time against one store, from two processes, lose no score."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from store import open_store
from store import scores as score_rows
from tests.blinding.study_fixture import make_study
from workbench import scoring

WORKER = Path(__file__).with_name("rater_worker.py")
ROUNDS = 20


def test_two_processes_scoring_at_once_lose_nothing(tmp_path):
    path = tmp_path / "shared.db"
    db = open_store(path)
    sid = make_study(db, pilot_items=False)
    scoring.open_rater(db, sid, "rater-a")
    db.close()
    procs = [subprocess.Popen([sys.executable, str(WORKER), str(path), sid, rater, str(ROUNDS)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for rater in ("rater-a", "rater-b")]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outputs]
    claimed = [int(out.strip()) for out, _ in outputs]

    db = open_store(path)
    n_items = 7
    assert claimed == [ROUNDS * (2 * n_items + 1)] * 2
    for rater, actions in zip(("rater-a", "rater-b"), claimed):
        rows = score_rows.rater_rows(db, sid, rater)
        assert len(rows) == actions  # every action is a committed row
        queue = [q.item_id for q in scoring.queue(db, sid, rater)]
        last = ROUNDS - 1
        for k, item in enumerate(queue):  # the current value is the last one written
            view = scoring.item_view(db, sid, rater, item)
            assert view.scores["anticipation"]["anticipation"] == (last + k) % 4
            assert view.scores["epistemic-humility"]["calibration"] == (last * k) % 4
        assert scoring.progress(db, sid, rater).done == n_items
