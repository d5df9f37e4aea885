"""A study's metrics as files: the document `metrics` prints (text and JSON) and the long-format rows of
`metrics --csv`. One definition for the batch command, the TUI's export (catalog entry `metrics`) and the
Metrics section's tabs and `w` save.

`finish_document` is what the batch command does to every protocol's metrics document before printing it
(the SIMULATED mark, the treatment fidelity table, then the parse counts per structured step); `csv_text` is
its CSV (every row names its study, so files of several studies join). `screen_tabs` are the Metrics section's
tabs (the protocol's `metrics_tabs`, or one per report section), `study_marks` what every tab and saved row
carries, and `save_screen` what `w` writes: tables.md, one CSV per table, the plots and `metrics --csv`'s rows.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from workbench.protocol.base import MetricsTab, MetricsTable


def finish_document(db, study_id: str, doc, definition: dict):
    """The protocol's metrics document as `metrics` prints it: marked SIMULATED on `sim` and ending with the
    parse counts per structured step (workbench.structured.counts, the report's definition too)."""
    from workbench.simulation.marks import mark_document
    from workbench.structured.counts import parse_counts, section

    from workbench.fidelity.study import study_fidelity

    doc = mark_document(doc, definition)
    fidelity = study_fidelity(db, study_id)  # in how many runs each condition's defining step happened
    if fidelity is not None:
        doc.document["treatment_fidelity"] = fidelity.to_dict()
        doc.text = doc.text.rstrip("\n") + "\n\n" + fidelity.text()
    counts = parse_counts(db, study_id)
    doc.document["structured_replies"] = counts
    doc.text = doc.text.rstrip("\n") + "\n\n" + section(counts)
    return doc


def csv_rows(study_id: str, doc) -> tuple[list[str], list[dict]]:
    """The columns and rows of `metrics --csv`: the protocol's rows, each naming its study."""
    columns = doc.csv_columns if "study" in doc.csv_columns else ["study", *doc.csv_columns]
    return columns, [{"study": study_id, **row} for row in doc.csv_rows]


def csv_text(study_id: str, doc) -> str:
    columns, rows = csv_rows(study_id, doc)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def json_text(study_id: str, protocol: str, doc) -> str:
    """The document `metrics --json` prints (naming its study and protocol first)."""
    document = {"study": study_id, **doc.document}
    document.setdefault("protocol", protocol)
    return json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n"


def study_metrics(db, study_id: str, *, csv: bool) -> tuple[object, str]:
    """The study's metrics document with the batch command's defaults (no extra comparisons, the bundled
    embedding model), finished as `metrics` prints it; and its protocol's name."""
    from workbench.protocol.registry import protocol_of
    from workbench.studies.lookup import load_study

    definition = load_study(db, study_id)["definition"]
    protocol = protocol_of(definition)
    doc = protocol.metrics(db, study_id, {"csv": csv, "comparisons": [], "include_dq": True,
                                          "embedding_model": None, "progress": None})
    return finish_document(db, study_id, doc, definition), protocol.name


# --- the Metrics section ---------------------------------------------------------------------------------

DRY_RUN = "DRY RUN (placeholder text of the offline mock model: no number here is a finding)"
CELL_SPLIT = re.compile(r"(?<!\\)\|")  # a cell's own "|" is escaped as "\|" (render.to_markdown)


def study_marks(db, study_id: str, definition: dict) -> list[str]:
    """What every tab of the Metrics section and every row `w` saves carries: SIMULATED, a dry run on `mock`,
    EXPLORATORY (with the earlier studies that make it so), the evaluators a pre-registered rule excluded."""
    from workbench.evaluators.exclusions import excluded
    from workbench.simulation.marks import is_placeholder
    from workbench.simmodel.label import LABEL, is_simulated
    from workbench.studies.lineage import exploratory

    marks = [LABEL] if is_simulated(definition) else []
    if is_placeholder(definition):
        marks.append(DRY_RUN)
    why = exploratory(db, study_id)  # an earlier study's results on the same data (issue 42's lineage)
    if why:
        marks.append("EXPLORATORY, not confirmatory: " + "; ".join(why))
    left_out = excluded(db, study_id)
    if left_out:
        marks.append("excluded evaluators: " + ", ".join(f"{name} ({kind})" for name, kind in sorted(left_out.items())))
    return marks


def marks_line(marks: list[str], definition: dict) -> str:
    """The marks as the Metrics section shows them above every tab: the SIMULATED label saying what is
    simulated in this study (raters only where it has them), then the other marks."""
    from workbench.simmodel.label import LABEL

    parts = []
    for mark in marks:
        if mark == LABEL:
            raters = " and simulated raters" if definition.get("raters") else ""
            parts.append(f"{LABEL}: every number here comes from the offline `sim` model{raters} with planted "
                         "effects, not from a model's answers or a person's judgement")
        else:
            parts.append(mark)
    return " · ".join(parts)


def markdown_blocks(text: str) -> list:
    """A report's Markdown as the Metrics section lays it out: runs of prose (str) and its tables
    (MetricsTable, titled by the heading or caption above it, ids unique within `text`)."""
    blocks, prose, used = [], [], set()
    lines = text.splitlines()
    heading = caption = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("|") and i + 1 < len(lines) and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+\s*", lines[i + 1]):
            rows = []
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append(_cells(lines[j]))
                j += 1
            while prose and not prose[-1].strip():
                prose.pop()
            if caption and prose and _caption_of(prose[-1]) == caption and _whole_caption(prose[-1]):
                prose.pop()  # the caption becomes the table's title
            if "".join(prose).strip():
                blocks.append("\n".join(prose).strip("\n"))
            prose = []
            title = f"{heading}: {caption}" if heading and caption else (caption or heading or "Table")
            blocks.append(MetricsTable(_unique(_slug(title), used), title, _cells(line), rows))
            caption = ""
            i = j
            continue
        stripped = line.strip()
        if stripped.startswith("#"):
            heading, caption = stripped.lstrip("#").strip(), ""
        elif stripped:
            caption = _caption_of(stripped)
        prose.append(line)
        i += 1
    if "".join(prose).strip():
        blocks.append("\n".join(prose).strip("\n"))
    return blocks


BOLD_LEAD = re.compile(r"\*\*(.+?)\*\*")


def _caption_of(line: str) -> str:
    """A table's caption, if `line` is one: its bold lead (a report's "**ACC against the baselines** (Holm …)"),
    or a short line ending with a colon ("Disagreement by p bin:"). A sentence is prose, not a caption: its
    numbers would name the table and its CSV file (issue 43's walk)."""
    stripped = line.strip()
    lead = BOLD_LEAD.match(stripped)
    if lead:
        return lead.group(1).rstrip(":").strip()
    return stripped.rstrip(":").strip() if stripped.endswith(":") and len(stripped) <= 90 else ""


def _whole_caption(line: str) -> bool:
    """Whether `line` is nothing but its caption (then it is shown as the table's title, not twice)."""
    return line.strip().replace("**", "").rstrip(":").strip() == _caption_of(line)


def _cells(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in CELL_SPLIT.split(line.strip().strip("|"))]


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60].strip("-") or "table"


