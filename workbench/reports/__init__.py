"""Written reports of a study (Markdown): the shared heading, and the section layout (files are written whole by workbench.files).

Each protocol builds its own sections (`StudyProtocol.report_sections`) or its
whole report (`StudyProtocol.report`, hindsight's Tables 1–4); this package
only frames and writes them, so every protocol's report opens the same way.
"""

from __future__ import annotations

from datetime import datetime, timezone


def protocol_report(db, study_id: str, protocol, options: dict | None = None) -> str:
    """The protocol's whole report (`StudyProtocol.report`, hindsight's Tables 1–4), or, when it returns
    None, the shared heading followed by its `report_sections`; a `sim` study's ends with its planted
    values beside the recovered ones (workbench.reports.planted)."""
    text = protocol.report(db, study_id, options)
    if text is None:
        text = standard_report(db, study_id, protocol, protocol.report_sections(db, study_id, options))
    from store.metrics_data import study_header
    from workbench.reports.planted import planted_section

    from workbench.reports.lineage import with_lineage

    definition = (study_header(db, study_id) or {}).get("definition") or {}
    text = with_lineage(text, db, study_id)    # other studies on the same data, before the first section
    planted = planted_section(db, study_id, protocol, definition)   # a `sim` study's, after its own sections
    return text.rstrip("\n") + "\n\n" + planted if planted else text


def standard_report(db, study_id: str, protocol, sections, *, generated_at: str | None = None) -> str:
    """The shared heading (study, protocol, seed, freeze, status, generated) and the sections in order."""
    from store.metrics_data import study_header

    header = study_header(db, study_id) or {"id": study_id, "definition": {}}
    d = header["definition"]
    generated_at = generated_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
    from workbench.simulation.marks import title_mark  # a study on `sim` says so before anything else

    parts = [f"# Study report: {d.get('name') or study_id}" + title_mark(d, bool(header.get("frozen_at"))), ""]
    parts.append(f"- Study id: `{study_id}`; protocol: {protocol.name}"
                 + (f" (seed {protocol.seed}: {protocol.title})" if protocol.seed else ""))
    parts.append(f"- Frozen: {header.get('frozen_at') or 'not frozen'}; freeze hash: "
                 f"`{header.get('freeze_hash') or '-'}`")
    parts.append(f"- Status: {status_line(header)}")
    if d.get("description"):
        parts.append(f"- Description: {d['description']}")
    parts.append(f"- Generated: {generated_at}")
    parts.append("")
    for s in sections:
        parts += [f"{'#' * s.level} {s.title}", "", s.body.rstrip(), ""]
    return "\n".join(parts).rstrip() + "\n"


def status_line(header: dict) -> str:
    """The heading's status: the study's status (store.studies.study_status, as `study list` says it), and
    who opened the key when."""
    text = header.get("status_text") or "-"
    if header.get("unblinded_at"):
        text += f" at {header['unblinded_at']} by {header.get('unblinded_by') or '?'}"
    return text
