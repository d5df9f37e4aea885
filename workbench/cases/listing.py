"""Case summaries for lists and detail views, shared by the Cases screen and `cases list|show`."""

from __future__ import annotations

import sqlite_utils

from store import cases as case_rows
from store.probes import probes_for_case
from workbench.cases.model import CONTAMINATED_VERDICTS


def _probe_records(db: sqlite_utils.Database, case_id: str, document: dict) -> list[dict]:
    """Probe results from the case file and from probes run in this store, newest first."""
    records = [dict(p, origin="file") for p in document.get("probes", [])]
    for row in probes_for_case(db, case_id):
        records.append({"model": row["model"], "date": row["asked_at"], "verdict": row["verdict"],
                        "origin": "store", "flagged": bool(row["flagged"])})
    return sorted(records, key=lambda r: r["date"], reverse=True)


def probe_label(records: list[dict]) -> str:
    if not records:
        return "not probed"
    latest = records[0]
    flag = " ⚑" if latest["verdict"] in CONTAMINATED_VERDICTS else ""
    return f"{latest['verdict']}{flag}"


def case_summaries(db: sqlite_utils.Database, *, status: str | None = None, type: str | None = None,
                   domain: str | None = None, strategy: str | None = None, search: str | None = None
                   ) -> list[dict]:
    out = []
    needle = (search or "").lower().strip()
    for row in case_rows.list_cases(db):
        if status and row["status"] != status:
            continue
        if type and row["type"] != type:
            continue
        if domain and row["domain"] != domain:
            continue
        if strategy and strategy.upper() not in row["strategies"]:
            continue
        doc = row["document"]
        if needle and not any(needle in str(doc.get(k, "")).lower()
                              for k in ("id", "title", "scenario", "structural_tension", "domain")):
            continue
        probes = _probe_records(db, row["id"], doc)
        out.append({
            "id": row["id"], "title": row["title"], "type": row["type"], "domain": row["domain"],
            "status": row["status"], "strategies": ",".join(row["strategies"]) or "-",
            "probe": probe_label(probes), "recognized": any(p["verdict"] in CONTAMINATED_VERDICTS for p in probes[:1]),
            "source_path": row["source_path"],
        })
    return out


def case_detail(db: sqlite_utils.Database, case_id: str) -> dict | None:
    row = case_rows.get_case(db, case_id)
    if row is None:
        return None
    return {"case": row["document"], "source_path": row["source_path"],
            "probes": _probe_records(db, case_id, row["document"])}


def case_count(db: sqlite_utils.Database) -> int:
    return case_rows.case_count(db)


def all_cases(db: sqlite_utils.Database) -> list[dict]:
    """Every case row (document decoded), by id."""
    return case_rows.list_cases(db)
