"""A study's metrics as files: the document `metrics` prints (text and JSON) and the long-format rows of
`metrics --csv`. One definition for the batch command and the TUI's export (catalog entry `metrics`).

`finish_document` is what the batch command does to every protocol's metrics document before printing it
(the SIMULATED mark, the treatment fidelity table, then the parse counts per structured step); `csv_text` is
its CSV (every row names its study, so files of several studies join).
"""

from __future__ import annotations

import csv
import io
import json


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
