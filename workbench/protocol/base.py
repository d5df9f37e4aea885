"""The protocol interface: what a protocol contributes on top of the shared machinery.

A protocol (one per seed) is a package `workbench/protocols/<name>/` whose
`__init__` defines `PROTOCOL`, an instance of a `StudyProtocol` subclass. The
registry (`workbench.protocol.registry`) maps a study file's `protocol = "…"`
to it. This module imports nothing of the machinery (not even inside a method):
a default that needs the store, the runner, the reports or the simulator lives
with its caller, which uses it when a method here returns None. Everything below — gateway, call log, runner with resume and replay,
freeze, blinding, rater desk, packets, judges, statistics, embeddings, store —
is shared and never imports a protocol; protocols never import each other.

What a protocol says, and who asks:

| part | method | asked by |
|---|---|---|
| study-file section and its validation | `check_section`, `check_library` | studies.definition / create |
| item source | `load_items` (into the study's `items` table), `items` | study create / freeze |
| work the freeze depends on | `prepare` (model calls before the freeze) | runs.runner |
| what the freeze pins | `frozen_artefacts` | studies.freeze |
| run programs | `planned_runs`, `expected_calls`, `program` | runs.runner |
| after a group of runs | `after_runs` (e.g. hindsight's P1 topology) | runs.runner |
| evaluation | `rubrics`, `blind_texts` (what raters and judges read), `judges_are_runs` | blinding, judges |
| metrics and report | `metrics`, `metrics_csv`, `report_sections` | cli metrics/report, screens |
| the Metrics section's tables, plots and drill-downs; `metrics`' own options | `analysis` (a `MetricsAnalysis`), `metrics_options` | screens.metrics, cli metrics |
| the Metrics section's tabs (the frame's study picker, marks, keys and save around them) | `metrics_tabs` (`MetricsTab`s) | screens.metrics, exports.metrics_files |
| the comparisons a study pre-registers | `preregistered_comparisons` | workbench.simulation (power) |
| TUI panels | `panels` (dotted paths into `screens/`, imported by the app only) | screens |
| batch commands of its own | `commands` (modules with `register(subparsers)`) | cli.main |
| its own exports | `exports` (entries of the export catalog: id, title, description, write) | exports.catalog, screens |
| the offline `sim` model | `simulator` (its `simulate.py`) | workbench.simmodel.engine |
| power on its own metrics | `power_document` (None: the shared generic design) | workbench.simulation.power |
| planted against recovered | `planted_vs_recovered` (a `sim` study's report) | workbench.reports |
| conditions that differ only in structure | `condition_prompts`, `cue_baseline`, `condition_structure` | workbench.cue_audit (study show, the report) |
| whether each run's defining step happened | `treatment_steps`, `treatment` | workbench.fidelity (metrics, report, study show, run) |

Default implementations make the optional parts optional: a protocol with one
item, one call and one metric overrides `program`, `planned_runs` and `metrics`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:  # typing only
    import sqlite_utils

# "RunContext" and "RunOutput" in annotations are workbench.runs.context's, named but not imported: even a
# typing-only import is an edge import-linter counts, and the interface sits below the runner.

# A problem reporter: bad("dotted.key", "message") records `file:line: dotted.key: message`.
Bad = Callable[[str, str], None]


@dataclass(frozen=True)
class RunPlan:
    """One planned run: the protocol's item × condition × replicate."""

    item_id: str
    condition: str
    replicate: int = 0


@dataclass
class ItemLoad:
    """What `load_items` did: items added (new ids), records excluded by validation, and each
    exclusion's reason as `file:line: field: reason` (printed by `study create`)."""

    added: int = 0
    excluded: int = 0
    problems: list[str] = field(default_factory=list)


@dataclass
class ReportSection:
    """A report section in Markdown; `level` 2 is a top-level section under the study heading."""

    title: str
    body: str
    level: int = 2


@dataclass
class MetricsTable:
    """A table as plain strings, as the report prints it: the Metrics section shows it, `w` saves it as one
    CSV. (`workbench.metrics.render.RenderedTable` has the same fields, and drill-down references.)"""

    id: str
    title: str
    columns: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)


