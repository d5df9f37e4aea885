"""Issue 13 item 5: the human pilot as the seed says. Two pilot cases scored by every rater before the main
set; the pilot kappa per metric against the pre-registered targets; below target the rubric is refined (a new,
recorded version) and the pilot re-scored before the main set opens."""

from __future__ import annotations

import json

import pytest

from store import blind as blind_rows
from store.cases import upsert_cases
from store.pilots import refinements, rounds
from tests.blinding.study_fixture import CASE, add_run, make_study
from tests.scoring.scoring_helpers import score_pilots
from workbench import scoring
from workbench.blinding.context import load_study
from workbench.cases import Case
from workbench.pilots.kappa import PilotError, pilot_status, refine_rubric
from workbench.scoring import CalibrationHold

CONDS = ["B1", "B2", "B3", "C1", "C2", "C3"]
PILOTS = ("pilot-ferry", "pilot-grid")


def pilot_study(db) -> str:
    sid = make_study(db, conditions=CONDS, texts={c: f"RECOMMENDATION: option {c}.\nRISKS:\n- r {c}." for c in CONDS})
    for pid in PILOTS:
        case = Case(id=pid, title=pid, type="constructed", domain="policy", status="ready",
                    scenario=f"Scenario of {pid}.", outcome=f"Outcome of {pid}.")
        upsert_cases(db, [(case.to_dict(), None, case.content_hash)])
        for c in CONDS:
            add_run(db, sid, f"{c}", f"RECOMMENDATION: {pid} answer {c}.", replicate=1 if pid == PILOTS[0] else 2,
                    case_id=pid)
    row = db.execute("SELECT definition FROM studies WHERE id = ?", [sid]).fetchone()
    d = json.loads(row[0])
    d["cases"] = [CASE.id, *PILOTS]
    d["hindsight"] = {"pilot_cases": list(PILOTS)}
    db.execute("UPDATE studies SET definition = ? WHERE id = ?", [json.dumps(d), sid])
    db.conn.commit()
    return sid


def pilot_case_items(db, sid) -> list[str]:
    exp = blind_rows.read_pilot_expectations(db, sid)
    return sorted(i["id"] for i in blind_rows.blind_items(db, sid) if i["pilot"] and i["id"] not in exp)


def main_items(db, sid) -> list[str]:
    return [i["id"] for i in blind_rows.blind_items(db, sid) if not i["pilot"]]


def score_case_pilots(db, sid, rater, pattern):
    for item, v in zip(pilot_case_items(db, sid), pattern):
        scoring.record_score(db, sid, rater, item, "anticipation", "anticipation", v)
        scoring.record_score(db, sid, rater, item, "epistemic-humility", "calibration", v)


A = [0, 1, 2, 3] * 3
B = [1, 2, 3, 0] * 3   # never agrees with A


def test_the_pilot_gates_the_main_set_until_kappa_reaches_target(db, tmp_path):
    sid = pilot_study(db)
    scoring.open_rater(db, sid, "rater-a")
    cases_items = pilot_case_items(db, sid)
    assert len(cases_items) == 12 and len(main_items(db, sid)) == 6
    for rater in ("rater-a", "rater-b"):   # every rater gets every pilot-case item, before the main set
        queue = sorted(blind_rows.assignments(db, sid, rater), key=lambda q: q["position"])
        first = [q["item_id"] for q in queue[:14]]
        assert set(cases_items) <= set(first) and not set(main_items(db, sid)) & set(first)
    # rater-a finishes the pilot; the main set waits for rater-b
    score_pilots(db, sid, "rater-a")
    score_case_pilots(db, sid, "rater-a", A)
    p = scoring.progress(db, sid, "rater-a")
    assert p.phase == "held" and "waiting for rater-b" in p.message
    with pytest.raises(CalibrationHold):
        scoring.record_score(db, sid, "rater-a", main_items(db, sid)[0], "anticipation", "anticipation", 2)
    # rater-b disagrees throughout: kappa by hand, p_o = 0, p_e = 4 x (1/4 x 1/4) = 0.25, kappa = -0.25/0.75
    score_pilots(db, sid, "rater-b")
    score_case_pilots(db, sid, "rater-b", B)
    status = pilot_status(db, load_study(db, sid))
    assert status.state == "failed" and status.round == 1
    assert {m.rubric: round(m.kappa, 6) for m in status.metrics} == {"anticipation": round(-1 / 3, 6),
                                                                      "epistemic-humility": round(-1 / 3, 6)}
    # seed 000 §VI: 0.70 for every rubric (Epistemic Humility's 0.65 is §VII's inter-rater target, not the pilot's)
    assert {m.rubric: m.target for m in status.metrics} == {"anticipation": 0.70, "epistemic-humility": 0.70}
    p = scoring.progress(db, sid, "rater-a")
    assert p.phase == "held" and "kappa below target" in p.message
    # the researcher refines the anticipation rubric: a new version, recorded, and round 1 closed
    study = load_study(db, sid)
    old = study.rubrics["anticipation"]
    with pytest.raises(PilotError, match="reason"):
        refine_rubric(db, study, old.text + "\n# clarified\n", reason="clearer", by="lead")
    done = refine_rubric(db, study, old.text + "\n# anchors clarified after the pilot\n",
                         reason="raters read 'peripheral' differently; the anchors now quote examples", by="lead")
    assert done["old_hash"] == old.hash and done["new_hash"] != old.hash
    assert [r["passed"] for r in rounds(db, sid)] == [0]
    assert refinements(db, sid)[0]["reason"].startswith("raters read")
    assert load_study(db, sid).rubrics["anticipation"].hash == done["new_hash"]
    # the pilot items must be re-scored under the new version before anything else
    p = scoring.progress(db, sid, "rater-a")
    assert p.phase == "calibration"
    for rater in ("rater-a", "rater-b"):
        score_pilots(db, sid, rater)
        score_case_pilots(db, sid, rater, A)
    status = pilot_status(db, load_study(db, sid))
    assert status.state == "passed" and status.round == 2 and all(m.kappa == 1.0 for m in status.metrics)
    # the pilots panel (and `pilots`) shows the figures a pass rests on and the threshold met (issue 43)
    from workbench.scoring.calibration import calibration_text, study_calibration

    shown = calibration_text(study_calibration(db, load_study(db, sid)))
    for m in status.metrics:
        assert f"{m.rubric} kappa 1.00 >= {m.target:.2f} (n {m.n_items})" in status.message
    assert "rater rater-a: passed - calibration passed: high pilot >= low on every rubric (anticipation " in shown
    assert status.message in shown, shown
    p = scoring.progress(db, sid, "rater-a")
    assert p.phase == "scoring"
    scoring.record_score(db, sid, "rater-a", main_items(db, sid)[0], "anticipation", "anticipation", 2)


