"""The Studies screen's finishing actions: unblind, the report, the exports (issue 24, item 4).

Each calls the core function its batch command calls (`workbench.scoring.unblind.unblind`,
`workbench.reports.study_report.write_study_report`, the `workbench.exports.catalog` entries), never a
copy of their rules. Writing a report or an export is long work: it runs in a thread worker on a store
connection of its own (`workbench.paths.thread_connection`); its result or failure arrives in the
screen's one `on_worker_state_changed` (group `STUDY_WORK`).
"""

from __future__ import annotations

import threading

from textual import work

from screens.ask_dialog import AskDialog
from screens.confirm import CANCEL, Choice, ChoiceDialog

STUDY_WORK = "studies-work"
UNBLIND, FORCE = "unblind", "force"


def unblind_dialog(study_id: str, completion: dict[str, dict]) -> ChoiceDialog:
    """Names what unblinding opens, and who has not finished (then only a forced unblinding is possible)."""
    remaining = {r: c for r, c in completion.items() if c["done"] < c["total"]}
    progress = ", ".join(f"{r} {c['done']}/{c['total']}" for r, c in completion.items()) or "no rater"
    message = (f"Unblinding opens the sealed key of {study_id}: which condition and model wrote each blind "
               "item. Metrics, the report and the exports then show every score by condition, and scoring "
               f"closes for every rater. It is recorded with your name, the time and your reason.\n\n"
               f"Scored so far: {progress}.")
    if remaining:
        message += ("\n\nScoring is not complete: only a FORCED unblinding is possible, and every result is "
                    "then marked as force-unblinded.")
        choices = [Choice(FORCE, "Unblind anyway (forced)", "f", "error"), Choice(CANCEL, "Cancel", "c")]
    else:
        choices = [Choice(UNBLIND, "Unblind", "u", "warning"), Choice(CANCEL, "Cancel", "c")]
    return ChoiceDialog(f"Unblind {study_id}?", message, choices, cancel_id=CANCEL, default_id=CANCEL)


def export_dialog(study_id: str, entries) -> ChoiceDialog:
    """One button per entry of the core's export catalog, the study's protocol's own last (its position is
    its key)."""
    lines = [f"{k}. {e.title}: {e.description}" for k, e in enumerate(entries, start=1)]
    choices = [Choice(e.id, e.title, str(k)) for k, e in enumerate(entries, start=1)]
    return ChoiceDialog(f"Export {study_id}", "\n".join(lines), [*choices, Choice(CANCEL, "Cancel", "c")],
                        cancel_id=CANCEL, default_id=CANCEL, stacked=True)


