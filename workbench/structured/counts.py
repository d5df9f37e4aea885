"""Parse counts per structured step: each reply recorded as it is read, and the one definition of the
counts that `metrics` (text and --json) and the report print.

A reply is one model answer: a retry after an unusable reply is a second reply, counted too. A resumed run's
replayed reply replaces its own row (same key), so a resume never counts twice.
"""

from __future__ import annotations

from datetime import datetime, timezone

import sqlite_utils

from workbench.structured.reading import CUT, OUTCOMES, UNPARSED, Reading


def record(db: sqlite_utils.Database, study_id: str | None, key: str, step: str, reading: Reading) -> None:
    """Keep how one reply of a study's step was read (nothing for a call outside any study)."""
    from store.structured_replies import put_reply

    if not study_id:
        return
    put_reply(db, study_id=study_id, key=key, step=step, outcome=reading.outcome, detail=reading.detail,
              at=datetime.now(timezone.utc).isoformat(timespec="milliseconds"))


def recorder(db: sqlite_utils.Database, study_id: str | None, prefix: str):
    """`RunContext.on_reply` for one run (or graph build, …): keys are `prefix/turn`."""
    return lambda turn, step, reading: record(db, study_id, f"{prefix}/{turn}", step, reading)


def parse_counts(db: sqlite_utils.Database, study_id: str) -> list[dict]:
    """Per step, in name order: {"step", "parsed", "repaired", "refused", "cut", "unparsed", "replies",
    "unparsed_share"}."""
    from store.structured_replies import outcome_counts

    steps: dict[str, dict] = {}
    for row in outcome_counts(db, study_id):
        entry = steps.setdefault(row["step"], {"step": row["step"], **{o: 0 for o in OUTCOMES}})
        entry[row["outcome"]] = entry.get(row["outcome"], 0) + row["n"]
    out = []
    for step in sorted(steps):
        entry = steps[step]
        entry["replies"] = sum(entry[o] for o in OUTCOMES)
        entry["unparsed_share"] = round(entry[UNPARSED] / entry["replies"], 4) if entry["replies"] else None
        out.append(entry)
    return out


NOTE = ("Each reply of a step that must answer in JSON, as its parser read it: parsed (taken as is), repaired "
        "(the parser had to fix it: a fenced or embedded object, a respelled, filled-in or clamped value), "
        "refused (it parsed, but a check refused its content: a judge's quote not found in the response), cut (it "
        "did not parse because the server stopped it at max_tokens) or unparsed. A retry after an unusable reply "
        "is another reply.")


def schema_fallbacks(db: sqlite_utils.Database, study_id: str) -> str:
    """The report's sentence on calls a server answered only without their schema ("" when none was)."""
    from store.calls import schema_fallbacks as fallback_counts

    rows = fallback_counts(db, study_id)
    if not rows:
        return ""
    each = ", ".join(f"{r['n']} on {r['model']}" for r in rows)
    return (f"Sent without their schema: {each} call(s). The server failed the request that carried the schema "
            "(llama-cpp-python drops the connection on a grammar it cannot parse), so the gateway asked again "
            "without it; these replies were read by the parser alone (the call log names each one).\n")


def section(counts: list[dict], fallbacks: str = "") -> str:
    """The counts per step as `metrics` prints them and the report holds them (Markdown); `fallbacks`: the
    sentence of `schema_fallbacks`, printed under them."""
    if not counts:
        return "## Structured replies\n\nNo structured replies recorded.\n" + (f"\n{fallbacks}" if fallbacks else "")
    shown = [o for o in ("parsed", "repaired", "refused", CUT, UNPARSED)
             if o != CUT or any(c.get(CUT) for c in counts)]  # the cut column once a reply was cut
    rows = ["| step | " + " | ".join(shown) + " | replies |", "|---|" + "---|" * (len(shown) + 1)]
    rows += ["| " + " | ".join([c["step"], *(str(c.get(o, 0)) for o in shown), str(c["replies"])]) + " |"
             for c in counts]
    return "## Structured replies\n\n" + NOTE + "\n\n" + "\n".join(rows) + "\n" + (f"\n{fallbacks}" if fallbacks else "")
