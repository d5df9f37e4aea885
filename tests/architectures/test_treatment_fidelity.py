"""Treatment fidelity (issue 45): per condition, the loopback model withholds the defining step and the
fidelity table counts the run as not delivered, the run's end saying so in the same words; the scripted model
delivers it and the same table says so. Every study here runs as `workbench --batch run` runs it: under the
treatment watch, with a run control (one fixture, `watched`)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.runner.studykit import _parts, create, gateway, scripted, study_text
from workbench.events import PROGRESS, ListSink
from workbench.fidelity.study import run_reading, study_fidelity
from workbench.fidelity.table import FidelityTable


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


@dataclass
class Watched:
    summary: object
    ended: dict[str, dict]  # run id → its state as the run's end reported it (batch's run line prints it)
    db: object
    study_id: str
    table: FidelityTable

    def ended_as(self, condition: str) -> dict:
        return next(state for rid, state in self.ended.items() if f"/{condition}/" in rid)


@pytest.fixture
def watched(store, server):
    """Run a study of `conditions` on the scripted server, `withhold` (a step) withheld, under the treatment
    watch and a run control; `policy` is its `on_missing_treatment`."""
    from workbench.fidelity.watch import TreatmentWatch
    from workbench.runs.control import RunControl
    from workbench.runs.runner import run_study

    db, db_path = store

    async def run(*conditions, withhold: str | None = None, name: str = "treated", replicates: int = 1,
                  policy: str | None = None) -> Watched:
        server.responder = withholding(withhold) if withhold else scripted
        text = study_text(name, conditions=conditions, replicates=replicates, api_base=server.url)
        if policy:
            text = text.replace("[model]", f'on_missing_treatment = "{policy}"\n\n[model]', 1)
        study_id = create(db, text)
        sink, control = ListSink(), RunControl()
        summary = await run_study(db, gateway(db, db_path), study_id, control=control,
                                  sink=TreatmentWatch(sink, db, study_id, control))
        ended = {e.payload["run"]["run_id"]: e.payload["run"] for e in sink.events
                 if e.kind == PROGRESS and (e.payload.get("run") or {}).get("status") == "done"}
        return Watched(summary, ended, db, study_id, study_fidelity(db, study_id))

    return run


async def test_c2_whose_members_all_decline_to_second_did_not_debate(watched):
    from workbench.cli.run_display import run_line

    study = await watched("C2", "B1", withhold="second")
    row = study.table.row("C2")
    assert (row.delivered, row.runs) == (0, 1)
    assert row.detail == "no debate: both motions died (1 run)"
    c2, b1 = study.ended_as("C2"), study.ended_as("B1")
    assert run_line(c2).endswith("  no debate: both motions died")  # batch's run line at the run's end
    assert "treatment" not in b1 and study.table.row("B1").delivered == 1
    assert not run_reading(study.db, c2["run_id"]).delivered


async def test_c2_with_a_seconded_motion_debated(watched):
    study = await watched("C2")
    row = study.table.row("C2")
    assert (row.delivered, row.runs, row.detail) == (1, 1, "debated 2 round(s) (1 run)")
    assert "treatment" not in study.ended_as("C2")


async def test_c3_with_a_fan_of_one_scenario_did_not_deliver_its_fan(watched):
    study = await watched("C3", withhold="fan")
    row = study.table.row("C3")
    assert (row.delivered, row.runs) == (0, 1)
    assert row.detail == "a fan of 1 of 4 scenarios (1 run)"
    assert study.ended_as("C3")["treatment"] == "a fan of 1 of 4 scenarios"


async def test_c3_with_its_planned_fan_delivered(watched):
    assert (await watched("C3")).table.row("C3").delivered == 1


async def test_b3_reply_that_cannot_be_split_is_not_delivered_and_a_split_one_is(watched):
    unsplit = await watched("B3", withhold="split", name="b3-unsplit")
    row = unsplit.table.row("B3")
    assert (row.delivered, row.runs) == (0, 1) and row.detail.startswith("not split")
    split = await watched("B3", name="b3-split")
    assert split.table.row("B3").detail == "split into 3 perspectives (1 run)"


async def test_c1_with_a_respondent_silent_is_not_delivered(watched):
    study = await watched("C1", "B1", withhold="respondent")
    assert (study.table.row("C1").delivered, study.table.row("C1").detail) == (
        0, "4 of 5 respondents answered (1 run)")
    assert study.table.row("B1").delivered == 1  # nothing to withhold


async def test_p1_committees_that_never_debated_are_not_probes(watched):
    row = (await watched("P1", withhold="second")).table.row("P1")
    assert (row.delivered, row.runs, row.detail) == (0, 3, "0 of 3 committees debated (3 runs)")


async def test_refuse_stops_the_study_at_the_first_run_without_its_step(watched):
    from workbench.fidelity.watch import refusal

    study = await watched("C2", withhold="second", name="refusing", replicates=3, policy="refuse")
    summary = study.summary
    assert summary.stopped and 'on_missing_treatment = "refuse"' in summary.stopped
    named = next(rid for rid in study.ended if rid in summary.stopped)
    assert summary.stopped == refusal(run_reading(study.db, named))
    assert "no debate: both motions died" in summary.stopped
    assert not summary.complete


def test_on_missing_treatment_is_checked_naming_the_key():
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
