"""The Studies section and the study form: creating a study with the batch core, refusing a draft case,
freezing with a visible hash, loading a study file; snapshots of the list and the form."""

from __future__ import annotations

import pytest
from screen_helpers import choose_in_palette, type_text
from study_screen_helpers import (
    FIXED_FROZEN,
    OneScreenApp,
    seed_study,
    study_toml,
    wait_until,
)
from textual.widgets import Input, SelectionList, Static

from store.studies import get_study, list_studies
from workbench.studies import create_study

SIZE = (130, 44)


def field(app, wid: str) -> Input:
    return app.screen.query_one(f"#{wid}", Input)


def options(app, wid: str) -> list[str]:
    sl = app.screen.query_one(f"#{wid}", SelectionList)
    return [sl.get_option_at_index(i).value for i in range(sl.option_count)]


def problem_fields(app) -> list[str]:
    return [p.field for p in app.screen.problems]


async def open_form(pilot) -> None:
    await pilot.press("2")
    await pilot.pause()
    assert type(pilot.app.screen).__name__ == "StudiesScreen"
    await pilot.press("n")
    await pilot.pause()
    assert type(pilot.app.screen).__name__ == "StudyFormScreen"


async def test_a_study_made_in_the_form_is_stored_by_the_batch_core_and_frozen(app, tmp_path):
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot)
        form = app.screen
        # only ready cases are offered; the draft is named as not offered, the excluded one is not listed
        assert options(app, "f-cases") == ["coercion-drill", "guild-charter"]
        assert "harbor-dredging" in str(form.query_one("#draft-note", Static).render())
        assert options(app, "f-conditions") == ["B1", "B2", "B3", "C1", "C2", "C3", "P1"]

        await type_text(pilot, "form-study")  # the name field has the focus
        form.query_one("#f-cases", SelectionList).focus()
        await pilot.press("space")  # ticks the first ready case
        conditions = form.query_one("#f-conditions", SelectionList)
        conditions.deselect_all()
        conditions.select("B1")
        conditions.select("C1")
        form.query_one("#f-rubrics", SelectionList).select("fixture-rubric")
        field(app, "f-raters").value = "ada, bo"
        field(app, "f-model-temperature").value = "0.3"
        field(app, "f-arch-C1-respondents").value = "3"
        form.query_one("#judge-name", Input).value = "judge-b"
        form.query_one("#judge-model", Input).value = "mock"
        await pilot.press("ctrl+j")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()

        stored = get_study(app.db, "form-study")
        assert stored is not None and not form.problems
        d = stored["definition"]
        assert (d["cases"], d["conditions"], d["raters"], d["rubrics"]) == (
            ["coercion-drill"], ["B1", "C1"], ["ada", "bo"], ["fixture-rubric"])
        assert d["model"]["temperature"] == 0.3 and d["architectures"]["C1"]["respondents"] == 3
        assert [j["name"] for j in d["judges"]] == ["judge-a", "judge-b"]
        # the same text through the batch command's function is the same study
        study_file = tmp_path / "form-study.toml"
        study_file.write_text(form.study_text())
        assert create_study(app.db, study_file)["definition"] == d

        await pilot.press("ctrl+f")  # issue 15: freezing asks first and shows what will be hashed
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ChoiceDialog", what="the freeze dialog")
        message = str(app.screen.query_one(".dialog-message", Static).render())
        assert "1 definition: form-study" in message and "1 case: coercion-drill" in message
        assert "rubric" in message and "prompts:" in message
        await pilot.press("c")  # cancel: nothing frozen
        await wait_until(pilot, lambda: app.screen is form, what="the form")
        assert not get_study(app.db, "form-study")["frozen_at"]
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ChoiceDialog", what="the freeze dialog")
        await pilot.press("f")
        await wait_until(pilot, lambda: form.frozen_hash is not None, what="the freeze")
        frozen = get_study(app.db, "form-study")
        assert frozen["frozen_at"] and form.frozen_hash == frozen["freeze_hash"]
        assert frozen["freeze_hash"] in str(form.query_one("#freeze-hash", Static).render()).replace("\n", "")

        field(app, "f-model-temperature").value = "0.9"  # a frozen study cannot change
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert problem_fields(app) == ["name"]
        assert "frozen" in form.problems[0].message and "new study" in form.problems[0].message
        assert get_study(app.db, "form-study")["definition"]["model"]["temperature"] == 0.3

        await pilot.press("escape")  # unsaved changes: asked first, then discarded
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        assert type(app.screen).__name__ == "StudiesScreen"
        assert [s["id"] for s in list_studies(app.db)] == ["form-study"]
        table = app.screen.query_one("#study-table")
        assert str(table.get_row("form-study")[1]) == "frozen"
        assert frozen["freeze_hash"] in str(app.screen.query_one("#study-summary", Static).render())

        await pilot.press("r")  # to the Runs section, this study shown
        await pilot.pause()
        assert type(app.screen).__name__ == "RunsScreen" and app.screen.study_id == "form-study"


