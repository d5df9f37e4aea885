"""One study's evaluator quality as plain data (`study_quality`): what the Studies screen's evaluator panel,
`evaluators qc` (text and --json) and the study report all show (`report.py` writes it as text).

`StudyQuality.rows()` is the one table: per evaluator, the figures formatted once (`share`), and the
decision (excluded / kept, by which rule or override). While no decision is recorded, the decision column
says what the rules would decide now (`would exclude`), and nothing leaves the tables yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlite_utils

from store import metrics_data as md
from store import blind as blind_rows
from store import quality as rows
from workbench.evaluators.quality import HUMAN, JUDGE, EvaluatorQuality, Evaluations, evaluator_quality
from workbench.evaluators.review import ReviewAgreement, agreement
from workbench.evaluators.settings import OVERRIDE, fired, parse_rule, quality_of

# The headings of the one table, in order.
COLUMNS = ("evaluator", "kind", "decision", "gold exact", "gold ±1", "attention", "median s", "under floor",
           "longest run", "modal share", "LOO rho", "drift")


def share(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f}"


@dataclass
class StudyQuality:
    study_id: str
    settings: dict
    rules: list[str]
    planted: dict[str, int]                       # gold / attention -> how many items
    planted_sources: list[str]                    # the gold file's items or built items (never which id)
    evaluators: list[EvaluatorQuality]
    decisions: dict[str, dict] = field(default_factory=dict)   # evaluator -> latest recorded decision
    reviews: list[ReviewAgreement] = field(default_factory=list)
    unblinded: bool = False
    simulated: dict[str, str] | None = None       # a `sim` study: rater -> planted quality (SIMULATED raters)
    lengths: dict = field(default_factory=dict)   # the length band check (`length_band`)
    gold_left_out: list[dict] = field(default_factory=list)   # gold file items outside the band, never planted

    @property
    def recorded(self) -> bool:
        return bool(self.decisions)

    def decision(self, q: EvaluatorQuality) -> tuple[str, list[str], str | None]:
        """(decision word, the rules behind it, the override's reason) for one evaluator."""
        d = self.decisions.get(q.evaluator)
        if d is not None:
            word = "EXCLUDED" if d["excluded"] else "kept"
            if d["act"] == OVERRIDE:
                word += " (override)"
            return word, d["rules"], d.get("reason")
        hit = fired([parse_rule(r) for r in self.rules], q)
        return ("would exclude" if hit else "kept (provisional)") if self.rules else "kept", hit, None

    def rows(self) -> list[list[str]]:
        """The table every view prints: one row per evaluator, the columns of COLUMNS."""
        out = []
        for q in self.evaluators:
            attention = (f"{q.attention_passed}/{q.attention_items}" if q.attention_items else "—")
            out.append([q.evaluator, "rater" if q.kind == HUMAN else "judge", self.decision(q)[0], share(q.gold_exact),
                        share(q.gold_within_one), attention,
                        "—" if q.median_seconds is None else f"{q.median_seconds:.1f}", share(q.under_floor),
                        "—" if q.longest_run is None else str(q.longest_run), share(q.modal_share),
                        share(q.loo_agreement), "—" if q.drift is None else f"{q.drift:+.2f}"])
        return out

    def deviations(self) -> list[str]:
        """Every override, as the report prints it."""
        return [f"{name}: {'excluded' if d['excluded'] else 'kept'} by {d['by']} against the pre-registered rules "
                f"({d['at']}): {d['reason']}" for name, d in self.decisions.items() if d["act"] == OVERRIDE]

    def to_dict(self) -> dict:
        evaluators = []
        for q in self.evaluators:
            word, rules, reason = self.decision(q)
            evaluators.append({**q.to_dict(), "decision": word, "rules_fired": rules, "override_reason": reason})
        return {"study": self.study_id, "settings": {k: v for k, v in self.settings.items() if k != "gold_items"},
                "rules": self.rules, "planted": self.planted, "planted_sources": self.planted_sources,
                "decisions_recorded": self.recorded, "evaluators": evaluators,
                "reviews": [r.to_dict() for r in self.reviews], "deviations": self.deviations(),
                "lengths": self.lengths, "gold_left_out": self.gold_left_out, "simulated": self.simulated is not None, "planted_quality": self.simulated or {},
                "columns": list(COLUMNS), "rows": self.rows()}


def load_definition(db: sqlite_utils.Database, study_id: str) -> tuple[dict, bool]:
    header = md.study_header(db, study_id)
    if header is None:
        raise KeyError(f"no study '{study_id}' in the store")
    return header["definition"], header["unblinded_at"] is not None


def study_quality(db: sqlite_utils.Database, study_id: str) -> StudyQuality:
    """Every evaluator's quality in `study_id`, the decisions recorded, the judges' review agreement."""
    definition, unblinded = load_definition(db, study_id)
    settings = quality_of(definition)
    planted = rows.planted(db, study_id)
    evals = evaluations(db, study_id, definition)
    counts = {"gold": 0, "attention": 0}
    for p in planted.values():
        counts[p["kind"]] += 1
    judges = [e.evaluator for e in evals if e.kind == JUDGE]
    return StudyQuality(
        study_id=study_id, settings=settings, rules=list(settings["exclude_if"]), planted=counts,
        planted_sources=sorted(p["source"] for p in planted.values() if p["kind"] == "gold"),
        evaluators=evaluator_quality(evals, planted, float(settings["time_floor_seconds"])),
        decisions=latest_decisions(db, study_id),
        reviews=[a for a in (agreement(db, study_id, j) for j in judges) if a.reviewed], unblinded=unblinded,
        simulated=_planted_quality(definition), lengths=length_band(db, study_id, planted),
        gold_left_out=gold_left_out(db, study_id, definition, settings, planted))


def _item_lengths(db: sqlite_utils.Database, study_id: str, planted: dict) -> tuple[list[int], list[int]]:
    """(the real items' lengths, the planted items'), pilots aside."""
    from store.blind import blind_items

    real, mine = [], []
    for item in blind_items(db, study_id):
        if not item["pilot"]:
            (mine if item["id"] in planted else real).append(len(item["text"]))
    return real, mine


def length_band(db: sqlite_utils.Database, study_id: str, planted: dict) -> dict:
    """Planted items must read like the real ones, length included: the real items' length range (characters)
    and the planted items outside it, counted (never which)."""
    real, mine = _item_lengths(db, study_id, planted)
    if not real or not mine:
        return {}
    lo, hi = min(real), max(real)
    return {"real": [lo, hi], "planted": [min(mine), max(mine)],
            "outside": sum(not lo <= n <= hi for n in mine)}


def gold_left_out(db: sqlite_utils.Database, study_id: str, definition: dict, settings: dict,
                  planted: dict) -> list[dict]:
    """The gold file's items left out of the draw because the real items' length band does not hold them
    (`planting.py`): by name (a gold file's names are the researcher's, never shown to an evaluator)."""
    from workbench.evaluators.gold import outside_band
    from workbench.simmodel.label import is_simulated

    real, _ = _item_lengths(db, study_id, planted)
    if not settings.get("gold_items") or not real:
        return []
    drawn = {p["source"] for p in planted.values()}
    return [o for o in outside_band(settings["gold_items"], (min(real), max(real)), is_simulated(definition))
            if o["name"] not in drawn]


def _planted_quality(definition: dict) -> dict[str, str] | None:
    """On a `sim` study, each simulated rater's planted quality (None on a real study)."""
    from workbench.simmodel.label import is_simulated
    from workbench.simmodel.params import params_of

    if not is_simulated(definition):
        return None
    return dict(params_of(definition).get("rater_quality") or {})


def evaluations(db: sqlite_utils.Database, study_id: str, definition: dict) -> list[Evaluations]:
    """Every rater's and judge's current values (all items, planted ones included), order and seconds."""
    scores = md.current_scores(db, study_id)
    verdicts = [v for v in md.current_verdicts(db, study_id) if v["status"] == "ok" and v["value"] is not None]
    rubric_ids = {h: r["rubric_id"] for h, r in md.rubric_definitions(
        db, [r["rubric_hash"] for r in scores] + [v["rubric_hash"] for v in verdicts]).items()}
    named_raters = list(definition.get("raters") or [])
    named_judges = [j.get("name") for j in definition.get("judges") or [] if j.get("name")]
    out: dict[tuple[str, str], Evaluations] = {}
    for name in named_raters:
        out[(HUMAN, name)] = Evaluations(name, HUMAN)
    for name in named_judges:
        out[(JUDGE, name)] = Evaluations(name, JUDGE)
    for r in scores:
        e = out.setdefault((HUMAN, r["rater"]), Evaluations(r["rater"], HUMAN))
        e.values[(r["item_id"], rubric_ids.get(r["rubric_hash"], r["rubric_hash"]), r["criterion"])] = float(r["value"])
    for (rater, item), position in rows.queue_positions(db, study_id).items():
        if (HUMAN, rater) in out:
            out[(HUMAN, rater)].order[item] = position
    for t in rows.score_timings(db, study_id):
        e = out.get((HUMAN, t["rater"]))
        if e is not None and t["seconds"] is not None:
            e.seconds[t["item_id"]] = float(t["seconds"])  # rows in order written: the last save wins
    for v in verdicts:
        e = out.setdefault((JUDGE, v["judge"]), Evaluations(v["judge"], JUDGE))
        e.values[(v["item_id"], rubric_ids.get(v["rubric_hash"], v["rubric_hash"]), v["criterion"])] = float(v["value"])
    judged = [e for (kind, _), e in out.items() if kind == JUDGE and e.values]
    if judged:
        items = blind_rows.blind_items(db, study_id)
        for e in judged:
            e.order = judge_order(items, int((definition.get("blinding") or {}).get("seed") or 0), e.evaluator)
    return list(out.values())


def judge_order(items: list[dict], seed: int, judge: str) -> dict[str, int]:
    """A judge's order over the study's blind items, drawn from the study's blinding seed and each item's content
    (its case and scrubbed text), so every store gives one study's judge one order (issue 42). A judge meets no
    items in an order of its own: its calls run at once, and its verdict rows land in the order they finish,
    which differs from run to run; 'longest run' and 'drift' followed that order and moved with it."""
    import hashlib

    def draw(item: dict) -> str:
        return hashlib.sha256(f"{seed}:{judge}:{item['case_id']}\0{item['text']}".encode("utf-8")).hexdigest()

    return {item["id"]: rank for rank, item in enumerate(sorted(items, key=lambda i: (draw(i), i["id"])))}


def latest_decisions(db: sqlite_utils.Database, study_id: str) -> dict[str, dict]:
    """evaluator -> their latest decision row."""
    return {r["evaluator"]: r for r in rows.decisions(db, study_id)}
