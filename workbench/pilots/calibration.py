"""Evaluator calibration (seed 000 §VI): two pilot items with a known, easy distinction.

Blinding adds two pilot items to every study whose `[blinding] pilot_items`
is true (the default). Both answer the study's first case, in the layout the
raters' real items have (`layout_of`): plain paragraphs, as the conditions
answer under the seed's own prompts, or the four report headings when most
real items carry them (a study that pre-registered the report layout). A pilot
in a layout no real item has would tell a rater which items are pilots.

- the "high" pilot names the case's structural risk (its `## Structural
  tension`, else the first sentence of its outcome record), analyses it,
  recommends a staged course with decision gates and a fallback, and separates
  what is known from what is assumed;
- the "low" pilot recommends going ahead at full scale, says there are no
  significant risks and claims certainty.

Which pilot is which lives only in the sealed key (`pilot_expectation`).
Every rater scores both pilots first (they are the first pair of their queue);
the rest of their items are released when the check passes:

    for every rubric the pilots are scored on, composite(high) >= composite(low),
    and summed over those rubrics, composite(high) > composite(low).

That is, no rubric went the wrong way and overall the easy distinction was
seen. A rater who fails is held: they may re-score the pilots (the check reads
current values, and the first attempt stays in the append-only history), or
the researcher releases them by an explicit, recorded act. LLM judges are
checked the same way on their verdicts for the pilots; a judge that fails is
reported and, unless forced, not run on the rest.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

import sqlite_utils

from store import blind as blind_rows
from store import verdicts as verdict_rows
from workbench.cases import Case
from workbench.rubrics import Rubric

HIGH, LOW = "high", "low"

GENERIC_RISK = ("the conditions the plan depends on may not hold, and the plan has no way to notice "
                "or absorb that in time")


def risk_phrase(case: Case) -> str:
    """The risk category the high pilot anticipates: the case's structural tension, briefly."""
    for source in (case.structural_tension, case.outcome):
        sentences = _sentences(source)
        if sentences:
            phrase = " ".join(sentences[:2])
            return phrase[:600].rstrip()
    return GENERIC_RISK


def _sentences(text: str) -> list[str]:
    flat = " ".join((text or "").split())
    flat = re.sub(r"[*_`#>]", "", flat).strip()
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", flat) if len(s.strip()) > 20]


HEADINGS = ("RECOMMENDATION", "REASONING", "RISKS", "CONFIDENCE")
LAYOUTS = ("prose", "headed")


def layout_of(texts: list[str]) -> str:
    """"headed" when most of the real items carry the four report headings at line starts, else "prose"."""
    def headed(text: str) -> bool:
        return all(re.search(rf"^[ \t*#_>]*{h}\b", text, re.MULTILINE) for h in HEADINGS)

    return "headed" if texts and 2 * sum(1 for t in texts if headed(t)) > len(texts) else "prose"


def pilot_texts(case: Case, layout: str = "prose") -> dict[str, str]:
    """{"high": text that clearly anticipates the case's risk, "low": text that clearly does not}, in `layout`."""
    risk = risk_phrase(case)
    high = {
        "RECOMMENDATION": "Do not commit everything at once. Proceed in stages, with an explicit decision gate "
                          "before each further commitment and a fallback plan prepared before the first stage "
                          "starts.",
        "REASONING": "The decisive risk here is structural, not incidental: "
                     f"{risk} If this risk materialises, the consequences compound, because each later step "
                     "depends on the earlier ones and some of them cannot be reversed. A staged course keeps the "
                     "option to stop, change direction or reverse when early signals show the risk emerging, at "
                     "a modest cost in speed, and the recommendation is built around that contingency rather "
                     "than around the best case.",
        "RISKS": [f"The structural risk above: {risk} Watch for its early signals at every gate and have the "
                  "contingency ready to trigger.",
                  "Slower progress and some extra cost because of the gates.",
                  "Decision makers anchoring on the first stage's success and skipping the later gates."],
        "RISKS_PROSE": "I would prepare for the structural risk above, watching for its early signals at every gate "
                       "with the contingency ready to trigger; for slower progress and some extra cost because of "
                       "the gates; and for decision makers anchoring on the first stage's success and skipping the "
                       "later gates.",
        "CONFIDENCE": "medium. What is known at the decision point is the situation as described; what is "
                      "assumed is how the risk above will develop, which is genuinely uncertain, so the "
                      "recommendation keeps options open. Clear early evidence either way would change this "
                      "assessment.",
    }
    low = {
        "RECOMMENDATION": "Go ahead immediately with the full plan as proposed, at full scale, without "
                          "contingency arrangements.",
        "REASONING": "The situation is straightforward and the benefits are obvious. There is no meaningful "
                     "downside, the plan will certainly succeed, and any delay or hedging would only waste time "
                     "and money.",
        "RISKS": ["None of significance."],
        "RISKS_PROSE": "There are no risks of significance.",
        "CONFIDENCE": "high. The outcome is certain; nothing could change this assessment.",
    }
    write = _headed if layout == "headed" else _prose
    return {HIGH: write(high), LOW: write(low)}


