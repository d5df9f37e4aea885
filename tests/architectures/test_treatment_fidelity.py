"""Treatment fidelity (issue 45): per condition, the loopback model withholds the defining step and the
fidelity table counts the run as not delivered; the scripted model delivers it and the same table says so."""

from __future__ import annotations

import pytest

from tests.runner.studykit import _parts, scripted
from workbench.events import PROGRESS, ListSink
from workbench.fidelity.study import run_reading, study_fidelity


def withholding(step: str):
    """The scripted model, but with one step withheld."""
    def reply(body: dict) -> str:
        _sys, last, _tag = _parts(body)
        if step == "second" and "Do you second the" in last:
            return "SECOND: no\nI do not support it."
        if step == "fan" and "divergent scenarios" in last:
            return "SCENARIO 1: The only path\nEverything goes as planned."
        if step == "split" and "Give 3-5 genuinely different perspectives" in last:
            return "Resist the demands; it protects the organization's independence."
        if step == "respondent" and "You are adviser 3 of" in _sys:
            return " "
        return scripted(body)
    return reply


def only_row(db, study_id: str, condition: str):
    table = study_fidelity(db, study_id)
    return table.row(condition)


async def test_c2_whose_members_all_decline_to_second_did_not_debate(run_conditions, server):
    server.responder = withholding("second")
    summary, _events, db = await run_conditions("C2")
    row = only_row(db, summary.study_id, "C2")
    assert (row.delivered, row.runs) == (0, 1)
    assert row.detail == "no debate: both motions died (1 run)"


async def test_c2_with_a_seconded_motion_debated(run_conditions, server):
    summary, _events, db = await run_conditions("C2")
    row = only_row(db, summary.study_id, "C2")
    assert (row.delivered, row.runs, row.detail) == (1, 1, "debated 2 round(s) (1 run)")


async def test_c3_with_a_fan_of_one_scenario_did_not_deliver_its_fan(run_conditions, server):
    server.responder = withholding("fan")
    summary, _events, db = await run_conditions("C3")
    row = only_row(db, summary.study_id, "C3")
    assert (row.delivered, row.runs) == (0, 1)
    assert row.detail == "a fan of 1 of 4 scenarios (1 run)"


async def test_c3_with_its_planned_fan_delivered(run_conditions, server):
    summary, _events, db = await run_conditions("C3")
    assert only_row(db, summary.study_id, "C3").delivered == 1


async def test_b3_reply_that_cannot_be_split_is_not_delivered_and_a_split_one_is(run_conditions, server):
    server.responder = withholding("split")
    summary, _events, db = await run_conditions("B3", name="b3-unsplit")
    row = only_row(db, summary.study_id, "B3")
    assert (row.delivered, row.runs) == (0, 1) and row.detail.startswith("not split")
    server.responder = scripted
    summary, _events, db = await run_conditions("B3", name="b3-split")
    assert only_row(db, summary.study_id, "B3").detail == "split into 3 perspectives (1 run)"


async def test_c1_with_a_respondent_silent_is_not_delivered(run_conditions, server):
    server.responder = withholding("respondent")
    summary, _events, db = await run_conditions("C1", "B1")
    table = study_fidelity(db, summary.study_id)
    assert (table.row("C1").delivered, table.row("C1").detail) == (0, "4 of 5 respondents answered (1 run)")
    assert table.row("B1").delivered == 1  # nothing to withhold


async def test_p1_committees_that_never_debated_are_not_probes(run_conditions, server):
    server.responder = withholding("second")
    summary, _events, db = await run_conditions("P1")
    row = only_row(db, summary.study_id, "P1")
    assert (row.delivered, row.runs, row.detail) == (0, 3, "0 of 3 committees debated (3 runs)")


async def test_the_run_end_line_says_the_motions_died(store, server):
    """The watch puts the run's words into its end state; the batch display's run line prints them."""
    from tests.runner.studykit import create, gateway, study_text
    from workbench.cli.run_display import run_line
    from workbench.fidelity.watch import TreatmentWatch
    from workbench.runs.runner import run_study

    db, db_path = store
    server.responder = withholding("second")
    study_id = create(db, study_text("watched", conditions=("C2", "B1"), api_base=server.url))
    sink = ListSink()
    await run_study(db, gateway(db, db_path), study_id, sink=TreatmentWatch(sink, db, study_id))
    ended = {e.payload["run"]["run_id"]: e.payload["run"] for e in sink.events
             if e.kind == PROGRESS and (e.payload.get("run") or {}).get("status") == "done"}
    c2 = next(r for rid, r in ended.items() if "/C2/" in rid)
    b1 = next(r for rid, r in ended.items() if "/B1/" in rid)
    assert run_line(c2).endswith("no debate: both motions died")
    assert "treatment" not in b1
    assert not run_reading(db, c2["run_id"]).delivered


async def test_refuse_stops_the_study_at_the_first_run_without_its_step(store, server):
    from tests.runner.studykit import create, gateway, study_text
    from workbench.fidelity.watch import TreatmentWatch
    from workbench.runs.control import RunControl
    from workbench.runs.runner import run_study

    db, db_path = store
    server.responder = withholding("second")
    study_id = create(db, study_text("refusing", conditions=("C2",), replicates=3, api_base=server.url).replace(
        "[model]", 'on_missing_treatment = "refuse"\n\n[model]', 1))
    control = RunControl()
    summary = await run_study(db, gateway(db, db_path), study_id, sink=TreatmentWatch(ListSink(), db, study_id,
                                                                                         control), control=control)
    assert summary.stopped and 'on_missing_treatment = "refuse"' in summary.stopped
    assert "no debate: both motions died" in summary.stopped
    assert not summary.complete


def test_on_missing_treatment_is_checked_naming_the_key():
    from tests.runner.studykit import study_text
    from workbench.studies.definition import StudyError, parse_study_text

    text = study_text("bad-policy").replace("[model]", 'on_missing_treatment = "drop"\n\n[model]', 1)
    with pytest.raises(StudyError) as err:
        parse_study_text(text, "bad.toml")
    assert "on_missing_treatment" in str(err.value) and "'mark', 'exclude', 'refuse'" in str(err.value)
    good = parse_study_text(study_text("policy").replace("[model]", 'on_missing_treatment = "exclude"\n\n[model]'),
                            "good.toml")
    assert good["on_missing_treatment"] == "exclude"
    assert "on_missing_treatment" not in parse_study_text(study_text("default"), "d.toml")  # hashes stay


def test_a_p1_committee_is_read_on_its_own_while_its_siblings_have_not_run():
    from workbench.protocols.hindsight.treatment import p1

    debated, died = (True, "debated 2 round(s)", False), (False, "no debate: both motions died", False)
    assert p1(debated, {"a": debated}, 1, waiting=2) == debated
    assert p1(debated, {"a": debated, "b": debated}, 2, waiting=0)[:2] == (False, "2 of 3 committees done")
    assert p1(debated, {"a": debated, "b": died, "c": debated}, 3, waiting=0)[:2] == (
        False, "2 of 3 committees debated")
    assert p1(debated, {"a": debated, "b": debated, "c": debated}, 3, waiting=0)[0]