def _unique(slug: str, used: set[str]) -> str:
    name, k = slug, 2
    while name in used:
        name, k = f"{slug}-{k}", k + 1
    used.add(name)
    return name


@dataclass
class ScreenTab:
    """A tab as the Metrics section lays it out: the protocol's tab, its tables (the protocol's, or those of its
    Markdown), what it shows in order (prose as str, tables) and what `tables.md` holds of it."""

    tab: MetricsTab
    tables: list
    blocks: list
    markdown: str


FIDELITY_TAB = "fidelity"


def screen_tabs(db, study_id: str, protocol, analysis=None) -> list[ScreenTab]:
    """The study's Metrics tabs: the protocol's `metrics_tabs`, else one tab per report section, then the
    frame's Fidelity tab: the treatment fidelity table (workbench.fidelity, as `metrics` and the report print
    it) for a protocol that names defining steps, the structured replies and a sim study's planted vs recovered
    (so `w` saves every table `metrics` and the report hold). A tab that names no tables has those of its
    Markdown, in place (their ids unique across the tabs)."""
    from store.studies import get_study
    from workbench.fidelity.study import study_fidelity
    from workbench.metrics.render import FORCED_TAG

    tabs = protocol.metrics_tabs(db, study_id, {"analysis": analysis})
    if tabs is None:
        tabs = [MetricsTab(f"s{k}", s.title, text=f"## {s.title}\n\n{s.body}")
                for k, s in enumerate(protocol.report_sections(db, study_id, {}), start=1)]
    fidelity = study_fidelity(db, study_id)
    fidelity_tables = []
    if fidelity is not None:
        table = fidelity.rendered()
        if (get_study(db, study_id) or {}).get("unblind_forced"):
            table.title = f"{table.title} {FORCED_TAG}"  # as every table of a study unblinded by force
        fidelity_tables = [table]
    # the fidelity tab also holds what `metrics` and the report print for every protocol after its own tables
    tabs = [*tabs, MetricsTab(FIDELITY_TAB, "Fidelity", text=_replies_and_plants(db, study_id, protocol),
                              tables=fidelity_tables)]
    used: set[str] = set()
    out = []
    for tab in tabs:
        if tab.id == FIDELITY_TAB:
            blocks = markdown_blocks(tab.text)
            tables = [b for b in blocks if isinstance(b, MetricsTable)]
            for table in tables:
                table.id = _unique(table.id, used)
            markdown = "\n\n".join([*(to_markdown(rendered(t)) for t in tab.tables), tab.text.strip("\n")])
            out.append(ScreenTab(tab, [*tab.tables, *tables], [*tab.tables, *blocks], markdown))
            continue
        if tab.tables:
            blocks = ([tab.text] if tab.text else []) + list(tab.tables)
            out.append(ScreenTab(tab, list(tab.tables), blocks, "\n".join(to_markdown(rendered(t)) for t in tab.tables)))
            continue
        blocks = markdown_blocks(tab.text)
        tables = [b for b in blocks if isinstance(b, MetricsTable)]
        for table in tables:
            table.id = _unique(table.id, used)
        out.append(ScreenTab(tab, tables, blocks, tab.text))
    return out


