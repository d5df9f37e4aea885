"""A blind review of a judge's verdicts: a researcher reads a sample and marks each right or corrects it.

The reviewer sees what the judge saw and said -- the item's text, the case's scenario and outcome, the
rubric criterion with its anchors, the verdict, its quote and reasoning -- and never the condition (the
review reads blind items only). A mark is an append-only row (`verdict_reviews`: who, when, why); the
verdict row is never changed, and the latest mark of a verdict holds. The sample is a seeded shuffle of the
judge's current ok verdicts on real items (planted items left out), so every reviewer pages the same order.

Whether a study's tables read the judge's original verdicts or the corrected ones is pre-registered
(`[quality] verdicts`, frozen); `corrections` gives the loader the corrected values.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass

import sqlite_utils

from store import metrics_data as md
from store import quality as rows
from store.blind import blind_item
from workbench.evaluators.settings import quality_of

RIGHT, CORRECTED = "right", "corrected"


class ReviewError(Exception):
    """A review mark that cannot be recorded; the message says why."""


@dataclass
class ReviewUnit:
    verdict_id: int
    judge: str
    item_id: str
    case_title: str
    scenario: str
    outcome: str | None
    response: str
    rubric_id: str
    rubric_name: str
    criterion: str
    criterion_name: str
    question: str
    anchors: list[dict]
    low: int
    high: int
    value: float
    quote: str
    reasoning: str
    mark: str | None = None          # the latest review: right | corrected | None
    corrected: float | None = None
    reason: str | None = None
    by: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class ReviewAgreement:
    judge: str
    reviewed: int
    right: int
    corrected: int
    agreement: float | None          # share of reviewed verdicts the review kept (marked right)
    mean_abs_correction: float | None

    def to_dict(self) -> dict:
        return asdict(self)


def sample(db: sqlite_utils.Database, study, judge: str, n: int | None = None) -> list[ReviewUnit]:
    """The first `n` verdicts of the judge's review order (all with n None), with their latest marks.
    `study`: the study's blind-evaluation context (`blinding.context.load_study`): its frozen rubrics and
    cases, what the judge read."""
    study_id = study.id
    if judge not in {j.get("name") for j in study.judges}:
        raise ReviewError(f"'{judge}' is not a judge of study '{study_id}'")
    planted = rows.planted_kinds(db, study_id)
    current = [v for v in md.current_verdicts(db, study_id)
               if v["judge"] == judge and v["status"] == "ok" and v["item_id"] not in planted]
    current.sort(key=lambda v: v["id"])
    random.Random(f"{int(study.blinding.get('seed') or 0)}:review:{judge}").shuffle(current)
    marks = _latest_marks(db, study_id, judge)
    items = {}
    out = []
    for v in current[:n] if n is not None else current:
        row = rows.verdict_for_review(db, v["id"])
        if v["item_id"] not in items:
            items[v["item_id"]] = blind_item(db, v["item_id"])
        item = items[v["item_id"]]
        rubric = study.rubric_by_hash(v["rubric_hash"])
        crit = next((c for c in rubric.criteria if c.id == v["criterion"]), None) if rubric else None
        case = study.cases.get(item["case_id"])
        mark = marks.get(v["id"])
        out.append(ReviewUnit(
            verdict_id=v["id"], judge=judge, item_id=v["item_id"], case_title=case.title if case else "",
            scenario=case.scenario if case else "", outcome=(case.outcome if case else "") if study.shows_outcome else None,
            response=item["text"], rubric_id=rubric.id if rubric else "?", rubric_name=rubric.name if rubric else "?",
            criterion=v["criterion"], criterion_name=crit.name if crit else v["criterion"],
            question=crit.question if crit else "", anchors=[{"score": a.score, "label": a.label, "text": a.text}
                                                             for a in (crit.anchors if crit else [])],
            low=crit.min if crit else 0, high=crit.max if crit else 0, value=v["value"],
            quote=str((row["detail"] or {}).get("quote") or ""), reasoning=row["justification"] or "",
            mark=mark["mark"] if mark else None, corrected=mark["corrected"] if mark else None,
            reason=mark["reason"] if mark else None, by=mark["by"] if mark else None))
    return out


def mark(db: sqlite_utils.Database, study, verdict_id: int, *, right: bool, corrected: int | None = None,
         reason: str | None = None, by: str) -> dict:
    """Record a review of one verdict: right, or a corrected score with a reason (`study` as for `sample`)."""
    study_id = study.id
    if not (by or "").strip():
        raise ReviewError("a review needs the reviewer's name")
    verdict = rows.verdict_for_review(db, verdict_id)
    if verdict is None or verdict["study_id"] != study_id:
        raise ReviewError(f"verdict {verdict_id} is not a verdict of study '{study_id}'")
    if verdict["status"] != "ok":
        raise ReviewError(f"verdict {verdict_id} is a judge error: there is no score to review")
    if not right:
        rubric = study.rubric_by_hash(verdict["rubric_hash"])
        crit = next((c for c in rubric.criteria if c.id == verdict["criterion"]), None) if rubric else None
        if corrected is None or crit is None or not crit.min <= corrected <= crit.max:
            span = f"{crit.min}..{crit.max}" if crit else "the criterion's range"
            raise ReviewError(f"a correction needs a whole score in {span} (got {corrected!r})")
        if not (reason or "").strip():
            raise ReviewError("a correction needs a reason (kept with it)")
    row = {"study_id": study_id, "verdict_id": verdict_id, "judge": verdict["judge"], "item_id": verdict["item_id"],
           "rubric_hash": verdict["rubric_hash"], "criterion": verdict["criterion"], "original": verdict["value"],
           "mark": RIGHT if right else CORRECTED, "corrected": None if right else float(corrected),
           "reason": (reason or "").strip() or None, "by": by.strip()}
    row["id"] = rows.add_review(db, row)
    return row


def _latest_marks(db: sqlite_utils.Database, study_id: str, judge: str | None = None) -> dict[int, dict]:
    return {r["verdict_id"]: r for r in rows.reviews(db, study_id, judge)}


def agreement(db: sqlite_utils.Database, study_id: str, judge: str) -> ReviewAgreement:
    """The judge's agreement with the review: the share of reviewed verdicts marked right."""
    latest = list(_latest_marks(db, study_id, judge).values())
    right = sum(r["mark"] == RIGHT for r in latest)
    diffs = [abs(r["corrected"] - r["original"]) for r in latest if r["mark"] == CORRECTED]
    n = len(latest)
    return ReviewAgreement(judge, n, right, n - right, right / n if n else None,
                           sum(diffs) / len(diffs) if diffs else None)


