"""Import interactions (CSV or JSONL) into a calibration study, with a progress bar and each bad record listed."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Input, ProgressBar, Static


class CalibrationImportScreen(Screen):
    """Given (db, study_id): choose a file, import it in a worker, watch the progress, read the problems."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="calibration-import-back",
                        tooltip="Leave the import screen")]
    DEFAULT_CSS = """
    CalibrationImportScreen #cal-import-form { height: auto; }
    CalibrationImportScreen #cal-import-path { width: 1fr; }
    CalibrationImportScreen #cal-import-summary { height: auto; padding: 0 1; }
    CalibrationImportScreen #cal-import-problems { height: 1fr; }
    """

    def __init__(self, db, study_id: str) -> None:
        super().__init__()
        self.db, self.study_id = db, study_id
        self.summary = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Import interactions into [b]{self.study_id}[/b] (CSV or JSONL)", id="cal-import-title")
            with Horizontal(id="cal-import-form"):
                yield Input(placeholder="path/to/interactions.jsonl", id="cal-import-path")
                yield Button("Import", id="cal-import-go", variant="primary")
            yield ProgressBar(id="cal-import-progress", show_eta=False)
            yield Static("", id="cal-import-summary")
            yield DataTable(id="cal-import-problems", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#cal-import-problems", DataTable)
        table.add_columns("line", "column", "problem")
        self._show_history()

    def _show_history(self) -> None:
        from workbench.protocols.calibration.importer import import_history

        past = import_history(self.db, self.study_id)
        if past:
            last = past[-1]
            self.query_one("#cal-import-summary", Static).update(
                f"Last import: {last['file']} — {last['added']} added, {last['bad']} bad")

    @on(Input.Submitted, "#cal-import-path")
    @on(Button.Pressed, "#cal-import-go")
    def start(self) -> None:
        path = self.query_one("#cal-import-path", Input).value.strip()
        if not path:
            self.notify("Choose a file to import", severity="warning")
            return
        self.query_one("#cal-import-go", Button).disabled = True
        self.query_one("#cal-import-summary", Static).update(f"Importing {path} …")
        self.run_import(path)

    @work(thread=True, exclusive=True, exit_on_error=False, group="calibration-import")
    def run_import(self, path: str) -> None:
        from workbench.paths import thread_connection
        from workbench.protocols.calibration.importer import ImportRefused, import_file, record_import

        db = thread_connection(self.db)
        try:
            summary = import_file(db, self.study_id, path, progress=self._progress_from_thread)
            record_import(db, self.study_id, summary)
        except ImportRefused as exc:
            self.app.call_from_thread(self._refused, str(exc))
            return
        finally:
            if db is not self.db:
                db.close()
        self.app.call_from_thread(self._done, summary)

    def _progress_from_thread(self, done: int, total: int) -> None:
        self.app.call_from_thread(self._progress, done, total)

    def _progress(self, done: int, total: int) -> None:
        self.query_one("#cal-import-progress", ProgressBar).update(total=max(total, 1), progress=done)

    def _refused(self, message: str) -> None:
        self.query_one("#cal-import-go", Button).disabled = False
        self.query_one("#cal-import-summary", Static).update(f"[b]Refused:[/b] {message}")

    def _done(self, summary) -> None:
        self.summary = summary
        self.query_one("#cal-import-go", Button).disabled = False
        bar = self.query_one("#cal-import-progress", ProgressBar)
        bar.update(total=max(summary.records, 1), progress=max(summary.records, 1))
        more = summary.problems_total - len(summary.problems)
        nothing = "[b]Nothing loaded[/b] (see the problem below) · " if not summary.added + summary.already_present else ""
        self.query_one("#cal-import-summary", Static).update(
            nothing + f"{summary.records} read · {summary.added} added · {summary.already_present} already present · "
            f"{summary.bad} bad · {summary.conflicting} conflicting" + (f" (+{more} problems not listed)" if more else ""))
        table = self.query_one("#cal-import-problems", DataTable)
        table.clear()
        for p in summary.problems:
            table.add_row(str(p.line), p.field, p.message)
