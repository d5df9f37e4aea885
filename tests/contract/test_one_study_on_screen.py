"""Issue 33, item 1: one study on screen at a time. One store holds a study of every registered protocol;
each section switches between them in turn, and what it shows after switching from one study to another
is exactly what it shows for that study opened alone: nothing of the previous study remains (before, the
Metrics section kept one study's tables and plots under the next one's name)."""

from __future__ import annotations

import csv
import io

import pytest
from textual.widgets import DataTable, Static

from screens.launch import make_app
from tests.contract.conftest import quiet
from workbench.exports.catalog import EXPORTS
from tests.contract.studies import STUDIES
from tests.contract.test_shared_screens import idle
from tests.screens.study_screen_helpers import wait_until

SIZE = (160, 50)
ORDER = [s.name for s in STUDIES]


@pytest.fixture(scope="module")
def four_store(tmp_path_factory, toy_registered):
    """Every contract study in one store: created, run, judged and rated where it has judges and raters."""
    root = tmp_path_factory.mktemp("four")
    db = str(root / "store.db")

    def step(*argv: str) -> None:
        code, out, err = quiet(["--batch", "--db", db, *argv])
        assert code == 0, f"{' '.join(argv)} exited {code}\n{out}\n{err}"

    for study in STUDIES:
        path = root / f"{study.name}.toml"
        path.write_text(study.study_text(), encoding="utf-8")
        step("study", "create", str(path))
        if study.before_freeze:
            step(*study.before_freeze, study.name)
        step("run", study.name)
        if study.judges:
            step("judge", study.name)
        if study.raters:
            step("simulate", "raters", study.name)
        if study.judges or study.raters:  # every export open (the tidy tables wait for unblinding)
            step("unblind", study.name, "--force", "--by", "test", "--reason", "exports of a sim study")
    return db


LISTS = {"study-table"}  # the Studies section's list of every study: the one place other studies belong


def content(screen, *, lists: bool = True) -> list[str]:
    """What a section shows, as sorted texts: every visible Static, every DataTable cell, every border title
    (`lists`: with the list of every study)."""
    texts = []
    for widget in screen.query("*"):
        if not widget.display or (not lists and widget.id in LISTS):
            continue
        if isinstance(widget, Static):
            texts.append(str(widget.render()))
        elif isinstance(widget, DataTable):
            texts += [str(c) for r in range(widget.row_count) for c in widget.get_row_at(r)]
        if widget.border_title:
            texts.append(str(widget.border_title))
    return sorted(t for t in texts if t.strip())