def corrections(db: sqlite_utils.Database, study_id: str, definition: dict) -> dict[int, float]:
    """verdict row id -> the value the tables read instead, when the study pre-registered corrected verdicts
    (empty otherwise: the tables read the originals)."""
    if quality_of(definition)["verdicts"] != CORRECTED:
        return {}
    return {vid: r["corrected"] for vid, r in _latest_marks(db, study_id).items() if r["mark"] == CORRECTED}


def unit_text(u: ReviewUnit) -> str:
    """One verdict as a reviewer reads it (the batch listing and the review screen)."""
    said = {None: "not reviewed", RIGHT: "marked right", CORRECTED: "corrected"}[u.mark]
    if u.mark == CORRECTED:
        said += f" to {u.corrected:g} by {u.by}: {u.reason}"
    elif u.mark == RIGHT:
        said += f" by {u.by}"
    return (f"verdict {u.verdict_id}  item {u.item_id}  {u.rubric_name} / {u.criterion_name} "
            f"({u.low}..{u.high}): {u.value:g}  [{said}]\n"
            f"  quote: {u.quote or '—'}\n  reasoning: {u.reasoning or '—'}")


def review_text(units: list[ReviewUnit], agreed: ReviewAgreement) -> str:
    head = (f"{agreed.judge}: {agreed.reviewed} reviewed, {agreed.right} right, {agreed.corrected} corrected"
            + (f"; agreement {agreed.agreement:.2f}" if agreed.agreement is not None else ""))
    return "\n\n".join([head, *(unit_text(u) for u in units)])
