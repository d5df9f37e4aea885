"""Lineage across studies (issue 42): a pre-registration holds only for data no earlier result was seen on.

At `study create` and again at `study freeze` a study records every other study in the store that used some
of the same data (its items, or for hindsight its cases), what that study reported (`reported_values`, asked of
the protocol), and whether this study's results are therefore exploratory:

- a pre-registered parameter equals a value the earlier study reported as a result (calibration-small's best
  k 1.25 pre-registered as `k = 1.25` by a new study on the same interactions), or
- the earlier study had results on the same data before this study was frozen (its first output was written
  before the freeze: its numbers could be read). The store keeps when outputs were written, not when a
  metric was looked at, so "had results" is the project's conservative reading of "metrics computed".

A study may declare itself a confirmatory replication (`replication_of = "<earlier study>"`): the tool then
checks its data is new, none of it used by that study, and refuses it otherwise.
"""

from __future__ import annotations

import math

import sqlite_utils

from store import lineage as rows
from store import studies as study_rows


def _units(db: sqlite_utils.Database, study_id: str, definition: dict) -> set[str]:
    return rows.data_units(db, study_id) | {f"case:{c}" for c in definition.get("cases") or []}


def _same(prereg, reported) -> bool:
    """A pre-registered number equals a reported one to the digits it was written with (at least two
    decimals): r 0.712 reported and `human_r = 0.71` pre-registered is the same value, rounded."""
    if isinstance(prereg, (int, float)) and isinstance(reported, (int, float)):
        written = repr(float(prereg)).split(".")[1] if "e" not in repr(float(prereg)) else ""
        digits = max(2, len(written.rstrip("0")))
        return math.isclose(round(float(reported), digits), float(prereg), rel_tol=1e-9, abs_tol=1e-12)
    return prereg == reported


def _shown(v) -> str:
    return f"{v:g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)


def compute(db: sqlite_utils.Database, study_id: str, definition: dict, frozen_at: str | None) -> list[dict]:
    """One row per other study of the protocol that shares data with this one (see the module's rules)."""
    from workbench.protocol.registry import protocol_of

    protocol = protocol_of(definition)
    mine = _units(db, study_id, definition)
    prereg = protocol.preregistered_values(definition)
    out = []
    for other in study_rows.list_studies(db):
        if other["id"] == study_id or other["protocol"] != definition["protocol"]:
            continue
        shared = len(mine & _units(db, other["id"], other["definition"]))
        if not shared:
            continue
        results_at = rows.first_result_at(db, other["id"])
        seen = results_at is not None and (frozen_at is None or results_at <= frozen_at)   # to the second: same is before
        reported = protocol.reported_values(db, other["id"], other["definition"]) if seen else {}
        matches = {k: v for k, v in prereg.items() if k in reported and _same(v, reported[k])}
        reasons = [f"pre-registered {k} = {_shown(v)} is the value study '{other['id']}' reported as its result"
                   + (f" (exploratory: {protocol.lineage_results[k]})" if k in protocol.lineage_results else "")
                   for k, v in matches.items()]
        if seen:
            reasons.append(f"study '{other['id']}' had results on {shared} of the same data unit(s) (from "
                           f"{results_at[:16]}) before this study was {'frozen' if frozen_at else 'created'}")
        out.append({"earlier_study": other["id"], "shared": shared, "earlier_results_at": results_at,
                    "reported": reported, "matches": matches, "exploratory": "; ".join(reasons) or None})
    return out


def replication_problem(db: sqlite_utils.Database, study_id: str, definition: dict) -> str | None:
    """Why a declared confirmatory replication is not one (its data is not new), or None."""
    earlier = definition.get("replication_of")
    if not earlier:
        return None
    other = study_rows.get_study(db, earlier)
    if other is None:
        return f"no study '{earlier}' in this store to replicate"
    shared = len(_units(db, study_id, definition) & _units(db, earlier, other["definition"]))
    if shared:
        return (f"a confirmatory replication needs new data, and {shared} of this study's data unit(s) were "
                f"used by '{earlier}'")
    return None


def record_lineage(db: sqlite_utils.Database, study_id: str, definition: dict, frozen_at: str | None) -> list[dict]:
    found = compute(db, study_id, definition, frozen_at)
    rows.record(db, study_id, found)
    return found


def lineage_lines(db: sqlite_utils.Database, study_id: str) -> list[str]:
    """The lineage in words, for `study create`, `study freeze` and the report: one line per earlier study."""
    out = []
    for r in rows.lineage(db, study_id):
        reported = ", ".join(f"{k} {_shown(v)}" for k, v in r["reported"].items())
        line = (f"study '{r['earlier_study']}' used {r['shared']} of the same data unit(s)"
                + (f" and reported {reported}" if reported else ""))
        if r["exploratory"]:
            line += f": EXPLORATORY, not confirmatory: {r['exploratory']}"
        out.append(line)
    return out


def exploratory(db: sqlite_utils.Database, study_id: str) -> list[str]:
    """The reasons this study's results are exploratory, each naming the earlier study ([] : none)."""
    return [r["exploratory"] for r in rows.lineage(db, study_id) if r["exploratory"]]
