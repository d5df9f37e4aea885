"""The contamination probe dialog: probe one case or several, streaming each answer as it arrives.

Pushed by the Cases screen as `ProbeScreen(case_ids, model=None)`; `model`
overrides the settings' probe model. The probes run one after another in an
async worker on the app's loop; the gateway's token events are queued by a
sink and written to a Markdown stream, so the screen never re-renders the
whole answer per token. Dismisses with the list of results.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Markdown, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from screens.widgets.footer import KeyFooter

from workbench.events import CALL_RETRY, TOKEN, TURN_STARTED, Event
from workbench.safe_text import for_terminal

VERDICT_STYLE = {"recognized": "bold red", "partial": "yellow", "not_recognized": "green", "error": "magenta"}


class _QueueSink:
    """The gateway emits synchronously on the app's loop; the worker drains this queue and renders."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Event] = asyncio.Queue()

    def emit(self, event: Event) -> None:
        self.queue.put_nowait(event)


class ProbeScreen(ModalScreen[list]):
    """Probe the given cases for contamination and show each verdict."""

    CSS_PATH = "styles/probe.tcss"
    BINDINGS = [
        Binding("escape", "close", "Close", id="probe.close",
                tooltip="Close the probe; a probe still running is stopped and nothing is stored for it"),
    ]

    def __init__(self, case_ids: list[str], model: str | None = None) -> None:
        super().__init__()
        self.case_ids = list(case_ids)
        self.model = model
        self.results: list = []
        self.settings = None
        self.choices: list = []  # real models from Settings, offered when the probe model is offline
        self._worker: Worker | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="probe-dialog"):
            yield Static("", id="probe-title")
            yield DataTable(id="probe-cases", cursor_type="none", show_cursor=False)
            yield Static("", id="probe-status")
            with VerticalScroll(id="probe-answer-box"):
                yield Markdown("", id="probe-answer")
            yield Static("", id="probe-verdict")
            yield OptionList(id="probe-models")  # shown only when the Settings' probe model is offline
        yield KeyFooter()

    def on_mount(self) -> None:
        from workbench.gateway.settings import role_settings

        settings = role_settings(self.app.db, "probe")
        if self.model and self.model != settings.model:
            settings = replace(settings, model=self.model, api_base=None)
        self.settings = settings
        table = self.query_one("#probe-cases", DataTable)
        table.add_column("case", key="case")
        table.add_column("verdict", key="verdict")
        for case_id in self.case_ids:
            table.add_row(case_id, Text("waiting", style="dim"), key=case_id)
        self._show_title()
        from workbench.cases.probe_models import is_offline

        if self.model is None and is_offline(settings.model):
            self._offer_models()  # issue 15: ask which model instead of placeholder calls
        else:
            self.query_one("#probe-models").display = False
            self._worker = self.run_probes()

    def _show_title(self) -> None:
        n, settings = len(self.case_ids), self.settings
        self.query_one("#probe-title", Static).update(
            Text.assemble(("Contamination probe", "bold"), f" · {n} case{'s' if n != 1 else ''} on ",
                          (settings.model, "bold"), f"{' at ' + settings.api_base if settings.api_base else ''}"))

    # -- an offline probe model: which model, then? -------------------------------------------------

    def _offer_models(self) -> None:
        from workbench.cases.probe_models import offline_probe_message, probe_model_choices

        self.choices = probe_model_choices(self.app.db)
        self._show_verdict(Text(offline_probe_message(self.settings.model, self.choices), style="yellow"))
        self._status("choose a model below (enter), or escape")
        options = self.query_one("#probe-models", OptionList)
        for i, c in enumerate(self.choices):
            options.add_option(Option(Text.assemble("probe with ", (c.model, "bold"),
                                                    f" at {c.api_base}" if c.api_base else ""), id=f"m{i}"))
        options.add_option(Option(Text(f"run the placeholder probe on {self.settings.model} anyway "
                                       "(nothing stored)", style="dim"), id="offline"))
        options.highlighted = 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "probe-models" or self._worker is not None:
            return
        if event.option.id != "offline":
            self.settings = self.choices[int(event.option.id[1:])]
        event.option_list.display = False
        self._show_verdict(Text(""))
        self._show_title()
        self._worker = self.run_probes()

    # -- the worker -------------------------------------------------------------------------------

    @work(exclusive=True, group="probe", exit_on_error=False)
    async def run_probes(self) -> list:
        from workbench.gateway import build_gateway
        from workbench.cases.probes import ProbeError, run_probe

        gateway = build_gateway(self.app.db, self.app.db_path)
        for index, case_id in enumerate(self.case_ids, start=1):
            self._set_verdict(case_id, "probing…", "bold")
            self._status(f"{index}/{len(self.case_ids)} {case_id}: asking {self.settings.model}…")
            answer = self.query_one("#probe-answer", Markdown)
            await answer.update("")
            sink = _QueueSink()
            task = asyncio.create_task(run_probe(self.app.db, gateway, case_id, self.settings, sink))
            stream = Markdown.get_stream(answer)
            try:
                stream = await self._render_events(sink, task, stream, case_id, index)
            finally:
                if not task.done():  # the dialog closed mid-probe: stop the call too
                    task.cancel()
                await stream.stop()
            try:
                result = task.result()
            except ProbeError as exc:
                self.results.append(exc)
                self._set_verdict(case_id, "failed", "bold magenta")
                self._show_verdict(Text(str(exc), style="magenta"))
                continue
            self.results.append(result)
            self._set_verdict(case_id, result.verdict + (" ⚑" if result.flagged else ""),
                              VERDICT_STYLE.get(result.verdict, ""))
            self._show_verdict(self._verdict_text(result))
        done = sum(1 for r in self.results if not isinstance(r, Exception))
        self._status(f"done: {done} of {len(self.case_ids)} probed · escape closes")
        return self.results

    async def _render_events(self, sink: _QueueSink, task: asyncio.Task, stream, case_id: str, index: int):
        """Write the probe's tokens to the stream until the probe task ends; returns the live stream."""
        answer = self.query_one("#probe-answer", Markdown)
        while True:
            getter = asyncio.ensure_future(sink.queue.get())
            done, _ = await asyncio.wait({task, getter}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                break
            event = getter.result()
            if event.kind == TOKEN and event.turn == "probe":
                await stream.write(for_terminal(event.payload.get("text", "")))
            elif event.kind == CALL_RETRY:
                self._status(f"{index}/{len(self.case_ids)} {case_id}: attempt {event.payload['attempt']} failed "
                             f"({event.payload['error']}); retrying in {event.payload['wait']:.1f}s")
                if event.payload.get("discard_partial") and event.turn == "probe":
                    await stream.stop()  # the failed attempt's words are void
                    await answer.update("")
                    stream = Markdown.get_stream(answer)
            elif event.kind == TURN_STARTED and event.turn == "classify":
                self._status(f"{index}/{len(self.case_ids)} {case_id}: classifying the answer with "
                             f"{event.payload.get('model')}…")
        return stream

    # -- display ----------------------------------------------------------------------------------

    def _verdict_text(self, result) -> Text:
        text = Text.assemble(("verdict: ", "bold"), (result.verdict, VERDICT_STYLE.get(result.verdict, "")),
                             f" — {result.advice}")
        if result.placeholder:
            text.append("\n[placeholder: mock model] the answer above is placeholder text, not a model's answer",
                        style="italic yellow")
        if result.reason:
            text.append(f"\nclassifier ({result.classifier_model}): {result.reason}", style="dim")
        if result.classifier_warning:
            text.append(f"\nwarning: {result.classifier_warning}", style="yellow")
        if result.file_note:
            text.append(f"\n{result.file_note}", style="dim")
        return text

    def _set_verdict(self, case_id: str, label: str, style: str) -> None:
        self.query_one("#probe-cases", DataTable).update_cell(case_id, "verdict", Text(label, style=style))

    def _status(self, message: str) -> None:
        self.query_one("#probe-status", Static).update(Text(message))

    def _show_verdict(self, text: Text) -> None:
        self.query_one("#probe-verdict", Static).update(text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "probe" and event.state == WorkerState.ERROR:
            self._status(f"the probe stopped: {event.worker.error}")

    def action_close(self) -> None:
        if self._worker is not None and self._worker.is_running:
            self._worker.cancel()
        self.dismiss(self.results)
