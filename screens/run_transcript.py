"""A run's transcript: one panel per agent turn, the committee's motions, seconds, amendments, votes
and resolution between them as they happen.

`TranscriptView.show(run_id, model, title)` binds the view to a
`workbench.runs.view.TranscriptModel` (live from the running study, or rebuilt
from the store for a finished run); `sync()` renders only what changed since
the last call: new entries are mounted, and a streaming turn gets its new
tokens written to its Markdown stream (`Markdown.get_stream`), so a long
answer is never re-rendered per token. The Runs screen calls `sync()` on its
refresh timer, and `set_treatment` when the run ended without its condition's
defining step (said after its last entry).
"""

from __future__ import annotations

import asyncio

from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Markdown, Static

from workbench.fidelity.policy import MARK
from workbench.runs.view import NoteEntry, TranscriptModel, TurnEntry
from workbench.safe_text import for_terminal


class TurnPanel(Vertical):
    """One agent turn: its agent and role as the title, its text, its tokens or error underneath."""

    def __init__(self, entry: TurnEntry) -> None:
        super().__init__(classes=f"turn phase-{entry.phase or 'none'}")
        self.entry = entry
        self.border_title = entry.title
        self._stream = None
        self._pieces = 0
        self._generation = entry.generation
        self._finished = False
        self._started = False
        self._shown: str | None = None  # the finished text once settled

    def compose(self) -> ComposeResult:
        if self.entry.status != "streaming":
            self._shown = self._final_text()
            yield self._settled(self._shown)

    @staticmethod
    def _settled(text: str) -> Static:
        """A finished turn's text: one widget (a Markdown widget is one per block, and a long
        transcript of them makes every layout pass of the screen slower)."""
        return Static(RichMarkdown(for_terminal(text)), classes="turn-text")

    def on_mount(self) -> None:
        if self.entry.status != "streaming":
            self._finish_look()
        else:
            self.set_class(True, "streaming")
            self.border_subtitle = self.entry.footer()

    async def start_stream(self) -> None:
        """Mount the text with what has arrived so far, then stream the rest into it.

        The Markdown is mounted (awaited) before the stream starts: its own first
        render must not land after, and overwrite, streamed text.
        """
        if self._started:
            return
        self._started = True
        self._generation, self._pieces = self.entry.generation, len(self.entry.pieces)
        markdown = Markdown(for_terminal("".join(self.entry.pieces[:self._pieces])), classes="turn-text")
        await self.mount(markdown)
        self._stream = Markdown.get_stream(markdown)

    def _final_text(self) -> str:
        e = self.entry
        if e.pieces and (e.text is None or "".join(e.pieces) == e.text):
            return "".join(e.pieces)
        return e.text or ("".join(e.pieces) if e.pieces else "")

    async def sync(self) -> None:
        """Write what arrived since the last sync; close the stream when the turn has ended."""
        if self._finished:
            return
        if not self._started:
            await self.start_stream()
        e = self.entry
        ended = e.status != "streaming"  # read first: an ended turn gets no more tokens
        markdown = self.query_one(Markdown)
        if e.generation != self._generation:  # a failed attempt's partial text was discarded
            await self._stop_stream()
            await markdown.update("")
            self._generation, self._pieces = e.generation, 0
            self._stream = Markdown.get_stream(markdown)
        upto = len(e.pieces)  # taken before awaiting: more tokens may arrive while the write yields
        if upto > self._pieces and self._stream is not None:
            fresh, self._pieces = "".join(e.pieces[self._pieces:upto]), upto
            await self._stream.write(for_terminal(fresh))
        if ended:
            await self._stop_stream()
            streamed = "".join(e.pieces)
            # the finished text (it differs when nothing streamed, e.g. a failed turn) replaces the stream
            self._shown = e.text if e.text is not None and streamed != e.text else streamed
            await markdown.remove()
            await self.mount(self._settled(self._shown))
            self._finish_look()

    async def _stop_stream(self) -> None:
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()

    def _finish_look(self) -> None:
        self._finished = self.entry.status != "streaming"
        self.border_subtitle = self.entry.footer()
        self.set_class(self.entry.status == "failed", "failed")
        self.set_class(self.entry.status == "streaming", "streaming")

    @property
    def finished(self) -> bool:
        return self._finished

    async def close(self) -> None:
        await self._stop_stream()

    def shown_text(self) -> str:
        """The text on screen: the streaming Markdown's source, or the finished text."""
        if self._shown is not None:
            return self._shown
        found = self.query(Markdown)
        return found.first().source if found else ""


