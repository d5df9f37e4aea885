"""Save what the Metrics screen shows: every rendered table (Markdown, as the report prints them, and one
CSV each) and the plots' text renderings, into one folder written whole (workbench.files)."""

from __future__ import annotations

import csv
from pathlib import Path

from workbench.metrics.render import RenderedTable, to_markdown


def save_metrics(out: str | Path, study_id: str, tables: list[RenderedTable],
                 plots: dict[str, str]) -> list[Path]:
    """Write `tables.md`, `<table id>.csv` per table and `<plot name>.txt` per plot into folder `out`
    (replaced whole). Returns the files written; raises workbench.files.WriteError naming the path that failed."""
    from workbench.files import write_folder

    def fill(tmp: Path) -> list[Path]:
        written = [tmp / "tables.md"]
        written[0].write_text(f"# Metrics of {study_id}\n\n" + "\n".join(to_markdown(t) for t in tables),
                              encoding="utf-8")
        for table in tables:
            path = tmp / f"{table.id}.csv"
            with open(path, "w", newline="", encoding="utf-8") as fh:
                writer = csv.writer(fh)
                writer.writerow(table.columns)
                writer.writerows(table.rows)
            written.append(path)
        for name, text in plots.items():
            path = tmp / f"{name}.txt"
            path.write_text(text, encoding="utf-8")
            written.append(path)
        return written

    return write_folder(out, fill)
