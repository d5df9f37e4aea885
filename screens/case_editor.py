"""The case editor: every field of a case, live validation, save to file and store, no silent loss.

Validation is the batch CLI's (`workbench.cases.editing`), run a moment after
the last keystroke. Saving goes through `workbench.cases.library.save_case` in a
thread worker; its outcome is handled in `on_worker_state_changed`. Leaving or
quitting with unsaved changes asks: save, discard or cancel.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from textual import on, work
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Header, Input, Select, Static, TextArea
from textual.worker import Worker, WorkerCancelled, WorkerFailed, WorkerState

from screens.confirm import DISCARD, SAVE, unsaved_changes_dialog
from screens.widgets.case_form import TEXT_FIELDS, CaseDetails, IdentityFields, field_widget_id
from screens.widgets.footer import KeyFooter
from screens.widgets.mapping import MappingRow
from screens.widgets.problems import FormProblems, ProblemList
from screens.widgets.unsaved_guard import LeaveAsking
from workbench.cases.editing import (
    changed_outside, default_case_path, editor_problems, has_errors, read_case_file, with_stored_probes,
)
from workbench.cases import CaseError, Problem
from workbench.cases.model import CRITERIA, PRESERVES, SECTIONS, STRATEGIES, Case, Transposition

CHECK_DELAY = 0.3  # seconds of quiet typing before the case is re-validated


@dataclass
class CaseSaved(Message):
    """Posted after a case was written to its file and the store."""

    case_id: str
    path: Path


def normalized(case: Case) -> Case:
    """The case as its file will hold it (the parser strips strings and prose), for comparing and saving."""
    strip = {k: getattr(case, k).strip() for k in (*TEXT_FIELDS, *SECTIONS)}
    tr = case.transposition
    return replace(case, **strip, transposition=Transposition(
        original=tr.original.strip(),
        mapping=[{"from": m["from"], "to": m["to"]} for m in tr.mapping],
        verifiers=[v.strip() for v in tr.verifiers if v.strip()],
        preserves=dict(tr.preserves),
    ))


class CaseEditorScreen(FormProblems, LeaveAsking, Screen[str | None]):
    """Edits one case; dismisses with the case id (None when a new case was never saved)."""

    CSS_PATH = "styles/cases.tcss"
    AUTO_FOCUS = "#f-id"
    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="editor.save",
                tooltip="Write the case file and the store; refused while the case has errors"),
        Binding("escape", "leave", "Back", id="editor.leave",
                tooltip="Back to the case list; asks first if there are unsaved changes"),
        Binding("f2", "focus_problems", "Problems", id="editor.problems",
                tooltip="Go to the list of problems; enter on a problem jumps to its field"),
        Binding("ctrl+t", "add_mapping_row", "Add mapping", id="editor.add_mapping",
                tooltip="Add a from → to row to the transposition mapping"),
    ]

    def __init__(self, case: Case | None = None, source_path: Path | None = None, *,
                 probe_records: list[dict] | None = None, cases_dir: Path | None = None) -> None:
        super().__init__()
        self.baseline = normalized(case) if case else Case(id="", title="")
        self.original_id: str | None = case.id if case else None
        self.original_path: Path | None = Path(source_path) if source_path else None
        self.probe_records = probe_records if probe_records is not None else [
            dict(vars(p), origin="file") for p in self.baseline.probes]
        self._cases_dir = cases_dir
        self.problems: list[Problem] = []
        self.known_rubrics: set[str] | None = None  # None until loaded: the rubric check is skipped
        self.stored: list[dict] = []
        self._check_timer = None
        self._saving: Worker | None = None
        self._applied: set[int] = set()
        self.form_complete = False  # True once CaseDetails is mounted
        self.opened_file: Case | None = None  # the case file's content when the editor opened it

    # -- layout -----------------------------------------------------------------------------------

    def compose(self):
        yield Header(show_clock=False)
        with Horizontal(id="editor-body"):
            with VerticalScroll(id="editor-form"):
                yield Static("Case", classes="form-heading")
                yield IdentityFields(self.baseline)
            with Vertical(id="editor-side"):
                yield Static("Problems", classes="side-heading")
                yield ProblemList(id="problems")
        yield KeyFooter()

    def _probe_text(self) -> str:
        if not self.probe_records:
            return "No probe recorded. Press p on this case in the list to run one."
        lines = []
        for r in self.probe_records:
            flag = "  ⚑ recognized: transpose or exclude" if r.get("verdict") == "recognized" else ""
            lines.append(f"{r.get('date', '')} · {r.get('model', '')} · {r.get('verdict', '')} "
                         f"({r.get('origin', 'file')}){flag}")
        return "\n".join(lines)

    def on_mount(self) -> None:
        self._update_title()
        self.call_after_refresh(self._mount_details)

    async def _mount_details(self) -> None:
        """Mount the bulk of the form after the first paint, then load what validation needs."""
        await self.query_one("#editor-form", VerticalScroll).mount(CaseDetails(self.baseline, self._probe_text()))
        self.form_complete = True
        self._load_reference(self.app.db, self.original_path)

    # -- reference data (rubric ids, stored cases) -------------------------------------------------

    @work(thread=True, exclusive=True, group="reference", exit_on_error=False)
    def _load_reference(self, db, original_path: Path | None) -> tuple[set[str], list[dict], Path, Case | None]:
        """Rubric ids, the stored cases, the cases dir, and what the case's file holds as the editor opens."""
        from workbench.cases.listing import case_summaries
        from workbench.cases.library import known_rubric_ids
        from workbench.paths import user_cases_dir

        return (known_rubric_ids(db), case_summaries(db), self._cases_dir or user_cases_dir(),
                read_case_file(original_path))

    def _apply_reference(self, rubrics: set[str], stored: list[dict], cases_dir: Path, opened_file: Case | None
                         ) -> None:
        self.opened_file = opened_file
        self.known_rubrics, self.stored, self._cases_dir = rubrics, stored, cases_dir
        select = self.query_one("#f-rubric", Select)
        current = select.value
        ids = sorted(rubrics | ({self.baseline.rubric} if self.baseline.rubric else set()))
        select.set_options([(r, r) for r in ids])
        if current is not Select.NULL and current in ids:
            select.value = current
        self.check_now()

    # -- reading the form -------------------------------------------------------------------------

    def form_case(self) -> Case:
        """The case as the form holds it right now (fields not mounted yet still hold the baseline)."""
        def value(widget_id: str) -> str:
            return self.query_one(f"#{widget_id}", Input).value

        def chosen(widget_id: str) -> str:
            v = self.query_one(f"#{widget_id}", Select).value
            return "" if v is Select.NULL else str(v)

        def checked(widget_id: str) -> bool:
            return self.query_one(f"#{widget_id}", Checkbox).value

        case = replace(
            self.baseline,
            id=value("f-id").strip(),
            title=value("f-title"),
            type=chosen("f-type"),
            domain=chosen("f-domain"),
            status=chosen("f-status"),
            decision_date=value("f-decision_date"),
            complexity=chosen("f-complexity"),
            concern_domain=chosen("f-concern_domain"),
            rubric=chosen("f-rubric"),
            source=value("f-source"),
        )
        if not self.form_complete:
            return case
        mapping = [{"from": a, "to": b} for a, b in (row.pair for row in self.query(MappingRow)) if a or b]
        return replace(
            case,
            strategies=[s for s in STRATEGIES if checked(f"f-strategy-{s}")],
            criteria={k: checked(f"f-criteria-{k}") for k in CRITERIA},
            transposition=Transposition(
                original=value("f-tr-original"),
                mapping=mapping,
                verifiers=[i.value for i in self.query(".verifier").results(Input)],
                preserves={k: checked(f"f-tr-preserves-{k}") for k in PRESERVES},
            ),
            probes=list(self.baseline.probes),
            **{k: self.query_one(f"#f-{k}", TextArea).text for k in SECTIONS},
        )

    def _cases_directory(self) -> Path:
        if self._cases_dir is None:  # a new case goes to the user's case library, not the installed package
            from workbench.paths import user_cases_dir

            self._cases_dir = user_cases_dir()
        return self._cases_dir

    def target_path(self, case: Case) -> Path:
        """Where a save writes: the File field if filled in, else the case's own file, else <cases>/<id>.md."""
        typed = self.query_one("#f-path", Input).value.strip()
        if typed:
            return Path(typed).expanduser()
        if self.original_path is not None:
            if case.id == self.original_id:
                return self.original_path
            return self.original_path.parent / f"{case.id or 'untitled'}.md"
        return default_case_path(case.id, self._cases_directory())

    def has_unsaved_changes(self) -> bool:
        case = normalized(self.form_case())
        if self.original_path is not None and self.target_path(case) != self.original_path:
            return True
        return case != self.baseline

    # -- live validation --------------------------------------------------------------------------

    @on(Input.Changed)
    @on(TextArea.Changed)
    @on(Checkbox.Changed)
    @on(Select.Changed)
    def _field_changed(self, event: Message) -> None:
        if self._check_timer is not None:
            self._check_timer.stop()
        self._check_timer = self.set_timer(CHECK_DELAY, self.check_now)

    def check_now(self) -> list[Problem]:
        """Validate the form as it is and show the problems; returns them."""
        if self._check_timer is not None:
            self._check_timer.stop()
            self._check_timer = None
        case = normalized(self.form_case())
        path = self.target_path(case)
        self.show_problems(editor_problems(case, path, known_rubrics=self.known_rubrics,
                                           original_id=self.original_id, original_path=self.original_path,
                                           stored=self.stored))
        self.query_one("#path-target", Static).update(f"saves to {display_path(path)}")
        self._update_title()
        return self.problems

    def _update_title(self) -> None:
        name = f"Case {self.original_id}" if self.original_id else "New case"
        bits = [name]
        if self.is_mounted and self.has_unsaved_changes():
            bits.append("modified")
        errors = sum(p.severity == "error" for p in self.problems)
        if errors:
            bits.append(f"{errors} error{'s' if errors != 1 else ''}")
        self.sub_title = " · ".join(bits)

    FORM_SCROLL = "#editor-form"

    def problem_widget(self, field: str):
        widget_id = field_widget_id(field)
        found = self.query(f"#{widget_id}") if widget_id else None
        return found.first() if found else None

    # -- the transposition mapping ----------------------------------------------------------------

    async def action_add_mapping_row(self) -> None:
        if not self.form_complete:
            return
        row = MappingRow()
        await self.query_one("#mapping-rows", Vertical).mount(row)
        row.query_one(".map-from", Input).focus()
        self._field_changed(None)

    @on(Button.Pressed, "#add-mapping")
    async def _add_pressed(self) -> None:
        await self.action_add_mapping_row()

    async def on_mapping_row_remove_requested(self, event: MappingRow.RemoveRequested) -> None:
        await event.row.remove()
        self._field_changed(None)

    # -- saving -----------------------------------------------------------------------------------

    def action_save(self) -> Worker | None:
        """Start writing the case; returns the worker, or None when errors (now shown) prevent it."""
        if self._saving is not None and self._saving.is_running:
            return self._saving
        problems = self.check_now()
        if has_errors(problems):
            errors = [p for p in problems if p.severity == "error"]
            self.notify(f"Not saved: {len(errors)} error(s). First: {errors[0].field}: {errors[0].message}",
                        title="Case has errors", severity="error")
            return None
        case = normalized(self.form_case())
        self._saving = self._write(self.app.db, case, self.target_path(case), self.original_id,
                                   self.original_path, self.opened_file)
        return self._saving

    @work(thread=True, exclusive=True, group="save", exit_on_error=False)
    def _write(self, db, case: Case, path: Path, original_id: str | None, original_path: Path | None,
               opened_file: Case | None) -> tuple[Case, Path]:
        """Re-check against the store and the file as they are now, then write both (library.save_case)."""
        from workbench.cases.listing import case_summaries
        from workbench.cases.library import known_rubric_ids, save_case

        case = with_stored_probes(db, case, original_id)
        problems = editor_problems(case, path, known_rubrics=known_rubric_ids(db), original_id=original_id,
                                   original_path=original_path, stored=case_summaries(db))
        if original_path is not None and Path(path).resolve() == Path(original_path).resolve():
            conflict = changed_outside(path, opened_file)
            if conflict is not None:
                problems.append(conflict)
        if has_errors(problems):
            raise CaseError([p for p in problems if p.severity == "error"])
        save_case(db, case, path)
        return case, path

    def _saved(self, worker: Worker) -> None:
        """Apply a finished save once (it is reached from the state handler or from a waiting prompt)."""
        if id(worker) in self._applied:
            return
        self._applied.add(id(worker))
        case, path = worker.result
        self.baseline = case
        self.opened_file = case
        self.original_id = case.id
        self.original_path = path
        self.stored = [r for r in self.stored if r["id"] != case.id] + [{"id": case.id, "source_path": str(path)}]
        self.query_one("#f-path", Input).value = ""
        self.check_now()
        self.notify(f"Saved {case.id} to {display_path(path)}", title="Case saved")
        self.post_message(CaseSaved(case.id, path))

    def _save_failed(self, worker: Worker) -> None:
        if id(worker) in self._applied:
            return
        self._applied.add(id(worker))
        error = worker.error
        if isinstance(error, CaseError):
            self.problems = sorted(error.problems, key=lambda p: p.field)
            self.query_one(ProblemList).show(self.problems)
            self.notify(f"Not saved: {error.problems[0].field}: {error.problems[0].message}",
                        title="Case has errors", severity="error")
        else:
            self.notify(f"Not saved: {error}", title="Save failed", severity="error")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.group == "reference":
            if event.state == WorkerState.SUCCESS:
                self._apply_reference(*worker.result)
            elif event.state == WorkerState.ERROR:
                self.notify(f"Could not read rubrics and cases: {worker.error}", severity="error")
        elif worker.group == "save":
            if event.state == WorkerState.SUCCESS:
                self._saved(worker)
            elif event.state == WorkerState.ERROR:
                self._save_failed(worker)
        elif worker.group == "leave" and event.state == WorkerState.ERROR:
            self.notify(f"{worker.error}", severity="error")

    # -- leaving ----------------------------------------------------------------------------------

    async def resolve_unsaved_changes(self) -> bool:
        """Ask save / discard / cancel if there are unsaved changes. True when nothing is left to lose.

        Must run in a worker (it waits for the dialog)."""
        if not self.has_unsaved_changes():
            return True
        what = f"Case '{self.original_id}'" if self.original_id else "The new case"
        choice = await self.app.push_screen_wait(unsaved_changes_dialog(what))
        if choice == DISCARD:
            return True
        if choice != SAVE:
            return False
        worker = self.action_save()
        if worker is None:
            return False
        try:
            await worker.wait()
        except (WorkerFailed, WorkerCancelled):
            self._save_failed(worker)
            return False
        self._saved(worker)
        return True

    def left_with(self) -> str | None:
        return self.original_id


def display_path(path: Path) -> str:
    """A path as the user reads it: relative to the case library, the shipped cases dir or the working dir
    when inside one of them."""
    from workbench.paths import shipped_cases_dir, user_cases_dir

    path = Path(path)
    for base, prefix in ((shipped_cases_dir(), "cases/"), (user_cases_dir(), "case library: "), (Path.cwd(), "")):
        try:
            return prefix + str(path.resolve().relative_to(base.resolve()))
        except ValueError:
            continue
    return str(path)