@dataclass
class MetricsTab:
    """One tab of the shared Metrics section, named by the study's protocol. The section is the frame around
    it (study picker, the study's marks, compare input, save and drill-down keys); the tab brings its prose
    (Markdown, as the report prints it), its tables (`MetricsTable`s or RenderedTables; a CSV each on `w`;
    none: the tables of its Markdown, in place),
    the plots it shows (kinds the protocol's `analysis().plots` draws: means, forest, agreement, reliability,
    heatmap) and the section's own keys it offers (e.g. "assess_concerns"); a key it does not list is off."""

    id: str
    title: str
    text: str = ""
    tables: list = field(default_factory=list)
    plots: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()


def tabs_of_sections(sections: list[ReportSection], layout: tuple[tuple[str, str, tuple[str, ...]], ...],
                     *, rest: str = "More") -> list[MetricsTab]:
    """A protocol's report sections grouped into Metrics tabs, each tab's text the sections' Markdown as the
    report prints it (the section reads its tables from that text). `layout` is (tab id, tab title, the
    titles of the sections it holds, each matched as a prefix); a section no tab names goes to a last tab
    `rest`, so a table a protocol adds to its report appears without a change to any screen. A tab with no
    section is left out."""
    claimed: dict[str, list[ReportSection]] = {tab_id: [] for tab_id, _, _ in layout}
    for section in sections:
        owner = next((tab_id for tab_id, _, prefixes in layout
                      if any(section.title.startswith(p) for p in prefixes)), "more")
        claimed.setdefault(owner, []).append(section)
    titles = {tab_id: title for tab_id, title, _ in layout} | {"more": rest}
    return [MetricsTab(tab_id, titles[tab_id], text="\n\n".join(f"## {s.title}\n\n{s.body}" for s in held))
            for tab_id, held in claimed.items() if held]


@dataclass
class PlantedValue:
    """One planted parameter of a `sim` study's `[simulation]` table beside what the study recovered.
    `measure` names the statistic the protocol reads it back with (e.g. "mean ΔSD over debates");
    `expected` is what that statistic should read on average under the plant when its scale is not the
    parameter's own (None: the same scale as `planted`); `recovered` is None when the study has no
    estimate yet (`note` says why)."""

    parameter: str                  # e.g. "stance_shift.plain"
    planted: float
    measure: str
    expected: float | None = None
    recovered: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    note: str = ""

    @classmethod
    def of_estimate(cls, parameter: str, planted: float, measure: str, estimate: dict, *,
                    expected: float | None = None, note: str = "") -> "PlantedValue":
        """The row of an estimate's document (`Estimate.to_dict()`: its value and 95% CI)."""
        return cls(parameter, planted, measure, expected, estimate.get("value"), estimate.get("ci_low"),
                   estimate.get("ci_high"), note)


@dataclass(frozen=True)
class TreatmentReading:
    """Whether one finished run's defining step happened (issue 45: C2's seconded motion debated, C3's fan of
    the planned scenarios, ...), read from what the run recorded. `note` says what happened in a few words
    ("debated 2 rounds", "no debate: both motions died"); `flagged`: the reading stands on an instrument
    that was unsure (e.g. a perspective split it flagged), counted apart in the fidelity table."""

    run_id: str
    condition: str
    delivered: bool
    note: str = ""
    flagged: bool = False