async def test_a_study_file_naming_a_draft_case_is_refused_with_its_line(app, tmp_path):
    path = tmp_path / "drafty.toml"
    path.write_text(study_toml("drafty", cases=("coercion-drill", "harbor-dredging")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        app.screen.query_one("#file-path", Input).value = str(path)
        await pilot.press("enter")
        await pilot.pause()
        form = app.screen
        assert type(form).__name__ == "StudyFormScreen"
        assert problem_fields(app) == ["cases"]
        message = form.problems[0].message
        assert message.startswith("drafty.toml:3: ") and "'harbor-dredging' is draft" in message
        assert form.query_one("#f-cases").has_class("has-problem")
        assert list_studies(app.db) == []  # nothing stored


async def test_a_loaded_study_file_fills_the_form_and_keeps_what_the_form_does_not_show(app, tmp_path):
    roster = ('[architectures.C2]\nmover = "engineer"\ndebate_rounds = 1\n\n'
              '[[architectures.C2.roster]]\nid = "moderator"\nname = "Moderator"\nbrief = "You moderate."\nchair = true\n\n'
              '[[architectures.C2.roster]]\nid = "engineer"\nname = "Engineer"\nbrief = "You build."\n\n'
              '[[architectures.C2.roster]]\nid = "lawyer"\nname = "Lawyer"\nbrief = "You know the law."\n')
    path = tmp_path / "roster.toml"
    path.write_text(study_toml("roster-study", conditions=("C2",)) + roster)
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot)
        form = app.screen
        assert form.load_file(str(path))
        await pilot.pause()
        assert field(app, "f-name").value == "roster-study"
        assert field(app, "f-arch-C2-debate_rounds").value == "1"
        assert form.query_one("#f-conditions", SelectionList).selected == ["C2"]
        field(app, "f-description").value = "edited in the form"
        await pilot.press("ctrl+s")
        await pilot.pause()
        d = get_study(app.db, "roster-study")["definition"]
        assert d["description"] == "edited in the form"
        assert [m["id"] for m in d["architectures"]["C2"]["roster"]] == ["moderator", "engineer", "lawyer"]
        assert d["architectures"]["C2"]["mover"] == "engineer"


async def test_bad_values_are_named_by_the_core_and_marked_in_the_form(app):
    async with app.run_test(size=SIZE) as pilot:
        await open_form(pilot)
        form = app.screen
        field(app, "f-name").value = "Bad Name"
        field(app, "f-replicates").value = "two"
        field(app, "f-model-temperature").value = "5"
        field(app, "f-threshold-alpha_judges").value = "1.5"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert set(problem_fields(app)) >= {"name", "replicates", "model.temperature", "cases",
                                            "thresholds.alpha_judges"}
        by_field = {p.field: p.message for p in form.problems}
        assert by_field["replicates"] == "must be an integer, not a string"
        assert "at most 2" in by_field["model.temperature"]
        for wid in ("f-name", "f-replicates", "f-model-temperature", "f-threshold-alpha_judges", "f-cases"):
            assert form.query_one(f"#{wid}").has_class("has-problem"), wid
        assert list_studies(app.db) == []


async def test_a_frozen_study_opens_as_a_copy_under_a_new_name(library):
    from screens.studies import StudiesScreen
    from workbench.studies import freeze_study

    app = OneScreenApp(library.db, StudiesScreen)
    create_study(app.db, text=study_toml("original", conditions=("B1", "C2")))
    freeze_study(app.db, "original")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        form = app.screen
        assert type(form).__name__ == "StudyFormScreen" and "copy of the frozen study original" in form.sub_title
        assert field(app, "f-name").value == "" and form.query_one("#f-conditions", SelectionList).selected == [
            "B1", "C2"]
        field(app, "f-name").value = "original-v2"
        await pilot.press("ctrl+s")
        await pilot.pause()
        copy, original = get_study(app.db, "original-v2"), get_study(app.db, "original")
        assert copy["definition"]["conditions"] == ["B1", "C2"] and not copy["frozen_at"]
        assert copy["definition"]["blinding"]["seed"] != original["definition"]["blinding"]["seed"]
        await pilot.press("escape")  # stored: leaves without asking
        await pilot.pause()
        assert type(app.screen).__name__ == "StudiesScreen"
        assert app.screen.selected_study_id() == "original-v2"


async def test_the_palette_freezes_a_study(library):
    from screens.studies import StudiesScreen

    app = OneScreenApp(library.db, StudiesScreen)
    create_study(app.db, text=study_toml("palette-study"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await choose_in_palette(pilot, "studies: freeze palette-study")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ChoiceDialog", what="the freeze dialog")
        assert not get_study(app.db, "palette-study")["frozen_at"]  # issue 15: asked first
        await pilot.press("f")
        await wait_until(pilot, lambda: get_study(app.db, "palette-study")["frozen_at"], what="the freeze")
        await pilot.pause()
        assert get_study(app.db, "palette-study")["frozen_at"]
        assert str(app.screen.query_one("#study-table").get_row("palette-study")[1]) == "frozen"


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["current", "80x24"])
def test_studies_screen_snapshot(snap_compare, library, size):
    from screens.studies import StudiesScreen

    app = OneScreenApp(library.db, StudiesScreen)
    seed_study(app.db)
    create_study(app.db, text=study_toml("frozen-one", conditions=("B1", "B2")))
    from workbench.studies import freeze_study

    freeze_study(app.db, "frozen-one")
    # fixed times and a fixed hash: the real freeze hash covers the prompt templates, which may change
    app.db["studies"].update("frozen-one", {"created_at": FIXED_FROZEN, "frozen_at": FIXED_FROZEN,
                                            "freeze_hash": "f" * 64})

    async def run_before(pilot):
        await pilot.pause()
        await pilot.press("down")
        power = pilot.app.screen.query_one("#study-power", Static)  # settled: the worker has answered
        await wait_until(pilot, lambda: "computing" not in str(power.render()), what="the power panel")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["current", "80x24"])
def test_study_form_snapshot(snap_compare, library, size):
    from screens.study_form import StudyFormScreen

    app = OneScreenApp(library.db, StudyFormScreen)

    async def run_before(pilot):
        await pilot.pause()
        pilot.app.screen.query_one("#f-name", Input).value = "Not A Slug"
        await pilot.press("ctrl+s")
        await pilot.press("f2")  # focus off the name field: a blinking text cursor is not stable
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


# --- issue 16: a simulated study is labelled; the power panel shows `workbench --batch power`'s numbers ---


PROBE_OVERRIDE = ('[[hindsight.overrides]]\ncase = "guild-charter"\ngate = "probe"\n'
                  'reason = "a screen test: no model reads the scenario"\n')


def sim_study(db, name: str = "sim-one") -> None:
    create_study(db, text=study_toml(name, cases=("coercion-drill", "guild-charter"), conditions=("B1", "C2"),
                                     model="sim", extra=PROBE_OVERRIDE))


async def test_a_simulated_study_is_labelled_and_its_power_panel_matches_the_batch_command(library, capsys):
    import json

    from screens.studies import StudiesScreen
    from workbench.cli.main import main

    app = OneScreenApp(library.db, StudiesScreen)
    create_study(app.db, text=study_toml("real-one"))
    sim_study(app.db)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        table = screen.query_one("#study-table")
        assert str(table.get_row("sim-one")[1]) == "draft\nSIMULATED"  # the label on its own line: whole at 140
        assert str(table.get_row("real-one")[1]) == "draft"
        # the real study first: no label, and no pre-registered comparison among B1 alone
        power = screen.query_one("#study-power", Static)
        await wait_until(pilot, lambda: "no pre-registered comparison" in str(power.render()), what="power")
        assert "SIMULATED" not in str(screen.query_one("#study-summary", Static).render())

        await pilot.press("down")
        await wait_until(pilot, lambda: "power against the number of cases" in str(power.render()),
                         what="the sim study's power")
        assert str(screen.query_one("#study-summary", Static).render()).startswith("SIMULATED Every response")
        shown = str(power.render())

    assert main(["--batch", "--db", str(library.db), "--json", "power", "sim-one"]) == 0
    batch = json.loads(capsys.readouterr().out)
    assert [r["comparison"] for r in batch["comparisons"]] == ["C2:B1:anticipation", "C2:B1:epistemic-humility"]
    for i, row in enumerate(batch["comparisons"], start=1):
        # the row at the study's N (2 cases) and the curve, number for number
        at_n = "-" if row["power"] is None else f"{row['power']:.2f}"
        assert f"{i:>2} {row['d']:>5.2f} {at_n:>6}  {row['comparison']}" in shown
        assert f"{i:>2} " + " ".join(f"{row['power_by_cases'][str(n)]:>4.2f}" for n in batch["case_grid"]) in shown
    assert "2000 simulations" in shown and f"{batch['sims']} simulations" in shown


async def test_the_power_panel_never_blocks_the_screen(library, monkeypatch):
    """The power document is computed in a thread worker: while it is held back, the list still moves."""
    import threading

    import workbench.simulation.power as power_mod
    from screens.studies import StudiesScreen

    release = threading.Event()
    real = power_mod.power_document

    def slow(definition, *args, **kwargs):
        assert threading.current_thread() is not threading.main_thread()
        release.wait(30)
        return real(definition, *args, **kwargs)

    monkeypatch.setattr(power_mod, "power_document", slow)
    app = OneScreenApp(library.db, StudiesScreen)
    sim_study(app.db, "sim-a")
    sim_study(app.db, "sim-b")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        power = app.screen.query_one("#study-power", Static)
        assert "computing" in str(power.render())
        await pilot.press("down")  # the event loop answers while the worker waits
        await pilot.pause()
        assert app.screen.selected_study_id() == "sim-b"
        assert "sim-b" in str(app.screen.query_one("#study-summary", Static).render())
        release.set()
        await wait_until(pilot, lambda: "power against" in str(power.render()), what="the power panel")


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["current", "80x24"])
def test_simulated_study_snapshot(snap_compare, library, size):
    from screens.studies import StudiesScreen

    app = OneScreenApp(library.db, StudiesScreen)
    sim_study(app.db)
    app.db["studies"].update("sim-one", {"created_at": FIXED_FROZEN})

    async def run_before(pilot):
        power = pilot.app.screen.query_one("#study-power", Static)
        await wait_until(pilot, lambda: "power against" in str(power.render()), what="the power panel")
        if size == (80, 24):  # the pane scrolls: show the panel
            pilot.app.screen.query_one("#study-detail").scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)