class StudyActions:
    """Mixed into StudiesScreen: `unblind`, `report`, `export` for one study, from keys and the palette."""

    # -- unblinding -----------------------------------------------------------------------------

    def unblind(self, study_id: str) -> None:
        self._unblind_after_asking(study_id)

    @work(exclusive=True, group="studies-unblind", exit_on_error=False)
    async def _unblind_after_asking(self, study_id: str) -> None:
        from workbench.blinding.context import BlindingError
        from workbench.blinding.unblind import unblind_state
        from workbench.scoring.actor import acting_user
        from workbench.scoring.results import scoring_completion
        from workbench.scoring.unblind import unblind

        db = self.app.db
        try:
            if unblind_state(db, study_id).unblinded:
                self.notify(f"{study_id} is already unblinded", title="Unblind")
                return
            dialog = unblind_dialog(study_id, scoring_completion(db, study_id))
        except BlindingError as exc:
            self.notify(f"{study_id} cannot be unblinded: {exc}", title="Unblind", severity="error", timeout=15)
            return
        answer = await self.app.push_screen_wait(dialog)
        if answer not in (UNBLIND, FORCE):
            return
        reason = await self.app.push_screen_wait(AskDialog(
            f"Why unblind {study_id}?", "The reason is recorded with the unblinding (who, when, why).",
            placeholder="e.g. every rater has finished"))
        if reason is None:
            return
        try:
            record = unblind(db, study_id, by=acting_user(), force=answer == FORCE, reason=reason)
        except BlindingError as exc:
            self.notify(str(exc), title="Unblind", severity="error", timeout=15)
            return
        forced = " (FORCED: every result is marked)" if record["forced"] else ""
        self.notify(f"{study_id} unblinded by {record['by']} at {record['at']}{forced}", title="Unblind")
        self.refresh_list(select=study_id)

    # -- the report -------------------------------------------------------------------------------

    def report(self, study_id: str) -> None:
        self.app.push_screen(AskDialog(
            f"Report of {study_id}", "The Markdown file to write (replaced whole once it is complete); the same "
            "report as `workbench --batch report`.", value=f"{study_id}-report.md"),
            callback=lambda path: path and self._write_report(study_id, path))

    @work(thread=True, group=STUDY_WORK, exit_on_error=False)
    def _write_report(self, study_id: str, path: str) -> str:
        from workbench.metrics.embeddings import progress_text
        from workbench.paths import thread_connection
        from workbench.protocol.registry import protocol_of
        from workbench.reports.study_report import write_study_report
        from workbench.studies.lookup import load_study

        def tell(step: str, done: int, total: int) -> None:
            self.app.call_from_thread(self.notify, progress_text(step, done, total), title="Report", timeout=3)

        db = thread_connection(self.app.db)
        try:
            protocol = protocol_of(load_study(db, study_id)["definition"])
            options = {"csv": False, "comparisons": [], "include_dq": True, "embedding_model": None,
                       "progress": tell}
            written = write_study_report(db, study_id, protocol, options, path)
        finally:
            if db is not self.app.db:
                db.close()
        return f"wrote the report of {study_id} to {written}"

    # -- exports ----------------------------------------------------------------------------------

    def export(self, study_id: str) -> None:
        self._export_after_asking(study_id)

    @work(exclusive=True, group="studies-export-ask", exit_on_error=False)
    async def _export_after_asking(self, study_id: str) -> None:
        from workbench.exports.catalog import export_by_id, exports_for

        export_id = await self.app.push_screen_wait(export_dialog(study_id, exports_for(self.app.db, study_id)))
        if export_id == CANCEL:
            return
        from screens.folder_ask import ask_to_write
        from workbench.files.defaults import OUTPUT_ENV, default_output

        entry = export_by_id(export_id, self.app.db, study_id)
        folder = await self.app.push_screen_wait(AskDialog(
            f"{entry.title} of {study_id}", f"The folder to write: {entry.description}. A folder that holds "
            f"files is asked about first; only files the workbench wrote there are ever replaced. (The proposed "
            f"folder is under ${OUTPUT_ENV}, or your documents folder.)",
            value=str(default_output(study_id, entry.id))))
        if not folder:
            return
        replace = await ask_to_write(self, folder)
        if replace is not None:
            self._write_export(study_id, export_id, folder, replace)

    @work(thread=True, group=STUDY_WORK, exit_on_error=False)
    def _write_export(self, study_id: str, export_id: str, folder: str, replace: bool = False) -> str:
        from workbench.exports.catalog import export_by_id
        from workbench.paths import thread_connection

        db = thread_connection(self.app.db)
        try:
            return export_by_id(export_id, db, study_id).write(db, study_id, folder, replace=replace).summary
        finally:
            if db is not self.app.db:
                db.close()


def pilots_dialog(study_id: str, held_raters: list[str], result: dict) -> ChoiceDialog:
    """The calibration pilots' result per rater and judge; one release button per held rater."""
    from workbench.scoring.calibration import calibration_text
    text = calibration_text(result) or "no rater or judge has calibration pilots"
    if held_raters:
        text += "\n\nA held rater scores nothing more until released; the release is recorded with a reason."
    # a widget id cannot hold every character a rater's name may: the choice is its position
    choices = [Choice(f"release-{k}", f"Release {name}", str(k), "warning")
               for k, name in enumerate(held_raters, start=1)]
    return ChoiceDialog(f"Calibration pilots of {study_id}", text, [*choices, Choice(CANCEL, "Close", "c")],
                        cancel_id=CANCEL, default_id=CANCEL)


