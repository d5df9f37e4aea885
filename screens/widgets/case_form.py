"""The fields of the case editor, in two parts.

`IdentityFields` (id, title, type, …, source) is composed with the editor so
it paints at once; `CaseDetails` (strategies, the selection-criteria
checklist, the transposition mapping, probe results and the prose fields) is
mounted right after the first paint: it holds most of the widgets, and the
editor feels sluggish to open if the user waits for all of them.
Widget ids are `f-<field>`, see `field_widget_id`.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from screens.widgets.checklist import TickBox
from screens.widgets.mapping import MappingRow
from workbench.cases.model import (
    CASE_TYPES, COMPLEXITIES, CONCERN_DOMAINS, CRITERIA, DOMAINS, PRESERVES, SECTIONS, STATUSES, STRATEGIES, Case,
)

STRATEGY_LABELS = {"A": "A post-cutoff", "B": "B transposition", "C": "C below training data"}
PROSE_TITLES = {
    "scenario": "Scenario — the knowledge-bounded text architectures see",
    "outcome": "Outcome — what happened; shown only to evaluators",
    "structural_tension": "Structural tension",
    "research_needed": "Research needed",
    "notes": "Notes",
}
TEXT_FIELDS = ("id", "title", "decision_date", "source")
CHOICE_FIELDS = {"type": CASE_TYPES, "domain": DOMAINS, "status": STATUSES, "complexity": COMPLEXITIES,
                 "concern_domain": CONCERN_DOMAINS}


def field_widget_id(field: str) -> str | None:
    """The id of the widget where a problem's field is edited (None: no single widget)."""
    base = field.split("[", 1)[0]
    if base in (*TEXT_FIELDS, *CHOICE_FIELDS, "rubric", "path", *SECTIONS):
        return f"f-{base}"
    if base == "strategies":
        return "f-strategy-A"
    if base.startswith("criteria."):
        return f"f-criteria-{base.split('.', 1)[1]}"
    if base.startswith("transposition.preserves."):
        return f"f-tr-preserves-{base.rsplit('.', 1)[1]}"
    return {"transposition.original": "f-tr-original", "transposition.verifiers": "f-tr-verifier-1",
            "transposition.mapping": "add-mapping"}.get(base)


def choice(name: str, options: tuple[str, ...], value: str) -> Select:
    choices = [(o, o) for o in options]
    if value and value not in options:  # keep an unknown value visible so validation can name it
        choices.append((value, value))
    return Select(choices, value=value if value else Select.NULL, allow_blank=False, id=f"f-{name}", compact=True)


class IdentityFields(Grid):
    """Label / field pairs in a two-column grid."""

    def __init__(self, case: Case) -> None:
        super().__init__(id="identity", classes="field-grid")
        self.case = case

    def compose(self) -> ComposeResult:
        case = self.case
        yield Label("File", classes="field-label")
        yield Input(placeholder="(automatic)", id="f-path", compact=True,
                    tooltip="Leave empty to save beside the shipped cases as <id>.md, or type a path")
        yield Label("", classes="field-label")
        yield Static("", id="path-target", classes="field-note", markup=False)
        yield Label("Id", classes="field-label")
        yield Input(case.id, placeholder="lowercase-with-dashes", id="f-id", compact=True)
        yield Label("Title", classes="field-label")
        yield Input(case.title, id="f-title", compact=True)
        for name in ("type", "domain", "status"):
            yield Label(name.capitalize(), classes="field-label")
            yield choice(name, CHOICE_FIELDS[name], getattr(case, name))
        yield Label("Decision date", classes="field-label")
        yield Input(case.decision_date, placeholder="YYYY, YYYY-MM, YYYY-MM-DD or 2020..2022", id="f-decision_date",
                    compact=True)
        yield Label("Complexity", classes="field-label")
        yield choice("complexity", COMPLEXITIES, case.complexity)
        yield Label("Concern domain", classes="field-label")
        yield choice("concern_domain", CONCERN_DOMAINS, case.concern_domain)
        yield Label("Rubric", classes="field-label")
        current = [(case.rubric, case.rubric)] if case.rubric else []
        yield Select(current, value=case.rubric or Select.NULL, prompt="none", allow_blank=True, id="f-rubric",
                     compact=True, tooltip="The specialized rubric scored on this case, if any")
        yield Label("Source", classes="field-label")
        yield Input(case.source, placeholder="where the case comes from", id="f-source", compact=True)


class CaseDetails(Vertical):
    """Strategies, the five selection criteria, the transposition, probe results, prose."""

    def __init__(self, case: Case, probe_text: str) -> None:
        super().__init__(id="case-details")
        self.case = case
        self.probe_text = probe_text

    def compose(self) -> ComposeResult:
        case = self.case
        yield Static("Contamination strategies (seed 000 §III)", classes="form-heading")
        with Horizontal(classes="checks"):
            for s in STRATEGIES:
                yield TickBox(STRATEGY_LABELS[s], s in case.strategies, id=f"f-strategy-{s}", compact=True)

        yield Static("Selection criteria — a ready case satisfies all five (seed 000 §IV)", classes="form-heading")
        for key, label in CRITERIA.items():
            name, _, detail = label.partition(": ")
            with Horizontal(classes="check-row"):
                yield TickBox(name, bool(case.criteria.get(key)), id=f"f-criteria-{key}", classes="criterion",
                               compact=True, tooltip=label)
                yield Static(detail, classes="check-detail", markup=False)

        tr = case.transposition
        yield Static("Transposition — required for strategy B", classes="form-heading")
        with Grid(classes="field-grid"):
            yield Label("Original case", classes="field-label")
            yield Input(tr.original, placeholder="the real case it transposes", id="f-tr-original", compact=True)
            verifiers = list(tr.verifiers) + [""] * max(0, 2 - len(tr.verifiers))
            for i, name in enumerate(verifiers, start=1):
                yield Label(f"Verifier {i}", classes="field-label")
                yield Input(name, placeholder="an independent person", id=f"f-tr-verifier-{i}", classes="verifier",
                            compact=True)
        yield Label("Mapping: real case → scenario", classes="field-note")
        with Vertical(id="mapping-rows"):
            for m in tr.mapping:
                yield MappingRow(m["from"], m["to"])
        yield Button("+ mapping row", id="add-mapping", compact=True, tooltip="Add a from → to row (ctrl+t)")
        yield Label("Both verifiers confirm the transposition preserves:", classes="field-note")
        for key, what in PRESERVES.items():
            yield TickBox(what, bool(tr.preserves.get(key)), id=f"f-tr-preserves-{key}", classes="preserve",
                           compact=True)

        yield Static("Contamination probe results", classes="form-heading")
        yield Static(self.probe_text, id="probe-results", markup=False)

        for key in SECTIONS:
            yield Static(PROSE_TITLES[key], classes="form-heading")
            yield TextArea(getattr(case, key), id=f"f-{key}", soft_wrap=True, classes="prose")