@dataclass
class MetricsDocument:
    """A protocol's metrics, in the three shapes `metrics STUDY` prints: one JSON-able document
    (`--json`), the human text, and long-format rows (`--csv`). `notes` go to stderr."""

    document: dict
    text: str = ""
    csv_columns: list[str] = field(default_factory=list)
    csv_rows: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class StudyProtocol:
    """Base class of a protocol; subclasses override what they contribute."""

    name: str = ""                    # the study file's `protocol` value
    title: str = ""
    seed: str = ""                    # the specification document, e.g. "002"
    section: str | None = None        # the study-file table this protocol owns, e.g. "faultline"
    top_keys: tuple[str, ...] = ()    # study-file keys at the top level this protocol owns (hindsight: cases)
    default_rubrics: tuple[str, ...] = ()
    threshold_defaults: dict[str, float] = {}   # `[thresholds]` keys it pre-registers, each in [0, 1]
    required_evaluators: tuple[str, ...] = ()   # "raters", "judges": a study file that leaves them out is refused
    # The study's [[judges]] are its run conditions (calibration: each run is one judge's verdict on one
    # interaction), so `run` makes their calls and the shared `judge` command, which scores blind items, refuses.
    judges_are_runs: bool = False
    panels: dict[str, str] = {}       # "run" | "metrics" | "items" → "screens.<pkg>.<module>:<Class>"
    commands: tuple[str, ...] = ()    # batch command modules with register(subparsers)
    # modules whose INSTRUMENTS list the readers of model text this protocol measures with (workbench.instruments)
    instruments: tuple[str, ...] = ()

    # --- the study file ---------------------------------------------------------------------------
    def conditions(self) -> list[str]:
        """Every condition this protocol knows, in its seed's order."""
        return []

    def default_conditions(self) -> list[str]:
        return self.conditions()

    def check_section(self, data: dict, definition: dict, bad: Bad) -> dict:
        """Validate the protocol's own keys of the parsed study file (`data`, the whole file) and return
        its part of the definition, every default filled: stored as `definition[self.section]`, or merged
        into the definition when the protocol has no section (its keys are `top_keys`). `bad` is a
        `workbench.studies.definition.StudyChecker`: call it to report, or use its typed getters."""
        return {}

    def check_library(self, db: "sqlite_utils.Database", definition: dict, bad: Bad) -> None:
        """Problems with what the definition names in the store or on disk (missing files, bad items)."""

    def units(self, definition: dict) -> int | None:
        """How many independent units (cases, debates, items) the study's comparisons pair over, as far
        as the study file tells (the power analysis's N); None when only the loaded items can tell."""
        return None

    # --- items ----------------------------------------------------------------------------------------
    def load_items(self, db: "sqlite_utils.Database", study_id: str, definition: dict,
                   base_dir: str | None = None) -> ItemLoad:
        """Bring the study's items into the store at `study create` (`base_dir`: the study file's folder,
        for relative paths). Adding an id already there adds nothing, so re-creating is safe. A file that
        cannot be used at all is a `StudyError`; single bad records are excluded and reported."""
        return ItemLoad()

    exports_module: str | None = None  # its module whose `export_entries()` lists its exports

    def exports(self) -> list:
        """The protocol's own exports, offered after the shared ones (the Studies screen's x): entries with
        `id`, `title`, `description` and `write(db, study_id, out_folder) -> ExportDone`
        (workbench.exports.catalog.Export). Its batch commands write the same files through the same function.
        Default: `export_entries()` of `exports_module`, or none."""
        if not self.exports_module:
            return []
        import importlib

        return importlib.import_module(self.exports_module).export_entries()

    def summary_line(self, definition: dict) -> str:
        """What `study create` says the study holds, e.g. "2 case(s) x 7 condition(s)"."""
        return f"{len(definition.get('conditions', []))} condition(s)"

    def item_payload(self, db: "sqlite_utils.Database", study_id: str, item_id: str) -> Any:
        """What a run of this item is given as `ctx.item`. None: the payload `load_items` stored
        (`workbench.studies.items.run_item` reads it)."""
        return None

    async def prepare(self, db: "sqlite_utils.Database", gateway, study_id: str, definition: dict, *,
                      sink, control) -> None:
        """Model calls the freeze depends on, made before it (faultline: each persona's belief graph).
        Asked by the runner for a study not frozen yet; it must resume where it stopped (store each
        result as it comes; the gateway replays calls already made)."""

    def frozen_artefacts(self, db: "sqlite_utils.Database", study_id: str, definition: dict
                         ) -> list[tuple[str, str, str]]:
        """(kind, ref, content) triples the freeze pins beyond the definition: prompts, items, personas."""
        return []

    def extra_rubrics(self, db: "sqlite_utils.Database", definition: dict) -> list[str]:
        """Rubric ids scored and frozen beyond the study's `rubrics` (hindsight: a case's own rubric)."""
        return []

    # --- runs -----------------------------------------------------------------------------------------
    # --- the cue audit (workbench.cue_audit): conditions that differ only in structure -------------------
    cue_baseline: str | None = None   # the condition whose prompts every other condition's are compared with

    def condition_prompts(self, definition: dict) -> dict[str, list[tuple[str, str, str]]] | None:
        """Every condition's prompt texts for the cue audit, as (name, text, origin) with origin "seed" (the
        seed's own wording) or "project"; None: the protocol's conditions are not audited."""
        return None

    def condition_structure(self) -> dict[str, str]:
        """The seed's own description of each condition: terms found there are the structure, not a cue."""
        return {}

    def planned_runs(self, db: "sqlite_utils.Database", study_id: str, definition: dict) -> list[RunPlan]:
        raise NotImplementedError(f"protocol '{self.name}' plans no runs")

    def expected_calls(self, definition: dict, plan: RunPlan) -> int:
        """Calls one run makes when nothing fails: the progress total is known before the first call."""
        return 1

    def draw(self, plan: RunPlan) -> int:
        """The replicate index the gateway sees for a run (its replay key; a condition may offset it)."""
        return plan.replicate

    def run_options(self, definition: dict) -> dict:
        """What a run program gets as `ctx.options`: the protocol's section, defaults filled."""
        return definition.get(self.section, {}) if self.section else {}

    def settings_for(self, definition: dict, plan: RunPlan):
        """The model settings a run uses. None: the study's [model] (`workbench.runs.settings.run_settings`)."""
        return None

    async def program(self, ctx: "RunContext") -> "RunOutput":
        """The run program for `ctx.condition` over `ctx.item`."""
        raise NotImplementedError(f"protocol '{self.name}' has no run program")

    def budget_lines(self, definition: dict) -> list[str]:
        """What the protocol's own costly steps will ask for, stated at `study create` whether or not they fit
        (faultline's belief graphs, whose max_tokens is not the study's)."""
        return []

    def budget_warnings(self, definition: dict) -> list[str]:
        """`study create`'s warnings about steps that ask for more tokens than the study's max_tokens (faultline's
        belief graphs), said before they cost minutes a call on a slow model."""
        return []

    def dry_run_reply(self, request, padding: str) -> str | None:
        """The dry run's stand-in reply to `request` (workbench/runs/dry_run.py), built around `padding` (the
        stand-in text of the reply's length): one the program's parser reads as a reply that keeps it going
        down its longest path (a seconded motion, an amendment, an aye). None: `padding` as it is."""
        return None

    async def dry_run_item(self, ctx: "RunContext"):
        """The item a dry run's program is given (workbench/runs/dry_run.py): `ctx.item`, or that with what the
        program reads from a step before its runs, made through `ctx` so the step's own prompts are measured too
        (faultline: belief graphs of each size asked, not built yet at `study create`)."""
        return ctx.item

    def lost_treatments(self, db: "sqlite_utils.Database", study_id: str, definition: dict) -> dict[str, str]:
        """condition → why it lost its treatment because an input it depends on failed (faultline: a graph
        condition whose persona has no valid belief graph). The runner refuses such a condition's runs
        before they start unless the user allows them, and the protocol's tables then mark it."""
        return {}

    # --- treatment fidelity (workbench.fidelity): did each run's defining step happen ----------------------
    treatment_module: str | None = None  # its module whose `steps(definition)` and `readings(db, runs)` answer both

    def treatment_steps(self, definition: dict) -> dict[str, str]:
        """condition → its defining step in words ("a motion seconded and debated"), for each of the study's
        conditions; {}: the protocol reports no fidelity table."""
        if not self.treatment_module:
            return {}
        import importlib

        return importlib.import_module(self.treatment_module).steps(definition)

    def treatment(self, db: "sqlite_utils.Database", study_id: str, definition: dict,
                  runs: list[dict]) -> list[TreatmentReading]:
        """One reading per finished run of `runs` (run rows: id, case_id, condition, replicate, status),
        from the events and artifacts the run stored; it never calls a model."""
        if not self.treatment_module:
            return []
        import importlib

        return importlib.import_module(self.treatment_module).readings(db, runs)

    def follow_ups(self, db: "sqlite_utils.Database", study_id: str, definition: dict,
                   runs: list[dict]) -> list["FollowUp"]:
        """Work that waits on a group of finished runs (hindsight: P1's topology once a case's three
        replicates are done). Asked at the start and after every finished run, with all the study's
        run rows; the runner starts each one that is ready and not done, once."""
        return []

    # --- the offline `sim` model ----------------------------------------------------------------------
    simulator_module: str | None = None  # its simulate.py, whose SIMULATOR answers calls on `sim`

    def simulator(self):
        """What answers this protocol's calls on the `sim` model: an object with
        `reply(request, params, db) -> str` (`SIMULATOR` of `simulator_module`), or None when it has none."""
        if not self.simulator_module:
            return None
        import importlib

        return importlib.import_module(self.simulator_module).SIMULATOR

    # --- power and planted effects ---------------------------------------------------------------------
    def power_document(self, definition: dict, effects: dict[str, float], sims: int,
                       grid: tuple[int, ...]) -> dict | None:
        """The power of the study's pre-registered comparisons on the protocol's own metrics, simulated from
        its planted effects (`sims` seeded simulations; the curve over `grid` units). None: the shared
        generic design (`workbench.simulation.power.study_power`) computes it. The document's shape is
        `workbench.simulation.power`'s (design_text, unit, effect_name, method, comparisons, case_grid).
        A ValueError names what the protocol cannot take (e.g. an `--effect` it has no use for)."""
        return None

    def planted_vs_recovered(self, db: "sqlite_utils.Database", study_id: str,
                             definition: dict) -> list[PlantedValue] | None:
        """Each planted parameter of a `sim` study beside the estimate the study recovered, for the report's
        "Planted vs recovered" section. None: the protocol has no simulator or plants nothing it measures."""
        return None

    # --- lineage (issue 42) -------------------------------------------------------------------------------
    def reported_values(self, db: "sqlite_utils.Database", study_id: str, definition: dict) -> dict[str, Any]:
        """What a study reported as a result that a later study could pre-register as a parameter (a best k, a
        chosen threshold or condition), by the parameter's name; computed only from a frozen study's results
        and cheaply (no embeddings, no model call). {}: nothing of the kind."""
        return {}

    def preregistered_values(self, definition: dict) -> dict[str, Any]:
        """The study's pre-registered parameters under the names `reported_values` uses. {}: none."""
        return {}

    # What each name of `reported_values` decides in this protocol's report: the results a match makes
    # exploratory, named in the report's lineage label (a name not here: the study's results).
    lineage_results: dict[str, str] = {}

    # --- evaluation -----------------------------------------------------------------------------------
    def blind_texts(self, db: "sqlite_utils.Database", study_id: str, definition: dict) -> list[dict] | None:
        """What human raters (and the shared LLM judges) read: [{"run_id", "case_id", "text"}], each
        scrubbed, given an opaque id and sealed by the shared blinding. None: every finished run's
        final output (hindsight's conditions)."""
        return None

    def counted_error(self, output) -> str | None:
        """The error a finished run's program counted (its output stands, the run is `done_with_errors`), or
        None. The one way the runner learns it: `output.counted_error` when the program set it; a protocol
        whose programs keep the error in their report reads it from there."""
        return getattr(output, "counted_error", None)

    def blinds_outputs(self, definition: dict) -> bool:
        """Whether the study's outputs go to raters or judges as blind items, so that conditions, models and
        raters stay sealed until an explicit unblinding. Default: the study names raters or judges."""
        return bool(definition.get("raters") or definition.get("judges"))

    # --- metrics and report ---------------------------------------------------------------------------
    # `options` carries the batch command's analysis options (e.g. `csv`: only the rows are needed;
    # hindsight's `comparisons`, `include_dq`, `embedding_model`); a protocol ignores what it has no use for.
    def metrics(self, db: "sqlite_utils.Database", study_id: str, options: dict | None = None) -> MetricsDocument:
        raise NotImplementedError(f"protocol '{self.name}' defines no metrics")

    def report_sections(self, db: "sqlite_utils.Database", study_id: str,
                        options: dict | None = None) -> list[ReportSection]:
        return []

    def report(self, db: "sqlite_utils.Database", study_id: str, options: dict | None = None) -> str | None:
        """The whole Markdown report. None: the shared heading (study, protocol, freeze, status) followed
        by `report_sections` (`workbench.reports.protocol_report` builds it)."""
        return None

    # Options of the shared `metrics` command that only some protocols take and this one does: "compare",
    # "assess_concerns", "record_concerns" (through `analysis()`). The command refuses the others on its
    # studies, naming the protocol.
    metrics_options: tuple[str, ...] = ()
    analysis_module: str | None = None  # its module whose ANALYSIS the shared Metrics section shows

    def analysis(self) -> "MetricsAnalysis | None":
        """What the shared Metrics section (tables, plots, drill-downs, comparisons) and the `metrics`
        options in `metrics_options` ask of this protocol: `ANALYSIS` of `analysis_module`. None: the
        section shows the `metrics` document's text, and the protocol's own results are its panels."""
        if not self.analysis_module:
            return None
        import importlib

        return importlib.import_module(self.analysis_module).ANALYSIS

    metrics_tabs_module: str | None = None  # its module whose `metrics_tabs(protocol, db, study_id, options)`
    #                                         names the Metrics section's tabs, or whose LAYOUT and REST group
    #                                         its report sections into them (`tabs_of_sections`)

    def metrics_tabs(self, db: "sqlite_utils.Database", study_id: str,
                     options: dict | None = None) -> list[MetricsTab] | None:
        """The shared Metrics section's tabs for one study, in order (`options["analysis"]`: the study's
        `analysis()` result, for a protocol that has one), as `metrics_tabs_module` names them. None: one tab
        per report section, its Markdown tables as the tab's tables (`exports.metrics_files.screen_tabs`)."""
        if not self.metrics_tabs_module:
            return None
        import importlib

        module = importlib.import_module(self.metrics_tabs_module)
        if hasattr(module, "metrics_tabs"):
            return module.metrics_tabs(self, db, study_id, options or {})
        return tabs_of_sections(self.report_sections(db, study_id, options or {}), module.LAYOUT, rest=module.REST)

    def preregistered_comparisons(self, definition: dict) -> list[str]:
        """The comparisons the study pre-registers, as "A:B:METRIC" (the power analysis powers them).
        Default: each condition against the study's first condition on its first rubric (the project's
        choice: the study file names no A-versus-B comparison of its own)."""
        conditions = list(definition.get("conditions") or [])
        metric = (definition.get("rubrics") or ["score"])[0]
        return [f"{c}:{conditions[0]}:{metric}" for c in conditions[1:]]


