"""The protocol contract: every shared batch command works on a study of every registered protocol.

Each command runs in words and with `--json` on a small study of each protocol (tests/contract/studies.py;
the toy protocol of the tests included), and must exit 0, print no traceback, and name the study and
its protocol: the text on stdout, the JSON document as values. A new protocol gets all of this by
being registered and listed in STUDIES.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.contract.conftest import stage
from tests.contract.studies import BY_PROTOCOL, STUDIES, ContractStudy
from workbench.cli.main import main
from workbench.protocol import registry

MODES = ["text", "json"]


def command(capsys, mode: str, db, *argv: str) -> tuple[str, str]:
    capsys.readouterr()
    code = main(["--batch", "--db", str(db), *(["--json"] if mode == "json" else []), *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code == 0, f"{' '.join(argv)} ({mode}) exited {code}: {err.strip()[-400:]}"
    return out, err


def values(document) -> list:
    """Every scalar value of a JSON document, and each (key, value) pair's value under 'protocol'."""
    if isinstance(document, dict):
        return [v for item in document.values() for v in values(item)]
    if isinstance(document, list):
        return [v for item in document for v in values(item)]
    return [document]


def protocols_named(document) -> set:
    if isinstance(document, dict):
        found = {document["protocol"]} if isinstance(document.get("protocol"), str) else set()
        return found.union(*(protocols_named(v) for v in document.values()))
    if isinstance(document, list):
        return set().union(*(protocols_named(v) for v in document))
    return set()


def assert_names(study: ContractStudy, mode: str, out: str) -> None:
    if mode == "json":
        document = json.loads(out)
        assert study.name in values(document), f"the JSON document does not name {study.name}"
        assert study.protocol in protocols_named(document), f"the JSON document names no protocol {study.protocol}"
    else:
        assert study.name in out, f"the output does not name {study.name}:\n{out[:600]}"
        named = re.search(rf"protocol[:=]?\s+['\"]?{re.escape(study.protocol)}\b", out, re.IGNORECASE)
        assert named, f"the output does not name protocol {study.protocol}:\n{out[:600]}"


PROTOCOLS = [s.protocol for s in STUDIES]
params = pytest.mark.parametrize("protocol", PROTOCOLS)
modes = pytest.mark.parametrize("mode", MODES)


@params
@modes
def test_study_create(built, protocol, mode, tmp_path, capsys):
    study = BY_PROTOCOL[protocol]
    out, _ = command(capsys, mode, tmp_path / "store.db", "study", "create", str(built(protocol)["file"]))
    assert_names(study, mode, out)


@params
@modes
@pytest.mark.parametrize("verb", ["show", "freeze", "list"])
def test_study_show_freeze_list(built, protocol, mode, verb, tmp_path, capsys):
    study = BY_PROTOCOL[protocol]
    db = stage(built, study, "created", tmp_path)
    if verb == "freeze" and study.before_freeze:
        command(capsys, "text", db, *study.before_freeze, study.name)
    out, _ = command(capsys, mode, db, "study", verb, *([study.name] if verb != "list" else []))
    if verb == "list" and mode == "text":  # a table: the study's row has its protocol in a column
        row = next(line.split() for line in out.splitlines() if line.split()[:1] == [study.name])
        assert study.protocol in row
    else:
        assert_names(study, mode, out)


# The commands whose contract has one shape: (name, the stage the study must reach, argv with {study} for its
# name, the studies it applies to). Each runs in words and in JSON.
SIMPLE = [
    ("run", "created", ["run", "{study}"], lambda s: True),
    ("judge", "ran", ["judge", "{study}"], lambda s: s.judges),
    ("power", "created", ["power", "{study}", "--sims", "100"], lambda s: True),
    ("log verify", "judged", ["log", "verify", "{study}"], lambda s: True),
    ("unblind", "judged", ["unblind", "{study}", "--by", "contract", "--reason", "the contract suite"], lambda s: True),
    ("evaluators qc", "judged", ["evaluators", "qc", "{study}"], lambda s: True),
]


@pytest.mark.parametrize("protocol,name,stage_name,argv", [
    pytest.param(s.protocol, name, at, argv, id=f"{name.replace(' ', '-')}-{s.protocol}")
    for name, at, argv, applies in SIMPLE for s in STUDIES if applies(s)])
