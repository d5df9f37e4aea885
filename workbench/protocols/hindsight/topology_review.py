"""A person reviews the automatic Basin / Ridge / Plateau coding and may override it, with a reason.

Seed 000 §VII Metric 3 codes convergence by hand; the workbench's topology step
codes it with a model (architectures/topology.py). A reviewer can confirm or
change that coding per (case, condition): the review is appended, never
edited, with who, when, the automatic pattern it replaces and why. The latest
review is the coding Table 2 and the topology comparison show, marked as
reviewed. Topology names conditions, so reviews need an unblinded study.
"""

from __future__ import annotations

PATTERNS = ("Basin", "Ridge", "Plateau")
MIN_REASON_WORDS = 5


class TopologyReviewError(ValueError):
    """A review that cannot be recorded; the message says why."""


def review_topology(db, study_id: str, case_id: str, condition: str, *, pattern: str, reason: str,
                    reviewer: str, switching_assumption: str | None = None) -> dict:
    """Record a reviewed coding; returns the stored review."""
    from store import topology_reviews
    from store.studies import get_study
    from store.topology import get_topology

    study = get_study(db, study_id)
    if study is None:
        raise TopologyReviewError(f"no study '{study_id}'")
    if not study.get("unblinded_at"):
        raise TopologyReviewError(f"study '{study_id}' is blinded: topology names conditions, so it is "
                                  "reviewed after unblinding")
    if pattern not in PATTERNS:
        raise TopologyReviewError(f"pattern must be one of {', '.join(PATTERNS)}, not '{pattern}'")
    if len((reason or "").split()) < MIN_REASON_WORDS:
        raise TopologyReviewError(f"a review needs its reason, in at least {MIN_REASON_WORDS} words")
    if not (reviewer or "").strip():
        raise TopologyReviewError("a review needs the reviewer's name")
    if pattern == "Ridge" and not (switching_assumption or "").strip():
        raise TopologyReviewError("a Ridge needs its switching assumption (seed 000 §VII Metric 3, step 4)")
    auto = get_topology(db, study_id, case_id, condition)
    if auto is None and not any(r["case_id"] == case_id and r["condition"] == condition
                                for r in _runs(db, study_id)):
        raise TopologyReviewError(f"study '{study_id}' has no runs of case '{case_id}' under {condition}")
    topology_reviews.add_review(db, study_id=study_id, case_id=case_id, condition=condition,
                                automatic_pattern=auto["pattern"] if auto else None, pattern=pattern,
                                switching_assumption=switching_assumption if pattern == "Ridge" else None,
                                reviewer=reviewer.strip(), reason=reason.strip())
    return topology_reviews.current_reviews(db, study_id)[(case_id, condition)]


def _runs(db, study_id: str) -> list[dict]:
    from store.runs import list_runs

    return list_runs(db, study_id)


def reviewed_topology(db, study_id: str) -> list[dict]:
    """Every topology coding of the study with its review applied: [{case_id, condition, pattern,
    switching_assumption, convergent_recommendation, automatic_pattern, review}] (review None when the
    automatic coding stands)."""
    from store import topology_reviews
    from store.topology import topology_for_study

    current = topology_reviews.current_reviews(db, study_id)
    out = []
    seen = set()
    for t in topology_for_study(db, study_id):
        key = (t["case_id"], t["condition"])
        seen.add(key)
        r = current.get(key)
        out.append({"case_id": t["case_id"], "condition": t["condition"],
                    "pattern": r["pattern"] if r else t["pattern"],
                    "switching_assumption": (r["switching_assumption"] if r else t["switching_assumption"]),
                    "convergent_recommendation": t["convergent_recommendation"],
                    "automatic_pattern": t["pattern"], "review": r})
    for key, r in current.items():
        if key not in seen:
            out.append({"case_id": key[0], "condition": key[1], "pattern": r["pattern"],
                        "switching_assumption": r["switching_assumption"], "convergent_recommendation": None,
                        "automatic_pattern": None, "review": r})
    return sorted(out, key=lambda t: (t["case_id"], t["condition"]))


def review_rows(db, study_id: str) -> list[dict]:
    """What a reviewer can code: every coding of `reviewed_topology`, then each case and condition that
    has runs but no coding yet (pattern None), in case and condition order."""
    rows = reviewed_topology(db, study_id)
    coded = {(r["case_id"], r["condition"]) for r in rows}
    for run in _runs(db, study_id):
        key = (run["case_id"], run["condition"])
        if key not in coded:
            coded.add(key)
            rows.append({"case_id": key[0], "condition": key[1], "pattern": None, "switching_assumption": None,
                         "convergent_recommendation": None, "automatic_pattern": None, "review": None})
    return sorted(rows, key=lambda t: (t["case_id"], t["condition"]))