class NoteLine(Static):
    """A protocol event: a bold heading and an optional body, styled by its kind and tone."""

    def __init__(self, entry: NoteEntry) -> None:
        classes = f"note note-{entry.kind}" + (f" tone-{entry.tone}" if entry.tone else "")
        super().__init__(self._content(entry), classes=classes, markup=False)
        self.entry = entry

    @staticmethod
    def _content(entry: NoteEntry) -> Text:
        text = Text(entry.title, style="bold")
        if entry.body:
            text.append("\n" + entry.body)
        return text


class TranscriptView(VerticalScroll):
    """The transcript of the run chosen in the grid; follows the end while you are at the end."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.run_id: str | None = None
        self.model: TranscriptModel | None = None
        self._rendered = 0
        self._seen = -1
        self._panels: list[TurnPanel] = []
        self._lock = asyncio.Lock()

    def compose(self) -> ComposeResult:
        yield Static("Choose a run in the grid (enter) to see its transcript.", id="transcript-empty",
                     classes="transcript-hint")

    async def show(self, run_id: str | None, model: TranscriptModel | None, title: str = "") -> None:
        """Bind to a run's transcript and render what it holds so far."""
        async with self._lock:
            for panel in self._panels:
                await panel.close()
            self._panels.clear()
            await self.remove_children()
            self.run_id, self.model = run_id, model
            self._rendered, self._seen = 0, -1
            self.border_title = title
            if model is None:
                await self.mount(Static("Choose a run in the grid (enter) to see its transcript.",
                                        classes="transcript-hint"))
            elif not model.entries:
                await self.mount(Static("Nothing yet: this run has not started.", classes="transcript-hint",
                                        id="transcript-waiting"))
            await self._sync_locked(follow=False)

    async def sync(self) -> None:
        async with self._lock:
            await self._sync_locked(follow=True)

    async def _sync_locked(self, follow: bool) -> None:
        model = self.model
        if model is None or model.version == self._seen:
            return
        at_end = self.max_scroll_y - self.scroll_y <= 1
        new = model.entries[self._rendered:]
        if new:
            for hint in self.query("#transcript-waiting"):
                await hint.remove()
            widgets = []
            for entry in new:
                if isinstance(entry, TurnEntry):
                    panel = TurnPanel(entry)
                    self._panels.append(panel)
                    widgets.append(panel)
                else:
                    widgets.append(NoteLine(entry))
            treatment = self.query("#transcript-treatment")
            await self.mount_all(widgets, before=treatment.first() if treatment else None)
            self._rendered = len(model.entries)
        still_open = []
        for panel in self._panels:
            await panel.sync()
            if not panel.finished:  # not the entry's status: the turn may have ended while sync() awaited
                still_open.append(panel)
        self._panels = still_open
        self._seen = model.version
        if follow and at_end:
            self.scroll_end(animate=False, immediate=False)

    async def set_treatment(self, words: str | None) -> None:
        """The run ended without its condition's defining step: `words` (workbench.fidelity.watch) after its last
        entry; None takes the line away."""
        async with self._lock:
            for old in self.query("#transcript-treatment"):
                await old.remove()
            if words and self.model is not None:
                await self.mount(Static(Text.assemble((f"{MARK} its defining step did not happen", "bold"),
                                                      "\n" + words),
                                        id="transcript-treatment", classes="note note-run tone-failed",
                                        markup=False))

    def turn_panels(self) -> list[TurnPanel]:
        return list(self.query(TurnPanel))

    def text(self) -> str:
        """Everything shown, as plain text (titles, turn texts, notes), for tests and copying."""
        out = []
        for child in self.children:
            if isinstance(child, TurnPanel):
                out.append(f"[{child.border_title}]")
                out.append(child.shown_text())
            elif isinstance(child, NoteLine) or child.id == "transcript-treatment":
                out.append(str(child.render()))
        return "\n".join(out)