# B_EH agrees with A on 9 of 12 items, every category three times in each: p_o = 0.75, p_e = 4 x (1/4)^2 = 0.25,
# kappa = (0.75 - 0.25) / 0.75 = 2/3: above §VII's 0.65, below §VI's 0.70
B_EH = [1, 2, 0, 3] + [0, 1, 2, 3] * 2


def score_two_rubrics(db, sid, rater, anticipation, humility):
    for item, a, h in zip(pilot_case_items(db, sid), anticipation, humility):
        scoring.record_score(db, sid, rater, item, "anticipation", "anticipation", a)
        scoring.record_score(db, sid, rater, item, "epistemic-humility", "calibration", h)


def set_thresholds(db, sid, **thresholds):
    d = json.loads(db.execute("SELECT definition FROM studies WHERE id = ?", [sid]).fetchone()[0])
    d["thresholds"] = {**(d.get("thresholds") or {}), **thresholds}
    db.execute("UPDATE studies SET definition = ? WHERE id = ?", [json.dumps(d), sid])
    db.conn.commit()


@pytest.mark.parametrize("thresholds, targets, state", [
    ({}, {"anticipation": 0.70, "epistemic-humility": 0.70}, "failed"),                       # 2/3 < 0.70
    ({"kappa_epistemic_humility": 0.5}, {"anticipation": 0.70, "epistemic-humility": 0.70}, "failed"),  # not laxer
    ({"kappa_anticipation": 0.9}, {"anticipation": 0.90, "epistemic-humility": 0.70}, "failed"),  # stricter holds
])
def test_the_pilot_holds_every_rubric_to_070_or_the_study_s_stricter_target(db, thresholds, targets, state):
    sid = pilot_study(db)
    set_thresholds(db, sid, **thresholds)
    scoring.open_rater(db, sid, "rater-a")
    score_pilots(db, sid, "rater-a")
    score_two_rubrics(db, sid, "rater-a", A, A)
    score_pilots(db, sid, "rater-b")
    score_two_rubrics(db, sid, "rater-b", A, B_EH)
    status = pilot_status(db, load_study(db, sid))
    assert {m.rubric: m.target for m in status.metrics} == targets
    kappa = {m.rubric: m.kappa for m in status.metrics}
    assert kappa["anticipation"] == 1.0 and kappa["epistemic-humility"] == pytest.approx(2 / 3)
    assert status.state == state and not next(m for m in status.metrics if m.rubric == "epistemic-humility").passed


def test_a_study_without_pilot_cases_is_not_gated(db):
    sid = make_study(db)
    scoring.open_rater(db, sid, "rater-a")
    assert pilot_status(db, load_study(db, sid)).state == "none"
    score_pilots(db, sid, "rater-a")
    assert scoring.progress(db, sid, "rater-a").phase == "scoring"


def test_the_report_lists_the_pilot_rounds_and_refinements(db):
    from workbench.protocols.hindsight.fidelity import section

    sid = pilot_study(db)
    scoring.open_rater(db, sid, "rater-a")
    for rater, pattern in (("rater-a", A), ("rater-b", B)):
        score_pilots(db, sid, rater)
        score_case_pilots(db, sid, rater, pattern)
    study = load_study(db, sid)
    refine_rubric(db, study, study.rubrics["anticipation"].text + "\n# v2\n",
                  reason="anchors rewritten with an example for each level", by="lead")
    text = section(db, sid, study.definition)
    assert "Human pilot on cases `pilot-ferry`, `pilot-grid`: 1 closed round(s)." in text
    assert "round 1: anticipation -0.33 vs 0.70; epistemic-humility -0.33 vs 0.70 -> below target" in text
    assert "by lead" in text and "anchors rewritten" in text