def _replies_and_plants(db, study_id: str, protocol) -> str:
    """The "Structured replies" and (a `sim` study's) "Planted vs recovered" sections, as the report prints
    them (one definition each: workbench.structured.counts, workbench.reports.planted)."""
    from store.metrics_data import study_header
    from workbench.reports.planted import planted_section
    from workbench.reports.study_report import structured_section

    definition = (study_header(db, study_id) or {}).get("definition") or {}
    planted = planted_section(db, study_id, protocol, definition)
    return structured_section(db, study_id) + (f"\n{planted}" if planted else "")


def rendered(table):
    """A table as workbench.metrics.render draws it (a MetricsTable becomes a RenderedTable with no drill-downs)."""
    from workbench.metrics.render import RenderedTable

    if isinstance(table, RenderedTable):
        return table
    return RenderedTable(table.id, table.title, table.columns, table.rows, table.notes)


def to_markdown(table) -> str:
    from workbench.metrics.render import to_markdown as markdown

    return markdown(table)


def screen_files(tabs: list[ScreenTab], plots: dict[str, str]) -> set[str]:
    """The names of the files `save_screen` writes (the save dialog names a hand-edited one among them)."""
    return ({"tables.md", "metrics.csv"} | {f"{t.id}.csv" for tab in tabs for t in tab.tables}
            | {f"{name}.txt" for name in plots})


def save_screen(out: str | Path, study_id: str, tabs: list[ScreenTab], plots: dict[str, str], *,
                marks: list[str], definition: dict, metrics_csv: str, replace: bool = False) -> list[Path]:
    """What the Metrics section's `w` writes into folder `out`: `tables.md` (each tab's Markdown as the report
    prints it, or its tables rendered so), `<table id>.csv` per table with the study's marks on every row
    (a `simulated` column, and `marks`; `definition`: the study's, for its banner), `<plot>.txt` per plot and `metrics.csv` (`metrics --csv`'s rows).
    Only the workbench's own files are ever replaced (`replace`); raises workbench.files.WriteError."""
    from workbench.files import write_folder
    from workbench.simmodel.label import LABEL
    from workbench.simulation.marks import banner as simulated_banner

    simulated = LABEL in marks
    # the banner names simulated raters only for a study that has raters (issue 43: faultline's did)
    head = ([f"{LABEL}: {simulated_banner(definition)}"] if simulated else []) + [m for m in marks if m != LABEL]
    banner = "".join(f"{line}\n\n" for line in head)
    mark_columns = (["simulated"] if simulated else []) + (["marks"] if marks else [])
    mark_cells = ([LABEL] if simulated else []) + (["; ".join(marks)] if marks else [])

    def fill(tmp: Path) -> list[Path]:
        written = [tmp / "tables.md"]
        body = "\n\n".join(tab.markdown for tab in tabs)
        written[0].write_text(f"# Metrics of {study_id}{f' ({LABEL})' if simulated else ''}\n\n{banner}{body}\n",
                              encoding="utf-8")
        for table in (t for tab in tabs for t in tab.tables):
            path = tmp / f"{table.id}.csv"
            with open(path, "w", newline="", encoding="utf-8") as fh:
                writer = csv.writer(fh)
                writer.writerow([*mark_columns, *table.columns])
                writer.writerows([*mark_cells, *row] for row in table.rows)
            written.append(path)
        for name, plot in plots.items():
            written.append(tmp / f"{name}.txt")
            written[-1].write_text(banner + plot, encoding="utf-8")
        written.append(tmp / "metrics.csv")
        written[-1].write_text(metrics_csv, encoding="utf-8")
        return written

    return write_folder(out, fill, replace=replace)
