"""A transposed case's mapping reaches its evaluators (issue 30; seed 000 §III: "the evaluator must map transposed
outcomes back to the real case"): the rater desk's case pane and the judge prompt carry it, the same text for every
item of the case, so it reveals no condition."""

from __future__ import annotations

from dataclasses import replace

from store import blind as blind_rows
from tests.blinding.study_fixture import CASE, CONDITIONS, make_study
from tests.scoring.scoring_helpers import score_pilots
from workbench import scoring
from workbench.blinding.context import load_study
from workbench.blinding.items import prepare_study
from workbench.cases.model import Transposition
from workbench.judges.prompt import evaluator_messages
from workbench.judges.run import judge_items

TRANSPOSED = replace(CASE, id="harbor-transposed", transposition=Transposition(
    original="A regional bank's 2019 branch expansion",
    mapping=[{"from": "regional bank", "to": "port authority"}, {"from": "deposits", "to": "container demand"}],
    verifiers=["ana", "ben"], preserves={"information_asymmetry": True, "structural_tensions": True,
                                         "decision_point": True}))

MAPPING = ("The scenario is a structural transposition of a real case: A regional bank's 2019 branch expansion. "
           "Read the scenario's terms as the real case's when you compare the response with the outcome:\n"
           "- port authority (in the scenario) = regional bank (in the real case)\n"
           "- container demand (in the scenario) = deposits (in the real case)")


def test_the_mapping_reads_as_the_evaluator_needs_it():
    assert TRANSPOSED.transposition.for_evaluators() == MAPPING
    assert CASE.transposition.for_evaluators() is None  # not transposed: nothing shown


def test_the_judge_prompt_and_the_desk_carry_the_mapping_for_every_item_alike(db):
    sid = make_study(db, case=TRANSPOSED)
    prepare_study(db, sid)
    study = load_study(db, sid)
    items = judge_items(db, study)
    assert len(items) == len(CONDITIONS) + 2  # every condition's item and the two calibration pilots
    assert {item.transposition for item, _, _ in items} == {MAPPING}  # one text: it tells no item from another
    for label in CONDITIONS + ["committee", "coordinator", "gpt"]:
        assert label.lower() not in MAPPING.lower()
    item = items[0][0]
    prompt = evaluator_messages(scenario=item.scenario, outcome=item.outcome, response=item.response,
                                rubric=study.rubrics["anticipation"], transposition=item.transposition)[1]["content"]
    assert "4. TRANSPOSITION:" in prompt and "<<<TRANSPOSITION\n" + MAPPING + "\nTRANSPOSITION>>>" in prompt
    assert prompt.index("OUTCOME>>>") < prompt.index("<<<TRANSPOSITION") < prompt.index("<<<RECOMMENDATION")

    scoring.open_rater(db, sid, "rater-a")
    score_pilots(db, sid, "rater-a")  # the calibration pair first, then the rest opens
    desk = scoring.RaterDesk(db, sid, "rater-a")
    views = [desk.item_view(a["item_id"]) for a in blind_rows.assignments(db, sid, "rater-a")]
    assert views and {v.transposition for v in views} == {MAPPING}


def test_an_untransposed_case_adds_nothing_to_the_prompt(db):
    sid = make_study(db)
    prepare_study(db, sid)
    study = load_study(db, sid)
    item = judge_items(db, study)[0][0]
    assert item.transposition is None
    prompt = evaluator_messages(scenario=item.scenario, outcome=item.outcome, response=item.response,
                                rubric=study.rubrics["anticipation"], transposition=item.transposition)[1]["content"]
    assert "TRANSPOSITION" not in prompt