def packet_rater_dialog(study_id: str, raters: list[str], held_raters: set[str]) -> ChoiceDialog:
    """Whose packet: one button per rater, a held one marked, and what their packet then holds."""
    from workbench.pilots.calibration import release_command

    text = ("Whose packet? It holds that rater's blind items, the rubrics and their scores so far, signed so an "
            "edit is found on import.")
    for name in raters:
        if name in held_raters:
            text += (f"\n\n{name} is HELD by the failed calibration pilot: their packet holds only the two "
                     f"calibration items again, to re-score. Release with l (Pilots) or "
                     f"{release_command(study_id, name)}.")
    choices = [Choice(f"rater-{k}", f"{name} (held)" if name in held_raters else name, str(k),
                      "warning" if name in held_raters else "default")
               for k, name in enumerate(raters, start=1)]
    return ChoiceDialog(f"Scoring packet of {study_id}", text, [*choices, Choice(CANCEL, "Cancel", "c")],
                        cancel_id=CANCEL, default_id=CANCEL)


class Judging:
    """The judging in progress (one at a time): its study, and how to cancel it from the UI thread.

    The worker's event loop and task are known once the judging starts; a cancel asked before that is
    remembered and honoured as soon as they are."""

    def __init__(self, study_id: str) -> None:
        self.study_id = study_id
        self.cancelled = threading.Event()
        self._loop = self._task = None
        self._lock = threading.Lock()

    def started(self, loop, task) -> None:
        with self._lock:
            self._loop, self._task = loop, task
            if self.cancelled.is_set():
                task.cancel()

    def cancel(self) -> None:
        with self._lock:
            self.cancelled.set()
            if self._loop is not None:
                self._loop.call_soon_threadsafe(self._task.cancel)


class JudgingActions:
    """Mixed into StudiesScreen: judge a study (cancellable) and look at / release its calibration pilots."""

    judging: Judging | None = None

    # -- judging ----------------------------------------------------------------------------------

    def judge(self, study_id: str) -> None:
        if self.judging is not None:
            self.notify(f"{self.judging.study_id} is being judged: one judging at a time (c cancels it)",
                        title="Judge", severity="warning")
            return
        self.judging = Judging(study_id)
        self.say_work(study_id, f"judging {study_id} ... (c cancels)")
        self._judge(self.judging)

    def action_cancel_judging(self) -> None:
        if self.judging is None:
            self.notify("Nothing is being judged", title="Judge")
            return
        self.judging.cancel()
        self.say_work(self.judging.study_id, f"cancelling the judging of {self.judging.study_id} ... (calls in flight are recorded "
                      "as cancelled)")

    @work(thread=True, group=STUDY_WORK, exit_on_error=False)
    def _judge(self, judging: Judging) -> str:
        """`workbench --batch judge STUDY` with its defaults: the same core call, its progress on the
        detail pane, its summary (ok, judge errors, failed calls per judge) when done. Cancelled as a
        signal cancels the batch command: the calls in flight are recorded as cancelled, what was judged
        stays, and judging again continues."""
        import asyncio

        from workbench.gateway import build_gateway
        from workbench.judges.run import judge_study
        from workbench.judges.summary import judging_text, keep_log_head
        from workbench.paths import thread_connection

        study_id = judging.study_id

        def tell(message: str) -> None:
            self.app.call_from_thread(self.say_work, study_id, f"judging {study_id}: {message}  (c cancels)")

        async def judge(db, gateway):
            judging.started(asyncio.get_running_loop(), asyncio.current_task())
            return await judge_study(db, gateway, study_id, progress=tell)

        db = thread_connection(self.app.db)
        try:
            gateway = build_gateway(db, self.app.db_path)
            try:
                report = asyncio.run(judge(db, gateway))
            except asyncio.CancelledError:
                text = (f"judging of {study_id} cancelled: calls in flight recorded as cancelled; what was "
                        "judged is kept (j continues)")
                self.app.call_from_thread(self.say_work, study_id, text)
                return text
            finally:
                keep_log_head(db, study_id)
        finally:
            self.judging = None
            if db is not self.app.db:
                db.close()
        text = judging_text(report.to_dict())
        self.app.call_from_thread(self.say_work, study_id, text)
        self.app.call_from_thread(self.refresh_list)  # the summary's counts, then, say what the work says
        return f"judged {study_id}: " + text.splitlines()[-1]

    # -- calibration pilots ---------------------------------------------------------------------------

    def pilots(self, study_id: str) -> None:
        self._pilots(study_id)

    @work(exclusive=True, group="studies-pilots", exit_on_error=False)
    async def _pilots(self, study_id: str) -> None:
        from workbench.blinding.context import BlindingError, load_study
        from workbench.pilots.calibration import release_rater
        from workbench.scoring.actor import acting_user
        from workbench.scoring.calibration import held, study_calibration

        db = self.app.db
        try:
            result = study_calibration(db, load_study(db, study_id))
        except BlindingError as exc:
            self.notify(str(exc), title="Pilots", severity="error", timeout=15)
            return
        held_raters = [c["evaluator"] for c in result["raters"] if held(c)]
        answer = await self.app.push_screen_wait(pilots_dialog(study_id, held_raters, result))
        if not answer.startswith("release-"):
            return
        rater = held_raters[int(answer.removeprefix("release-")) - 1]
        reason = await self.app.push_screen_wait(AskDialog(
            f"Release {rater} in {study_id}?", f"{rater}'s pilot check failed. Releasing lets them score the rest; "
            "the release is recorded with your name and this reason.", placeholder="e.g. re-read the anchors"))
        if reason is None:
            return
        try:
            release_rater(db, study_id, rater, by=acting_user(), reason=reason)
        except BlindingError as exc:
            self.notify(str(exc), title="Pilots", severity="error", timeout=15)
            return
        self.notify(f"{rater} released in {study_id}", title="Pilots")


