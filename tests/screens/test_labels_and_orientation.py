"""Issue 33, items 7 and 8: labels that no longer outlive what they name, and the orientation a user needs
(Runs and Metrics follow the study chosen in Studies, the palette's other sections, Settings' Esc)."""

from __future__ import annotations

from scoring_seed import seed_study
from screen_helpers import settings_loaded
from study_screen_helpers import wait_until
from textual.widgets import Input, Select, Static

from screens.launch import make_app
from store import open_store
from workbench.scoring.unblind import unblind

SIZE = (140, 40)


def two_studies(tmp_path):
    store = tmp_path / "store.db"
    first = seed_study(store, name="study-one")["study_id"]
    second = seed_study(store, name="study-two")["study_id"]
    return store, first, second


async def go(pilot, key: str, name: str) -> None:
    await pilot.press(key)
    await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == name, what=name)
    await pilot.pause()


async def test_runs_and_metrics_follow_the_study_chosen_in_studies_and_say_so(tmp_path):
    store, first, second = two_studies(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "5", "MetricsScreen")
        await wait_until(pilot, lambda: app.screen.study_id is not None, what="a study in Metrics")
        shown_first = app.screen.study_id
        other = second if shown_first == first else first
        await go(pilot, "2", "StudiesScreen")
        app.screen.refresh_list(select=other)
        await pilot.pause()
        assert app.chosen_study == other
        await go(pilot, "3", "RunsScreen")
        await wait_until(pilot, lambda: app.screen.study_id == other, what="Runs following")
        assert "chosen in Studies" in str(app.screen.query_one("#study-note", Static).render())
        await go(pilot, "5", "MetricsScreen")
        await wait_until(pilot, lambda: app.screen.study_id == other, what="Metrics following")
        assert app.screen.query_one("#study-select", Select).value == other
        assert "chosen in Studies" in str(app.screen.query_one("#metrics-status", Static).render())


async def test_the_metrics_picker_lists_only_studies_and_says_unblinded_once_unblinded_elsewhere(tmp_path):
    store, first, second = two_studies(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "5", "MetricsScreen")
        await wait_until(pilot, lambda: app.screen.protocols, what="the study list")
        select = app.screen.query_one("#study-select", Select)
        assert {value for _, value in select._options} == {first, second}  # studies only: no prompt row to pick
        assert any(f"{first} (hindsight, frozen)" in str(label) for label, _ in select._options)
        db = open_store(store)
        unblind(db, first, by="test", reason="label test", force=True)
        db.close()
        await go(pilot, "1", "CasesScreen")
        await go(pilot, "5", "MetricsScreen")
        await wait_until(pilot, lambda: any(f"{first} (hindsight, unblinded" in str(label)
                                            for label, _ in select._options), what="the new status")
        assert not any(f"{first} (hindsight, frozen)" in str(label) for label, _ in select._options)


async def test_the_runs_transcript_names_the_study_shown(tmp_path):
    store, first, second = two_studies(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "3", "RunsScreen")
        for sid in (first, second, first):
            app.screen.select_study(sid)
            await pilot.pause(0.2)
            title = str(app.screen.query_one("#transcript").border_title or "")
            assert title in ("", f"{sid}: no run chosen"), title
            assert (second if sid == first else first) not in title


async def test_another_studys_judging_is_not_said_above_a_study(tmp_path):
    store, first, second = two_studies(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "2", "StudiesScreen")
        app.screen.refresh_list(select=first)
        app.screen.say_work(first, f"judged {first}: 10 ok, 0 judge errors")
        await pilot.pause()
        work = app.screen.query_one("#study-work", Static)
        assert work.display and first in str(work.render())
        app.screen.refresh_list(select=second)
        await pilot.pause()
        assert not work.display or first not in str(work.render())
        app.screen.refresh_list(select=first)
        await pilot.pause()
        assert work.display and first in str(work.render())  # its own study's result is still there


def test_the_simulated_banner_does_not_call_hand_typed_scores_simulated():
    from screens.studies import HAND_SCORED_BANNER, detail_text
    from workbench.simmodel.label import BANNER

    assert BANNER in str(detail_text("s", True)) and "simulated raters" in BANNER
    hand = str(detail_text("s", True, hand_scored=True))
    assert HAND_SCORED_BANNER in hand and BANNER not in hand and "a person's" in hand


def test_help_names_a_protocol_screen_in_words():
    from screens.app import screen_title

    debate = type("DebateScreen", (), {"sub_title": "", "title": "", "__module__": "screens.faultline.debate"})
    assert screen_title(debate()) == "Debate (faultline)"  # help's "Keys on …", not "Keys on DebateScreen"
    titled = type("MetricsScreen", (), {"sub_title": "Metrics", "title": "", "__module__": "screens.metrics"})
    assert screen_title(titled()) == "Metrics"


async def test_escape_leaves_a_settings_field_and_the_section_keys_work_again(tmp_path):
    store, _, _ = two_studies(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "6", "SettingsScreen")
        await settings_loaded(pilot)
        field = app.screen.query_one("#gw-concurrency", Input)
        field.focus()
        await pilot.pause()
        before = field.value
        await pilot.press("escape")
        await pilot.press("2")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "StudiesScreen", what="Studies by its key")
        assert field.value == before  # the 2 went to the sections, not into the field


async def test_the_palette_offers_other_sections_commands_from_anywhere(tmp_path):
    from screens.commands import OtherSections

    store, first, _ = two_studies(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "1", "CasesScreen")
        provider = OtherSections(app.screen)
        await provider.startup()
        titles = {title: callback for title, _, callback in provider.commands()}
        assert f"studies: freeze {first}" in titles and "metrics: recompute" in titles and "runs: reload" in titles
        assert not any(t.startswith("cases:") for t in titles)  # the shown section's own are listed elsewhere
        titles[f"studies: run {first}"]()
        await wait_until(pilot, lambda: type(app.screen).__name__ == "RunsScreen", what="Runs")
        await wait_until(pilot, lambda: app.screen.study_id == first, what="the study in Runs")


async def test_runs_and_metrics_share_one_study_picker(tmp_path):
    """One picker (screens/widgets/study_picker.py): the same studies, labels and order in both sections, and a
    person's choice of another study ends the following (Runs said "chosen in Studies" again on coming back)."""
    store, first, second = two_studies(tmp_path)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "5", "MetricsScreen")
        await wait_until(pilot, lambda: app.screen.protocols, what="the study list")
        in_metrics = list(app.screen.query_one("#study-select", Select)._options)
        await go(pilot, "2", "StudiesScreen")
        app.screen.refresh_list(select=first)
        await pilot.pause()
        await go(pilot, "3", "RunsScreen")
        await wait_until(pilot, lambda: app.screen.study_id == first, what="Runs following")
        select = app.screen.query_one("#study-select", Select)
        assert list(select._options) == in_metrics
        assert {value for _, value in in_metrics} == {first, second}
        note = app.screen.query_one("#study-note", Static)
        assert "chosen in Studies" in str(note.render())
        for sid in (second, first):  # a person's choice, then back to the study chosen in Studies
            select.value = sid
            await wait_until(pilot, lambda: app.screen.study_id == sid, what=sid)
            await pilot.pause()
            assert "chosen in Studies" not in str(note.render()), sid