@modes
def test_simple_command(built, protocol, name, stage_name, argv, mode, tmp_path, capsys):
    study = BY_PROTOCOL[protocol]
    db = stage(built, study, stage_name, tmp_path)
    out, _ = command(capsys, mode, db, *(a.format(study=study.name) for a in argv))
    assert_names(study, mode, out)


def reopen_one_run(db_path, study_id: str) -> None:
    """Leave one finished run as a killed process leaves it: `running`, its calls in the log."""
    from store import open_store
    from store.runs import list_runs, start_attempt

    db = open_store(db_path)
    start_attempt(db, next(r for r in list_runs(db, study_id) if r["status"] == "done")["id"])
    db.close()


@params
@modes
@pytest.mark.parametrize("how", [["--resume"], ["--resume", "--replay"]])
def test_run_resume_and_replay(built, protocol, mode, how, tmp_path, capsys):
    """A run left `running` by a killed process is finished again; with --replay only from the log."""
    study = BY_PROTOCOL[protocol]
    db = stage(built, study, "ran", tmp_path)
    reopen_one_run(db, study.name)
    out, _ = command(capsys, mode, db, "run", study.name, *how)
    assert_names(study, mode, out)
    if mode == "json":
        document = json.loads(out)
        assert document["complete"]
        if "--replay" in how:
            assert document["network_calls"] == 0


# at collection the test's toy protocol is not registered yet (a fixture does it); it judges nothing itself
JUDGED_BY_RUNS = [s.protocol for s in STUDIES if s.protocol in registry.names() and registry.get(s.protocol).judges_are_runs]


def test_calibration_is_the_protocol_judged_by_its_runs():
    assert JUDGED_BY_RUNS == ["calibration"]
    assert not BY_PROTOCOL["calibration"].judges


@pytest.mark.parametrize("protocol", JUDGED_BY_RUNS)
@modes
def test_judge_refuses_a_study_whose_judges_are_its_runs(built, protocol, mode, tmp_path, capsys):
    """The shared judges would re-judge what the run judged (every reply a judge error): `judge` says
    to use `run` instead, exits 1 without a traceback, and makes no call and no verdict."""
    import sqlite_utils

    from store.calls import calls_for
    from store.verdicts import verdict_rows

    study = BY_PROTOCOL[protocol]
    db_path = stage(built, study, "ran", tmp_path)
    db = sqlite_utils.Database(db_path)
    calls_before = len(calls_for(db, study_id=study.name))
    capsys.readouterr()
    code = main(["--batch", "--db", str(db_path), *(["--json"] if mode == "json" else []), "judge", study.name])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in out + err
    said = out + err
    assert f"`workbench --batch run {study.name}`" in said and "its [[judges]] are its runs" in said
    assert f"protocol {protocol}" in said
    assert verdict_rows(db, study.name) == []
    assert len(calls_for(db, study_id=study.name)) == calls_before


@params
@pytest.mark.parametrize("mode,extra", [("text", []), ("json", []), ("text", ["--csv"])])
def test_metrics(built, protocol, mode, extra, tmp_path, capsys):
    study = BY_PROTOCOL[protocol]
    db = stage(built, study, "judged", tmp_path)
    out, _ = command(capsys, mode, db, "metrics", study.name, *extra)
    if extra:  # long-format rows: every row names its study; the protocol is the study's, not a column
        header, *rows = out.splitlines()
        assert rows and "study" in header.split(","), header
        assert all(study.name in row for row in rows)
    else:
        assert_names(study, mode, out)


@params
@modes
def test_report(built, protocol, mode, tmp_path, capsys):
    study = BY_PROTOCOL[protocol]
    db = stage(built, study, "judged", tmp_path)
    report = tmp_path / "report.md"
    out, _ = command(capsys, mode, db, "report", study.name, "--out", str(report))
    assert_names(study, mode, out)
    assert_names(study, "text", report.read_text(encoding="utf-8"))


@pytest.mark.parametrize("protocol", [s.protocol for s in STUDIES if s.raters])
@modes
def test_packet_export(built, protocol, mode, tmp_path, capsys):
    study = BY_PROTOCOL[protocol]
    db = stage(built, study, "judged", tmp_path)
    packet = tmp_path / "packet.json"
    out, _ = command(capsys, mode, db, "packet", "export", study.name, "--rater", "rater-a", "--out", str(packet))
    assert_names(study, mode, out)
    assert packet.stat().st_size > 0
