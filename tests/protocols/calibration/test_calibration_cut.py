"""A calibration judge's reply cut at max_tokens is a named state (issue 40): `study create` warns when the judges'
max_tokens is short of a whole reply; a reply cut at max_tokens is counted as cut, not unparsed, and
asked again as the same prompt with twice the max_tokens (workbench/structured/cut.py, the rule of every other
structured step), which the loopback server receives; a reply still cut is a judge_error whose reason says so,
never asked again unchanged. The run summary, `study show`, `metrics` and the report name the cut replies from
the one definition (workbench/structured/counts.py)."""

from __future__ import annotations

import json

from store import open_store
from store.outputs import outputs_for_study
from tests.protocols.calibration import calkit
from tests.protocols.calibration.calkit import judge_of
from tests.support.loopback import Reply
from workbench.cli.main import main
from workbench.structured.counts import parse_counts

WHOLE = json.dumps({"score": 0.7, "reason": "a sound plan, its risks named and bounded"})
ROOM = {"claude": 0, "llama": 400, "gpt4o-mini": 10 ** 6}   # the max_tokens each judge's whole reply needs
LINE = ("structured replies cut at max_tokens: 6 (calibration judge 6); 4 asked again with a larger max_tokens, "
        "2 with no room left in the model's window or no attempt left")


def cut_below_room(body: dict) -> Reply | str:
    """Asked for less than its judge needs, a reply stops mid-object, as a server stops at max_tokens."""
    if body["max_tokens"] < ROOM[judge_of(body)]:
        return Reply.text(WHOLE[: len(WHOLE) // 2], finish_reason="length")
    return WHOLE


def test_a_cut_judge_reply_is_counted_cut_and_asked_again_with_more_room(tmp_path, loopback_server, capsys):
    loopback_server.responder = cut_below_room
    db = str(tmp_path / "store.db")
    judges = [{"name": j, "model": f"openai/{j}", "api_base": loopback_server.url} for j in ROOM]
    path = calkit.study_file(tmp_path, "cal-cut", judges, sample_size=2)
    assert main(["--batch", "--db", db, "study", "create", str(path)]) == 0
    assert "judge_max_tokens" not in capsys.readouterr().err          # 256 holds a whole reply: no warning
    assert main(["--batch", "--db", db, "run", "cal-cut"]) == 0
    assert f"study {LINE}" in capsys.readouterr().out                   # the run summary
    asked = {j: sorted(b["max_tokens"] for b in loopback_server.requests if judge_of(b) == j) for j in ROOM}
    # the retry is the same prompt with twice the room: mended for llama; gpt4o-mini, cut again with no attempt
    # left, is not asked a third time
    assert asked == {"claude": [256, 256], "llama": [256, 256, 512, 512], "gpt4o-mini": [256, 256, 512, 512]}
    retries = [b for b in loopback_server.requests if b["max_tokens"] == 512]
    firsts = {json.dumps(b["messages"]) for b in loopback_server.requests if b["max_tokens"] == 256}
    assert all(json.dumps(b["messages"]) in firsts for b in retries)    # nothing but the room changed
    reports = {o["report"]["judge"]: o["report"] for o in outputs_for_study(open_store(db), "cal-cut")}
    assert reports["llama"]["score"] == 0.7 and reports["llama"]["attempts"] == 2
    assert reports["gpt4o-mini"]["judge_error"] is True
    assert reports["gpt4o-mini"]["error"].startswith("cut at max_tokens")

    assert main(["--batch", "--db", db, "study", "show", "cal-cut"]) == 0
    assert LINE in capsys.readouterr().out                              # study show
    [counts] = parse_counts(open_store(db), "cal-cut")                  # what `metrics` prints (metrics_files)
    assert (counts["step"], counts["cut"], counts["cut_asked_again"], counts["parsed"], counts["unparsed"]) == (
        "calibration judge", 6, 4, 4, 0)
    out = tmp_path / "report.md"
    assert main(["--batch", "--db", db, "report", "cal-cut", "--out", str(out)]) == 0
    assert LINE[0].upper() + LINE[1:] in out.read_text(encoding="utf-8")   # the report


def test_create_warns_when_the_judges_max_tokens_is_short_of_a_whole_reply(tmp_path, loopback_server, capsys):
    judges = [{"name": j, "model": f"openai/{j}", "api_base": loopback_server.url} for j in ROOM]
    path = calkit.study_file(tmp_path, "cal-short", judges, sample_size=2, extra="judge_max_tokens = 40")
    assert main(["--batch", "--db", str(tmp_path / "store.db"), "study", "create", str(path)]) == 0
    assert ("warning: calibration.judge_max_tokens 40 is below what a judge's reply needs (a score and a reason of "
            "up to 300 characters: about 116 tokens)") in capsys.readouterr().err
    assert loopback_server.count == 0
