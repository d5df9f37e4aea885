"""A debate transcript: the two personas side by side, round by round, with the moderator's lines between
rounds; a turn streams into its column while it is being written; cited messages can be highlighted.

Standalone given (db, study_id[, run_id]); the Runs section may forward the live event stream to
`feed(event)`. Without it, the screen reads what the runner has stored every half second. The crux
browser opens this screen to show the messages a card cites; `debate.DebateScreen` adds the way back.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Select, Static

from screens.faultline import render
from workbench.events import DEBATE_MESSAGE, TOKEN, TURN_FAILED, TURN_STARTED


class DebateTranscript(Screen):
    DEFAULT_CSS = """
    DebateTranscript #fl-debate-title { height: auto; padding: 0 1; background: $boost; }
    DebateTranscript .fl-round { height: auto; }
    DebateTranscript .fl-cell { width: 1fr; height: auto; padding: 0 1; margin: 0 0 1 0; border-left: tall $primary; }
    DebateTranscript .fl-b { border-left: tall $secondary; }
    DebateTranscript .fl-moderator { height: auto; padding: 0 1; color: $text-muted; text-style: italic; }
    DebateTranscript .fl-cited { background: $warning 30%; }
    DebateTranscript .fl-live { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="fl-debate-back", tooltip="Back to the previous screen"),
        Binding("s", "stances", "Stances", id="fl-debate-stances", tooltip="Opening vs closing stance per persona"),
        Binding("ctrl+r", "reload", "Reload", id="fl-debate-reload", tooltip="Read the debate again"),
    ]

    def __init__(self, db, study_id: str, run_id: str | None = None, *, focus: list[str] | None = None) -> None:
        from workbench.protocols.faultline.views import debate_runs

        super().__init__()
        self.db, self.study_id = db, study_id
        self.runs = debate_runs(db, study_id)
        self.run_id = run_id or (self.runs[0]["id"] if self.runs else None)
        self.focus_ids = focus or []
        self.view: dict | None = None
        self.live: dict[str, str] = {}          # turn id → text streamed so far
        self._shown: tuple | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="fl-debate-title")
        options = [(f"{r['case_id']} · {r['condition']} · #{r['replicate']} ({r['status']})", r["id"]) for r in self.runs]
        yield Select(options, value=self.run_id if self.run_id else Select.BLANK, allow_blank=not self.runs,
                     id="fl-debate-run", prompt="Choose a debate run")
        yield VerticalScroll(id="fl-debate")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()
        self.set_interval(0.5, self._poll)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.value not in (Select.BLANK, self.run_id):
            self.run_id, self.focus_ids, self.live = event.value, [], {}
            self.reload()

    def _poll(self) -> None:
        if self.view is not None and not self.view["done"]:
            self.reload()

    def reload(self) -> None:
        from workbench.protocols.faultline.views import debate_view

        if self.run_id is None:
            self.query_one("#fl-debate-title", Static).update(
                f"No debate runs in {render.escape(self.study_id)} yet.")
            return
        self.view = debate_view(self.db, self.study_id, self.run_id)
        self.redraw()

    def action_reload(self) -> None:
        self.reload()

    # --- drawing -------------------------------------------------------------------------------------
    def redraw(self) -> None:
        key = (self.run_id, len(self.view["messages"]), tuple(self.live), tuple(self.focus_ids), self.view["done"])
        if key != self._shown:
            self._shown = key
            self.run_worker(self.draw(), group="fl-draw", exclusive=True, exit_on_error=False)

    async def draw(self) -> None:
        v = self.view
        a, b = v["personas"]
        status = "finished" if v["done"] else "in progress"
        self.query_one("#fl-debate-title", Static).update(
            f"{render.escape(self.study_id)} · [b]{render.escape(v['topic']['title'])}[/b] · "
            f"{v['run']['condition']} · {status}\n"
            f"{render.escape(v['topic']['question'])}\n"
            f"[b]A[/b] {render.escape(a['name'])}  vs  [b]B[/b] {render.escape(b['name'])} · divergence {v['divergence']}")
        box = self.query_one("#fl-debate", VerticalScroll)
        await box.remove_children()
        names = {p["id"]: p["name"] for p in v["personas"]} | {"moderator": "Moderator"}
        rounds = sorted({m["round"] for m in v["messages"]})
        widgets = []
        for rnd in rounds:
            msgs = [m for m in v["messages"] if m["round"] == rnd]
            for m in msgs:
                if m["persona"] == "moderator":
                    widgets.append(Static(f"Moderator: {render.escape(m['text'])}", classes="fl-moderator",
                                          id=f"msg-{m['id']}"))
            cells = []
            for side, p in (("A", a), ("B", b)):
                said = [m for m in msgs if m["persona"] == p["id"]]
                for m in said:
                    cls = "fl-cell" + (" fl-b" if side == "B" else "") + (" fl-cited" if m["id"] in self.focus_ids else "")
                    cells.append(Static(render.message(m, names[p["id"]]), classes=cls, id=f"msg-{m['id']}"))
            if cells:
                widgets.append(Horizontal(*cells, classes="fl-round"))
        for turn in self.live:
            widgets.append(Horizontal(Static(self._live_text(turn), classes="fl-cell fl-live", id=f"live-{turn}"),
                                      classes="fl-round"))
        await box.mount_all(widgets)
        if self.focus_ids:
            self.call_after_refresh(self._scroll_to_focus)

    def _live_text(self, turn: str) -> str:
        return f"[b]{turn.split('-')[0]}[/b] [dim]{render.escape(turn)} · writing…[/dim]\n{render.escape(self.live[turn])}"

    def _scroll_to_focus(self) -> None:
        for mid in self.focus_ids:
            found = self.query(f"#msg-{mid}")
            if found:
                self.query_one("#fl-debate", VerticalScroll).scroll_to_widget(found.first(), animate=False, top=True)
                return

    # --- live events -----------------------------------------------------------------------------------
    def feed(self, event) -> None:
        """One event of the live stream (the runner's sink): tokens stream into the speaking column."""
        if event.run_id != self.run_id or not event.turn:
            return
        if event.kind == TURN_STARTED and event.agent not in ("extractor", "moderator"):
            if event.payload.get("phase") in ("opening", "round", "closing"):
                self.live[event.turn] = ""
        elif event.kind == TOKEN and event.turn in self.live:
            self.live[event.turn] += event.payload.get("text", "")
            found = self.query(f"#live-{event.turn}")
            if found:  # only the streaming cell changes, never the whole debate
                found.first().update(self._live_text(event.turn))
                return
        elif event.kind in (DEBATE_MESSAGE, TURN_FAILED):
            self.live.pop(event.turn, None)
            self.reload()
            return
        else:
            return
        if self.view is not None:
            self.redraw()

    def action_stances(self) -> None:
        from screens.faultline.stances import StanceScreen

        if self.view is not None:
            self.app.push_screen(StanceScreen(self.view))
