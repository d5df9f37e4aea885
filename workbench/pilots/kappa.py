"""The human pilot (seed 000 §VI, §X Phase 3): two pilot *cases* scored by every rater before the
main set, inter-rater kappa per metric against the pre-registered targets, and refinement rounds.

A hindsight study names its pilot cases (`[hindsight] pilot_cases`); blinding
makes their items pilots, so every rater gets them first (with the two
direction pilots of calibration.py). Once every rater has scored every
pilot-case item under the current rubric versions, the pilot kappa of every
rubric the pilot cases are scored on is computed and held to 0.70 (seed 000
§VI: "refine rubrics if kappa < 0.70", for every rubric; a study's stricter
`kappa_<rubric>` threshold applies instead, a laxer one, such as §VII's 0.65
inter-rater target for Epistemic Humility, does not), on the composites: Cohen's
unweighted kappa on the rubric's full scale, the mean over rater pairs
(Light's kappa) with more than two raters. The main set opens only when every
such kappa reaches its target. Below target the researcher refines the rubric:
a new rubric version, recorded with its reason (`refine_rubric`), and the
pilot is re-scored under it — a new round. Each round's result is recorded.
An undefined kappa (one category throughout, too few items) does not reach a
target: it is reported with its reason.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from itertools import combinations


class PilotError(ValueError):
    """A refinement that cannot be recorded; the message says why."""


@dataclass
class MetricKappa:
    rubric: str
    target: float
    kappa: float | None
    n_items: int
    passed: bool
    reason: str = ""


@dataclass
class PilotStatus:
    """state: none (no pilot cases) | pending (not every rater has scored them) | passed | failed."""

    state: str
    round: int = 1
    metrics: list[MetricKappa] = field(default_factory=list)
    waiting_for: list[str] = field(default_factory=list)
    message: str = ""

    @property
    def open(self) -> bool:
        return self.state in ("none", "passed")

    def to_dict(self) -> dict:
        return {**asdict(self), "open": self.open}


def pilot_cases(study) -> list[str]:
    return list((study.definition.get("hindsight") or {}).get("pilot_cases") or [])


PILOT_KAPPA = 0.70  # seed 000 §VI: below it the rubric is refined


def targets(study, rubric_ids) -> dict[str, float]:
    """rubric id -> the pilot's kappa target for each of `rubric_ids`: 0.70, or the study's stricter
    `kappa_<rubric>` threshold."""
    stated = {key[len("kappa_"):].replace("_", "-"): float(value)
              for key, value in (study.definition.get("thresholds") or {}).items() if key.startswith("kappa_")}
    return {rid: max(PILOT_KAPPA, stated.get(rid, PILOT_KAPPA)) for rid in rubric_ids}


def pilot_status(db, study) -> PilotStatus:
    """Where the study's human pilot stands. `study`: a blinding StudyContext."""
    from store import blind as blind_rows
    from store.metrics_data import current_scores
    from store.pilots import rounds

    cases = pilot_cases(study)
    if not cases:
        return PilotStatus("none", message="this study has no pilot cases")
    round_no = len(rounds(db, study.id)) + 1
    expectations = blind_rows.read_pilot_expectations(db, study.id)
    items = [i for i in blind_rows.blind_items(db, study.id)
             if i["pilot"] and i["case_id"] in cases and i["id"] not in expectations]
    if not items:
        return PilotStatus("pending", round_no, message="the pilot cases have no blinded items yet")
    rubrics = {}
    for case in cases:
        for r in study.rubrics_for_case(case):
            rubrics[r.id] = r
    wanted = targets(study, sorted(rubrics))
    values: dict[tuple[str, str, str], dict[str, float]] = {}
    for row in current_scores(db, study.id):
        values.setdefault((row["rater"], row["item_id"], row["rubric_hash"]), {})[row["criterion"]] = row["value"]
    composites: dict[str, dict[str, dict[str, float]]] = {rid: {} for rid in wanted}  # rubric -> rater -> item
    waiting = set()
    for rater in study.rater_names:
        for item in items:
            for rid in wanted:
                r = rubrics[rid]
                cells = values.get((rater, item["id"], r.hash), {})
                if any(c.id not in cells for c in r.criteria):
                    waiting.add(rater)
                    continue
                composites[rid].setdefault(rater, {})[item["id"]] = sum(cells[c.id] for c in r.criteria)
    if waiting:
        return PilotStatus("pending", round_no, waiting_for=sorted(waiting),
                           message=f"waiting for {', '.join(sorted(waiting))} to score the pilot cases "
                                   f"(round {round_no}); the main set opens after the pilot kappa")
    results = [_kappa(rid, rubrics[rid], target, composites[rid], [i["id"] for i in items])
               for rid, target in sorted(wanted.items())]
    passed = all(m.passed for m in results)
    short = [f"{m.rubric} {'undefined' if m.kappa is None else f'{m.kappa:.2f}'} < {m.target:.2f}"
             for m in results if not m.passed]
    reached = "; ".join(f"{m.rubric} kappa {m.kappa:.2f} >= {m.target:.2f} (n {m.n_items})" for m in results
                        if m.passed)
    message = (f"pilot round {round_no} passed ({reached}): the main set is open" if passed else
               f"pilot round {round_no}: kappa below target ({'; '.join(short)}); the researcher refines the "
               "rubric and the pilot is re-scored before the main set opens")
    return PilotStatus("passed" if passed else "failed", round_no, results, message=message)


