"""Pilot tests of the case editor: create, edit, live validation, the checklist and the mapping, saving,
and the prompt that keeps unsaved changes from being dropped."""

from __future__ import annotations

import pytest
from screen_helpers import settle, table_ids, type_text, wait_for_form
from textual.widgets import Checkbox, Input, Select, TextArea

from workbench.cases.parse import parse_file
from workbench.cases.library import load_case

SIZE = (130, 40)
# The editor re-validates after CHECK_DELAY of quiet typing (0.3 s); here it waits 0.15 s, so each wait below
# is a little more than that instead of 0.45 s x 14 (issue 15: a fast suite). The debounce itself still runs,
# long enough not to re-validate between two typed keys (that would slow the typing down).
TEST_CHECK_DELAY = 0.15
CHECK = 0.25


@pytest.fixture(autouse=True)
def quick_validation(monkeypatch):
    monkeypatch.setattr("screens.case_editor.CHECK_DELAY", TEST_CHECK_DELAY)


def problem_lines(screen) -> list[str]:
    plist = screen.query_one("#problems")
    return [str(plist.get_option_at_index(i).prompt) for i in range(plist.option_count)]


async def open_case(pilot, case_id: str) -> None:
    await settle(pilot)
    table = pilot.app.screen.query_one("#case-table")
    table.move_cursor(row=table.get_row_index(case_id))
    await pilot.press("enter")
    await wait_for_form(pilot)
    assert type(pilot.app.screen).__name__ == "CaseEditorScreen"


async def replace_input(pilot, widget_id: str, text: str, *, typed: bool = False) -> None:
    """Replace an input's text: focus it and set it, or (typed=True) clear it and type it key by key."""
    field = pilot.app.screen.query_one(f"#{widget_id}", Input)
    field.focus()
    await pilot.pause()
    if typed:
        field.value = ""
        await type_text(pilot, text)
    else:
        field.value = text
        await pilot.pause()


async def new_case_form(pilot):
    """`n` in the case list: the editor on a new case."""
    await settle(pilot)
    await pilot.press("n")
    await wait_for_form(pilot)
    return pilot.app.screen


async def test_create_a_case_see_errors_then_save_file_and_store(app, library):
    async with app.run_test(size=SIZE) as pilot:
        editor = await new_case_form(pilot)
        assert editor.sub_title.startswith("New case")
        assert app.focused is editor.query_one("#f-id", Input)

        await type_text(pilot, "Tidal")  # uppercase is not allowed in an id
        await pilot.pause(CHECK)
        lines = problem_lines(editor)
        assert any(line.startswith("✗ id: must be 2-63 characters") for line in lines)
        assert any(line.startswith("✗ title: must not be empty") for line in lines)
        assert editor.query_one("#f-id").has_class("has-problem")

        await pilot.press("ctrl+s")  # refused while there are errors
        await settle(pilot)
        assert not (library.cases / "Tidal.md").exists()
        assert load_case(app.db, "Tidal") is None
        assert type(app.screen).__name__ == "CaseEditorScreen"

        await replace_input(pilot, "f-id", "tidal-barrage", typed=True)
        await replace_input(pilot, "f-title", "Estuary authority commissions a tidal barrage")
        editor.query_one("#f-domain", Select).value = "infrastructure"
        editor.query_one("#f-strategy-C", Checkbox).value = True
        editor.query_one("#f-scenario", TextArea).text = "The authority must choose a contractor.\n\nBudgets are thin."
        await pilot.pause(CHECK)
        assert problem_lines(editor) == ["✓ no problems"]
        assert not editor.query_one("#f-id").has_class("has-problem")
        assert "saves to cases/tidal-barrage.md" in str(editor.query_one("#path-target").render())

        await pilot.press("ctrl+s")
        await settle(pilot)
        path = library.cases / "tidal-barrage.md"
        assert path.exists()
        parsed = parse_file(path)
        assert parsed.problems == []
        assert parsed.case.title == "Estuary authority commissions a tidal barrage"
        assert parsed.case.domain == "infrastructure" and parsed.case.strategies == ["C"]
        assert parsed.case.scenario == "The authority must choose a contractor.\n\nBudgets are thin."
        stored = load_case(app.db, "tidal-barrage")
        assert stored == parsed.case
        assert not editor.has_unsaved_changes()
        assert editor.sub_title == "Case tidal-barrage"

        await pilot.press("escape")  # nothing unsaved: straight back, onto the new case
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen"
        assert "tidal-barrage" in table_ids(app)
        assert app.screen.selected_case_id() == "tidal-barrage"


