"""A calibration study's results: the decision-rule outcome first, then Arm A's reliability diagram and
k sweep, Arm C's agreement table and disagreement by p bin, and the four outcomes.

Every number comes from `workbench.protocols.calibration.results.study_results`, the
function the batch `metrics` command and the report print, so they agree.
"""

from __future__ import annotations

from rich.markup import escape
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static, TabbedContent, TabPane

from screens.metrics_plots import MetricPlot
from workbench.protocols.calibration.outcomes import outcome_lines
from workbench.protocols.calibration.sampling import edges_label


def _bin_cell(b: dict, key: str) -> str:
    """A reliability bin's number, or "—" with the core's reason (an empty bin), as the report prints it."""
    from workbench.protocols.calibration.report import EMPTY_BIN, estimate_text

    return estimate_text({"value": b[key], "undefined_reason": EMPTY_BIN if not b["count"] else None})


class CalibrationResultsScreen(Screen):
    """Given (db, study_id). The outcome line stays on top at any size; the arms are tabs below it."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="calibration-results-back",
                        tooltip="Leave the calibration results"),
                Binding("r", "refresh_results", "Refresh", id="calibration-results-refresh",
                        tooltip="Recompute the results from the store")]
    DEFAULT_CSS = """
    CalibrationResultsScreen { overflow: hidden; }
    CalibrationResultsScreen #cal-title { height: 1; padding: 0 1; background: $boost; text-style: bold; }
    CalibrationResultsScreen #cal-outcome { height: auto; max-height: 5; padding: 0 1; background: $boost; }
    CalibrationResultsScreen #cal-tabs { height: 1fr; }
    CalibrationResultsScreen TabPane { height: 1fr; padding: 0; }
    CalibrationResultsScreen MetricPlot { height: 14; min-height: 10; }
    CalibrationResultsScreen #cal-ksweep { height: 10; }
    CalibrationResultsScreen DataTable { height: auto; max-height: 16; }
    CalibrationResultsScreen #cal-degenerate { display: none; height: auto; padding: 0 1; }
    """

    def __init__(self, db, study_id: str) -> None:
        super().__init__()
        self.db, self.study_id = db, study_id
        self.document: dict | None = None

    def compose(self) -> ComposeResult:
        yield Static(f"Calibration · {self.study_id}", id="cal-title", markup=False)
        yield Static("Computing the results …", id="cal-outcome")
        with TabbedContent(id="cal-tabs"):
            with TabPane("Fidelity (A)", id="cal-tab-fidelity"):
                with VerticalScroll():
                    yield Static("", id="cal-fidelity-line", markup=False)
                    yield MetricPlot(id="cal-reliability")
                    yield MetricPlot(id="cal-ksweep")
                    yield DataTable(id="cal-bins", zebra_stripes=True)
            with TabPane("Judges (B, C)", id="cal-tab-judges"):
                with VerticalScroll():
                    yield Static("", id="cal-degenerate", markup=False)
                    yield DataTable(id="cal-agreement", zebra_stripes=True)
                    yield DataTable(id="cal-judges", zebra_stripes=True)
                    yield MetricPlot(id="cal-disagreement")
            with TabPane("Outcomes", id="cal-tab-outcomes"):
                with VerticalScroll():
                    yield Static("", id="cal-outcomes")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#cal-bins", DataTable).add_columns("p bin", "n", "mean p", "freq +1", "gap")
        self.query_one("#cal-agreement", DataTable).add_columns("statistic", "value", "n")
        self.query_one("#cal-judges", DataTable).add_columns("judge", "model", "scored", "errors", "refused")
        self.compute()

    def action_refresh_results(self) -> None:
        self.compute()

    @work(thread=True, exclusive=True, exit_on_error=False, group="calibration-results")
    def compute(self) -> None:
        from workbench.protocols.calibration.results import NotPreregistered, study_results

        try:
            doc = study_results(self.db, self.study_id)
        except NotPreregistered as exc:  # no number before the pre-registration is frozen
            self.app.call_from_thread(self.query_one("#cal-outcome", Static).update, escape(str(exc)))
            return
        self.app.call_from_thread(self.show, doc)

    def show(self, doc: dict) -> None:
        self.document = doc
        self.query_one("#cal-outcome", Static).update(doc["outcome"]["summary"])
        self._fidelity(doc["arm_a"])
        self._judges(doc)
        # the report's list, line for line (outcomes.outcome_lines), in Textual's bold
        lines = outcome_lines(doc["outcome"], bold=lambda t: f"[b]{escape(t)}[/b]")
        self.query_one("#cal-outcomes", Static).update("\n\n".join(lines) + f"\n\n{escape(doc['outcome']['facts'])}")

    def _fidelity(self, a: dict) -> None:
        cal = a["calibration"]
        sweep = a["k_sweep"]
        from workbench.protocols.calibration.report import estimate_text

        best_k = f"best k {sweep['best_k']:g}" if sweep["best_k"] is not None else f"best k — ({sweep['note']})"
        self.query_one("#cal-fidelity-line", Static).update(
            f"{a['n']} interactions, k = {a['k']:g}: ECE {estimate_text(cal['ece'])} · MCE {estimate_text(cal['mce'])}"
            f" · Brier {estimate_text(cal['brier'])} · {best_k}")
        bins = [b for b in cal["bins"] if b["count"]]

        def reliability(plt, width: int, height: int) -> None:
            plt.plot([0, 1], [0, 1], label="ideal")
            if bins:
                plt.plot([b["mean_predicted"] for b in bins], [b["observed_frequency"] for b in bins],
                         marker="dot", label="observed")
            plt.xlim(0, 1)
            plt.ylim(0, 1)
            plt.xlabel("mean p")
            plt.ylabel("freq +1")

        pts = [p for p in sweep["points"] if p["ece"]["value"] is not None]

        def k_sweep(plt, width: int, height: int) -> None:
            if pts:
                plt.plot([p["k"] for p in pts], [p["ece"]["value"] for p in pts], marker="dot")
            plt.xlabel("k")
            plt.ylabel("ECE")

        self.query_one("#cal-reliability", MetricPlot).show("Reliability diagram", reliability)
        self.query_one("#cal-ksweep", MetricPlot).show("ECE against k", k_sweep)
        table = self.query_one("#cal-bins", DataTable)
        table.clear()
        for k, b in enumerate(cal["bins"]):
            table.add_row(edges_label(b["lower"], b["upper"], last=k == len(cal["bins"]) - 1), str(b["count"]), _bin_cell(b, "mean_predicted"),
                          _bin_cell(b, "observed_frequency"), _bin_cell(b, "gap"))

    def _judges(self, doc: dict) -> None:
        c, b = doc["arm_c"], doc["arm_b"]
        table = self.query_one("#cal-agreement", DataTable)
        table.clear()
        from workbench.protocols.calibration.report import degenerate_lines, estimate_text

        flagged = degenerate_lines(doc)   # constant judges, judges on one model: each with its consequence
        note = self.query_one("#cal-degenerate", Static)
        note.update("Degenerate judges:\n" + "\n".join(flagged) if flagged else "")
        note.display = bool(flagged)
        alpha = estimate_text(c["alpha"]) + (f" ({c['alpha']['not_a_test']})" if c["alpha"].get("not_a_test") else "")
        table.add_row("Krippendorff α (interval)", alpha, str(c["n_items"]))
        table.add_row("ICC(2,1)", estimate_text(c["icc_2_1"]), str(c["icc_2_1"]["n"]))
        table.add_row("ρ(p, judges' mean)", estimate_text(c["proxy_vs_judges"]), str(c["proxy_vs_judges"]["n"]))
        for pair, est in c["pairwise_spearman"].items():
            table.add_row(f"Spearman {pair}", estimate_text(est), str(est["n"]))
        judges = self.query_one("#cal-judges", DataTable)
        judges.clear()
        for name, j in b["per_judge"].items():
            judges.add_row(name, j["model"], str(j["scored"]), str(j["judge_errors"]), str(j["prompt_refused"]))
        bins = c["disagreement_by_p_bin"]

        def disagreement(plt, width: int, height: int) -> None:
            filled = [x for x in bins if x["mean_abs_pairwise_difference"] is not None]
            if filled:
                plt.bar([str(i + 1) for i, x in enumerate(bins) if x["mean_abs_pairwise_difference"] is not None],
                        [x["mean_abs_pairwise_difference"] for x in filled])
            plt.xlabel("p bin: " + "  ".join(f"{i + 1} {x['bin']}" for i, x in enumerate(bins))[:max(10, width - 4)])
            plt.ylabel("mean |Δ|")

        self.query_one("#cal-disagreement", MetricPlot).show("Judge disagreement by p bin", disagreement)
