"""Save what the Metrics screen shows: every rendered table (Markdown, as the report prints them, and one
CSV each) and the plots' text renderings, into one folder (workbench.files: only files the workbench wrote
there are ever replaced). A simulated study's files carry the SIMULATED label: the Markdown's first line,
a `simulated` column on every CSV row, and the first line of each plot."""

from __future__ import annotations

import csv
from pathlib import Path

from workbench.metrics.render import RenderedTable, to_markdown


def save_metrics(out: str | Path, study_id: str, tables: list[RenderedTable], plots: dict[str, str], *,
                 text: str = "", simulated: bool = False, replace: bool = False) -> list[Path]:
    """Write `tables.md`, `<table id>.csv` per table, `<plot name>.txt` per plot and, for a protocol whose
    metrics are a text (`text`), `metrics.txt` into folder `out`
    (`replace`: the workbench's files already there are replaced). Returns the files written; raises
    workbench.files.WriteError (FolderNotEmpty, ForeignFile) naming the path."""
    from workbench.files import write_folder
    from workbench.simmodel.label import BANNER, LABEL

    banner = f"{LABEL}: {BANNER}\n\n" if simulated else ""

    def fill(tmp: Path) -> list[Path]:
        written = [tmp / "tables.md"]
        written[0].write_text(f"# Metrics of {study_id}{f' ({LABEL})' if simulated else ''}\n\n" + banner
                              + "\n".join(to_markdown(t) for t in tables), encoding="utf-8")
        for table in tables:
            path = tmp / f"{table.id}.csv"
            with open(path, "w", newline="", encoding="utf-8") as fh:
                writer = csv.writer(fh)
                writer.writerow(["simulated", *table.columns] if simulated else table.columns)
                writer.writerows([LABEL, *row] if simulated else row for row in table.rows)
            written.append(path)
        for name, plot in plots.items():
            path = tmp / f"{name}.txt"
            path.write_text(banner + plot, encoding="utf-8")
            written.append(path)
        if text:
            written.append(tmp / "metrics.txt")
            written[-1].write_text(text if LABEL in text or not simulated else banner + text, encoding="utf-8")
        return written

    return write_folder(out, fill, replace=replace)
