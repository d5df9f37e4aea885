"""A protocol is a plug-in: a toy protocol, defined only in the tests (tests/support/toy_protocol.py), runs through the shared machinery.

One item, one call, one metric: study create (its own section, validated with
file:line problems, and its item loaded), freeze (its item pinned), run
(through the gateway, logged), an interrupted run resumed from the log
without a new request, metrics and report — touching no shared code.
"""

from __future__ import annotations

import json

import pytest

from store import open_store
from store.calls import spent
from store.runs import list_runs, start_attempt
from tests.support.toy_protocol import STUDY, echo_protocol  # noqa: F401  (the fixture)
from workbench.cli.main import main


def batch(capsys, *argv) -> tuple[int, dict]:
    capsys.readouterr()
    code = main(["--batch", "--json", *argv])
    return code, json.loads(capsys.readouterr().out or "{}")


def test_a_toy_protocol_runs_create_freeze_run_resume_metrics_report(echo_protocol, tmp_path, capsys):
    db_path = str(tmp_path / "store.db")
    study = tmp_path / "echo.toml"
    study.write_text(STUDY, encoding="utf-8")

    code, created = batch(capsys, "--db", db_path, "study", "create", str(study))
    assert code == 0 and created["items"]["added"] == 1
    code, frozen = batch(capsys, "--db", db_path, "study", "freeze", "echo-study")
    assert code == 0 and len(frozen["freeze_hash"]) == 64

    code, ran = batch(capsys, "--db", db_path, "run", "echo-study")
    assert code == 0 and ran["complete"] and ran["runs"]["done"] == 1 and ran["calls"] == 1
    db = open_store(db_path)
    assert spent(db, study_id="echo-study")["ok"] == 1

    # a run its process left `running` (killed mid-call) resumes: the call comes from the log
    start_attempt(db, list_runs(db, "echo-study")[0]["id"])
    db.close()
    code, resumed = batch(capsys, "--db", db_path, "run", "echo-study", "--resume", "--replay")
    assert code == 0 and resumed["complete"] and resumed["replayed"] == 1 and resumed["network_calls"] == 0

    code, metrics = batch(capsys, "--db", db_path, "metrics", "echo-study")
    assert code == 0 and metrics["answers"] == 1 and metrics["mean_length"] > 0
    out = tmp_path / "report.md"
    code, _ = batch(capsys, "--db", db_path, "report", "echo-study", "--out", str(out))
    report = out.read_text(encoding="utf-8")
    assert code == 0 and "protocol: echo-toy" in report and "## Answers" in report and "1 answer(s)" in report


def test_the_toy_protocols_section_is_validated_with_file_and_line(echo_protocol, tmp_path, capsys):
    study = tmp_path / "echo.toml"
    text = STUDY.replace('question = "What is the capital of the toy country?"', 'question = ""')
    study.write_text(text.replace('protocol = "echo-toy"\n', 'protocol = "echo-toy"\nconditions = ["tell"]\n'),
                     encoding="utf-8")
    capsys.readouterr()
    code = main(["--batch", "--db", str(tmp_path / "store.db"), "study", "create", str(study)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{study}:6: echo.question: is required" in err
    assert f"{study}:3: conditions: 'tell' is not a known condition of protocol echo-toy" in err


def test_an_unknown_protocol_is_refused_naming_those_that_exist(tmp_path, capsys):
    study = tmp_path / "x.toml"
    study.write_text('name = "x-study"\nprotocol = "nonesuch"\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["--batch", "--db", str(tmp_path / "store.db"), "study", "create", str(study)]) == 1
    err = capsys.readouterr().err
    assert f"{study}:2: protocol: 'nonesuch' is not a protocol this version runs" in err
    for name in ("hindsight", "faultline", "m11", "calibration"):
        assert name in err
