"""`run --provider-batch` end to end: a calibration study's judge calls go as one provider batch; a kill -9
while the batch is open loses nothing, and the resume polls it instead of sending it again."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from store import open_store
from store import provider_batches as batch_rows
from store.runs import status_counts
from tests.protocols.calibration.test_calibration_e2e import _env, score, study_file
from tests.support.batch_server import BatchServer
from tests.support.loopback import DUMMY_KEY
from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--provider-batch", "--provider-batch-poll", "0.05"]


def _batches(db_path: Path, study: str) -> list[dict]:
    db = open_store(db_path)
    try:
        return batch_rows.batches_for(db, study)
    finally:
        db.close()


def test_a_killed_batch_run_resumes_by_polling_and_pays_nothing_twice(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    with BatchServer(score, polls_to_complete=10**6) as server:
        path = study_file(tmp_path, server.url, "cal-batch")
        db_path = tmp_path / "store.db"
        assert main(["--batch", "--db", str(db_path), "study", "create", str(path)]) == 0
        proc = subprocess.Popen([sys.executable, "-m", "workbench.cli.main", "--batch", "--db", str(db_path), "run",
                                 "cal-batch", *FAST], env=_env(), cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        # one batch per model (a provider's batch file holds one model's requests): three judges, three batches
        while sum(bool(b["provider_batch_id"]) for b in _batches(db_path, "cal-batch")) < 3:
            assert proc.poll() is None, f"the run ended before the kill: {proc.communicate()}"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.3)  # a few polls of the open batch
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert server.count == 0 and server.batches_created == 3  # the provider has them; nothing answered yet

        server.polls_to_complete = 1
        capsys.readouterr()
        assert main(["--batch", "--db", str(db_path), "run", "cal-batch", "--resume", *FAST]) == 0
        err = capsys.readouterr().err
        assert "batch     batch-2" in err and "recorded" in err
        assert server.batches_created == 3 and server.uploads == 3  # polled, never sent again
        assert server.count == 90  # every judge call answered once, in the batch
        db = open_store(db_path)
        calls = [dict(r) for r in db["calls"].rows_where("study_id = 'cal-batch'")]
        assert [c["status"] for c in calls] == ["ok"] * 90
        assert {c["via"] for c in calls} == {"batch batch-2", "batch batch-4", "batch batch-6"}
        assert status_counts(db, "cal-batch")["done"] == 90  # a run per (interaction, judge)
        db.close()

        assert main(["--batch", "--db", str(db_path), "log", "verify", "cal-batch"]) == 0
        capsys.readouterr()
        assert main(["--batch", "--db", str(db_path), "study", "show", "cal-batch"]) == 0
        shown = capsys.readouterr().out
        assert "provider batches: 3 (3 recorded), 90 requests" in shown
        report = tmp_path / "report.md"
        assert main(["--batch", "--db", str(db_path), "report", "cal-batch", "--out", str(report)]) == 0
        assert "## Provider batches" in report.read_text()
        capsys.readouterr()
        assert main(["--batch", "--db", str(db_path), "--json", "metrics", "cal-batch"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert (doc.get("document", doc))["arm_b"]["judge_errors"] == 0


def test_a_model_without_a_batch_api_is_refused_before_any_call(tmp_path, capsys):
    db_path = tmp_path / "store.db"
    assert main(["--batch", "--db", str(db_path), "study", "create",
                 str(ROOT / "studies" / "calibration-small.toml")]) == 0
    capsys.readouterr()
    code = main(["--batch", "--db", str(db_path), "run", "calibration-small", "--provider-batch"])
    err = capsys.readouterr().err
    assert code == 1 and "no batch API for mock" in err and "nothing was sent" in err
    db = open_store(db_path)
    assert db["calls"].count == 0
    assert {k for k, v in status_counts(db, "calibration-small").items() if v} <= {"pending"}
    db.close()