def _kappa(rid: str, rubric, target: float, by_rater: dict[str, dict[str, float]], items: list[str]) -> MetricKappa:
    from workbench.metrics.agreement import cohens_kappa

    scale = list(range(sum(c.min for c in rubric.criteria), sum(c.max for c in rubric.criteria) + 1))
    raters = sorted(by_rater)
    if len(raters) < 2:
        return MetricKappa(rid, target, None, len(items), False, "fewer than two raters")
    values, reasons = [], []
    for a, b in combinations(raters, 2):
        est = cohens_kappa([by_rater[a][i] for i in items], [by_rater[b][i] for i in items], categories=scale)
        if est.value is None:
            reasons.append(est.undefined_reason)
        else:
            values.append(est.value)
    if reasons:
        return MetricKappa(rid, target, None, len(items), False, f"kappa is undefined: {reasons[0]}")
    kappa = sum(values) / len(values)
    return MetricKappa(rid, target, kappa, len(items), kappa >= target)


def record_round(db, study) -> PilotStatus:
    """Close the current round with its result (before a refinement opens the next one)."""
    from store.pilots import add_round

    status = pilot_status(db, study)
    if status.state not in ("passed", "failed"):
        raise PilotError(f"the pilot round cannot be recorded yet: {status.message}")
    add_round(db, study_id=study.id, round_no=status.round,
              rubric_hashes={r.id: r.hash for case in pilot_cases(study) for r in study.rubrics_for_case(case)},
              results=[asdict(m) for m in status.metrics], passed=status.state == "passed")
    return status


def refine_rubric(db, study, rubric_text: str, *, reason: str, by: str, source: str = "") -> dict:
    """Below target: store a new version of one of the study's rubrics, recorded with its reason, and close
    the round; the raters re-score the pilot under the new version (their pilot items are incomplete again)."""
    from store.pilots import add_refinement
    from store.rubrics import add_rubric_version
    from workbench.rubrics import parse_rubric

    status = pilot_status(db, study)
    if status.state != "failed":
        raise PilotError(f"a rubric is refined only after a pilot round below target ({status.message})")
    if len((reason or "").split()) < 5 or not (by or "").strip():
        raise PilotError("a refinement needs who made it and its reason, in at least 5 words")
    new = parse_rubric(rubric_text, source or "<refined rubric>")
    old = study.rubrics.get(new.id)
    if old is None:
        raise PilotError(f"rubric '{new.id}' is not one of the study's rubrics")
    if old.hash == new.hash:
        raise PilotError(f"rubric '{new.id}' is unchanged: a refinement is a new version")
    record_round(db, study)
    add_rubric_version(db, hash=new.hash, rubric_id=new.id, name=new.name, text=new.text,
                       definition=new.definition(), source_path=source or None)
    add_refinement(db, study_id=study.id, rubric_id=new.id, old_hash=old.hash, new_hash=new.hash,
                   reason=reason.strip(), by=by.strip())
    return {"rubric": new.id, "old_hash": old.hash, "new_hash": new.hash, "round_closed": status.round}
