"""The batch contract: judge, packet export/import, unblind, calibration (exit codes, --json)."""

from __future__ import annotations

import json

import pytest

from store import open_store
from store.settings import set_setting
from tests.blinding.study_fixture import make_study
from tests.judges.scripted import naive_judge
from workbench.cli.main import main
from workbench.cases.library import BOOTSTRAP_KEY


@pytest.fixture
def cli(tmp_path, capsys):
    path = tmp_path / "cli.db"

    def run(*argv) -> tuple[int, dict | str, str]:
        code = main(["--batch", "--db", str(path), *argv])
        out, err = capsys.readouterr()
        return code, (json.loads(out) if "--json" in argv else out), err

    return path, run


def _study(path, url: str | None = None, **kw) -> str:
    db = open_store(path)
    set_setting(db, BOOTSTRAP_KEY, True)  # the fixture study brings its own rubrics and case
    judges = [{"name": "j1", "model": "openai/j1", "api_base": url or "", "temperature": 0.0,
               "pipeline": "direct", "runs": 1}]
    sid = make_study(db, judges=judges, **kw)
    db.close()
    return sid


def test_judge_command_scores_and_audits(cli, loopback_server):
    path, run = cli
    sid = _study(path, loopback_server.url, conditions=["B1", "C2"])
    loopback_server.responder = naive_judge
    code, doc, err = run("--json", "judge", sid)
    assert code == 0 and doc["ok"] and doc["judges"][0]["ok"] == 8
    assert doc["judges"][0]["calibration"]["state"] == "passed"
    assert "j1: anticipation on i-" in err  # progress goes to stderr
    loopback_server.responder = lambda body: json.dumps({"guess": "B1"})
    code, doc, _ = run("--json", "judge", sid, "--audit-only")
    assert code == 0 and doc["audit"]["n"] == 2 and doc["audit"]["chance"] == 0.5


def test_judge_command_fails_on_a_study_without_judges_or_unknown(cli):
    path, run = cli
    code, _, err = run("judge", "no-such-study")
    assert code == 1 and "no study 'no-such-study'" in err


def test_packet_roundtrip_and_tampering_through_the_cli(cli, tmp_path):
    path, run = cli
    sid = _study(path)
    out = tmp_path / "rater-a.json"
    code, doc, _ = run("--json", "packet", "export", sid, "--rater", "rater-a", "--out", str(out))
    assert code == 0 and doc["items"] == 2 and doc["phase"] == "calibration"
    packet = json.loads(out.read_text(encoding="utf-8"))
    item = next(iter(packet["answers"]))
    packet["answers"][item]["scores"]["anticipation"]["anticipation"] = 2
    out.write_text(json.dumps(packet), encoding="utf-8")
    code, doc, _ = run("--json", "packet", "import", str(out))
    assert code == 0 and doc["scores_written"] == 1
    packet["sealed"]["rater"] = "rater-b"
    out.write_text(json.dumps(packet), encoding="utf-8")
    code, doc, err = run("--json", "packet", "import", str(out))
    assert code == 1 and doc["ok"] is False and doc["details"]["reason"] == "tampered"
    assert "tampered" in err
    code, _, err = run("packet", "export", sid, "--rater", "nobody", "--out", str(tmp_path / "x.json"))
    assert code == 1 and "not a rater" in err
    with pytest.raises(SystemExit) as usage:  # --rater and --out are required
        run("packet", "export", sid)
    assert usage.value.code == 2


def test_unblind_refused_then_forced_and_marked(cli):
    path, run = cli
    sid = _study(path)
    run("packet", "export", sid, "--rater", "rater-a", "--out", str(path.parent / "p.json"))  # blinds
    code, doc, err = run("--json", "unblind", sid)
    assert code == 1 and "scoring is not complete" in err
    assert doc["details"]["remaining"]["rater-a"] == {"done": 0, "total": 9}
    code, doc, _ = run("--json", "unblind", sid, "--force", "--by", "alice", "--reason", "deadline")
    assert code == 0 and doc["forced"] is True and doc["by"] == "alice"
    db = open_store(path)
    assert db["studies"].get(sid)["unblind_forced"] == 1
    assert [r["by"] for r in db["unblindings"].rows] == ["alice"]


def test_calibration_command_reports_and_releases(cli):
    path, run = cli
    sid = _study(path)
    code, doc, _ = run("--json", "pilots", sid)
    assert code == 0 and [r["state"] for r in doc["raters"]] == ["none", "none"]  # nothing blinded yet
    run("packet", "export", sid, "--rater", "rater-a", "--out", str(path.parent / "p.json"))
    code, doc, _ = run("--json", "pilots", sid, "--release", "rater-a", "--by", "lead")
    assert code == 0 and doc["raters"][0]["state"] == "pending"
    code, _, err = run("pilots", sid, "--release", "mallory")
    assert code == 1 and "not a rater" in err


def test_judge_with_provider_batches_scores_the_same_in_batches(cli, monkeypatch):
    from store.provider_batches import batches_for
    from tests.support.batch_server import BatchServer
    from tests.support.loopback import DUMMY_KEY

    monkeypatch.setenv("OPENAI_API_KEY", DUMMY_KEY)
    path, run = cli
    with BatchServer(naive_judge, polls_to_complete=2) as server:
        sid = _study(path, server.url, conditions=["B1", "C2"])
        code, doc, err = run("--json", "judge", sid, "--provider-batch", "--provider-batch-poll", "0.02")
        assert code == 0 and doc["ok"] and doc["judges"][0]["ok"] == 8, err
        assert doc["judges"][0]["calibration"]["state"] == "passed"
        assert server.batches_created >= 1
        db = open_store(path)
        calls = [dict(r) for r in db["calls"].rows_where("study_id = ?", [sid])]
        batches = batches_for(db, sid)
        db.close()
        assert calls and all(c["via"] and c["via"].startswith("batch ") for c in calls)
        assert sum(b["requests"] for b in batches) == len(calls) == server.count
        assert all(b["state"] == "recorded" for b in batches)
