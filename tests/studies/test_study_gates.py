"""Issue 13: contamination and corpus gates are enforced at `study create`, not advisory."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from store.probes import add_probe
from tests.runner.studykit import study_text
from tests.support.case_files import case_text
from workbench.cases.library import import_cases
from workbench.cases.probes import probe_prompt
from workbench.studies import StudyError, create_study

MODEL = "openai/study-model"

OUTCOME = "The cheaper contractor went bankrupt halfway through the dredging in March 2020. The port paid twice."
CLEAN = "In April 2019 a port authority must choose between two dredging contractors; one bids far lower."


def add_case(db, cases_dir, case_id="port-dredge", *, scenario=CLEAN, strategies='["C"]', domain="policy"):
    path = cases_dir / f"{case_id}.md"
    path.write_text(case_text(id=case_id, title="Port dredging contract", scenario=scenario, outcome=OUTCOME,
                              strategies=strategies, domain=domain, source="gate test fixture"), encoding="utf-8")
    import_cases(db, [path])


def probe(db, case_id="port-dredge", verdict="not_recognized", *, scenario=CLEAN, model=MODEL):
    add_probe(db, case_id=case_id, model=model, api_base="", asked_at=datetime.now(timezone.utc).isoformat(),
              prompt=probe_prompt(scenario), answer="an answer", verdict=verdict, classifier_raw="{}",
              flagged=verdict != "not_recognized", call_ids=[])


def create(db, cases=("port-dredge",), extra=""):
    return create_study(db, text=study_text("gated", cases=cases, model=MODEL, extra=extra), name="gated.toml")


def refusal(db, **kw) -> str:
    with pytest.raises(StudyError) as exc:
        create(db, **kw)
    return str(exc.value)


def test_an_unprobed_historical_case_is_refused(store):
    db, _, cases_dir = store
    add_case(db, cases_dir)
    why = refusal(db)
    assert "gated.toml:3: cases: case 'port-dredge' fails the probe gate" in why
    assert f"no contamination probe of its current scenario on the study's model {MODEL}" in why
    probe(db, model="openai/another-model")  # a probe on another model does not count
    assert "fails the probe gate" in refusal(db)
    probe(db)
    assert create(db)["action"] == "created"


@pytest.mark.parametrize("verdict", ["partial", "recognized"])
def test_a_partial_probe_blocks_like_recognized(store, verdict):
    db, _, cases_dir = store
    add_case(db, cases_dir)
    probe(db, verdict=verdict)
    why = refusal(db)
    assert "fails the probe gate" in why and f"({verdict})" in why


def test_a_probe_of_an_older_scenario_text_does_not_count(store):
    db, _, cases_dir = store
    add_case(db, cases_dir)
    probe(db, scenario="An earlier wording of the scenario.")
    assert "fails the probe gate" in refusal(db)


def test_a_leaked_outcome_is_refused_with_the_reason(store):
    db, _, cases_dir = store
    later = CLEAN + " By March 2020 the work had stopped."
    add_case(db, cases_dir, scenario=later)
    probe(db, scenario=later)
    why = refusal(db)
    assert "fails the leak gate" in why and "mentions March 2020, after the decision date 2019-04" in why
    copied = CLEAN + " Note that the cheaper contractor went bankrupt halfway through the dredging."
    add_case(db, cases_dir, scenario=copied)
    probe(db, scenario=copied)
    why = refusal(db)
    assert "fails the leak gate" in why and "repeats the outcome record" in why


def test_an_override_with_a_reason_is_recorded_and_shown_in_the_report(store):
    db, _, cases_dir = store
    add_case(db, cases_dir)
    short = '[[hindsight.overrides]]\ncase = "port-dredge"\ngate = "probe"\nreason = "trust me"\n'
    assert "an override needs its reason" in refusal(db, extra=short)
    reason = "the provider retired this snapshot before a probe could be run"
    ok = f'[[hindsight.overrides]]\ncase = "port-dredge"\ngate = "probe"\nreason = "{reason}"\n'
    result = create(db, extra=ok)
    assert result["definition"]["hindsight"]["overrides"] == [{"case": "port-dredge", "gate": "probe",
                                                               "reason": reason}]
    from workbench.protocols.hindsight import fidelity

    section = fidelity.section(db, "gated", result["definition"])
    assert f"case `port-dredge`, gate probe: {reason}" in section


def test_strategy_a_is_checked_against_the_training_cutoff(store):
    db, _, cases_dir = store
    add_case(db, cases_dir, strategies='["A"]')
    probe(db)
    assert "needs the model's training cutoff" in refusal(db)
    why = refusal(db, extra='[hindsight]\ntraining_cutoff = "2019-06"\n')
    assert "fails the cutoff gate" in why and "not after the model's training cutoff 2019-06" in why
    assert create(db, extra='[hindsight]\ntraining_cutoff = "2018-12"\n')["action"] == "created"


def test_the_corpus_rule_warns_a_pilot_and_refuses_a_confirmatory_study(store):
    db, _, cases_dir = store
    add_case(db, cases_dir)
    probe(db)
    result = create(db)
    warnings = result["items"]["problems"]
    assert any("warning (pilot study)" in w and "at least 6" in w for w in warnings)
    why = refusal(db, extra='[hindsight]\nstudy_kind = "confirmatory"\n')
    assert "a confirmatory study needs the full corpus" in why and "has 1 case(s)" in why


def test_a_full_corpus_passes_as_confirmatory(store):
    db, _, cases_dir = store
    ids = []
    for dom in ("organizational", "infrastructure", "policy"):
        for k in (1, 2):
            case_id = f"{dom[:5]}-case-{k}"
            add_case(db, cases_dir, case_id, domain=dom)
            probe(db, case_id)
            ids.append(case_id)
    result = create(db, cases=ids, extra='[hindsight]\nstudy_kind = "confirmatory"\n')
    assert result["action"] == "created" and result["items"]["problems"] == []


def test_constructed_cases_pass_no_gate(store):
    db, _, _ = store
    assert create(db, cases=("toll-bridge",))["action"] == "created"   # a constructed fixture case
