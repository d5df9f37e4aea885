"""The one list of a study's exports that the TUI offers (and the batch `export` commands run): each entry
names what it writes and writes it into a folder, whole or not at all.

An entry is `Export(id, title, description, write)` with `write(db, study_id, out, *, replace=False) ->
ExportDone`; add a new export here and both sides have it. Every entry writes through
`workbench.files.write_folder`: into a folder that holds anything it writes only with `replace` (the TUI
asks first, a batch command needs --force), and even then it replaces only files the workbench wrote there.
Refusals (a blind study, a missing optional package, a folder that cannot be written or is not empty)
raise `ExportFailed` with a message that names the study or the path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable


class ExportFailed(Exception):
    """The export was refused or could not be written; nothing was replaced."""


class ExportNotEmpty(ExportFailed):
    """The folder holds files and replacing the workbench's own among them was not asked for (`state`: what
    it holds, workbench.files.FolderState)."""

    def __init__(self, error) -> None:
        super().__init__(f"not exported: {error}")
        self.state = error.state


@dataclass(frozen=True)
class ExportDone:
    paths: list[Path]
    summary: str  # one line: what was written where
    details: dict  # what the batch command's --json adds (protocol, samples, rows per table)


@dataclass(frozen=True)
class Export:
    id: str
    title: str
    description: str
    write: Callable[..., ExportDone]


def _record(db, study_id: str, *, blind: bool = False):
    from workbench.exports.study_record import ExportRefused, load

    try:
        return load(db, study_id, blind=blind)
    except (KeyError, ExportRefused) as exc:
        raise ExportFailed(str(exc.args[0] if exc.args else exc)) from None


def _write(out, fill, replace: bool) -> list[Path]:
    from workbench.files import FolderNotEmpty, WriteError, write_folder

    try:
        return write_folder(out, fill, replace=replace)
    except FolderNotEmpty as exc:
        raise ExportNotEmpty(exc) from None
    except WriteError as exc:
        raise ExportFailed(f"cannot write the export: {exc}") from None


def export_inspect(db, study_id: str, out, *, blind: bool = False, replace: bool = False) -> ExportDone:
    """Inspect AI eval logs, one per condition (`blind`: the blind items only, allowed before unblinding)."""
    from workbench.exports.inspect_log import InspectMissing, export_inspect as write_logs, require_inspect

    try:
        require_inspect()
    except InspectMissing as exc:
        raise ExportFailed(str(exc)) from None
    record = _record(db, study_id, blind=blind)
    if blind and not record.blind_items:
        raise ExportFailed(f"study '{study_id}' has no blind items to export (nothing was blinded yet)")
    paths = _write(out, lambda tmp: write_logs(db, record, tmp), replace)
    samples = len(record.blind_items) if blind else len(record.runs)
    return ExportDone(paths, f"wrote {len(paths)} Inspect log(s) of {study_id} ({record.protocol}, {samples} "
                             f"samples{', blind items only' if blind else ''}) to {out}; open them with "
                             f"`inspect view --log-dir {out}`",
                      {"protocol": record.protocol, "samples": samples})


def export_table(db, study_id: str, out, *, with_text: bool = False, replace: bool = False) -> ExportDone:
    """Tidy long-format CSV tables and their Frictionless datapackage.json."""
    from workbench.exports.tables import study_tables, write_tables

    record = _record(db, study_id)
    tables = study_tables(db, record, with_text=with_text, measures=_measures(db, record))
    paths = _write(out, lambda tmp: write_tables(tables, record, tmp), replace)
    return ExportDone(paths, f"wrote {len(tables)} tables of {study_id} ({record.protocol}) and datapackage.json "
                             f"to {out}: " + ", ".join(f"{t.name} {len(t.rows)}" for t in tables),
                      {"protocol": record.protocol, "rows": {t.name: len(t.rows) for t in tables}})


def _measures(db, record):
    """The protocol's `metrics --csv` rows (no decision-quality embeddings: the tables stay quick)."""
    from workbench.protocol.registry import protocol_of

    protocol = protocol_of(record.study["definition"])
    try:
        return protocol.metrics(db, record.study["id"], {"csv": True, "include_dq": False, "comparisons": [],
                                                          "embedding_model": None, "progress": None})
    except NotImplementedError:
        return None


def export_metrics(db, study_id: str, out, *, replace: bool = False) -> ExportDone:
    """The study's metrics as `metrics` prints them: metrics.txt (the tables), metrics.json (`--json`) and
    metrics.csv (`--csv`, every score and verdict in long format); condition-free while the study is blind."""
    from workbench.exports.metrics_files import csv_text, json_text, study_metrics

    try:
        doc, protocol = study_metrics(db, study_id, csv=False)
        rows, _ = study_metrics(db, study_id, csv=True)
    except KeyError as exc:
        raise ExportFailed(str(exc.args[0] if exc.args else exc)) from None

    def fill(tmp: Path) -> list[Path]:
        files = {"metrics.txt": doc.text.rstrip("\n") + "\n", "metrics.json": json_text(study_id, protocol, doc),
                 "metrics.csv": csv_text(study_id, rows)}
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="utf-8")
        return [tmp / name for name in files]

    paths = _write(out, fill, replace)
    return ExportDone(paths, f"wrote the metrics of {study_id} ({protocol}) to {out}: metrics.txt, metrics.json "
                             f"and metrics.csv ({len(rows.csv_rows)} rows)",
                      {"protocol": protocol, "rows": len(rows.csv_rows)})


EXPORTS = [
    Export("table", "Tidy tables", "long-format CSV tables (runs, calls, outputs, scores, measures) and a "
           "Frictionless datapackage.json; once unblinded", export_table),
    Export("metrics", "Metrics", "the tables (text), the `metrics --json` document and the `--csv` rows; "
           "condition-free while blind", export_metrics),
    Export("inspect", "Inspect AI logs", "Inspect AI eval logs, one per condition (needs inspect-ai); once "
           "unblinded", export_inspect),
    Export("inspect-blind", "Inspect AI logs, blind items", "the blind items only: opaque ids and the text "
           "raters read", lambda db, study_id, out, *, replace=False: export_inspect(db, study_id, out, blind=True,
                                                                               replace=replace)),
]


def exports_for(db, study_id: str) -> list[Export]:
    """The shared exports, then the study's protocol's own (`StudyProtocol.exports`)."""
    from workbench.protocol.registry import protocol_of
    from workbench.studies.lookup import load_study

    return [*EXPORTS, *(_guarded(e) for e in protocol_of(load_study(db, study_id)["definition"]).exports())]


def _guarded(entry: Export) -> Export:
    """A protocol's entry whose refusals read like the shared ones' (a folder not empty, a write that failed)."""
    from workbench.files import FolderNotEmpty, WriteError

    def write(db, study_id: str, out, *, replace: bool = False) -> ExportDone:
        try:
            return entry.write(db, study_id, out, replace=replace)
        except FolderNotEmpty as exc:
            raise ExportNotEmpty(exc) from None
        except WriteError as exc:
            raise ExportFailed(f"cannot write the export: {exc}") from None

    return Export(entry.id, entry.title, entry.description, write)


def export_by_id(export_id: str, db=None, study_id: str | None = None) -> Export:
    """The entry with this id: a shared one, or (given the study) one of its protocol's own."""
    entries = EXPORTS if db is None else exports_for(db, study_id)
    return next(e for e in entries if e.id == export_id)
