"""The belief-graph panel: every graph the study built (persona × size), its nodes with credences and
relations, and — for a chosen debate run — which nodes that persona's messages drew on (the BA rule:
a claim's nearest node at cosine ≥ 0.7)."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Select, Static

from screens.faultline import render


class BeliefGraphScreen(Screen):
    DEFAULT_CSS = """
    BeliefGraphScreen #fl-graph-title { height: 1; padding: 0 1; background: $boost; text-style: bold; }
    BeliefGraphScreen #fl-graph-note { height: auto; padding: 0 1; }
    BeliefGraphScreen #fl-graph-table { height: 1fr; }
    """
    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="fl-graph-back", tooltip="Back to the previous screen")]

    def __init__(self, db, study_id: str, run_id: str | None = None) -> None:
        from workbench.protocols.faultline.views import study_graphs

        super().__init__()
        self.db, self.study_id, self.run_id = db, study_id, run_id
        self.graphs = study_graphs(db, study_id)
        self.key = next(iter(sorted(self.graphs)), None)
        self.drawn: dict[str, list[str]] = {}

    def compose(self) -> ComposeResult:
        yield Static(f"Belief graphs · {self.study_id}", id="fl-graph-title", markup=False)
        yield Select([(k, k) for k in sorted(self.graphs)], value=self.key if self.key else Select.BLANK,
                     allow_blank=not self.graphs, id="fl-graph-pick", prompt="Choose a belief graph")
        yield Static("", id="fl-graph-note")
        yield DataTable(id="fl-graph-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("node", "cred", "relations", "drawn on", "claim")
        self.show()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.value not in (Select.BLANK, self.key):
            self.key, self.drawn = event.value, {}
            self.show()

    def show(self) -> None:
        note = self.query_one("#fl-graph-note", Static)
        table = self.query_one(DataTable)
        table.clear()
        if self.key is None:
            note.update("No belief graphs yet: build them with `workbench --batch faultline graphs "
                        f"{self.study_id}` (before the freeze).")
            return
        g = self.graphs[self.key]
        head = f"[b]{render.escape(self.key)}[/b]: {len(g['nodes'])} nodes, {len(g['edges'])} relations, model {g['model']}"
        if g["error"]:
            head += f"\n[red]build failed (stored as failed, never invented): {render.escape(g['error'])}[/red]"
        if self.run_id:
            head += f"\ndrawn on: messages of run {render.escape(self.run_id)}"
        note.update(head)
        for n in g["nodes"]:
            rel = ", ".join(f"{'+' if e['type'] == 'supports' else '−'}{e['to']}" for e in g["edges"] if e["from"] == n["id"])
            table.add_row(n["id"], f"{n['credence']:.2f}", rel, ", ".join(self.drawn.get(n["id"], [])), n["claim"],
                          key=n["id"])
        if self.run_id and not self.drawn and g["nodes"]:
            self.compute_drawn(self.key)

    @work(thread=True, exclusive=True, exit_on_error=False)
    def compute_drawn(self, key: str) -> None:
        from workbench.protocols.faultline.views import drawn_on

        drawn = drawn_on(self.db, self.study_id, self.run_id, self.graphs[key])
        self.app.call_from_thread(self._drawn_ready, key, drawn)

    def _drawn_ready(self, key: str, drawn: dict) -> None:
        if key == self.key:
            self.drawn = drawn
            self.show()
