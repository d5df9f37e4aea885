"""The batch path end to end: study create → run → metrics → export; kill and resume; --replay; the freeze."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from store import open_store
from store.outputs import outputs_for_study
from store.runs import list_runs
from tests.protocols.calibration import calkit
from tests.protocols.calibration.calkit import artifact_of, judge_of
from tests.support.loopback import DUMMY_KEY, LoopbackServer
from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
OFFSET = {"claude": 0.0, "gpt4o-mini": 0.05, "llama": -0.05}


def score(body: dict) -> str:
    """A deterministic judge: sound artifacts score high, flawed ones low, each judge a little apart."""
    art, judge = artifact_of(body), judge_of(body)
    base = 0.8 if any(w in art for w in ("Proposes", "Points to", "Explains", "Orders")) else 0.2
    jitter = int(hashlib.sha256(f"{judge}{art}".encode()).hexdigest()[:4], 16) / 65535 * 0.1
    return json.dumps({"score": round(min(1.0, max(0.0, base + OFFSET[judge] + jitter)), 4), "reason": "ok"})


def study_file(tmp_path: Path, url: str, name: str = "cal-e2e", extra: str = "") -> Path:
    judges = [{"name": j, "model": f"openai/{j}", "api_base": url} for j in OFFSET]
    return calkit.study_file(tmp_path, name, judges, extra=extra)


def command() -> str:
    return "calibration"


def test_create_run_metrics_export(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    db = str(tmp_path / "store.db")
    with LoopbackServer(score) as server:
        path = study_file(tmp_path, server.url)
        assert main(["--batch", "--db", db, "study", "create", str(path)]) == 0
        assert main(["--batch", "--db", db, "run", "cal-e2e"]) == 0
        assert server.count == 90
    capsys.readouterr()
    assert main(["--batch", "--db", db, "--json", "metrics", "cal-e2e"]) == 0
    doc = json.loads(capsys.readouterr().out)
    doc = doc.get("document", doc)
    assert doc["items"]["interactions"] == 60 and doc["arm_b"]["sampled"] == 30
    assert doc["arm_b"]["judge_errors"] == 0
    assert doc["arm_c"]["alpha"]["value"] > 0.9
    assert doc["outcome"]["holds"] in ("strong", "poorly_calibrated", "proxy_judges_disagree")
    out = tmp_path / "exports"
    assert main(["--batch", "--db", db, command(), "export", "cal-e2e", "--out", str(out)]) == 0
    judge_dir = next(out.glob("*_calibration_judge"))
    with open(judge_dir / "judge_scores.csv", encoding="utf-8") as f:
        assert len(list(csv.DictReader(f))) == 90
    assert next(out.glob("*_calibration_fidelity")).joinpath("reliability.png").is_file()


def test_import_command_reports_bad_records_and_loads_the_rest(tmp_path, capsys):
    db = str(tmp_path / "store.db")
    path = tmp_path / "cal-imp.toml"
    path.write_text('name = "cal-imp"\nprotocol = "calibration"\n' +
                    "".join(f'[[judges]]\nname = "j{i}"\nmodel = "mock"\n' for i in range(3)), encoding="utf-8")
    assert main(["--batch", "--db", db, "study", "create", str(path)]) == 0
    data = tmp_path / "in.csv"
    data.write_text("run_id,interaction_id,scenario,v_hat,ground_truth,content\n"
                    "r,1,s,0.1,1,good\nr,2,s,x,1,bad v_hat\nr,3,s,0.3,-1,good\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["--batch", "--db", db, command(), "import", "cal-imp", str(data)]) == 1
    cap = capsys.readouterr()
    assert f"{data}:3: v_hat: must be a number" in cap.out
    assert "2 added" in cap.out and "1 bad" in cap.out and "records read" in cap.err
    assert main(["--batch", "--db", db, "--json", command(), "import", "cal-imp", str(data)]) == 1
    again = json.loads(capsys.readouterr().out)
    assert again["added"] == 0 and again["already_present"] == 2


def test_a_frozen_preregistration_cannot_change(tmp_path, capsys):
    db = str(tmp_path / "store.db")
    with LoopbackServer(score) as server:
        path = study_file(tmp_path, server.url, "cal-frozen")
        assert main(["--batch", "--db", db, "study", "create", str(path)]) == 0
        assert main(["--batch", "--db", db, "study", "freeze", "cal-frozen"]) == 0
        original = path.read_text(encoding="utf-8")
        for change, key in (("alpha_threshold = 0.4", "calibration.alpha_threshold"),
                            ('excluded_fields = ["rework_count"]', "calibration.excluded_fields"),
                            ("k_sweep = [0.5, 1.0, 2.0]", "calibration.k_sweep"),
                            ("schema_version = 2", "calibration.schema_version")):
            path.write_text(original.replace("per_bin = 10\n", f"per_bin = 10\n{change}\n", 1), encoding="utf-8")
            capsys.readouterr()
            assert main(["--batch", "--db", db, "study", "create", str(path)]) == 1
            err = capsys.readouterr().err
            assert "frozen" in err and key in err, err
        # a fourth judge changes the joined CSV's schema: refused too
        path.write_text(original + f'\n[[judges]]\nname = "mistral"\nmodel = "openai/m"\napi_base = "{server.url}"\n',
                        encoding="utf-8")
        assert main(["--batch", "--db", db, "study", "create", str(path)]) == 1
        err = capsys.readouterr().err
        assert "calibration.joined_schema" in err and "judges" in err
        # importing into the frozen study is refused as well
        data = tmp_path / "more.jsonl"
        data.write_text(json.dumps({"run_id": "x", "interaction_id": "1", "scenario": "s", "v_hat": 0,
                                    "ground_truth": 1, "content": "c"}) + "\n", encoding="utf-8")
        assert main(["--batch", "--db", db, command(), "import", "cal-frozen", str(data)]) == 1
        assert "frozen" in capsys.readouterr().err


def _env() -> dict:
    env = dict(os.environ, OPENAI_API_KEY=DUMMY_KEY, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("WORKBENCH_DB", None)
    return env


def _outputs(db_path: Path, study: str) -> dict:
    db = open_store(db_path)
    try:
        return {o["run_id"]: o["report"].get("score") for o in outputs_for_study(db, study)}
    finally:
        db.close()


def test_kill_resume_repeats_no_completed_call_and_replay_makes_none(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    with LoopbackServer(score, latency=0.08) as server:
        path = study_file(tmp_path, server.url, "cal-kill")
        ref = tmp_path / "ref.db"
        assert main(["--batch", "--db", str(ref), "study", "create", str(path)]) == 0
        assert main(["--batch", "--db", str(ref), "run", "cal-kill"]) == 0
        reference = server.count
        server.reset()

        db_path = tmp_path / "killed.db"
        assert main(["--batch", "--db", str(db_path), "study", "create", str(path)]) == 0
        proc = subprocess.Popen([sys.executable, "-m", "workbench.cli.main", "--batch", "--db", str(db_path), "run",
                                 "cal-kill"], env=_env(), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while server.count < reference * 0.4:
            assert proc.poll() is None, f"the run ended before the kill: {proc.communicate()}"
            assert time.monotonic() < deadline
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        time.sleep(0.3)
        before_kill = server.count
        db = open_store(db_path)
        assert "done" in {r["status"] for r in list_runs(db, "cal-kill")}
        completed = {(c["model"].split("/")[-1], json.dumps(json.loads(c["request"]), sort_keys=True))
                     for c in db["calls"].rows_where("status = 'ok'")}
        db.close()
        sent = {(b["model"], json.dumps(b["messages"], sort_keys=True)) for b in server.requests[:before_kill]}
        assert completed and completed <= sent      # the keys compare like with like

        assert main(["--batch", "--db", str(db_path), "run", "cal-kill", "--resume"]) == 0
        after = server.requests[before_kill:]
        assert not [b for b in after if (b["model"], json.dumps(b["messages"], sort_keys=True)) in completed]
        in_flight = before_kill - len(completed)
        assert server.count == reference + in_flight and 0 <= in_flight <= 8
        assert _outputs(db_path, "cal-kill") == _outputs(ref, "cal-kill")

        # --replay: every run made again from the store, zero requests
        db = open_store(db_path)
        db.execute("UPDATE runs SET status = 'running' WHERE study_id = 'cal-kill'")
        db.execute("DELETE FROM outputs WHERE run_id IN (SELECT id FROM runs WHERE study_id = 'cal-kill')")
        db.conn.commit()
        db.close()
        count = server.count
        assert main(["--batch", "--db", str(db_path), "run", "cal-kill", "--resume", "--replay"]) == 0
        assert server.count == count
        assert _outputs(db_path, "cal-kill") == _outputs(ref, "cal-kill")