@dataclass
class FollowUp:
    """Work after a group of runs. `key` is unique in the study; `expected_calls` counts toward the
    progress total from the start; `ready`: its runs are done; `done`: its result is stored already.
    `work(ctx)` gets a RunContext for (item, condition) with no run id, makes its calls with
    `ctx.turn` and stores its result itself."""

    key: str
    item_id: str
    condition: str
    expected_calls: int
    ready: bool
    done: bool
    work: Callable[["RunContext"], Any]


class MetricsAnalysis(Protocol):
    """A protocol's analysis as the shared Metrics section and `metrics` command use it (hindsight's:
    Tables 1-4, agreement, decision quality). Tables are `workbench.metrics.render.RenderedTable`s."""

    plots: Any  # its plot series (means_series, forest_series, agreement_series, reliability_series,
    #             heatmap_runs, heatmap_matrix), each taking the analysis; points of workbench.metrics.plots

    def parse_comparison(self, text: str) -> Any:
        """One `--compare` value ("A:B:METRIC"); ValueError naming what is wrong."""

    def check_comparisons(self, db: "sqlite_utils.Database", study_id: str, comparisons: list,
                          analysis: Any = None) -> None:
        """ValueError when the study cannot take these comparisons (blinded, unknown condition or metric).
        Given the study's `analysis`, it is checked against that without reading the store."""

    def analyze(self, db: "sqlite_utils.Database", study_id: str, *, comparisons: list = (),
                progress: Callable[[str, int, int], None] | None = None) -> Any:
        """The study's analysis: an object with `data.study_id`, `data.freeze_hash`, `blinded` and
        `status_line()`, which `tables`, `drilldown` and `plots` read."""

    def tables(self, analysis: Any) -> list:
        """Every rendered table of the analysis, in report order."""

    def drilldown(self, analysis: Any, ref: Any) -> Any:
        """The rendered table of what produced the number a table cell's `DrillRef` names; ValueError when
        nothing may be shown (a blinded study)."""

    def record_concerns(self, db: "sqlite_utils.Database", study_id: str, rater: str, path: str) -> int:
        """Store a rater's concern scores read from a file; the count stored. ValueError naming the row."""

    def assess_concerns(self, db: "sqlite_utils.Database", db_path: str, study_id: str, settings: Any, *,
                        redo: bool = False, progress: Callable[[str], None] | None = None) -> Any:
        """Have a model judge each run's concern coverage through the gateway; a summary with `text()`,
        `errors`, `runs_asked` and `runs_assessed`."""
