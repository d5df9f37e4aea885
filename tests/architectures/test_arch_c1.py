"""C1 hub-and-spoke end to end: respondents answer blind to each other and to the coordinator's framing (unless
the study pre-registers `framing = "respondents"`), the coordinator synthesizes."""

from __future__ import annotations

from store.runs import list_runs
from store.outputs import get_output
from tests.runner.studykit import requests_with


async def test_c1_respondents_see_neither_the_framing_nor_each_other(run_conditions, server):
    summary, events, db = await run_conditions("C1")
    assert server.count == 8  # frame + 5 respondents + synthesis + the report-shape extraction (issue 13)
    frame = requests_with(server, "Set out the decision before the panel's answers come in")
    respondents = requests_with(server, "You are adviser", where="system")
    synthesis = requests_with(server, "Synthesize the panel's answers")
    assert len(frame) == 1 and len(respondents) == 5 and len(synthesis) == 1

    framing = next(e.payload["text"] for e in events if e.kind == "turn_finished" and e.turn == "frame")
    answers = [e.payload["text"] for e in events if e.kind == "turn_finished" and e.turn.startswith("respondent-")]
    assert len(set(answers)) == 5
    for body in respondents:
        text = " ".join(m["content"] for m in body["messages"])
        assert framing not in text and "coordinator" not in text, "a respondent read the coordinator's framing"
        assert not any(a in text for a in answers), "a respondent saw another respondent's answer"
        assert "Adviser" not in body["messages"][-1]["content"]
    synth = " ".join(m["content"] for m in synthesis[0]["messages"])
    assert all(a in synth for a in answers) and framing in synth  # the framing goes to the synthesis only

    # events in order: framing before any respondent starts, every answer before the synthesis starts
    kinds = [(e.kind, e.turn) for e in events if e.kind in ("turn_started", "turn_finished", "perspective")]
    first_respondent = next(i for i, k in enumerate(kinds) if k[0] == "turn_started" and k[1].startswith("respondent"))
    assert kinds.index(("turn_finished", "frame")) < first_respondent
    synth_start = kinds.index(("turn_started", "synthesis"))
    assert all(i < synth_start for i, k in enumerate(kinds) if k[1] and k[1].startswith("respondent"))
    persp = [e for e in events if e.kind == "perspective"]
    assert len(persp) == 5 and all(e.payload["parallel"] is True and e.payload["order"] == 1 for e in persp)

    (run,) = list_runs(db, "arch-study")
    assert get_output(db, run["id"])["report"]["confidence"].startswith("medium")


async def test_c1_respondent_count_comes_from_the_study(run_conditions, server):
    summary, events, db = await run_conditions("C1", extra="[architectures.C1]\nrespondents = 3\n")
    assert server.count == 6  # + the report-shape extraction (issue 13)
    systems = sorted(b["messages"][0]["content"] for b in requests_with(server, "You are adviser", where="system"))
    assert [s[:25] for s in systems] == [f"You are adviser {i} of 3 on" for i in (1, 2, 3)]


async def test_c1_framing_for_the_respondents_is_a_preregistered_option(run_conditions, server):
    summary, events, db = await run_conditions("C1", extra='[architectures.C1]\nframing = "respondents"\n')
    framing = next(e.payload["text"] for e in events if e.kind == "turn_finished" and e.turn == "frame")
    respondents = requests_with(server, "You are adviser", where="system")
    assert len(respondents) == 5
    assert all(framing in b["messages"][-1]["content"] for b in respondents)
    assert len(requests_with(server, "Frame the decision for the panel")) == 1