async def test_edit_a_field_error_appears_fix_it_and_save(app, library):
    path = library.cases / "harbor-dredging.md"
    before = path.read_text()
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, "harbor-dredging")
        editor = app.screen
        await replace_input(pilot, "f-decision_date", "March 2019", typed=True)
        await pilot.pause(CHECK)
        assert any(line.startswith("✗ decision_date: must be YYYY") for line in problem_lines(editor))
        assert editor.query_one("#f-decision_date").has_class("has-problem")
        assert "modified" in editor.sub_title and "1 error" in editor.sub_title

        await pilot.press("ctrl+s")
        await settle(pilot)
        assert path.read_text() == before  # nothing written
        assert load_case(app.db, "harbor-dredging").decision_date == "2019-03"

        await replace_input(pilot, "f-decision_date", "2019-03-14")
        await pilot.pause(CHECK)
        assert problem_lines(editor) == ["✓ no problems"]
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert parse_file(path).case.decision_date == "2019-03-14"
        assert load_case(app.db, "harbor-dredging").decision_date == "2019-03-14"
        assert load_case(app.db, "harbor-dredging").research_needed == "Find the board minutes."  # kept


async def test_ready_needs_the_checklist_and_the_transposition(app, library):
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, "harbor-dredging")
        editor = app.screen
        editor.query_one("#f-status", Select).value = "ready"
        editor.query_one("#f-strategy-B", Checkbox).value = True
        await pilot.pause(CHECK)
        fields = {line.split(":")[0] for line in problem_lines(editor)}
        assert {"✗ outcome", "✗ criteria.causal_record", "✗ transposition.original", "✗ transposition.mapping",
                "✗ transposition.verifiers", "✗ transposition.preserves.decision_point"} <= fields

        for box in editor.query(".criterion"):  # tick the five selection criteria with the keyboard
            box.focus()
            await pilot.press("space")
        for box in editor.query(".preserve"):
            box.focus()
            await pilot.press("space")
        await replace_input(pilot, "f-tr-original", "A port authority's 2011 dredging tender")
        await replace_input(pilot, "f-tr-verifier-1", "Ada")
        await replace_input(pilot, "f-tr-verifier-2", "Grace")
        for source, target in (("port authority", "harbor authority"), ("2011", "2019"), ("spare", "")):
            await pilot.press("ctrl+t")  # a new mapping row, focused
            await pilot.pause()
            await type_text(pilot, source)
            await pilot.press("tab")
            await type_text(pilot, target)
        rows = list(editor.query("MappingRow"))
        assert len(rows) == 3
        await pilot.click(rows[2].query_one(".map-remove"))  # remove the spare row again
        await pilot.pause()
        editor.query_one("#f-outcome", TextArea).text = "The cheap bid failed within two years."
        await pilot.pause(CHECK)
        assert problem_lines(editor) == ["✓ no problems"], problem_lines(editor)

        await pilot.press("ctrl+s")
        await settle(pilot)
        saved = parse_file(library.cases / "harbor-dredging.md").case
        assert saved.status == "ready" and saved.strategies == ["B", "C"]
        assert all(saved.criteria.values())
        tr = saved.transposition
        assert tr.original == "A port authority's 2011 dredging tender"
        assert tr.mapping == [{"from": "port authority", "to": "harbor authority"}, {"from": "2011", "to": "2019"}]
        assert tr.verifiers == ["Ada", "Grace"] and all(tr.preserves.values())
        assert load_case(app.db, "harbor-dredging") == saved


async def test_every_field_round_trips_through_the_editor(app, library):
    """Open a case with every field filled in, save without touching it: the file says the same."""
    from workbench.cases.parse import parse_file as parse

    original = parse(library.cases / "guild-charter.md").case
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, "guild-charter")
        editor = app.screen
        assert editor.form_case() == original
        assert not editor.has_unsaved_changes()
        assert editor.query_one("#f-rubric", Select).value is Select.NULL
        editor.query_one("#f-rubric", Select).value = "fixture-rubric"  # a known rubric id from rubrics/
        await pilot.pause(CHECK)
        await pilot.press("ctrl+s")
        await settle(pilot)
        saved = parse(library.cases / "guild-charter.md").case
        assert saved.rubric == "fixture-rubric"
        assert saved.probes == original.probes  # probe results are kept as recorded
        assert saved.transposition == original.transposition


