"""Freezing: what the hash covers, and a changed case, rubric, prompt or definition refused at run time."""

from __future__ import annotations

import shutil

import pytest

from store.studies import frozen_artefacts, get_study
from tests.runner.studykit import create, study_text
from workbench.protocols.hindsight.architectures import prompts
from workbench.cases.library import import_cases
from workbench.runs.runner import prepare_study, run_study
from workbench.studies import FrozenStudyChanged, StudyError, create_study, freeze_study, verify_frozen
from workbench.studies.freeze import freeze_hash


def test_freeze_records_every_artefact_and_a_reproducible_hash(store):
    db, _, _ = store
    create(db, study_text("f1", cases=("toll-bridge", "reservoir-gate")))
    result = freeze_study(db, "f1")
    rows = frozen_artefacts(db, "f1")
    kinds = {(r["kind"], r["ref"]) for r in rows}
    assert ("definition", "f1") in kinds
    assert {("case", "toll-bridge"), ("case", "reservoir-gate")} <= kinds
    # the study's rubrics plus the toll-bridge case's own rubric
    assert {r for k, r in kinds if k == "rubric"} == {"anticipation", "epistemic-humility", "glenda-crock"}
    assert ("prompt", "prompts.B1_PROMPT") in kinds and ("prompt", "report.REPORT_INSTRUCTION") in kinds
    assert ("prompt", "roster.functional.devils-advocate") in kinds
    assert ("prompt", "roster.content-briefs.risk-analyst") in kinds
    study = get_study(db, "f1")
    assert study["freeze_hash"] == result["freeze_hash"] == freeze_hash(rows) and study["status"] == "frozen"
    case_row = next(r for r in rows if r["ref"] == "toll-bridge")
    assert "freight cartel" in case_row["content"] and "escalating demands" in case_row["content"]
    again = freeze_study(db, "f1")
    assert again["already_frozen"] and again["freeze_hash"] == result["freeze_hash"]
    verify_frozen(db, "f1")  # nothing changed: no error


def test_running_an_unfrozen_study_freezes_it_first(store):
    db, _, _ = store
    create(db, study_text("f2"))
    assert get_study(db, "f2")["frozen_at"] is None
    runs = prepare_study(db, "f2")
    assert get_study(db, "f2")["frozen_at"] and [r["id"] for r in runs] == ["f2/toll-bridge/B1/0"]


def _edit_case_file(cases_dir, old: str, new: str):
    path = cases_dir / "toll-bridge.md"
    path.write_text(path.read_text().replace(old, new))


async def test_a_case_scenario_edited_and_reimported_is_refused_at_run_time(store):
    db, db_path, cases_dir = store
    create(db, study_text("f3"))
    freeze_study(db, "f3")
    _edit_case_file(cases_dir, "freight cartel", "shipping cartel")
    import_cases(db, [cases_dir])
    with pytest.raises(FrozenStudyChanged) as info:
        await run_study(db, object(), "f3")
    message = str(info.value)
    assert "case 'toll-bridge' changed its scenario in the store" in message
    assert "create a new study" in message
    assert get_study(db, "f3")["status"] == "frozen"


async def test_a_case_file_edited_on_disk_is_refused_even_before_import(store):
    db, _, cases_dir = store
    create(db, study_text("f4"))
    freeze_study(db, "f4")
    _edit_case_file(cases_dir, "escalating demands", "fewer demands")
    with pytest.raises(FrozenStudyChanged) as info:
        verify_frozen(db, "f4")
    assert "case 'toll-bridge' changed its outcome in its file" in str(info.value)


def test_a_prompt_template_changed_in_code_is_refused(store, monkeypatch):
    db, _, _ = store
    create(db, study_text("f5"))
    freeze_study(db, "f5")
    monkeypatch.setattr(prompts, "B1_PROMPT", prompts.B1_PROMPT.replace("Explain", "Justify"))
    with pytest.raises(FrozenStudyChanged) as info:
        prepare_study(db, "f5")
    assert "prompt template 'prompts.B1_PROMPT' changed" in str(info.value)


def test_a_rubric_file_changed_is_refused(store, tmp_path, monkeypatch):
    from workbench.paths import shipped_rubrics_dir

    db, _, _ = store
    create(db, study_text("f6"))
    freeze_study(db, "f6")
    rubrics = tmp_path / "rubrics"
    shutil.copytree(shipped_rubrics_dir(), rubrics)
    path = rubrics / "anticipation.toml"
    path.write_text(path.read_text().replace("Score the risk CATEGORY", "Score the risk TYPE"))
    monkeypatch.setenv("WORKBENCH_RUBRICS_DIR", str(rubrics))
    with pytest.raises(FrozenStudyChanged) as info:
        verify_frozen(db, "f6")
    assert "rubric 'anticipation' changed" in str(info.value)


def test_a_frozen_study_recreated_from_a_changed_file_is_refused(store):
    db, _, _ = store
    create(db, study_text("f7"))
    freeze_study(db, "f7")
    changed = study_text("f7").replace("temperature = 0.7", "temperature = 0.2")
    with pytest.raises(StudyError) as info:
        create_study(db, text=changed, name="f7.toml")
    assert "is frozen" in str(info.value) and "model.temperature" in str(info.value)
    assert "create a new study" in str(info.value)
    assert get_study(db, "f7")["definition"]["model"]["temperature"] == 0.7
    # the cost ceiling is outside the freeze: it may change
    with_ceiling = study_text("f7").replace("replicates = 1", "replicates = 1\ncost_ceiling = 2.5")
    assert create_study(db, text=with_ceiling, name="f7.toml")["action"] == "updated"
    assert get_study(db, "f7")["cost_ceiling"] == 2.5
    verify_frozen(db, "f7")


def test_a_definition_changed_in_the_store_is_refused(store):
    db, _, _ = store
    create(db, study_text("f8"))
    freeze_study(db, "f8")
    definition = get_study(db, "f8")["definition"]
    definition["replicates"] = 2
    db["studies"].update("f8", {"definition": __import__("json").dumps(definition)})
    with pytest.raises(FrozenStudyChanged) as info:
        verify_frozen(db, "f8")
    assert "the study definition changed (replicates)" in str(info.value)