class PacketActions:
    """Mixed into StudiesScreen: a rater's offline scoring packet out, a filled-in packet back in."""

    def packet_export(self, study_id: str) -> None:
        self._packet_export(study_id)

    @work(exclusive=True, group="studies-packet", exit_on_error=False)
    async def _packet_export(self, study_id: str) -> None:
        from workbench.blinding.context import BlindingError, load_study
        from workbench.scoring.calibration import held, study_calibration
        from workbench.scoring.packets import PacketError, export_packet, export_text

        try:
            study = load_study(self.app.db, study_id)
            held_raters = {c["evaluator"] for c in study_calibration(self.app.db, study)["raters"] if held(c)}
        except BlindingError as exc:
            self.notify(str(exc), title="Packet", severity="error", timeout=15)
            return
        raters = study.rater_names
        answer = await self.app.push_screen_wait(packet_rater_dialog(study_id, raters, held_raters))
        if not answer.startswith("rater-"):
            return
        rater = raters[int(answer.removeprefix("rater-")) - 1]
        path = await self.app.push_screen_wait(AskDialog(
            f"Packet for {rater}", "The file to write:", value=f"{study_id}-{rater}.json"))
        if not path:
            return
        try:
            summary = export_packet(self.app.db, study_id, rater, path)
        except PacketError as exc:
            self.notify(str(exc), title="Packet", severity="error", timeout=15)
            return
        except OSError as exc:
            self.notify(f"cannot write {path}: {exc}", title="Packet", severity="error", timeout=15)
            return
        self.notify(export_text(summary), title="Packet", severity="warning" if summary["held"] else "information",
                    timeout=20 if summary["held"] else 10)

    def action_packet_import(self) -> None:
        self.app.push_screen(AskDialog("Import a scoring packet", "The filled-in packet file to record:",
                                       placeholder="rater-a.json"), callback=self._packet_chosen)

    def _packet_chosen(self, path: str | None) -> None:
        from workbench.scoring.packets import PacketError, import_packet, import_text

        if not path:
            return
        try:
            result = import_packet(self.app.db, path)
        except PacketError as exc:
            problems = "".join(f"\n  {line}" for line in exc.details[:5])
            self.notify(f"packet refused ({exc}){problems}", title="Packet", severity="error", timeout=20)
            return
        self.notify(import_text(result), title="Packet", severity="warning" if result.held else "information",
                    timeout=20 if result.held else 10)
        self.refresh_list()
