"""Parse counts per structured step: each reply recorded as it is read, and the one definition of the
counts that `metrics` (text and --json) and the report print.

A reply is one model answer: a retry after an unusable reply is a second reply, counted too. A resumed run's
replayed reply replaces its own row (same key), so a resume never counts twice.
"""

from __future__ import annotations

from datetime import datetime, timezone

import sqlite_utils

from workbench.structured.cut import ASKED_AGAIN
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
    "unparsed_share"}, and where a reply was cut, "cut_asked_again": how many of the cut were asked again with a
    larger max_tokens (workbench/structured/cut.py; the rest had no room left in the window or no attempt)."""
    from store.structured_replies import outcome_counts, outcome_detail_counts

    steps: dict[str, dict] = {}
    for row in outcome_counts(db, study_id):
        entry = steps.setdefault(row["step"], {"step": row["step"], **{o: 0 for o in OUTCOMES}})
        entry[row["outcome"]] = entry.get(row["outcome"], 0) + row["n"]
    asked = outcome_detail_counts(db, study_id, CUT, ASKED_AGAIN) if any(e[CUT] for e in steps.values()) else {}
    out = []
    for step in sorted(steps):
        entry = steps[step]
        entry["replies"] = sum(entry[o] for o in OUTCOMES)
        entry["unparsed_share"] = round(entry[UNPARSED] / entry["replies"], 4) if entry["replies"] else None
        if entry[CUT]:
            entry["cut_asked_again"] = asked.get(step, 0)
        out.append(entry)
    return out


def cut_text(counts: list[dict]) -> str:
    """`structured replies cut at max_tokens: 3 (2 asked again with a larger max_tokens)`, or "" when none was:
    the run's counts and the report's sentence under the table."""
    cut = sum(c.get(CUT, 0) for c in counts)
    if not cut:
        return ""
    asked = sum(c.get("cut_asked_again", 0) for c in counts)
    steps = ", ".join(f"{c['step']} {c[CUT]}" for c in counts if c.get(CUT))
    return (f"structured replies cut at max_tokens: {cut} ({steps}); {asked} asked again with a larger max_tokens"
            + (f", {cut - asked} with no room left in the model's window or no attempt left" if cut > asked else ""))


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
    cut = cut_text(counts)
    cut = f"\n{cut[0].upper()}{cut[1:]}.\n" if cut else ""   # what the cut replies' retries changed
    return ("## Structured replies\n\n" + NOTE + "\n\n" + "\n".join(rows) + "\n" + cut
            + (f"\n{fallbacks}" if fallbacks else ""))
