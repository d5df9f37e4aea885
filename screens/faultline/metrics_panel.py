"""The faultline metrics panel: the self-consistency verdict first, then each condition's six metrics
beside seed 002's thresholds, and the semantic spread per round (the "Artificial Hivemind" plot).
The numbers are the metrics document's, the same the batch output and the report print."""

from __future__ import annotations

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static
from textual_plotext import PlotextPlot

from screens.faultline import render
from workbench.protocols.faultline.report import dropped_text

METRICS = (("BA", "BA >0.6"), ("dSD", "ΔSD ≥0"), ("spread_trend", "spread Δ"), ("CG", "CG >0.55"),
           ("CR", "CR >0.4"), ("ACC", "ACC"))


class SpreadPlot(PlotextPlot):
    """Mean semantic spread per round, one line per condition."""

    series: dict[str, list[tuple[int, float]]] = {}

    def render(self):
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.title("semantic spread per round (0 = openings)")
        if not self.series:
            plt.text("no spread measured yet", 0, 0)
        for cond, points in sorted(self.series.items()):
            plt.plot([r for r, _ in points], [v for _, v in points], label=cond, marker="dot")
        plt.xlabel("round")
        return super().render()


class FaultlineMetricsScreen(Screen):
    DEFAULT_CSS = """
    FaultlineMetricsScreen #fl-metrics-title { height: 1; padding: 0 1; background: $boost; text-style: bold; }
    FaultlineMetricsScreen #fl-verdict { height: auto; padding: 0 1; border: round $accent; }
    FaultlineMetricsScreen #fl-metrics-table { height: auto; max-height: 12; }
    FaultlineMetricsScreen #fl-errors { height: auto; padding: 0 1; }
    FaultlineMetricsScreen SpreadPlot { height: 14; }
    """
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="fl-metrics-back", tooltip="Back to the previous screen"),
        Binding("ctrl+r", "reload", "Reload", id="fl-metrics-reload", tooltip="Compute the metrics again"),
    ]

    def __init__(self, db, study_id: str) -> None:
        super().__init__()
        self.db, self.study_id = db, study_id
        self.document: dict | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(f"Faultline · {self.study_id}", id="fl-metrics-title", markup=False)
            yield Static("Computing the metrics (embeddings load once)…", id="fl-verdict")
            yield DataTable(id="fl-metrics-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="fl-errors")
            yield SpreadPlot(id="fl-spread")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns("condition", *[label for _, label in METRICS])
        self.compute()

    def action_reload(self) -> None:
        self.compute()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def compute(self) -> None:
        from workbench.metrics.embeddings import progress_text
        from workbench.protocols.faultline.views import metrics_document

        def tell(step: str, done: int, total: int) -> None:  # the steps `metrics` prints on stderr
            self.app.call_from_thread(self.say, f"Computing the metrics: {progress_text(step, done, total)} …")

        doc = metrics_document(self.db, self.study_id, progress=tell)
        self.app.call_from_thread(self.show, doc)

    def say(self, text: str) -> None:
        self.query_one("#fl-verdict", Static).update(text)

    def show(self, doc: dict) -> None:
        from workbench.protocols.faultline.views import spread_series

        self.document = doc
        self.query_one("#fl-verdict", Static).update(render.verdict(doc))
        table = self.query_one(DataTable)
        table.clear()
        for cond, row in doc["conditions"].items():
            table.add_row(cond, *[self._cell(row.get(key)) for key, _ in METRICS], key=cond)
        first = next(iter(doc["conditions"]), None)
        self._explain(first)  # the same text the cursor's row-highlight gives, whichever arrives first
        plot = self.query_one(SpreadPlot)
        plot.series = spread_series(doc)
        plot.refresh()

    def _summary(self) -> str:
        doc, e = self.document, self.document["errors"]
        model = (doc.get("rules") or {}).get("embedding_model") or "—"
        return (f"{len(doc['debates'])} runs measured · {e['extraction_errors']} extraction error(s) in "
                f"{e['runs_with_errors']} run(s), left missing · ✓/✗ against seed 002's thresholds, cosines in "
                f"{model}")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The highlighted condition's undefined metrics, each with its reason."""
        if self.document is not None and event.row_key is not None:
            self._explain(event.row_key.value)

    def _explain(self, cond: str | None) -> None:
        row = self.document["conditions"].get(cond, {}) if cond else {}
        why = [f"{label}: {render.escape(row[key]['undefined_reason'])}" for key, label in METRICS
               if key in row and row[key]["value"] is None]
        why += [f"{label}: {dropped_text(row[key]['dropped'])}: {render.escape(row[key]['dropped']['reasons'])}"
                for key, label in METRICS if key in row and row[key].get("dropped")]
        self.query_one("#fl-errors", Static).update("\n".join([self._summary(), *why]))

    @staticmethod
    def _cell(est: dict | None) -> str:
        if est is None:
            return "—"
        if est["value"] is None:
            return "undef."
        mark = {True: " ✓", False: " ✗"}.get(est.get("meets"), "")
        return f"{est['value']:.2f}{mark}"