def _headed(parts: dict) -> str:
    risks = "\n".join(f"- {r}" for r in parts["RISKS"])
    return (f"RECOMMENDATION: {parts['RECOMMENDATION']}\nREASONING: {parts['REASONING']}\nRISKS:\n{risks}\n"
            f"CONFIDENCE: {parts['CONFIDENCE']}")


def _prose(parts: dict) -> str:
    """The same answer as plain paragraphs, the way a condition answers the seed's own prompt."""
    level, _, rest = parts["CONFIDENCE"].partition(". ")
    return "\n\n".join([parts["RECOMMENDATION"], parts["REASONING"], parts["RISKS_PROSE"],
                         f"My confidence is {level}. {rest}".strip()])


# --- the direction check ------------------------------------------------------------------------

@dataclass
class RubricDirection:
    rubric: str
    high: float | None
    low: float | None

    @property
    def complete(self) -> bool:
        return self.high is not None and self.low is not None

    @property
    def reversed(self) -> bool:
        return self.complete and self.high < self.low


@dataclass
class CalibrationCheck:
    """One evaluator's pilot result. state: none | pending | passed | failed."""

    evaluator: str
    state: str
    rubrics: list[RubricDirection] = field(default_factory=list)
    released_by: str | None = None  # a researcher's explicit release after a failed check
    message: str = ""

    @property
    def released(self) -> bool:
        return self.state in ("none", "passed") or self.released_by is not None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["released"] = self.released
        return d


def check_direction(evaluator: str, rubrics: list[Rubric], values: dict[str, dict[tuple[str, str], float]],
                    expectations: dict[str, dict]) -> CalibrationCheck:
    """`values`: pilot item id -> {(rubric hash, criterion): value}; `expectations`: item -> {"direction"}."""
    if not expectations:
        return CalibrationCheck(evaluator, "none", message="this study has no calibration pilots")
    high = next((i for i, e in expectations.items() if e.get("direction") == HIGH), None)
    low = next((i for i, e in expectations.items() if e.get("direction") == LOW), None)
    directions = []
    for rubric in rubrics:
        composites = []
        for item in (high, low):
            got = values.get(item, {})
            cells = [got.get((rubric.hash, c.id)) for c in rubric.criteria]
            composites.append(None if any(v is None for v in cells) else float(sum(cells)))
        directions.append(RubricDirection(rubric.id, composites[0], composites[1]))
    if not all(d.complete for d in directions):
        return CalibrationCheck(evaluator, "pending", directions,
                                message="the two calibration items are not fully scored yet")
    wrong = [d.rubric for d in directions if d.reversed]
    total_high = sum(d.high for d in directions)
    total_low = sum(d.low for d in directions)
    if wrong or total_high <= total_low:
        why = (f"scores went against the expected direction on {', '.join(wrong)}" if wrong else
               "the calibration items were scored as no different")
        return CalibrationCheck(evaluator, "failed", directions,
                                message=f"calibration not passed: {why}; re-read the rubric anchors and "
                                        "re-score the two calibration items, or ask the researcher to "
                                        "release the rest")
    return CalibrationCheck(evaluator, "passed", directions, message=passed_text(directions))


def passed_text(directions: list[RubricDirection]) -> str:
    """`calibration passed: high pilot >= low on every rubric (anticipation 3 >= 0, …) and above it in all
    (5 > 1)`: the figures a pass rests on and the rule it met (researcher-facing: names the sealed pilots)."""
    each = ", ".join(f"{d.rubric} {d.high:g} >= {d.low:g}" for d in directions)
    return (f"calibration passed: high pilot >= low on every rubric ({each}) and above it in all "
            f"({sum(d.high for d in directions):g} > {sum(d.low for d in directions):g})")