async def test_duplicate_id_and_foreign_file_are_refused(app, library):
    async with app.run_test(size=SIZE) as pilot:
        editor = await new_case_form(pilot)
        await type_text(pilot, "guild-charter")
        await replace_input(pilot, "f-title", "Another guild")
        await pilot.pause(CHECK)
        assert any(line.startswith("✗ id: duplicate id 'guild-charter'") for line in problem_lines(editor))
        await replace_input(pilot, "f-id", "guild-two")
        await replace_input(pilot, "f-path", str(library.cases / "ledger-pivot.md"))
        await pilot.pause(CHECK)
        assert any("is the file of case 'ledger-pivot'" in line for line in problem_lines(editor))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert parse_file(library.cases / "ledger-pivot.md").case.id == "ledger-pivot"
        assert load_case(app.db, "guild-two") is None


async def test_leaving_with_unsaved_changes_asks_cancel_discard(app, library):
    path = library.cases / "coercion-drill.md"
    before = path.read_text()
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, "coercion-drill")
        await replace_input(pilot, "f-title", "A changed title", typed=True)
        await pilot.press("escape")
        await settle(pilot)
        assert type(app.screen).__name__ == "ChoiceDialog"
        await pilot.press("c")  # cancel: stay, keep the edit
        await settle(pilot)
        assert type(app.screen).__name__ == "CaseEditorScreen"
        assert app.screen.query_one("#f-title", Input).value == "A changed title"

        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("d")  # discard
        await settle(pilot)
        assert type(app.screen).__name__ == "CasesScreen"
        assert path.read_text() == before
        assert load_case(app.db, "coercion-drill").title == "Coercion drill for an operations team"


async def retitle_then_save_on_leaving(pilot, title: str) -> None:
    """coercion-drill given `title`, then Esc, and Save in the unsaved-changes prompt."""
    await open_case(pilot, "coercion-drill")
    await replace_input(pilot, "f-title", title)
    await pilot.press("escape")
    await settle(pilot)
    await pilot.press("s")
    await settle(pilot)


async def test_leaving_with_unsaved_changes_can_save(app, library):
    async with app.run_test(size=SIZE) as pilot:
        await retitle_then_save_on_leaving(pilot, "Coercion drill, revised")
        assert type(app.screen).__name__ == "CasesScreen"
        assert parse_file(library.cases / "coercion-drill.md").case.title == "Coercion drill, revised"
        assert load_case(app.db, "coercion-drill").title == "Coercion drill, revised"


async def test_saving_from_the_prompt_with_errors_stays_in_the_editor(app, library):
    async with app.run_test(size=SIZE) as pilot:
        await retitle_then_save_on_leaving(pilot, "")
        assert type(app.screen).__name__ == "CaseEditorScreen"  # an invalid case is neither saved nor dropped
        assert any(line.startswith("✗ title") for line in problem_lines(app.screen))
        assert load_case(app.db, "coercion-drill").title == "Coercion drill for an operations team"


async def test_quitting_with_unsaved_changes_asks_first(app, library):
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, "coercion-drill")
        await replace_input(pilot, "f-title", "Unsaved title")
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert type(app.screen).__name__ == "ChoiceDialog"
        await pilot.press("c")
        await settle(pilot)
        assert app.return_code is None  # still running
        assert type(app.screen).__name__ == "CaseEditorScreen"

        await pilot.press("end", "1")  # typed into the title field: number keys do not leave a text field
        assert app.screen.query_one("#f-title", Input).value == "Unsaved title1"

        app.screen.query_one("#f-strategy-A", Checkbox).focus()
        await pilot.press("ctrl+q")
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert app.return_code == 0
    from store.db import open_store

    assert load_case(open_store(library.db), "coercion-drill").title == "Unsaved title1"


async def test_quitting_without_changes_just_quits(app):
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, "coercion-drill")
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert app.return_code == 0


