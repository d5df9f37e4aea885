"""The crux-card browser: a debate's cards (question, diagnosis), the messages each rests on, and a
jump to those messages in the debate."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from screens.faultline import render
from screens.faultline.transcript import DebateTranscript


class CruxBrowserScreen(Screen):
    DEFAULT_CSS = """
    CruxBrowserScreen #fl-crux-list { height: 40%; }
    CruxBrowserScreen #fl-crux-detail { padding: 0 1; height: auto; }
    """
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="fl-crux-back", tooltip="Back to the previous screen"),
        Binding("j", "jump", "Jump to messages", id="fl-crux-jump",
                tooltip="Open the debate at the messages this card cites"),
    ]

    def __init__(self, db, study_id: str, run_id: str | None = None) -> None:
        from workbench.protocols.faultline.views import debate_runs, debate_view

        super().__init__()
        self.db, self.study_id = db, study_id
        runs = debate_runs(db, study_id)
        self.run_id = run_id or (runs[0]["id"] if runs else None)
        self.view = debate_view(db, study_id, self.run_id) if self.run_id else None

    def compose(self) -> ComposeResult:
        cards = self.view["cruxes"] if self.view else []
        title = f"[b]Crux cards[/b] · {render.escape(self.study_id)}" + (
            f" · {render.escape(self.view['topic']['title'])} · {self.view['run']['condition']}" if self.view else "")
        yield Static(title + f" · {len(cards)} card(s)", id="fl-crux-title")
        yield OptionList(*[Option(f"{c['id']}: {c['question']}", id=c["id"]) for c in cards], id="fl-crux-list")
        with VerticalScroll():
            yield Static(self._empty() if not cards else "", id="fl-crux-detail")
        yield Footer()

    def _empty(self) -> str:
        if self.view is None:
            return "No debate runs in this study yet."
        failed = any(e["step"] == "crux" for e in self.view["errors"])
        return "This debate has no crux cards" + (": the crux step's reply could not be parsed (a counted error)."
                                                   if failed else ".")

    def on_mount(self) -> None:
        if self.view and self.view["cruxes"]:
            self.query_one(OptionList).highlighted = 0

    def current(self) -> dict | None:
        idx = self.query_one(OptionList).highlighted
        return self.view["cruxes"][idx] if self.view and idx is not None and self.view["cruxes"] else None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        card = self.current()
        if card is None:
            return
        by_id = {m["id"]: m for m in self.view["messages"]}
        names = {p["id"]: p["name"] for p in self.view["personas"]} | {"moderator": "Moderator"}
        cited = [render.message(by_id[i], names[by_id[i]["persona"]]) if i in by_id
                 else f"[red]{render.escape(i)}: no such message in this debate[/red]" for i in card["messages"]]
        self.query_one("#fl-crux-detail", Static).update(
            f"[b]Question[/b]\n{render.escape(card['question'])}\n\n[b]Diagnosis[/b]\n"
            f"{render.escape(card['diagnosis'])}\n\n[b]Rests on[/b] {render.escape(', '.join(card['messages']))}"
            " (j: jump)\n\n" + "\n\n".join(cited))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_jump()

    def action_jump(self) -> None:
        card = self.current()
        if card is not None:
            self.app.push_screen(DebateTranscript(self.db, self.study_id, self.run_id, focus=card["messages"]))
