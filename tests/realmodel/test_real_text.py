"""What real text did to the tool (issue 25), checked again on the real model:

- C2's debate moves no amendment that changes nothing: every moved amendment differs from the motion on the
  floor and from every amendment moved before it (after whitespace and case normalisation), every vote held
  is on a moved amendment, and what was ruled out of order or quoted from the minutes got no vote;
- a contamination probe keeps both answers, the probed model's and the classifier's, and says so when the
  classifier is the probed model itself.
"""

from __future__ import annotations

import json
import re

import pytest
import sqlite_utils

from store.calls import schema_fallbacks
from store.events import events_for_study
from tests.realmodel.kit import sent_calls

pytestmark = pytest.mark.realmodel


def normal(text: str) -> str:
    """The comparison the issue names, written out here: case and runs of whitespace do not count."""
    return re.sub(r"\s+", " ", text).strip().casefold()


def events(db_path, study: str, kind: str) -> list[dict]:
    return [e["payload"] for e in events_for_study(sqlite_utils.Database(db_path), study, [kind])]


def test_c2_moves_no_amendment_that_changes_nothing(workbench, server):
    before = server.requests()
    study = workbench.variant("hindsight-local", "c2-local", {'conditions = ["B1", "C1"]': 'conditions = ["C2"]'},
                              "\n[architectures.C2]\ndebate_rounds = 1\nmax_amendments = 2\n")  # one round: minutes
    workbench.run("study", "create", str(study))
    workbench.run("run", "c2-local", ok=(0, 1))

    motions = [e for e in events(workbench.db, "c2-local", "motion") if not e.get("amended")]
    amendments = events(workbench.db, "c2-local", "amendment")
    assert motions, "C2 recorded no motion"
    floor = normal(motions[0]["text"])
    moved = [a for a in amendments if a.get("status") == "moved"]
    seen: list[str] = []
    for a in moved:
        assert normal(a["text"]) != floor, a
        assert normal(a["text"]) not in seen, a
        seen.append(normal(a["text"]))
    decided = [a for a in amendments if a.get("status") in ("adopted", "rejected")]
    assert sorted(a["number"] for a in decided) == sorted(a["number"] for a in moved)
    votes = sqlite_utils.Database(workbench.db).execute(
        "SELECT DISTINCT turn FROM calls WHERE study_id = 'c2-local' AND turn LIKE 'vote-amendment-%'").fetchall()
    assert {t for (t,) in votes} == {f"vote-amendment-{a['number']}" for a in moved}
    for a in amendments:
        if a.get("status") in ("ruled_out", "quoted"):
            assert a.get("note"), a
    assert server.requests() - before == sent_calls(workbench.db)
    assert_seconds_and_votes_read_or_flagged(workbench.db, "c2-local")
    # the copy-only extraction's schema (an enum of the chair's own passages) compiled on the server: sent with
    # it and answered, never asked again without it (llama-cpp-python 0.3.36 failed to parse it in session 10)
    extractions = sqlite_utils.Database(workbench.db).execute(
        "SELECT json_extract(settings, '$.structured'), status FROM calls WHERE study_id = 'c2-local' "
        "AND turn = 'extract'").fetchall()
    assert extractions and all(row == ("json_object", "ok") for row in extractions), extractions
    assert schema_fallbacks(sqlite_utils.Database(workbench.db), "c2-local") == []


def final_reply(db_path, study: str, turn: str) -> str:
    """The reply a member's second or vote was read from: its retry's, when it was asked again."""
    rows = sqlite_utils.Database(db_path).execute(
        "SELECT turn, response FROM calls WHERE study_id = ? AND status = 'ok' AND turn IN (?, ?) ORDER BY id",
        [study, turn, f"{turn}:retry"]).fetchall()
    assert rows, turn
    return rows[-1][1]


def assert_seconds_and_votes_read_or_flagged(db_path, study: str) -> None:
    """Issue 41 on real text: every second and vote the real model gave is read as the instrument reads it
    (a yes/no or aye/nay/abstain only where the reply says so), or is recorded as unreadable after one retry
    that is in the log, never as a "no"."""
    from workbench.instruments.registry import get

    second, vote = get("second"), get("vote")
    seconds = events(db_path, study, "second")
    assert seconds, "C2 recorded no call for a second"
    for e in seconds:
        reading = second.read(e["text"], {})
        assert {"yes": True, "no": False, "unreadable": None}[reading["second"]] == e["seconded"], (e, reading)
        assert e["readable"] == (not reading["flagged"]), e
        if not e["readable"]:
            assert e["retried"], e
    for row in events_for_study(sqlite_utils.Database(db_path), study, ["vote"]):
        e = row["payload"]
        reading = vote.read(final_reply(db_path, study, row["turn"]), {})
        assert (reading["vote"] if reading["vote"] != "unreadable" else "unparsed") == e["vote"], (e, reading)
        if not e["readable"]:
            assert e["retried"], e


def test_a_probe_keeps_both_answers_and_warns_when_the_classifier_is_the_probed_model(workbench, server):
    for role in ("probe", "classifier"):
        for field, value in (("model", "openai/smollm2"), ("api_base", server.api_base), ("api_key_env", "none"),
                             ("max_connections", "1"), ("max_tokens", "200"), ("timeout", "600")):
            workbench.run("settings", "set", f"{role}.{field}", value)
    proc = workbench.run("--json", "probe", "glenda-crock", "--no-file", ok=(0, 1))
    said = json.loads(proc.stdout)["probe"]

    rows = list(sqlite_utils.Database(workbench.db)["probes"].rows_where("case_id = ?", ["glenda-crock"]))
    assert len(rows) == 1
    row = rows[0]
    classification = json.loads(row["classification"])
    assert row["answer"] and row["answer"].strip()                 # the probed model's answer
    assert classification["raw"] and classification["raw"] == row["classifier_raw"]  # the classifier's
    assert classification["model"] == "openai/smollm2"
    assert "warning" in proc.stderr and classification["warning"]  # one model judged its own answer
    assert row["verdict"] == said["verdict"]
    assert row["verdict"] in ("recognized", "partial", "not_recognized", "error")