async def test_a_probe_recorded_while_editing_is_kept_when_saving(app, library):
    from dataclasses import replace

    from workbench.cases import Probe
    from workbench.cases.library import save_case

    path = library.cases / "harbor-dredging.md"
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, "harbor-dredging")
        # Meanwhile a contamination probe appends its result to the case (file and store).
        probed = load_case(app.db, "harbor-dredging")
        probe = Probe(model="openai/some-model", date="2026-01-02", verdict="partial", note="named the sector")
        save_case(app.db, replace(probed, probes=[*probed.probes, probe]), path)

        await replace_input(pilot, "f-title", "Harbor authority weighs two dredging bids")
        await pilot.pause(CHECK)
        await pilot.press("ctrl+s")
        await settle(pilot)
        saved = parse_file(path).case
        assert saved.title == "Harbor authority weighs two dredging bids"
        assert saved.probes == [probe]
        assert load_case(app.db, "harbor-dredging").probes == [probe]
        assert not app.screen.has_unsaved_changes()


async def test_a_file_changed_outside_the_editor_is_not_overwritten(app, library):
    from dataclasses import replace

    from workbench.cases.write import write_case

    path = library.cases / "harbor-dredging.md"
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, "harbor-dredging")
        # Someone edits the file by hand while the editor is open.
        write_case(replace(parse_file(path).case, notes="Edited by hand."), path)

        app.screen.query_one("#f-notes", TextArea).text = "Edited in the TUI."
        await pilot.pause(CHECK)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert parse_file(path).case.notes == "Edited by hand."
        assert any("was changed outside the editor" in line for line in problem_lines(app.screen))
        assert app.screen.has_unsaved_changes()  # the edit is still there, to save elsewhere

        await replace_input(pilot, "f-path", str(library.cases / "harbor-dredging-tui.md"))
        await replace_input(pilot, "f-id", "harbor-dredging-tui")
        await pilot.pause(CHECK)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert parse_file(library.cases / "harbor-dredging-tui.md").case.notes == "Edited in the TUI."
        assert parse_file(path).case.notes == "Edited by hand."


async def test_a_copy_in_another_file_needs_a_new_id(app, library):
    async with app.run_test(size=SIZE) as pilot:
        await open_case(pilot, "harbor-dredging")
        await replace_input(pilot, "f-path", str(library.cases / "elsewhere.md"))
        await pilot.pause(CHECK)
        assert any("a second file with the same id" in line for line in problem_lines(app.screen))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert not (library.cases / "elsewhere.md").exists()


async def test_a_new_case_goes_to_the_users_case_library_with_ordinary_permissions(library, tmp_path, monkeypatch):
    """Issue 15: a case created in the TUI is saved in the case library ($WORKBENCH_CASE_LIBRARY, else the
    platformdirs user data dir), not the installed package's cases/, and is readable like any file (not 0600)."""
    import os

    from screens.launch import make_app

    own = tmp_path / "my-library"
    monkeypatch.setenv("WORKBENCH_CASE_LIBRARY", str(own))
    old = os.umask(0o022)  # a common umask; the caller's is restored below
    try:
        app = make_app(library.db)
        async with app.run_test(size=SIZE) as pilot:
            editor = await new_case_form(pilot)
            await replace_input(pilot, "f-id", "tidal-barrage", typed=True)
            await replace_input(pilot, "f-title", "Estuary authority commissions a tidal barrage")
            editor.query_one("#f-scenario", TextArea).text = "The authority must choose a contractor."
            await pilot.pause(CHECK)
            assert "saves to case library: tidal-barrage.md" in str(editor.query_one("#path-target").render())
            await pilot.press("ctrl+s")
            await settle(pilot)
    finally:
        os.umask(old)
    saved = own / "tidal-barrage.md"
    assert saved.exists() and not (library.cases / "tidal-barrage.md").exists()
    assert parse_file(saved).case.title == "Estuary authority commissions a tidal barrage"
    assert oct(saved.stat().st_mode & 0o777) == oct(0o644)


def test_the_case_library_defaults_to_the_user_data_dir(monkeypatch):
    from pathlib import Path

    from platformdirs import user_data_dir

    from workbench.paths import user_cases_dir

    monkeypatch.delenv("WORKBENCH_CASE_LIBRARY", raising=False)
    assert user_cases_dir() == Path(user_data_dir("hindsight-workbench", appauthor=False)) / "cases"
    monkeypatch.setenv("WORKBENCH_CASE_LIBRARY", "~/cases-elsewhere")
    assert user_cases_dir() == Path.home() / "cases-elsewhere"
