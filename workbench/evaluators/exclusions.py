"""Pre-registered exclusion rules (`[quality] exclude_if`), applied before unblinding and recorded.

`apply_rules` computes every evaluator's quality and records, per evaluator, whether a rule fires (the
rules that fired and the figures read are kept with the row). It is refused once the study is unblinded:
the decisions stand as they were when the key was opened. The unblinding applies them itself
(`scoring/unblind.py`), so a study with rules is never unblinded without its decisions. A researcher may
override a decision with a recorded reason (`override`); the report prints every override as a deviation.
A later `apply_rules` leaves an overridden evaluator as the override put them.

The ratings loader (`workbench/metrics/ratings.py`) reads the recorded decisions (`excluded`): an excluded
evaluator's scores or verdicts leave every protocol's tables.
"""

from __future__ import annotations

import sqlite_utils

from store import quality as rows
from workbench.evaluators.settings import OVERRIDE, RULES, fired, rules_of
from workbench.evaluators.study import latest_decisions, load_definition, study_quality


class ExclusionError(Exception):
    """An exclusion act that cannot be done; the message says why."""


def apply_rules(db: sqlite_utils.Database, study_id: str, *, by: str) -> list[dict]:
    """Record the rules' decision for every evaluator not overridden; returns the rows written."""
    definition, unblinded = load_definition(db, study_id)
    if unblinded:
        raise ExclusionError(f"study '{study_id}' is unblinded: its exclusion decisions were taken before the "
                             "key was opened and stand; a change now is an override with a reason")
    rules = rules_of(definition)
    latest = latest_decisions(db, study_id)
    out = []
    for q in study_quality(db, study_id).evaluators:
        if latest.get(q.evaluator, {}).get("act") == OVERRIDE:
            continue
        hit = fired(rules, q)
        out.append({"evaluator": q.evaluator, "kind": q.kind, "excluded": bool(hit), "rules": hit,
                    "quality": q.to_dict(), "act": RULES, "by": by})
    rows.add_decisions(db, study_id, out)
    return out


def override(db: sqlite_utils.Database, study_id: str, evaluator: str, *, exclude: bool, reason: str,
             by: str) -> dict:
    """A researcher's recorded decision against (or beside) the rules: a deviation, printed as one."""
    if not (reason or "").strip():
        raise ExclusionError("an override needs a reason (it is printed in the report as a deviation)")
    known = {q.evaluator: q for q in study_quality(db, study_id).evaluators}
    if evaluator not in known:
        raise ExclusionError(f"'{evaluator}' is not an evaluator of study '{study_id}' "
                             f"(evaluators: {', '.join(known) or 'none'})")
    row = {"evaluator": evaluator, "kind": known[evaluator].kind, "excluded": exclude, "rules": [],
           "quality": known[evaluator].to_dict(), "act": OVERRIDE, "reason": reason.strip(), "by": by}
    rows.add_decisions(db, study_id, [row])
    return row


def excluded(db: sqlite_utils.Database, study_id: str) -> dict[str, str]:
    """evaluator -> kind, for every evaluator a recorded decision excludes (what the tables leave out)."""
    return rows.excluded_evaluators(db, study_id)
