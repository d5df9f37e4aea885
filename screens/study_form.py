"""Creating a study in the TUI: the form, its validation by the batch core, the freeze; or loading a file.

Whatever the form holds is written as a study file's TOML
(`workbench.protocols.hindsight.draft.draft_text`) and stored by `create_study`, the same
function `workbench --batch study create` calls, so the form refuses exactly
what the batch command refuses (a draft case, an unknown rubric, a bad
number) with the same messages. Freezing calls `freeze_study`, as
`study freeze` does, and shows the freeze hash. Loading a study file calls
`create_study(db, path)` and then shows the stored definition in the form.

Pushed by the Studies section as `StudyFormScreen(definition=None, frozen=False, load_path=None)`;
dismisses with the id of the last study it stored (or None).
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Button, DataTable, Header, Input, Label, Select, SelectionList, Static
from textual.widgets.selection_list import Selection

from screens.confirm import (
    DISCARD, FREEZE, SAVE, WITHOUT, freeze_dialog, unsaved_changes_dialog, without_evaluators_dialog,
)
from screens.widgets.checklist import CheckList
from screens.widgets.footer import KeyFooter
from screens.widgets.problems import FormProblems, ProblemList
from screens.widgets.unsaved_guard import LeaveAsking
from workbench.problems import Problem
from workbench.protocols.hindsight.draft import (
    ARCH_FIELDS, JUDGE_KEYS, MODEL_KEYS, blank_values, draft_text, field_of, missing_evaluators,
    values_from_definition,
)

MODEL_LABELS = {"name": "model", "api_base": "api base", "temperature": "temperature", "seed": "seed",
                "max_tokens": "max tokens", "timeout": "timeout (s)"}
MODEL_HELP = {
    "name": "litellm model string (mock: offline placeholder text); one model for every condition",
    "api_base": "server URL for a local or compatible server; empty for the provider's own",
    "temperature": "0-2, the same for every condition",
    "seed": "an integer, or empty; replicate draw k uses seed + k",
    "max_tokens": "per turn",
    "timeout": "seconds per call attempt",
}
THRESHOLD_LABELS = {"kappa_anticipation": "kappa Anticipation", "kappa_epistemic_humility": "kappa Epistemic H.",
                    "alpha_judges": "alpha judges"}
ARCH_LABELS = {"C1.respondents": "C1 respondents", "C2.debate_rounds": "C2 debate rounds",
               "C3.scenarios": "C3 scenarios"}
FORM_NAME = "the study form"


class StudyFileDialog(ModalScreen[str | None]):
    """Asks for a study file's path; dismisses with it (None when cancelled)."""

    CSS_PATH = "styles/studies.tcss"

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="study_file.cancel", tooltip="Close without loading")]

    def compose(self) -> ComposeResult:
        with Vertical(id="file-dialog"):
            yield Static("Load a study file (TOML, see studies/README.md)", classes="dialog-title")
            yield Input(placeholder="path/to/study.toml", id="file-path")
            yield Static("enter loads and stores it, as `workbench --batch study create FILE` does · escape cancels",
                         classes="dialog-hint")

    @on(Input.Submitted, "#file-path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class StudyFormScreen(FormProblems, LeaveAsking, Screen[str | None]):
    """Define a study field by field; ctrl+s stores it, ctrl+f freezes it, ctrl+o loads a study file."""

    CSS_PATH = "styles/studies.tcss"
    AUTO_FOCUS = "#f-name"
    BINDINGS = [
        Binding("ctrl+s", "save", "Create", id="study_form.save",
                tooltip="Check the study with the batch core and store it (a study that is not frozen is replaced)"),
        Binding("ctrl+f", "freeze", "Freeze", id="study_form.freeze",
                tooltip="Store the study if needed, then freeze it: hash its definition, cases, rubrics and "
                        "prompts; shows the freeze hash"),
        Binding("ctrl+o", "load_file", "Load file", id="study_form.load",
                tooltip="Store a study from a TOML study file (as `study create FILE`) and show it here"),
        Binding("ctrl+j", "add_judge", "Add judge", id="study_form.add_judge",
                tooltip="Add the judge typed in the judge row to the study's judges"),
        Binding("f2", "focus_problems", "Problems", id="study_form.problems",
                tooltip="Go to the list of problems; enter on a problem jumps to its field"),
        Binding("escape", "leave", "Back", id="study_form.leave",
                tooltip="Back to the studies; asks first if there are changes not stored"),
    ]

    def __init__(self, definition: dict | None = None, *, frozen: bool = False, load_path: str | None = None) -> None:
        super().__init__()
        self.load_path = load_path
        self.base = definition
        self.copy_of = definition["name"] if definition and frozen else None
        self.study_id: str | None = definition["name"] if definition and not frozen else None
        self.frozen_hash: str | None = None
        self.problems: list[Problem] = []
        self.judges: list[dict] = []
        self.baseline: dict | None = None
        self.without: set[str] = set()  # "raters" / "judges": the user confirmed the study goes without

    # -- layout -----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        from workbench.cases.listing import all_cases
        from workbench.protocols.hindsight.architectures import architecture, conditions
        from workbench.cases.library import known_rubric_ids

        db = self.app.db
        cases = all_cases(db)
        ready = [c for c in cases if c["status"] == "ready"]
        self.drafts = [c["id"] for c in cases if c["status"] == "draft"]
        rubric_ids = sorted(known_rubric_ids(db))

        yield Header(show_clock=False)
        with Horizontal(id="form-body"):
            with VerticalScroll(id="study-form"):
                yield Static("Study", classes="form-heading")
                yield from self._row("Name", Input(placeholder="lowercase-with-dashes (the study id)", id="f-name",
                                                   compact=True))
                yield from self._row("Description", Input(id="f-description", compact=True))
                yield from self._row("Protocol", Select([("hindsight (seed 000)", "hindsight")], value="hindsight",
                                                        allow_blank=False, id="f-protocol", compact=True,
                                                        tooltip="The protocol this version runs"))
                yield Static("Cases (ready cases only)", classes="form-heading")
                yield CheckList(*(Selection(f"{c['id']}  {c['title']}", c["id"], id=f"case-{c['id']}")
                                           for c in ready), id="f-cases", classes="checklist")
                note = ("no ready case in the store: finish one in Cases (1)" if not ready else "")
                if self.drafts:
                    note += (("; " if note else "") + f"not offered, still drafts: {', '.join(self.drafts)} "
                             "(finish them in Cases and set status ready)")
                yield Static(note, id="draft-note", classes="field-note", markup=False)
                yield Static("Conditions", classes="form-heading")
                yield CheckList(*(Selection(f"{c}  {architecture(c).TITLE}", c, id=f"cond-{c}")
                                           for c in conditions()), id="f-conditions", classes="checklist")
                yield from self._row("Replicates", Input(id="f-replicates", compact=True,
                                                         tooltip="runs per case x condition (P1 is always 3)"))
                yield Static("Model and sampling (one set for every condition)", classes="form-heading")
                for key in MODEL_KEYS:
                    yield from self._row(MODEL_LABELS[key], Input(id=f"f-model-{key}", compact=True,
                                                                  tooltip=MODEL_HELP[key],
                                                                  placeholder="none" if key == "seed" else ""))
                yield Static("Architecture options", classes="form-heading")
                for cond, key, _ in ARCH_FIELDS:
                    yield from self._row(ARCH_LABELS[f"{cond}.{key}"], Input(id=f"f-arch-{cond}-{key}", compact=True))
                yield Static("A custom C2 roster comes from a study file (ctrl+o); editing keeps it.",
                             classes="field-note")
                yield Static("LLM judges", classes="form-heading")
                with Horizontal(id="judge-editor"):
                    yield Input(placeholder="name", id="judge-name", compact=True)
                    yield Input(placeholder="model", id="judge-model", compact=True)
                    yield Input(placeholder="api base", id="judge-api_base", compact=True)
                    yield Input(placeholder="temp", id="judge-temperature", compact=True)
                    yield Select([("direct", "direct"), ("adversarial", "adversarial")], value="direct",
                                 allow_blank=False, id="judge-pipeline", compact=True)
                    yield Select([("1 run", "1"), ("3 runs", "3")], value="1", allow_blank=False, id="judge-runs",
                                 compact=True)
                    yield Button("Add judge", id="judge-add", compact=True, tooltip="Add this judge (ctrl+j)")
                yield JudgeTable(id="judges-table", cursor_type="row")
                yield Static("Raters and rubrics", classes="form-heading")
                yield from self._row("Raters", Input(placeholder="none yet: type names, separated by commas",
                                                     id="f-raters", compact=True,
                                                     tooltip="names of the human raters, separated by commas"))
                yield CheckList(*(Selection(r, r, id=f"rubric-{r}") for r in rubric_ids), id="f-rubrics",
                                         classes="checklist")
                yield Static("each case's own rubric is added to these", classes="field-note")
                yield Static("Pre-registered thresholds", classes="form-heading")
                for key, label in THRESHOLD_LABELS.items():
                    yield from self._row(label, Input(id=f"f-threshold-{key}", compact=True))
                yield from self._row("Cost ceiling", Input(placeholder="USD, empty for none", id="f-cost_ceiling",
                                                           compact=True))
            with Vertical(id="form-side"):
                yield Static("Problems", classes="side-heading")
                yield ProblemList(id="problems")
                yield Static("Freeze", classes="side-heading")
                yield Static("not frozen", id="freeze-hash", markup=False)
                yield Static("", id="form-status", markup=False)
        yield KeyFooter()

    def _row(self, label: str, widget: Widget):
        with Horizontal(classes="field-row"):
            yield Label(label, classes="field-label")
            yield widget

    def on_mount(self) -> None:
        from workbench.cases.library import known_rubric_ids
        from workbench.gateway.settings import role_settings

        table = self.query_one("#judges-table", DataTable)
        for key in JUDGE_KEYS:
            table.add_column(key.replace("_", " "), key=key)
        if self.base is not None:
            values = values_from_definition(self.base)
            # a stored study without raters or judges was a choice already made (and recorded)
            self.without = {k for k in ("raters", "judges") if not self.base.get(k)}
            if self.copy_of:
                values["name"] = ""
        else:
            db = self.app.db
            values = blank_values(role_settings(db, "architecture"), role_settings(db, "judge").model,
                                  sorted(known_rubric_ids(db)))
            values["conditions"] = [c for c in self._options("#f-conditions")]
        self.load_values(values)
        self.baseline = self.form_values()
        self.query_one(ProblemList).show([])
        if self.copy_of:
            self.sub_title = f"New study (a copy of the frozen study {self.copy_of})"
            self._status(f"'{self.copy_of}' is frozen: this is a copy; give it a new name")
        elif self.study_id:
            self.sub_title = f"Study {self.study_id}"
        else:
            self.sub_title = "New study"
        if self.load_path:
            self.load_file(self.load_path)

    def take_early_key(self, character: str) -> bool:
        """A key typed while the form was opening (see WorkbenchApp.on_key) goes where typing starts, the
        name field, unless the user has moved on to another field."""
        name = self.query_one("#f-name", Input)
        if self.focused not in (None, name):
            return False
        name.focus()
        name.insert_text_at_cursor(character)
        return True

    @on(Input.Changed, "#f-name")
    def _name_changed(self, event: Input.Changed) -> None:
        """The name's problems as the user types, in the words batch uses (the core checks the draft)."""
        from workbench.studies import StudyError, parse_study_text

        if self.baseline is None:
            return
        try:
            parse_study_text(self.study_text(), FORM_NAME)
            found = []
        except StudyError as exc:
            found = [p for p in exc.problems if p.field == "name"]
        others = [p for p in self.problems if p.field != "name"]
        if found or any(p.field == "name" for p in self.problems):
            self.show_problems(found + others)

    def _options(self, selector: str) -> list[str]:
        sl = self.query_one(selector, SelectionList)
        return [sl.get_option_at_index(i).value for i in range(sl.option_count)]

    # -- values -----------------------------------------------------------------------------------

    def load_values(self, v: dict) -> None:
        def put(wid: str, value: str) -> None:
            self.query_one(f"#{wid}", Input).value = value

        put("f-name", v["name"])
        put("f-description", v["description"])
        put("f-replicates", v["replicates"])
        put("f-raters", v["raters"])
        put("f-cost_ceiling", v["cost_ceiling"])
        for key in MODEL_KEYS:
            put(f"f-model-{key}", v["model"].get(key, ""))
        for key, value in v["thresholds"].items():
            put(f"f-threshold-{key}", value)
        for cond, key, _ in ARCH_FIELDS:
            put(f"f-arch-{cond}-{key}", v["arch"].get(f"{cond}.{key}", ""))
        for selector, chosen in (("#f-cases", v["cases"]), ("#f-conditions", v["conditions"]),
                                 ("#f-rubrics", v["rubrics"])):
            sl = self.query_one(selector, SelectionList)
            sl.deselect_all()
            for value in chosen:
                if value in self._options(selector):
                    sl.select(value)
        missing = [c for c in v["cases"] if c not in self._options("#f-cases")]
        if missing:  # a case that is no longer ready: say so instead of dropping it quietly
            self._status(f"not offered (not ready): {', '.join(missing)}")
        self.judges = [dict(j) for j in v["judges"]]
        self._show_judges()

    def form_values(self) -> dict:
        def get(wid: str) -> str:
            return self.query_one(f"#{wid}", Input).value

        conditions_order = self._options("#f-conditions")
        chosen_conditions = set(self.query_one("#f-conditions", SelectionList).selected)
        return {
            "name": get("f-name"), "description": get("f-description"),
            "protocol": str(self.query_one("#f-protocol", Select).value),
            "cases": list(self.query_one("#f-cases", SelectionList).selected),
            "conditions": [c for c in conditions_order if c in chosen_conditions],
            "replicates": get("f-replicates"), "raters": get("f-raters"), "cost_ceiling": get("f-cost_ceiling"),
            "rubrics": sorted(self.query_one("#f-rubrics", SelectionList).selected),
            "model": {key: get(f"f-model-{key}") for key in MODEL_KEYS},
            "judges": [dict(j) for j in self.judges],
            "thresholds": {key: get(f"f-threshold-{key}") for key in THRESHOLD_LABELS},
            "arch": {f"{c}.{k}": get(f"f-arch-{c}-{k}") for c, k, _ in ARCH_FIELDS},
            "without": sorted(self.without),
        }

    def study_text(self) -> str:
        return draft_text(self.form_values(), self.base)

    def has_unsaved_changes(self) -> bool:
        if not self.is_mounted:
            return False
        now, before = self.form_values(), dict(self.baseline or {})
        now.pop("without"), before.pop("without", None)  # a confirmation is not an edit
        return now != before

    # -- judges -----------------------------------------------------------------------------------

    def _show_judges(self) -> None:
        table = self.query_one("#judges-table", DataTable)
        table.clear()
        for i, j in enumerate(self.judges):
            table.add_row(*(j.get(k, "") for k in JUDGE_KEYS), key=str(i))

    @on(Button.Pressed, "#judge-add")
    def _add_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_add_judge()

    def action_add_judge(self) -> None:
        judge = {k: self.query_one(f"#judge-{k}", Input).value.strip()
                 for k in ("name", "model", "api_base", "temperature")}
        judge["pipeline"] = str(self.query_one("#judge-pipeline", Select).value)
        judge["runs"] = str(self.query_one("#judge-runs", Select).value)
        if not judge["name"]:
            self.notify("Give the judge a name", severity="warning")
            self.query_one("#judge-name", Input).focus()
            return
        self.judges = [j for j in self.judges if j.get("name") != judge["name"]] + [judge]
        self._show_judges()
        for k in ("name", "model", "api_base", "temperature"):
            self.query_one(f"#judge-{k}", Input).value = ""

    def remove_judge(self, index: int) -> None:
        if 0 <= index < len(self.judges):
            del self.judges[index]
            self._show_judges()

    # -- storing, freezing, loading ---------------------------------------------------------------

    def action_save(self) -> bool:
        """Store the study through the batch core; True when it was stored (or unchanged). When the only
        problems left are missing raters or judges, a dialog asks whether to store it without them."""
        return self.save_now(ask=True)

    def save_now(self, *, ask: bool = False) -> bool:
        """One try through the core. With `ask`, a draft refused only for missing evaluators starts the
        dialog (in a worker) instead of listing the refusal; the dialog stores it if the user says so."""
        from workbench.runs.dry_run import largest_prompts
        from workbench.studies import StudyError, create_study

        try:
            result = create_study(self.app.db, text=self.study_text(), name=FORM_NAME, measure=largest_prompts)
        except StudyError as exc:
            missing = missing_evaluators(self.form_values())
            if ask and missing and all(p.field in missing for p in exc.problems):
                self.show_problems(exc.problems)
                self._save_after_asking()
                return False
            self.show_problems(exc.problems)
            self.notify(f"Not stored: {len(exc.problems)} problem(s), listed on the right", title="Study",
                        severity="error")
            return False
        self._stored(result)
        return True

    @work(exclusive=True, group="study-form-save", exit_on_error=False)
    async def _save_after_asking(self) -> None:
        if await self.confirm_evaluators():
            self.save_now()

    async def confirm_evaluators(self) -> bool:
        """Ask about each missing kind of evaluator; True when the user chose to go without all of them."""
        for kind in missing_evaluators(self.form_values()):
            if await self.app.push_screen_wait(without_evaluators_dialog(kind)) != WITHOUT:
                widget = self._field_widget(kind) if kind == "raters" else self.query_one("#judge-name", Input)
                if widget is not None:
                    widget.focus()
                    self.query_one("#study-form", VerticalScroll).scroll_to_widget(widget)
                self._status(f"not stored: add {kind}, or store again and choose to go without")
                return False
            self.without.add(kind)
        return True

    async def save_confirmed(self) -> bool:
        """Store, asking about missing raters or judges first when that is all that is wrong (for workers:
        freezing, leaving)."""
        if self.save_now():
            return True
        missing = missing_evaluators(self.form_values())
        if not missing or any(p.field not in missing for p in self.problems):
            return False
        return await self.confirm_evaluators() and self.save_now()

    def _stored(self, result: dict, source: str | None = None) -> None:
        from workbench.studies.lookup import find_study

        self.study_id = result["study_id"]
        self.base = result["definition"]
        self.without = {k for k in ("raters", "judges") if not self.base.get(k)}  # stored: a choice made
        self.copy_of = None
        self.show_problems([])
        self.baseline = self.form_values()
        self.sub_title = f"Study {self.study_id}"
        where = f" from {source}" if source else ""
        said = [*result.get("budget", []), *(f"warning: {w}" for w in result.get("warnings", []))]
        self._status("\n".join([f"study {self.study_id} {result['action']}{where}", *said]))  # as `study create`
        self.notify(f"Study {self.study_id} {result['action']}{where}", title="Study",
                    severity="warning" if result.get("warnings") else "information")
        row = find_study(self.app.db, self.study_id)
        if row and row["frozen_at"]:
            self._show_freeze(row["freeze_hash"], row["frozen_at"])
        else:
            self.query_one("#freeze-hash", Static).update("not frozen")

    def action_freeze(self) -> None:
        self._freeze_after_asking()

    @work(exclusive=True, group="study-form-freeze", exit_on_error=False)
    async def _freeze_after_asking(self) -> None:
        """Store if needed, show what the freeze will hash and freeze only when the user says so."""
        from workbench.studies import StudyError
        from workbench.studies.lookup import find_study

        if (self.study_id is None or self.has_unsaved_changes()) and not await self.save_confirmed():
            return
        row = find_study(self.app.db, self.study_id)
        if row is not None and not row["frozen_at"]:
            try:
                dialog = freeze_dialog(self.app.db, self.study_id)
            except StudyError as exc:
                self.show_problems(exc.problems)
                self.notify(f"Cannot freeze {self.study_id}: {len(exc.problems)} problem(s)", severity="error")
                return
            if await self.app.push_screen_wait(dialog) != FREEZE:
                self._status(f"study {self.study_id} not frozen")
                return
        self.freeze_now()

    def freeze_now(self) -> None:
        from workbench.studies import FrozenStudyChanged, StudyError, freeze_study

        try:
            result = freeze_study(self.app.db, self.study_id)
        except FrozenStudyChanged as exc:
            self.notify(str(exc), title="Freeze", severity="error", timeout=15)
            self._status(str(exc))
            return
        except StudyError as exc:
            self.show_problems(exc.problems)
            self.notify(f"Cannot freeze {self.study_id}: {len(exc.problems)} problem(s)", severity="error")
            return
        self._show_freeze(result["freeze_hash"], result["frozen_at"])
        verb = "was already frozen and is unchanged" if result["already_frozen"] else "frozen"
        self._status(f"study {self.study_id} {verb} ({result['artefacts']} artefacts hashed)")
        self.notify(f"{self.study_id} {verb}: {result['freeze_hash'][:12]}", title="Freeze")

    def _show_freeze(self, digest: str, frozen_at: str) -> None:
        self.frozen_hash = digest
        self.query_one("#freeze-hash", Static).update(Text.assemble(
            ("frozen ", "bold green"), frozen_at, "\nhash ", (digest, "bold"),
            ("\nchanges to it are refused: a changed study needs a new name", "dim")))

    def action_load_file(self) -> None:
        self.app.push_screen(StudyFileDialog(), callback=self.load_file)

    def load_file(self, path: str | None) -> bool:
        """Store a study file through the batch core and show it in the form."""
        from workbench.runs.dry_run import largest_prompts
        from workbench.studies import StudyError, create_study

        if not path:
            return False
        path = str(Path(path).expanduser())
        try:
            result = create_study(self.app.db, path, measure=largest_prompts)
        except StudyError as exc:
            self.show_problems([Problem(p.file, p.line, p.field, f"{Path(p.file).name}:{p.line}: {p.message}")
                                for p in exc.problems])
            self.notify(f"{path} not loaded: {len(exc.problems)} problem(s)", title="Study file", severity="error")
            return False
        self.base = result["definition"]
        self.load_values(values_from_definition(result["definition"]))
        self._stored(result, source=Path(path).name)
        return True

    # -- problems ---------------------------------------------------------------------------------

    FORM_SCROLL = "#study-form"

    def problem_widget(self, field: str) -> Widget | None:
        return self._field_widget(field_of(field))

    def _field_widget(self, field: str) -> Widget | None:
        ids = {"name": "f-name", "description": "f-description", "protocol": "f-protocol", "cases": "f-cases",
               "conditions": "f-conditions", "replicates": "f-replicates", "raters": "f-raters",
               "rubrics": "f-rubrics", "cost_ceiling": "f-cost_ceiling", "judges": "judges-table"}
        if field in ids:
            wid = ids[field]
        elif field.startswith("model."):
            wid = f"f-model-{field.split('.', 1)[1]}"
        elif field.startswith("thresholds."):
            wid = f"f-threshold-{field.split('.', 1)[1]}"
        elif field.count(".") == 1 and field.split(".")[0] in ("C1", "C2", "C3"):
            wid = f"f-arch-{field.replace('.', '-')}"
        else:
            return None
        found = self.query(f"#{wid}")
        return found.first() if found else None

    def _status(self, message: str) -> None:
        self.query_one("#form-status", Static).update(message)

    # -- leaving ----------------------------------------------------------------------------------

    async def resolve_unsaved_changes(self) -> bool:
        """Ask save / discard / cancel when the form holds changes not stored (runs in a worker)."""
        if not self.has_unsaved_changes():
            return True
        what = f"Study '{self.study_id}'" if self.study_id else "The new study"
        choice = await self.app.push_screen_wait(unsaved_changes_dialog(what))
        if choice == DISCARD:
            return True
        return choice == SAVE and await self.save_confirmed()

    def left_with(self) -> str | None:
        return self.study_id


class JudgeTable(DataTable):
    """The study's judges; delete removes the selected one."""

    BINDINGS = [Binding("delete", "remove", "Remove judge", id="study_form.remove_judge",
                        tooltip="Remove the selected judge from the study")]

    def action_remove(self) -> None:
        if self.row_count:
            self.screen.remove_judge(self.cursor_row)
