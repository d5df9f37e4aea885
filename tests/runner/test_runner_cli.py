"""The batch contract: study create|show|freeze and run, on the mock model and on the loopback server."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from store import open_store
from store.outputs import outputs_for_study
from store.runs import list_runs
from store.topology import get_topology
from tests.runner.studykit import scripted, study_text, write_cases
from tests.support.loopback import Reply
from workbench.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


def run_json(capsys, *argv) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["--batch", "--json", *argv])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_the_mock_study_runs_glenda_crock_through_all_seven_conditions_offline(tmp_path, monkeypatch, capsys):
    cases = tmp_path / "cases"
    shutil.copytree(ROOT / "cases", cases)
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases))
    db_path = tmp_path / "store.db"
    study_file = ROOT / "studies" / "glenda-crock-mock.toml"

    code, created = run_json(capsys, "--db", str(db_path), "study", "create", str(study_file))
    assert code == 0 and created["study_id"] == "glenda-crock-mock" and created["action"] == "created"
    capsys.readouterr()
    code = main(["--batch", "--json", "--db", str(db_path), "run", "glenda-crock-mock"])
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert code == 0, summary
    assert summary["ok"] is True and summary["complete"] is True
    # issue 15: the progress total is known before the first call, never moves, and ends at 100%
    lines = [line for line in captured.err.splitlines() if " progress " in line]
    totals = {re.search(r"\((\d+)/(\d+) calls", line).group(2) for line in lines}
    assert len(totals) == 1, lines
    planned = int(totals.pop())
    assert f"planned   9 runs, {planned} calls" in captured.err
    assert re.search(rf"progress 100% \({planned}/{planned} calls(, {summary['calls']} made)?\)", lines[-1]), lines[-1]
    assert not any(" progress 100%" in line for line in lines[:-1])  # 100% only once all is done
    assert summary["runs"] == {"pending": 0, "running": 0, "done": 9, "done_with_errors": 0, "failed": 0, "cancelled": 0,
                              "interrupted": 0}
    assert summary["network_calls"] > 100 and summary["input_tokens"] > 0

    db = open_store(db_path)
    runs = list_runs(db, "glenda-crock-mock")
    assert sorted((r["condition"], r["replicate"]) for r in runs) == sorted(
        [(c, 0) for c in ("B1", "B2", "B3", "C1", "C2", "C3")] + [("P1", i) for i in range(3)])
    outputs = outputs_for_study(db, "glenda-crock-mock")
    assert len(outputs) == 9
    for o in outputs:  # plainly marked placeholder text, in the report shape
        assert o["text"].startswith("[placeholder: mock model]")
        assert set(o["report"]) >= {"recommendation", "reasoning", "risks", "confidence"}
    # the mock's prose is not the extraction JSON: the topology says so instead of guessing
    assert get_topology(db, "glenda-crock-mock", "glenda-crock")["pattern"] == "Unclassified"
    db.close()

    code, shown = run_json(capsys, "--db", str(db_path), "study", "show", "glenda-crock-mock")
    assert code == 0 and shown["runs"]["done"] == 9 and len(shown["freeze_hash"]) == 64
    assert shown["definition"]["conditions"] == ["B1", "B2", "B3", "C1", "C2", "C3", "P1"]
    capsys.readouterr()
    assert main(["--batch", "--db", str(db_path), "study", "show", "glenda-crock-mock"]) == 0
    text = capsys.readouterr().out
    assert "freeze hash " + shown["freeze_hash"] in text and "9 done" in text


def test_run_refuses_a_started_study_without_resume_and_retries_a_failed_run(
        tmp_path, monkeypatch, capsys, loopback_server):
    cases = write_cases(tmp_path / "cases")
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases))
    db = ["--db", str(tmp_path / "store.db")]
    refused = {"on": True}

    def reply(body):
        if refused["on"] and "Think step by step" in body["messages"][-1]["content"]:
            return Reply.unauthorized()
        return scripted(body)

    loopback_server.responder = reply
    study_file = tmp_path / "cli.toml"
    study_file.write_text(study_text("cli-study", conditions=("B1", "B2"), api_base=loopback_server.url))
    assert main(["--batch", *db, "study", "create", str(study_file)]) == 0

    code, frozen = run_json(capsys, *db, "study", "freeze", "cli-study")
    assert code == 0 and frozen["already_frozen"] is False

    code, summary = run_json(capsys, *db, "run", "cli-study")
    assert code == 1 and summary["ok"] is False
    assert summary["runs"]["done"] == 1 and summary["runs"]["failed"] == 1
    (failed,) = summary["failed"]
    assert failed["run_id"] == "cli-study/toll-bridge/B2/0"

    capsys.readouterr()
    assert main(["--batch", *db, "run", "cli-study"]) == 1
    assert "pass --resume to continue it" in capsys.readouterr().err

    refused["on"] = False
    code, summary = run_json(capsys, *db, "run", "cli-study", "--retry", failed["run_id"])
    assert code == 0 and summary["complete"] and summary["executed"] == 1

    code, summary = run_json(capsys, *db, "run", "cli-study", "--resume")
    assert code == 0 and summary["executed"] == 0 and summary["calls"] == 0


def test_run_refuses_a_frozen_study_whose_case_changed(tmp_path, monkeypatch, capsys, loopback_server):
    cases = write_cases(tmp_path / "cases")
    monkeypatch.setenv("WORKBENCH_CASES_DIR", str(cases))
    loopback_server.responder = scripted
    db = ["--db", str(tmp_path / "store.db")]
    study_file = tmp_path / "frozen.toml"
    study_file.write_text(study_text("frozen-study", api_base=loopback_server.url))
    assert main(["--batch", *db, "study", "create", str(study_file)]) == 0
    assert main(["--batch", *db, "run", "frozen-study"]) == 0
    path = cases / "toll-bridge.md"
    path.write_text(path.read_text().replace("freight cartel", "haulage cartel"))
    assert main(["--batch", *db, "cases", "import", str(cases)]) == 0
    count = loopback_server.count
    capsys.readouterr()
    assert main(["--batch", *db, "run", "frozen-study", "--resume"]) == 1
    err = capsys.readouterr().err
    assert "case 'toll-bridge' changed its scenario" in err and "create a new study" in err
    assert loopback_server.count == count

    # the study file re-created under the same name with a change is refused too
    study_file.write_text(study_text("frozen-study", api_base=loopback_server.url, conditions=("B2",)))
    assert main(["--batch", *db, "study", "create", str(study_file)]) == 1
    assert "is frozen" in capsys.readouterr().err