async def shown_alone(four_store, section: str, study_id: str, show) -> list[str]:
    app = make_app(four_store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(section)
        await idle(pilot)
        await show(pilot, study_id)
        return content(app.screen)


async def check_switching(four_store, section: str, show) -> None:
    alone = {sid: await shown_alone(four_store, section, sid, show) for sid in ORDER}
    app = make_app(four_store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(section)
        await idle(pilot)
        for previous, sid in zip(ORDER + ORDER[:1], ORDER[1:] + ORDER[:2]):  # each after another, then round again
            await show(pilot, sid)
            now = content(app.screen)
            stale = sorted(set(now) - set(alone[sid]))
            assert not stale, f"after {previous}, {sid} shows what it does not show alone: {stale[:5]}"
            assert sorted(set(alone[sid]) - set(now)) == [], f"{sid} after {previous} misses some of its own"
            for other in ORDER:
                if other != sid:
                    assert all(other not in t for t in content(app.screen, lists=False)), \
                        f"{other} still on screen under {sid}"


async def show_metrics(pilot, sid: str) -> None:
    from textual.widgets import Select

    screen = pilot.app.screen
    await wait_until(pilot, lambda: screen.protocols, what="the study list")
    screen.query_one("#study-select", Select).value = sid
    await wait_until(pilot, lambda: screen.shown == sid, timeout=300, what=f"the metrics of {sid}")
    await idle(pilot)


async def show_runs(pilot, sid: str) -> None:
    pilot.app.screen.select_study(sid)
    await idle(pilot)
    assert pilot.app.screen.study_id == sid


async def show_studies(pilot, sid: str) -> None:
    pilot.app.screen.refresh_list(select=sid)
    await idle(pilot)
    assert pilot.app.screen.selected_study_id() == sid


async def test_metrics_shows_one_study_at_a_time(four_store):
    await check_switching(four_store, "5", show_metrics)


async def test_runs_shows_one_study_at_a_time(four_store):
    await check_switching(four_store, "3", show_runs)


async def test_studies_shows_one_study_at_a_time(four_store):
    await check_switching(four_store, "2", show_studies)


SIM_STUDIES = [s for s in STUDIES if s.source and "sim" in s.source]
SHARED = {e.id for e in EXPORTS}


def test_every_export_and_save_of_a_sim_study_carries_the_label(four_store, tmp_path):
    """Issue 33, item 3: every entry of the export catalog — the shared ones and each protocol's own
    (faultline's debates, M11's results, calibration's folders) — and the Metrics section's save, on a sim
    study of every protocol: every file written carries the SIMULATED mark in its format's place, but for
    images and Inspect's zipped logs. A JSON document has `"simulated": true` at its top level (an Inspect log in
its eval metadata), a CSV a
    `simulated` column saying SIMULATED on every row, a text its first line (a simulated reply quoted in
    the file does not count: its banner says SIMULATED too)."""
    from store import open_store
    from workbench.exports.catalog import ExportFailed, exports_for
    from workbench.files.folder import MANIFEST
    from workbench.exports.metrics_files import csv_text, save_screen, screen_tabs, study_marks, study_metrics
    from workbench.protocol.registry import get, names
    from workbench.simmodel.label import LABEL
    from workbench.studies.lookup import load_study

    with_own_exports = {name for name in names() if get(name).exports()}
    assert with_own_exports >= {"faultline", "m11", "calibration"}
    assert with_own_exports <= {s.protocol for s in SIM_STUDIES}, "a protocol's own exports left unwalked"
    db = open_store(four_store)
    unlabelled, walked = [], set()
    try:
        for study in SIM_STUDIES:
            folders = []
            for entry in exports_for(db, study.name):
                out = tmp_path / study.name / entry.id
                try:
                    entry.write(db, study.name, out)
                except ExportFailed:  # refused for this study (no blind items to export …): nothing written
                    assert entry.id in SHARED, f"{study.protocol}'s own export {entry.id} refused"
                    assert not out.exists(), entry.id
                    continue
                folders.append(out)
                walked.add(entry.id)
            assert tmp_path / study.name / "table" in folders  # the tidy tables, for every protocol
            protocol = get(study.protocol)  # the Metrics section's `w`: its tabs' tables, plots and rows, saved
            door = protocol.analysis()
            tabs = screen_tabs(db, study.name, protocol, door.analyze(db, study.name) if door else None)
            out = tmp_path / study.name / "metrics-screen"
            definition = load_study(db, study.name)["definition"]
            save_screen(out, study.name, tabs, {"means": "a plot"}, marks=study_marks(db, study.name, definition),
                        definition=definition,
                        metrics_csv=csv_text(study.name, study_metrics(db, study.name, csv=True)[0]))
            folders.append(out)
            for path in (p for f in folders for p in f.rglob("*") if p.is_file()):
                if path.name == MANIFEST or path.suffix in (".png", ".eval"):
                    continue
                if not labelled(path, LABEL):
                    unlabelled.append(str(path.relative_to(tmp_path)))
    finally:
        db.close()
    assert walked >= {e.id for name in with_own_exports for e in get(name).exports()}
    assert not unlabelled, f"written without the {LABEL} label: {unlabelled}"


def labelled(path, label: str) -> bool:
    """The file carries the mark its format has (see the test above)."""
    import json

    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        document = json.loads(text)
        if isinstance(document, dict) and isinstance(document.get("eval"), dict):  # an Inspect log: its own schema
            document = document["eval"].get("metadata") or {}                    # holds the mark in its metadata
        return isinstance(document, dict) and document.get("simulated") is True
    if path.suffix == ".csv":  # cells may hold line breaks (outputs): read as CSV
        rows = list(csv.DictReader(io.StringIO(text)))
        return "simulated" in (csv.DictReader(io.StringIO(text)).fieldnames or []) and \
            all(row["simulated"] == label for row in rows)
    return label in text.splitlines()[0] if text else False