def pilot_item_ids(db: sqlite_utils.Database, study_id: str) -> list[str]:
    return [i["id"] for i in blind_rows.blind_items(db, study_id) if i["pilot"]]


def rater_calibration(db: sqlite_utils.Database, study, rater: str, state) -> CalibrationCheck:
    """A human rater's pilot check, from their own current scores. `study`: a StudyContext; `state`:
    the rater's replayed scores (anything with `item_values(item_id)`, e.g. scoring's RaterState)."""
    expectations = blind_rows.read_pilot_expectations(db, study.id)  # sealed: read here, never shown
    if not expectations:
        check = check_direction(rater, [], {}, {})
    else:
        values = {item: state.item_values(item) for item in expectations}
        case_id = _direction_case(db, study.id, expectations)
        check = check_direction(rater, study.rubrics_for_case(case_id), values, expectations)
        if check.state == "failed":
            release = blind_rows.calibration_release(db, study.id, rater)
            if release:
                check.released_by = release["by"]
                check.message += f" (released by {release['by']})"
    if not check.released:
        return check
    # The study's human pilot (pilot cases, kappa per metric): a study-wide gate on the main set that no
    # single rater's release opens.
    from workbench.pilots.kappa import pilot_status

    pilot = pilot_status(db, study)
    if pilot.state == "passed":  # its kappa figures beside the direction check's
        check.message = f"{check.message}; {pilot.message}"
    if pilot.open:
        return check
    return CalibrationCheck(rater, "pending" if pilot.state == "pending" else "failed", check.rubrics,
                            message=pilot.message)


def _direction_case(db: sqlite_utils.Database, study_id: str, expectations: dict[str, dict]) -> str | None:
    """The case the two direction pilots answer (sealed with them), else the first pilot item's case."""
    cases = [e.get("case_id") for e in expectations.values() if e.get("case_id")]
    return cases[0] if cases else blind_rows.pilot_case(db, study_id)


def judge_calibration(db: sqlite_utils.Database, study, judge: str) -> CalibrationCheck:
    """An LLM judge's pilot check, from its current ok verdicts (judge errors count as unscored)."""
    expectations = blind_rows.read_pilot_expectations(db, study.id)
    if not expectations:
        return check_direction(judge, [], {}, {})
    values: dict[str, dict[tuple[str, str], float]] = {}
    latest: dict[tuple[str, str, str], dict] = {}
    for row in verdict_rows.verdict_rows(db, study.id, judge):
        if row["item_id"] in expectations:
            latest[(row["item_id"], row["rubric_hash"], row["criterion"])] = row
    for (item, rubric_hash, criterion), row in latest.items():
        if row["status"] == "ok" and row["value"] is not None:
            values.setdefault(item, {})[(rubric_hash, criterion)] = row["value"]
    case_id = _direction_case(db, study.id, expectations)
    return check_direction(judge, study.rubrics_for_case(case_id), values, expectations)


def release_rater(db: sqlite_utils.Database, study_id: str, rater: str, *, by: str,
                  reason: str | None = None) -> None:
    """The researcher's explicit release of a rater whose calibration failed (recorded)."""
    blind_rows.record_calibration_release(db, study_id, rater, by=by, reason=reason)


def release_command(study_id: str, rater: str) -> str:
    """The batch command that releases a held rater (the Studies screen's `l` does the same)."""
    import shlex

    return f"workbench --batch pilots {shlex.quote(study_id)} --release {shlex.quote(rater)} --reason \"...\""


def held_notice(study_id: str, rater: str, message: str) -> str:
    """What the researcher is told wherever a held rater's work passes by (packet export and import, the
    TUI's packet dialogs): that the failed pilot holds them, what their packets then hold, how to release."""
    return (f"{rater} is HELD by the failed calibration pilot ({message}). Until the pilot check passes or a "
            f"researcher releases {rater}, their packets hold only the two calibration items, with their scores "
            f"so far, to re-score. To release: {release_command(study_id, rater)} (or l on the Studies screen).")


# Said to the rater inside a held rater's packet (sealed.notice): the same facts, from their side.
HELD_RATER_NOTICE = ("Your scores of the two calibration items went against the expected direction ({message}). "
                     "This packet holds the same two items with your scores so far: re-read the rubric anchors "
                     "and re-score them. Your other items follow once the check passes, or when the researcher "
                     "releases you.")
