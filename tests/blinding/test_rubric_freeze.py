"""A frozen rubric cannot be edited: the rubric library refuses a changed text, naming the study."""

from __future__ import annotations

import pytest

from store import rubrics as rubric_rows
from tests.blinding.study_fixture import ANTICIPATION, HUMILITY, make_study
from workbench.cases.library import import_rubrics
from workbench.rubrics.freeze import FrozenRubricEdit, check_rubric_edit


def _rubric_dir(tmp_path, anticipation: str):
    d = tmp_path / "rubrics"
    d.mkdir()
    (d / "anticipation.toml").write_text(anticipation, encoding="utf-8")
    (d / "epistemic-humility.toml").write_text(HUMILITY, encoding="utf-8")
    return d


def test_importing_a_changed_text_of_a_frozen_rubric_is_refused(db, tmp_path):
    make_study(db, name="frozen-one")
    before = len(rubric_rows.rubric_versions(db))
    edited = ANTICIPATION.replace("Mentioned in passing.", "Mentioned, briefly.")
    with pytest.raises(FrozenRubricEdit) as err:
        import_rubrics(db, _rubric_dir(tmp_path, edited))
    assert "'frozen-one'" in str(err.value) and "anticipation" in str(err.value)
    assert len(rubric_rows.rubric_versions(db)) == before  # nothing stored, not even the unchanged one


def test_the_identical_text_imports_fine(db, tmp_path):
    make_study(db)
    assert import_rubrics(db, _rubric_dir(tmp_path, ANTICIPATION)) == 0


def test_a_study_that_is_not_frozen_does_not_hold_its_rubrics(db, tmp_path):
    make_study(db, frozen=False)
    edited = ANTICIPATION.replace("Mentioned in passing.", "Mentioned, briefly.")
    assert import_rubrics(db, _rubric_dir(tmp_path, edited)) == 1


def test_any_editor_can_ask_before_saving(db):
    make_study(db, name="s1")
    make_study(db, name="s2")
    with pytest.raises(FrozenRubricEdit, match="'s1', 's2'"):
        check_rubric_edit(db, "epistemic-humility", HUMILITY + "\n# a comment\n")
    check_rubric_edit(db, "epistemic-humility", HUMILITY)
    check_rubric_edit(db, "a-new-rubric", "id = 'a-new-rubric'")
